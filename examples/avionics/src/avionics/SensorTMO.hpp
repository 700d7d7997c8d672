// avionics/SensorTMO.hpp — method bodies of TMO SensorTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/SensorTMO.base.hpp"

namespace avionics {

class SensorTMO final : public SensorTMOBase {
 private:
  void poll(PollAccess ods) override;
  ::avionics::Reading sample(SampleAccess ods, ::std::uint8_t channel) override;

  ::std::uint64_t polls_ = 0;
};

}  // namespace avionics
