// The time trigger's release cursor: when each SpM row's next activation is released and which
// activation it is, walking the node's static release table where there is one. Pure: it reads
// the rows and the table and moves on when told; it knows nothing of clocks, lanes or requests.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include <kairos/capacities.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/schedule.hpp>

namespace kairos {

class ReleaseCursor {
 public:
  static constexpr std::size_t kMaxRows = capacity::kSpms;

  /// The rows' releases from `epoch` (a row's first at epoch + its first_release), until `end`
  /// or the row's AAC ends; with a `table` (one `hyperperiod` of start-window openings, checked
  /// against the rows by Engine::set_release_table) in its order. The rows and the table are
  /// read where they are: they outlive the cursor.
  ReleaseCursor(std::span<const SpmEntry* const> rows, std::span<const ReleaseEntry> table,
                kal::Duration hyperperiod, kal::TimePoint epoch, kal::TimePoint end) noexcept;

  /// Activations of `row` released so far: the number of the next one.
  std::uint64_t released(std::size_t row) const noexcept { return sequence_[row]; }
  /// When `row`'s next activation is released (its `t`).
  kal::TimePoint next_release(std::size_t row) const noexcept { return next_release_[row]; }
  /// Where `row`'s next start window opens; TimePoint::max() once it has no release left.
  kal::TimePoint next_opening(std::size_t row) const noexcept;
  /// The earliest start-window opening still to come, TimePoint::max() when none is.
  kal::TimePoint earliest_opening() noexcept;
  /// Releases nothing at or after `end` (when it is earlier than the end the cursor had).
  void end_at(kal::TimePoint end) noexcept;

  /// Releases the activations whose start windows open by `horizon`: with a table every one, in
  /// table order; without, at most one of each row, in row order (the trigger wakes again at
  /// once for a row that is further behind, and judges deadlines in between, as it always has).
  /// For each it moves past the activation, then calls released(row, sequence, release) with
  /// its number and release time.
  template <class Released>
  void release_through(kal::TimePoint horizon, Released&& released) noexcept {
    if (tabulated()) {
      while (seek_table() && opening(table_[cursor_].spm) <= horizon) {
        release(table_[cursor_].spm, released);
      }
      return;
    }
    for (std::size_t row = 0; row < rows_.size(); ++row) {
      if (active_[row] && opening(row) <= horizon) {
        release(row, released);
      }
    }
  }

 private:
  bool tabulated() const noexcept { return !table_.empty(); }
  kal::TimePoint opening(std::size_t row) const noexcept {
    return next_release_[row] + rows_[row]->window_open;
  }
  bool still_due(std::size_t row) const noexcept;
  /// The earliest start-window opening of any row with a release left (TimePoint::max(): none).
  kal::TimePoint earliest_active_opening() const noexcept;
  /// Moves the table cursor to the next release of any active row; false when none is left.
  bool seek_table() noexcept;
  void advance(std::size_t row) noexcept;

  template <class Released>
  void release(std::size_t row, Released& released) noexcept {
    const std::uint64_t sequence = sequence_[row];
    const kal::TimePoint release = next_release_[row];
    advance(row);
    released(row, sequence, release);
  }

  std::span<const SpmEntry* const> rows_;
  std::span<const ReleaseEntry> table_;
  kal::Duration hyperperiod_{};
  kal::TimePoint epoch_{};
  kal::TimePoint end_{};
  std::array<kal::TimePoint, kMaxRows> next_release_{};
  std::array<std::uint64_t, kMaxRows> sequence_{};
  std::array<bool, kMaxRows> active_{};
  // With a table: the entry of the next release, and the start of its hyperperiod. Each row's
  // next release is still tracked (BCC admission needs it); an entry is due when it is that
  // release.
  std::size_t cursor_ = 0;
  kal::TimePoint cycle_start_{};
};

}  // namespace kairos
