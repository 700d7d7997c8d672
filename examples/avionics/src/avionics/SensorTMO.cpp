// avionics/SensorTMO.cpp — method bodies of TMO SensorTMO (avionics.tmo).
#include "avionics/SensorTMO.hpp"

#include <kairos/kal/clock.hpp>

namespace avionics {

void SensorTMO::poll(PollAccess ods) {
  // Stand-in for reading an ADC: a slowly varying value stamped with the monotonic clock.
  ++polls_;
  ods.latest.last.stamp_ns = static_cast<::std::uint64_t>(
      ::kairos::kal::to_nanoseconds(::kairos::kal::MonotonicClock::now()));
  ods.latest.last.value = static_cast<double>(polls_ % 1000) * 0.001;
}

::avionics::Reading SensorTMO::sample(SampleAccess ods, ::std::uint8_t channel) {
  // The latest reading is read-only here: the caller gets a copy, offset by its channel.
  ::avionics::Reading reading = ods.latest.last;
  reading.value += static_cast<double>(channel);
  return reading;
}

}  // namespace avionics
