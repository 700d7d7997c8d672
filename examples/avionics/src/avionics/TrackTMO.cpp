// avionics/TrackTMO.cpp — method bodies of TMO TrackTMO (avionics.tmo).
#include "avionics/TrackTMO.hpp"

#include <algorithm>

namespace avionics {

void TrackTMO::fuse(FuseAccess ods, FuseChannels channels) {
  // Stand-in for sensor fusion: keep a fixed picture of tracks moving on straight lines, most
  // threatening first, so that tracks() serves them in order. Navigation's newest state, from
  // the `track` channel, says how far own ship has moved since the last fix: the picture is
  // kept relative to it.
  ::kairos::channel::Sample<NavState> fix;
  if (channels.track.latest(fix)) {
    if (fixes_ > 0) {
      for (auto& track : ods.picture.tracks) {
        track.lat -= fix.value.lat - last_fix_.lat;
        track.lon -= fix.value.lon - last_fix_.lon;
      }
    }
    last_fix_ = fix.value;
    ++fixes_;
  }
  auto& tracks = ods.picture.tracks;
  if (tracks.size() == 0) {
    for (::std::uint32_t id = 1; id <= 4; ++id) {
      tracks.push_back(Track{id, 47.0 + id * 0.01, 8.0 - id * 0.01, 0.1F * static_cast<float>(id)});
    }
  }
  for (auto& track : tracks) {
    track.lat += 0.0001;
    track.lon -= 0.0001;
  }
  ::std::sort(tracks.begin(), tracks.end(),
              [](const Track& a, const Track& b) { return a.threat > b.threat; });
}

void TrackTMO::rank(RankAccess ods) {
  // `uses picture read, ownship read`: rank only looks (sorting the picture here would not
  // compile). It counts the tracks threatening enough to cue the weapons, and those within a
  // degree of own ship as navigation last reported it.
  threats_ = static_cast<::std::uint32_t>(
      ::std::count_if(ods.picture.tracks.begin(), ods.picture.tracks.end(),
                      [](const Track& track) { return track.threat >= 0.3F; }));
  const NavState& own = ods.ownship.nav;
  close_ = static_cast<::std::uint32_t>(
      ::std::count_if(ods.picture.tracks.begin(), ods.picture.tracks.end(), [&](const Track& t) {
        return (t.lat - own.lat) * (t.lat - own.lat) + (t.lon - own.lon) * (t.lon - own.lon) < 1.0;
      }));
}

void TrackTMO::locate(LocateAccess ods, LocateGates gates) {
  // Asks mission1's navigation where own ship is (within 12 ms); keeps the last fix otherwise.
  const auto fix = gates.navigation.current();
  if (fix.ok()) {
    ods.ownship.nav = fix.value();
  }
}

::kairos::BoundedSequence<::avionics::Track, 8> TrackTMO::tracks(TracksAccess ods) {
  return ods.picture.tracks;
}

}  // namespace avionics
