// avionics/TrackTMO.hpp — method bodies of TMO TrackTMO (avionics.tmo).
#pragma once

#include "avionics/TrackTMO.base.hpp"

namespace avionics {

class TrackTMO final : public TrackTMOBase {
 public:
  void fuse() override;
  void rank() override;
  ::kairos::BoundedSequence<::avionics::Track, 8> tracks() override;
};

}  // namespace avionics
