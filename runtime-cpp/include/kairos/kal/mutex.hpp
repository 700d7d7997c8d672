// Kernel Adaptation Layer: mutual exclusion with the immediate priority-ceiling protocol. A
// thread holding the lock runs at the lock's ceiling band, the highest band of any method that
// uses it; on one processor that rules out priority inversion and deadlock.
#pragma once

#include <kairos/kal/error.hpp>
#include <kairos/kal/native_mutex.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos::kal {

class CeilingMutex {
 public:
  CeilingMutex() = default;
  CeilingMutex(const CeilingMutex&) = delete;
  CeilingMutex& operator=(const CeilingMutex&) = delete;
  ~CeilingMutex();

  /// Prepares the lock with its ceiling; at start-up, before any thread uses it.
  Status init(PriorityBand ceiling) noexcept;

  /// Moves the ceiling of an initialised lock that no thread holds (to its host band, once the
  /// engine knows its CPU).
  Status move_ceiling(PriorityBand ceiling) noexcept;

  void lock() noexcept;
  void unlock() noexcept;

  PriorityBand ceiling() const noexcept { return ceiling_; }

 private:
  NativeMutex native_{};
  PriorityBand ceiling_ = kLowestBand;
};

}  // namespace kairos::kal
