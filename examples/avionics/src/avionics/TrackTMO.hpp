// avionics/TrackTMO.hpp — method bodies of TMO TrackTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/TrackTMO.base.hpp"

namespace avionics {

class TrackTMO final : public TrackTMOBase {
 private:
  void fuse(FuseAccess ods) override;
  void rank(RankAccess ods) override;
  ::kairos::BoundedSequence<::avionics::Track, 8> tracks(TracksAccess ods) override;

  ::std::uint32_t threats_ = 0;
};

}  // namespace avionics
