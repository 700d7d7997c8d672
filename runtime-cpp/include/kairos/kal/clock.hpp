// Kernel Adaptation Layer: time. Declarations shared by every platform; the platform's
// <kairos/kal/native_clock.hpp> supplies the inline clock read.
#pragma once

#include <chrono>
#include <cstdint>

namespace kairos::kal {

/// Monotonic clock of the platform: never jumps, counts nanoseconds from a fixed origin.
struct MonotonicClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<MonotonicClock>;
  static constexpr bool is_steady = true;

  /// Reads the clock; inline on every platform because it sits on every hot path.
  static time_point now() noexcept;
};

using Duration = std::chrono::nanoseconds;
using TimePoint = MonotonicClock::time_point;

/// Sleeps until `deadline` on the monotonic clock (absolute, so no drift accumulates).
void sleep_until(TimePoint deadline) noexcept;

/// Resolution of the monotonic clock as reported by the platform.
Duration clock_precision() noexcept;

/// Nanoseconds since the clock's origin, for logs and traces.
constexpr std::int64_t to_nanoseconds(TimePoint t) noexcept {
  return t.time_since_epoch().count();
}

}  // namespace kairos::kal

#include <kairos/kal/native_clock.hpp>
