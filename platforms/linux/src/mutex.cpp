#include <kairos/kal/mutex.hpp>

#include "priority.hpp"

namespace kairos::kal {

CeilingMutex::~CeilingMutex() {
  if (native_.initialised) {
    pthread_mutex_destroy(&native_.mutex);
  }
}

Status CeilingMutex::init(PriorityBand ceiling) noexcept {
  if (native_.initialised) {
    return Status::kInvalidArgument;
  }
  ceiling_ = ceiling;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  // The protocol raises the holder to the ceiling, which needs real-time permission; without
  // it the lock would refuse to lock, so a plain mutex is the honest fallback.
  if (real_time_permitted()) {
    pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_PROTECT);
    pthread_mutexattr_setprioceiling(&attr, fifo_priority(ceiling));
  }
  const int rc = pthread_mutex_init(&native_.mutex, &attr);
  pthread_mutexattr_destroy(&attr);
  native_.ceiling_protocol = rc == 0 && real_time_permitted();
  if (rc != 0) {
    // Where ceilings are refused, a plain mutex still gives mutual exclusion.
    pthread_mutex_init(&native_.mutex, nullptr);
  }
  native_.initialised = true;
  return Status::kOk;
}

Status CeilingMutex::move_ceiling(PriorityBand ceiling) noexcept {
  if (!native_.initialised) {
    return Status::kInvalidArgument;
  }
  ceiling_ = ceiling;
  if (!native_.ceiling_protocol) {
    return Status::kOk;  // a plain mutex (no real-time permission): no ceiling to move
  }
  int old = 0;
  return pthread_mutex_setprioceiling(&native_.mutex, fifo_priority(ceiling), &old) == 0
             ? Status::kOk
             : Status::kUnavailable;
}

void CeilingMutex::lock() noexcept {
  if (pthread_mutex_lock(&native_.mutex) != 0) {
    // A caller above the ceiling: a configuration error that the analysis rules out.
    report(Severity::kError, "mutex", "lock refused: caller's priority is above the ceiling");
  }
}

void CeilingMutex::unlock() noexcept {
  pthread_mutex_unlock(&native_.mutex);
}

}  // namespace kairos::kal
