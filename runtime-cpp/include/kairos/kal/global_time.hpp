// Kernel Adaptation Layer: global time. Each node keeps its monotonic clock and an offset to
// the system's global time base, maintained by clock synchronisation.
#pragma once

#include <kairos/kal/clock.hpp>

namespace kairos::kal {

/// Sets global time = monotonic time + offset (called by clock synchronisation).
void set_global_offset(Duration offset) noexcept;

Duration global_offset() noexcept;

/// The node's reading of global time.
inline TimePoint global_now() noexcept {
  return MonotonicClock::now() + global_offset();
}

}  // namespace kairos::kal
