// Kernel Adaptation Layer: events. An auto-reset event wakes one waiter per set() and clears
// itself as that waiter returns; a manual-reset event stays set, waking every waiter, until
// reset(). wait_any() is the TMO papers' WOMS: wait for one of several events, with a timeout.
#pragma once

#include <cstddef>
#include <span>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/native_event.hpp>

namespace kairos::kal {

enum class ResetMode { kAuto, kManual };

class Event {
 public:
  Event() noexcept = default;
  explicit Event(ResetMode mode) noexcept : mode_(mode) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;

  /// Signals the event; a waiter (present or future) sees the signal.
  void set() noexcept;

  /// Clears a manual-reset event (an auto-reset event clears itself).
  void reset() noexcept;

  /// Blocks until the event is set; an auto-reset event is cleared on return.
  void wait() noexcept;

  /// Blocks until the event is set or `deadline` passes; true if it was set.
  bool wait_until(TimePoint deadline) noexcept;

  ResetMode mode() const noexcept { return mode_; }

 private:
  friend int wait_any(std::span<Event* const> events, TimePoint deadline) noexcept;

  ResetMode mode_ = ResetMode::kAuto;
  NativeEvent native_{};
};

/// Blocks until one of `events` is set or `deadline` passes. Returns the index of the event
/// that woke the caller (the lowest index when several are set; an auto-reset event is
/// cleared) or -1 on timeout. At most kMaxWaitAny events.
inline constexpr std::size_t kMaxWaitAny = 16;
int wait_any(std::span<Event* const> events, TimePoint deadline) noexcept;

}  // namespace kairos::kal
