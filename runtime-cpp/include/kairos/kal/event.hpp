// Kernel Adaptation Layer: events. An auto-reset event wakes one waiter per set().
#pragma once

#include <kairos/kal/clock.hpp>
#include <kairos/kal/native_event.hpp>

namespace kairos::kal {

class Event {
 public:
  Event() = default;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  /// Signals the event; a waiter (present or future) consumes the signal.
  void set() noexcept;

  /// Blocks until the event is set, then resets it.
  void wait() noexcept;

  /// Blocks until the event is set or `deadline` passes; true if it was set.
  bool wait_until(TimePoint deadline) noexcept;

 private:
  NativeEvent native_{};
};

}  // namespace kairos::kal
