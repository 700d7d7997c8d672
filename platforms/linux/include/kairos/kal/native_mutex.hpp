// Linux: a pthread mutex with the PTHREAD_PRIO_PROTECT protocol (priority ceiling).
#pragma once

#include <pthread.h>

namespace kairos::kal {

struct NativeMutex {
  pthread_mutex_t mutex{};
  bool initialised = false;
  /// Made with the priority-ceiling protocol (PTHREAD_PRIO_PROTECT): it has a ceiling to move.
  bool ceiling_protocol = false;
};

}  // namespace kairos::kal
