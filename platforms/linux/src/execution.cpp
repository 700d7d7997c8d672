#include <kairos/kal/execution.hpp>

namespace kairos::kal {

const bool kSimulatedTime = false;

void busy_for(Duration duration) noexcept {
  const TimePoint end = MonotonicClock::now() + duration;
  while (MonotonicClock::now() < end) {
    // Spinning on purpose: this stands for computation.
  }
}

}  // namespace kairos::kal
