// Linux: a pthread mutex with the PTHREAD_PRIO_PROTECT protocol (priority ceiling).
#pragma once

#include <pthread.h>

namespace kairos::kal {

struct NativeMutex {
  pthread_mutex_t mutex{};
  bool initialised = false;
};

}  // namespace kairos::kal
