// A rate budget for a stream of arrivals: at most one per interval, each at most a tolerance
// before its turn. The engine keeps a service method's requests to its max-rate with one, and the
// ORB each calling node's requests of an operation to the rate the model gives that caller.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>

namespace kairos {

/// Virtual scheduling (the generic cell rate algorithm): each arrival taken moves the theoretical
/// arrival of the next one an interval past its own (or past the last, when it came early); an
/// arrival may come at most `tolerance` before its theoretical arrival. That admits exactly the
/// streams with at most ceil((w + tolerance) / interval) arrivals in any window w. O(1), lock-free
/// (threads of several bands may take from one budget) and without allocation.
class ArrivalBudget {
 public:
  /// No budget: every arrival is taken.
  constexpr ArrivalBudget() noexcept = default;
  constexpr ArrivalBudget(std::int64_t interval_ns, std::int64_t tolerance_ns) noexcept
      : interval_ns_{std::max<std::int64_t>(interval_ns, 0)},
        tolerance_ns_{std::max<std::int64_t>(tolerance_ns, 0)} {}
  ArrivalBudget(const ArrivalBudget&) = delete;
  ArrivalBudget& operator=(const ArrivalBudget&) = delete;

  /// Sets the budget again, as new: only before the arrivals it counts begin.
  void reset(std::int64_t interval_ns, std::int64_t tolerance_ns) noexcept {
    interval_ns_ = std::max<std::int64_t>(interval_ns, 0);
    tolerance_ns_ = std::max<std::int64_t>(tolerance_ns, 0);
    next_ns_.store(kNoArrivalYet, std::memory_order_release);
  }

  /// Whether the budget limits anything.
  bool limited() const noexcept { return interval_ns_ > 0; }

  /// The earliest instant (monotonic clock, ns) at which an arrival would be taken now:
  /// std::numeric_limits<std::int64_t>::min() while every arrival would be.
  std::int64_t admits_from() const noexcept {
    const std::int64_t next = next_ns_.load(std::memory_order_acquire);
    return interval_ns_ <= 0 || next == kNoArrivalYet ? kNoArrivalYet : next - tolerance_ns_;
  }
  /// Takes an arrival at `now_ns` (monotonic clock): false, and nothing changed, when it comes
  /// sooner than the budget allows.
  bool take(std::int64_t now_ns) noexcept {
    if (interval_ns_ <= 0) {
      return true;
    }
    std::int64_t next = next_ns_.load(std::memory_order_acquire);
    while (true) {
      if (next != kNoArrivalYet && now_ns < next - tolerance_ns_) {
        return false;
      }
      const std::int64_t after =
          (next == kNoArrivalYet ? now_ns : std::max(next, now_ns)) + interval_ns_;
      if (next_ns_.compare_exchange_weak(next, after, std::memory_order_acq_rel)) {
        return true;
      }
    }
  }

 private:
  static constexpr std::int64_t kNoArrivalYet = std::numeric_limits<std::int64_t>::min();
  std::int64_t interval_ns_ = 0;
  std::int64_t tolerance_ns_ = 0;
  std::atomic<std::int64_t> next_ns_{kNoArrivalYet};
};

}  // namespace kairos
