// Simulated time: the clock is the simulation kernel's virtual time.
#pragma once

#include <kairos/kal/sim_kernel.hpp>

namespace kairos::kal {

inline MonotonicClock::time_point MonotonicClock::now() noexcept {
  return time_point{duration{sim::virtual_now_ns()}};
}

}  // namespace kairos::kal
