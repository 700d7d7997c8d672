// avionics/TrackTMO.hpp — method bodies of TMO TrackTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/TrackTMO.base.hpp"

namespace avionics {

class TrackTMO final : public TrackTMOBase {
 private:
  void fuse(FuseAccess ods, FuseChannels channels) override;
  void rank(RankAccess ods) override;
  void locate(LocateAccess ods, LocateGates gates) override;
  ::kairos::BoundedSequence<::avionics::Track, 8> tracks(TracksAccess ods) override;

  ::std::uint32_t threats_ = 0;
  ::std::uint32_t close_ = 0;  // tracks within a degree of own ship
  // fuse's own: the fixes of own ship it has taken from the track channel, and the last one
  ::std::uint64_t fixes_ = 0;
  NavState last_fix_{};
};

}  // namespace avionics
