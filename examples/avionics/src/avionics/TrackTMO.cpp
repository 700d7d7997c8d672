// avionics/TrackTMO.cpp — method bodies of TMO TrackTMO (avionics.tmo).
#include "avionics/TrackTMO.hpp"

#include <algorithm>

namespace avionics {

void TrackTMO::fuse(FuseAccess ods) {
  // Stand-in for sensor fusion: keep a fixed picture of tracks moving on straight lines, most
  // threatening first, so that tracks() serves them in order. A track's threat grows as it
  // comes near own position, asked of mission1's navigation through the gate (within 12 ms).
  auto& tracks = ods.picture.tracks;
  const auto own = gates_.navigation.current();
  if (tracks.size() == 0) {
    for (::std::uint32_t id = 1; id <= 4; ++id) {
      tracks.push_back(Track{id, 47.0 + id * 0.01, 8.0 - id * 0.01, 0.1F * static_cast<float>(id)});
    }
  }
  for (auto& track : tracks) {
    track.lat += 0.0001;
    track.lon -= 0.0001;
    if (own.ok()) {
      const double distance = (track.lat - own.value().lat) * (track.lat - own.value().lat) +
                              (track.lon - own.value().lon) * (track.lon - own.value().lon);
      track.threat = static_cast<float>(1.0 / (1.0 + distance));
    }
  }
  ::std::sort(tracks.begin(), tracks.end(),
              [](const Track& a, const Track& b) { return a.threat > b.threat; });
}

void TrackTMO::rank(RankAccess ods) {
  // `uses picture read`: rank only looks at the picture (sorting it here would not compile).
  // It counts the tracks threatening enough to cue the weapons.
  threats_ = static_cast<::std::uint32_t>(
      ::std::count_if(ods.picture.tracks.begin(), ods.picture.tracks.end(),
                      [](const Track& track) { return track.threat >= 0.3F; }));
}

::kairos::BoundedSequence<::avionics::Track, 8> TrackTMO::tracks(TracksAccess ods) {
  return ods.picture.tracks;
}

}  // namespace avionics
