// Linux: threads are pthreads.
#pragma once

#include <pthread.h>

namespace kairos::kal {

struct NativeThread {
  pthread_t handle{};
};

}  // namespace kairos::kal
