// The time trigger's watchdogs: every dispatched SpM activation's completion deadline, and every
// service request's guaranteed completion time, judged at that instant. Nobody else would notice
// a miss then: the lane is busy running the late activation, or has not come to it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include <kairos/capacities.hpp>
#include <kairos/engine.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/schedule.hpp>

#include "release_cursor.hpp"

namespace kairos {

/// The deadlines of dispatched activations. Activations watched(row) .. released(row) - 1 of a
/// row are dispatched and their deadlines still to come. Several can be pending: an activation is
/// dispatched ahead of its window, maybe before the deadline of the one before it.
class DeadlineWatchdog {
 public:
  static constexpr std::size_t kMaxRows = capacity::kSpms;

  /// Watches the rows' activations as `cursor` releases them; the rows outlive the watchdog.
  DeadlineWatchdog(std::span<const SpmEntry* const> rows, const ReleaseCursor& cursor) noexcept
      : rows_(rows.first(std::min(rows.size(), kMaxRows))) {
    for (std::size_t row = 0; row < rows_.size(); ++row) {
      oldest_release_[row] = cursor.next_release(row);
    }
  }

  /// Activation `sequence` of `row` was dropped at release (an overrun): it has no deadline left
  /// to keep. (The mask holds 64 pending deadlines; an overrun further ahead, after a dispatch
  /// lead of some 63 periods, is also reported at its deadline.)
  void dropped(std::size_t row, std::uint64_t sequence) noexcept {
    if (const std::uint64_t behind = sequence - oldest_[row]; behind < 64) {
      skip_[row] |= std::uint64_t{1} << behind;
    }
  }

  /// The earliest deadline still to come of an activation `cursor` released.
  kal::TimePoint next_deadline(const ReleaseCursor& cursor) const noexcept {
    kal::TimePoint next = kal::TimePoint::max();
    for (std::size_t row = 0; row < rows_.size(); ++row) {
      if (oldest_[row] < cursor.released(row)) {
        next = std::min(next, oldest_release_[row] + rows_[row]->deadline);
      }
    }
    return next;
  }

  /// Passes every deadline up to `now`: calls due(row, sequence, release) for each activation
  /// whose deadline it is, except those dropped at release.
  template <class Due>
  void pass(kal::TimePoint now, const ReleaseCursor& cursor, Due&& due) noexcept {
    for (std::size_t row = 0; row < rows_.size(); ++row) {
      const SpmEntry& entry = *rows_[row];
      while (oldest_[row] < cursor.released(row) && oldest_release_[row] + entry.deadline <= now) {
        if ((skip_[row] & 1U) == 0) {
          due(row, oldest_[row], oldest_release_[row]);
        }
        skip_[row] >>= 1U;
        ++oldest_[row];
        oldest_release_[row] += entry.period;
      }
    }
  }

 private:
  std::span<const SpmEntry* const> rows_;
  /// The oldest activation whose deadline is watched, and its release.
  std::array<std::uint64_t, kMaxRows> oldest_{};
  std::array<kal::TimePoint, kMaxRows> oldest_release_{};
  /// Bit k: activation oldest_ + k was dropped by an overrun.
  std::array<std::uint64_t, kMaxRows> skip_{};
};

/// The GCTs of the requests taken in (waiting for admission or admitted), each counted from its
/// arrival.
class GctWatchdog {
 public:
  static constexpr std::size_t kMaxServices = capacity::kSvms;

  struct Watch {
    std::uint16_t svm = 0;
    std::uint64_t sequence = 0;
    kal::TimePoint arrival{};
  };

  /// Watches requests of the `services` rows, which outlive the watchdog.
  explicit GctWatchdog(std::span<const SvmEntry* const> services) noexcept
      : services_(services.first(std::min(services.size(), kMaxServices))) {}

  bool empty() const noexcept { return count_ == 0; }
  bool full() const noexcept { return count_ == watches_.size(); }
  /// Watches a request taken in; the caller keeps it from being full.
  void watch(const Watch& watch) noexcept { watches_[count_++] = watch; }

  kal::TimePoint next_gct() const noexcept {
    kal::TimePoint next = kal::TimePoint::max();
    for (std::size_t w = 0; w < count_; ++w) {
      next = std::min(next, watches_[w].arrival + services_[watches_[w].svm]->gct);
    }
    return next;
  }

  /// Stops watching the requests served(watch) says are served, and those whose GCT has passed
  /// by `now`, calling missed(watch) for those.
  template <class Served, class Missed>
  void pass(kal::TimePoint now, Served&& served, Missed&& missed) noexcept {
    std::size_t kept = 0;
    for (std::size_t w = 0; w < count_; ++w) {
      const Watch& watch = watches_[w];
      if (served(watch)) {
        continue;
      }
      if (watch.arrival + services_[watch.svm]->gct <= now) {
        missed(watch);  // queued or running
        continue;
      }
      watches_[kept++] = watch;
    }
    count_ = kept;
  }

 private:
  /// A request taken in waits for admission or is admitted: at most the request queue's
  /// capacity of each.
  static constexpr std::size_t kCapacity = 2 * Engine::kRequestCapacity;

  std::span<const SvmEntry* const> services_;
  std::array<Watch, kCapacity> watches_{};
  std::size_t count_ = 0;
};

}  // namespace kairos
