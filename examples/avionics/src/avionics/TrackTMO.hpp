// avionics/TrackTMO.hpp — method bodies of TMO TrackTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/TrackTMO.base.hpp"

namespace avionics {

class TrackTMO final : public TrackTMOBase {
 private:
  void fuse(FuseAccess ods) override;
  void rank(RankAccess ods) override;
  void locate(LocateAccess ods, LocateGates gates) override;
  ::kairos::BoundedSequence<::avionics::Track, 8> tracks(TracksAccess ods) override;

  ::std::uint32_t threats_ = 0;
  ::std::uint32_t close_ = 0;  // tracks within a degree of own ship
};

}  // namespace avionics
