// avionics/TrackTMO.cpp — method bodies of TMO TrackTMO (avionics.tmo).
#include "avionics/TrackTMO.hpp"

#include <algorithm>

namespace avionics {

void TrackTMO::fuse() {
  // Stand-in for sensor fusion: keep a fixed picture of tracks moving on straight lines.
  auto& tracks = ods_.picture.tracks;
  if (tracks.size() == 0) {
    for (::std::uint32_t id = 1; id <= 4; ++id) {
      tracks.push_back(Track{id, 47.0 + id * 0.01, 8.0 - id * 0.01, 0.1F * static_cast<float>(id)});
    }
  }
  for (auto& track : tracks) {
    track.lat += 0.0001;
    track.lon -= 0.0001;
  }
}

void TrackTMO::rank() {
  // Most threatening first, so that tracks() serves them in order.
  auto& tracks = ods_.picture.tracks;
  ::std::sort(tracks.begin(), tracks.end(),
              [](const Track& a, const Track& b) { return a.threat > b.threat; });
}

::kairos::BoundedSequence<::avionics::Track, 8> TrackTMO::tracks() {
  return ods_.picture.tracks;
}

}  // namespace avionics
