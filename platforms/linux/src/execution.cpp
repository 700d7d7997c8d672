#include <kairos/kal/execution.hpp>

#include <time.h>

namespace kairos::kal {

const bool kSimulatedTime = false;

void busy_for(Duration duration) noexcept {
  const TimePoint end = MonotonicClock::now() + duration;
  while (MonotonicClock::now() < end) {
    // Spinning on purpose: this stands for computation.
  }
}

Duration thread_cpu_time() noexcept {
  timespec now{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now) != 0) {
    return Duration::zero();  // not on this kernel: every execution then measures 0
  }
  return Duration{static_cast<std::int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec};
}

}  // namespace kairos::kal
