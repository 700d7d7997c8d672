// Linux: threads are pthreads.
#pragma once

#include <pthread.h>

#include <cstdint>

namespace kairos::kal {

struct NativeThread {
  pthread_t handle{};
  /// The SCHED_DEADLINE reservation the thread applies to itself as it starts (runtime 0: none).
  std::uint64_t deadline_runtime_ns = 0;
  std::uint64_t deadline_ns = 0;
  std::uint64_t deadline_period_ns = 0;
  /// The CPU it is pinned to if the kernel refuses the reservation (-1: none).
  int cpu_if_refused = -1;
};

}  // namespace kairos::kal
