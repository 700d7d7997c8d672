// Kernel Adaptation Layer: global time. Each node keeps its monotonic clock and an offset to
// the system's global time base, maintained by clock synchronisation (kairos/clock/clock_sync.hpp).
#pragma once

#include <atomic>
#include <cstdint>

#include <kairos/kal/clock.hpp>

namespace kairos::kal {

/// An offset that moves without jumps: stepped once (the first synchronisation), then slewed
/// towards each new target at a bounded rate, so that monotonic time plus the offset never runs
/// backwards (its slope stays within 1 +- rate). One thread writes; any thread reads, without a
/// lock (a sequence counter: a read that overlaps a write is taken again).
class SlewedOffset {
 public:
  /// The fastest a slew may run, in parts per million: beyond it global time could stand still.
  static constexpr std::int64_t kMaxRatePpm = 500'000;

  /// Sets the offset to `offset` at once (a jump: only before global time is in use).
  void step(Duration offset) noexcept;
  /// From `now` on, moves the offset from its value at `now` towards `target` by `rate_ppm`
  /// nanoseconds per millisecond of monotonic time (1..kMaxRatePpm), then holds it there.
  void slew_to(Duration target, TimePoint now, std::int64_t rate_ppm) noexcept;
  /// The offset at monotonic time `t` (t at or after the last write's `now`).
  Duration at(TimePoint t) const noexcept;
  /// Where the offset is heading (the last step or slew's target).
  Duration target() const noexcept;

 private:
  struct Plan {
    std::int64_t start_ns = 0;  ///< monotonic time the slew began
    std::int64_t from_ns = 0;   ///< the offset then
    std::int64_t to_ns = 0;     ///< its target
    std::int64_t rate_ppm = 0;
  };
  Plan read() const noexcept;
  void write(const Plan& plan) noexcept;
  static std::int64_t evaluate(const Plan& plan, std::int64_t t_ns) noexcept;

  std::atomic<std::uint32_t> sequence_{0};
  std::atomic<std::int64_t> start_ns_{0};
  std::atomic<std::int64_t> from_ns_{0};
  std::atomic<std::int64_t> to_ns_{0};
  std::atomic<std::int64_t> rate_ppm_{0};
};

/// Sets global time = monotonic time + offset at once (called by clock synchronisation).
void set_global_offset(Duration offset) noexcept;

/// Moves this process's global offset towards `target` at `rate_ppm`, from now on, so that global
/// time stays monotonic (called by clock synchronisation once it is synchronised).
void slew_global_offset(Duration target, std::int64_t rate_ppm) noexcept;

/// The process's global offset at monotonic time `t`.
Duration global_offset_at(TimePoint t) noexcept;

/// The process's global offset now.
inline Duration global_offset() noexcept {
  return global_offset_at(MonotonicClock::now());
}

/// The node's reading of global time.
inline TimePoint global_now() noexcept {
  const TimePoint now = MonotonicClock::now();
  return now + global_offset_at(now);
}

}  // namespace kairos::kal
