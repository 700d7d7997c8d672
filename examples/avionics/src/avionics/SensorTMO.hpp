// avionics/SensorTMO.hpp — method bodies of TMO SensorTMO (avionics.tmo).
#pragma once

#include <cstdint>

#include "avionics/SensorTMO.base.hpp"

namespace avionics {

class SensorTMO final : public SensorTMOBase {
 public:
  void poll() override;
  ::avionics::Reading sample(::std::uint8_t channel) override;

 private:
  ::std::uint64_t polls_ = 0;
};

}  // namespace avionics
