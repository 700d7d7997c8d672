#include <kairos/kal/clock.hpp>

#include <time.h>
#include <cerrno>

namespace kairos::kal {

namespace {
timespec to_timespec(TimePoint t) noexcept {
  const auto ns = to_nanoseconds(t);
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}
}  // namespace

void sleep_until(TimePoint deadline) noexcept {
  const timespec target = to_timespec(deadline);
  // Absolute sleep: restarting after a signal keeps the same target, so nothing drifts.
  while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nullptr) == EINTR) {
  }
}

Duration clock_precision() noexcept {
  timespec resolution{};
  clock_getres(CLOCK_MONOTONIC, &resolution);
  return Duration{static_cast<Duration::rep>(resolution.tv_sec) * 1'000'000'000 +
                  resolution.tv_nsec};
}

}  // namespace kairos::kal
