// Linux: the monotonic clock is CLOCK_MONOTONIC (vDSO, no system call).
#pragma once

#include <time.h>

namespace kairos::kal {

inline MonotonicClock::time_point MonotonicClock::now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return time_point{duration{static_cast<rep>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec}};
}

}  // namespace kairos::kal
