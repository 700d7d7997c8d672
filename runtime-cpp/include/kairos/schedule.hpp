// Rows of the static tables `kairos generate` emits per node (<Node>.schedule.hpp). The runtime
// only reads them: every number here was computed and checked before deployment.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/dispatch_rule.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos {

/// Marks an AAC that repeats without end (`to forever`).
inline constexpr kal::Duration kForever = kal::Duration::max();

/// One spontaneous (time-triggered) method of a deployed TMO, with its autonomous
/// activation condition. Offsets are relative to each release time `t`; releases are
/// relative to the node's start epoch.
struct SpmEntry {
  std::string_view instance;  ///< deployed TMO instance (`deploy X as <instance>`)
  std::string_view method;    ///< SpM name
  std::string_view source;    ///< model location, e.g. "hello.tmo:12"
  kal::Duration first_release;
  kal::Duration last_release;  ///< kForever for `to forever`
  kal::Duration period;        ///< zero for the one-shot form
  kal::Duration window_open;   ///< start-during (t + window_open, ...)
  kal::Duration window_close;  ///< start-during (..., t + window_close)
  kal::Duration deadline;      ///< finish-by t + deadline
  kal::Duration wcet;          ///< what a job computes, scaled to the node's hardware
  Criticality criticality;
  kal::PriorityBand band;
  std::uint8_t importance = 0;  ///< MUF tie-breaker: higher is more important
  std::uint64_t segments = 0;   ///< bit k: uses ODS segment k of the node's segment table
  /// Every method of a TMO is bound to the same core, so its ODS segments, their ceiling locks
  /// and the BCC between its methods stay within one core (the engine refuses rows that would
  /// share them across cores).
  std::uint8_t core = 0;  ///< the node's core the method is bound to (partitioned scheduling)
  /// How long a job may wait for the replies of the blocking gates it calls (the sum of their
  /// deadlines): the analysis counts it as execution, but a wait is no processor time.
  kal::Duration reply_wait{};
};

/// One ODS segment of a deployed TMO: the unit of locking, with its priority ceiling (the
/// highest band of any method that uses it).
struct SegmentEntry {
  std::string_view instance;
  std::string_view segment;
  kal::PriorityBand ceiling;
};

/// One service method of a deployed TMO. `conflicts` has bit i set when the SvM conflicts with
/// row i of the node's SpM table (they share an ODS segment and one of them writes it): under
/// the basic concurrency constraint (BCC) the two never run at the same time. A request is
/// admitted at instant t when, for every conflicting SpM, the earliest start-window opening among
/// its activations not yet finished is at least `admission_slot` after t; the slot is the SvM's
/// analysed response once admitted, so `kairos check` knows the longest wait this rule imposes.
struct SvmEntry {
  std::string_view instance;
  std::string_view method;
  std::string_view source;
  kal::Duration gct;   ///< guaranteed completion time, from the request's arrival
  kal::Duration wcet;  ///< what a request computes, scaled to the node's hardware
  Criticality criticality;
  kal::PriorityBand band;
  std::uint8_t importance = 0;
  std::uint64_t conflicts = 0;
  kal::Duration admission_slot{};  ///< room needed before the next conflicting window opens
  std::uint64_t segments = 0;      ///< bit k: uses ODS segment k of the node's segment table
  /// As for SpmEntry::core: the SvM's TMO is on this core, and so is every SpM it conflicts with.
  std::uint8_t core = 0;       ///< the node's core the method is bound to (partitioned scheduling)
  kal::Duration reply_wait{};  ///< as SpmEntry::reply_wait
  /// 1 / max-rate (zero: no max-rate). The analysis takes the method's requests to come at most
  /// ceil((w + arrival_jitter) / min_inter_arrival) in any window w, and the engine refuses a
  /// request that would break that (Engine::request), so that no caller, however fast, can load
  /// the node beyond what was analysed.
  kal::Duration min_inter_arrival{};
  /// How much closer together than min_inter_arrival requests may come: the release jitter the
  /// analysis counted (the chains' and the independent callers' that reach the method).
  kal::Duration arrival_jitter{};
};

/// One release of the static release table: the start window of SpM row `spm` opens `open`
/// into every hyperperiod. The time trigger walks the table in order, cycle after cycle.
struct ReleaseEntry {
  kal::Duration open;
  std::uint16_t spm;
};

/// True when `table` holds exactly the start-window openings of `spms` within one `hyperperiod`:
/// sorted, each row's openings congruent to its AAC, as many as the hyperperiod holds, none
/// twice. Generated schedules check it at compile time; the engine checks it again at start-up.
constexpr bool release_table_matches(std::span<const SpmEntry> spms,
                                     std::span<const ReleaseEntry> table,
                                     kal::Duration hyperperiod) noexcept {
  if (hyperperiod <= kal::Duration::zero()) {
    return false;
  }
  for (std::size_t k = 0; k < table.size(); ++k) {
    const ReleaseEntry& entry = table[k];
    if (entry.spm >= spms.size() || entry.open < kal::Duration::zero() ||
        entry.open >= hyperperiod || (k > 0 && table[k - 1].open > entry.open)) {
      return false;
    }
    for (std::size_t j = k + 1; j < table.size() && table[j].open == entry.open; ++j) {
      if (table[j].spm == entry.spm) {
        return false;  // the same opening twice
      }
    }
  }
  for (std::size_t row = 0; row < spms.size(); ++row) {
    const SpmEntry& spm = spms[row];
    const bool periodic = spm.period > kal::Duration::zero();
    if (periodic && hyperperiod % spm.period != kal::Duration::zero()) {
      return false;
    }
    const kal::Duration first_open = (spm.first_release + spm.window_open) % hyperperiod;
    std::int64_t count = 0;
    for (const ReleaseEntry& entry : table) {
      if (entry.spm != row) {
        continue;
      }
      ++count;
      const bool on_aac = periodic ? (entry.open - first_open) % spm.period == kal::Duration::zero()
                                   : entry.open == first_open;
      if (!on_aac) {
        return false;
      }
    }
    if (count != (periodic ? hyperperiod / spm.period : 1)) {
      return false;
    }
  }
  return true;
}

}  // namespace kairos
