// Kernel Adaptation Layer: timers, one-shot or periodic, on the monotonic clock.
#pragma once

#include <cstdint>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/native_timer.hpp>

namespace kairos::kal {

class Timer {
 public:
  Timer() = default;
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;
  ~Timer();

  /// Arms the timer: first expiry at `first`, then every `period` (zero: once). Acquires the
  /// OS resource on first use, so arm during start-up.
  Status arm(TimePoint first, Duration period) noexcept;

  /// Stops further expiries.
  void disarm() noexcept;

  /// Blocks until the next expiry and returns how many expiries passed since the previous
  /// wait (more than 1: the waiter fell behind). Returns 0 at once if the timer is not armed.
  std::uint64_t wait() noexcept;

 private:
  NativeTimer native_{};
};

}  // namespace kairos::kal
