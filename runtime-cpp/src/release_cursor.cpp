#include "release_cursor.hpp"

#include <algorithm>

#include <kairos/kal/error.hpp>

namespace kairos {

ReleaseCursor::ReleaseCursor(std::span<const SpmEntry* const> rows,
                             std::span<const ReleaseEntry> table, kal::Duration hyperperiod,
                             kal::TimePoint epoch, kal::TimePoint end) noexcept
    : rows_(rows.first(std::min(rows.size(), kMaxRows))),
      table_(table),
      hyperperiod_(hyperperiod),
      epoch_(epoch),
      end_(end),
      cycle_start_(epoch) {
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    next_release_[row] = epoch + rows_[row]->first_release;
    active_[row] = still_due(row);
  }
}

kal::TimePoint ReleaseCursor::next_opening(std::size_t row) const noexcept {
  return active_[row] ? opening(row) : kal::TimePoint::max();
}

kal::TimePoint ReleaseCursor::earliest_opening() noexcept {
  if (tabulated()) {
    return seek_table() ? opening(table_[cursor_].spm) : kal::TimePoint::max();
  }
  return earliest_active_opening();
}

kal::TimePoint ReleaseCursor::earliest_active_opening() const noexcept {
  kal::TimePoint earliest = kal::TimePoint::max();
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    if (active_[row]) {
      earliest = std::min(earliest, opening(row));
    }
  }
  return earliest;
}

void ReleaseCursor::end_at(kal::TimePoint end) noexcept {
  end_ = std::min(end_, end);
  for (std::size_t row = 0; row < rows_.size(); ++row) {
    active_[row] = active_[row] && still_due(row);
  }
}

bool ReleaseCursor::still_due(std::size_t row) const noexcept {
  const SpmEntry& entry = *rows_[row];
  const bool within_aac =
      entry.last_release == kForever || next_release_[row] - epoch_ <= entry.last_release;
  return within_aac && next_release_[row] < end_;
}

bool ReleaseCursor::seek_table() noexcept {
  const kal::TimePoint earliest = earliest_active_opening();
  if (earliest == kal::TimePoint::max()) {
    return false;
  }
  if (earliest - cycle_start_ >= 2 * hyperperiod_) {
    // A first release far ahead: skip the hyperperiods before it instead of walking them.
    cycle_start_ += ((earliest - cycle_start_) / hyperperiod_ - 1) * hyperperiod_;
    cursor_ = 0;
  }
  // The validated table holds every release within the next two hyperperiods.
  for (std::size_t scanned = 0; scanned <= 3 * table_.size(); ++scanned) {
    const ReleaseEntry& entry = table_[cursor_];
    const kal::TimePoint entry_release = cycle_start_ + entry.open - rows_[entry.spm]->window_open;
    if (active_[entry.spm] && entry_release == next_release_[entry.spm]) {
      return true;
    }
    if (++cursor_ == table_.size()) {
      cursor_ = 0;
      cycle_start_ += hyperperiod_;
    }
  }
  kal::report(kal::Severity::kError, "engine", "release table out of step with the SpM rows");
  return false;
}

void ReleaseCursor::advance(std::size_t row) noexcept {
  ++sequence_[row];
  if (rows_[row]->period == kal::Duration::zero()) {
    active_[row] = false;
  } else {
    next_release_[row] += rows_[row]->period;
    active_[row] = still_due(row);
  }
}

}  // namespace kairos
