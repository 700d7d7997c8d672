// Kokyu's dispatch rule, in one place: which band a method's lane serves and in what order a
// band's ready activations run under each strategy. The analysis (`kairos check`) assumes exactly
// this rule; the engine applies it and nothing else does.
#pragma once

#include <cstdint>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/ready_queue.hpp>

namespace kairos {

enum class Criticality : std::uint8_t { kHard, kSoft };

/// A node's dispatching strategy, as in Kokyu: a priority assignment (the `band` of each row,
/// computed before deployment) plus a queue discipline inside each band.
enum class Strategy : std::uint8_t {
  kRms,  ///< bands by rate; FIFO inside a band
  /// Preemptive EDF: one band, a lane per method, an earlier absolute deadline preempts (the
  /// platform's deadline scheduling: SCHED_DEADLINE on Linux); segments under the Stack Resource
  /// Policy instead of ceiling locks.
  kEdf,
  kMlf,     ///< one band; minimum laxity first
  kMuf,     ///< bands by criticality; minimum laxity, then importance, inside a band
  kRmsMlf,  ///< hard methods in bands by rate (FIFO); soft ones in the lowest band by laxity
  kNpEdf,   ///< Kokyu's EDF queue: one band; earliest deadline first, never preempted in it
};

/// The one band `kairos check` assigns every method of a node under EDF, NP-EDF and MLF.
inline constexpr kal::PriorityBand kSingleBand = 1;

/// Whether methods of the strategy preempt each other by absolute deadline within their band.
constexpr bool preempts_by_deadline(Strategy strategy) noexcept {
  return strategy == Strategy::kEdf;
}

/// Whether a row of this band runs on a lane of its own, scheduled by its jobs' deadlines: under
/// preemptive EDF, the rows of its one band. Rows given another band (a test's clients, say)
/// share a lane per band, first in first out, as under every strategy.
constexpr bool runs_by_deadline(Strategy strategy, kal::PriorityBand band) noexcept {
  return preempts_by_deadline(strategy) && band == kSingleBand;
}

/// Order of ready activations inside one band.
enum class QueueDiscipline : std::uint8_t { kFifo, kDeadline, kLaxity, kLaxityThenImportance };

/// The discipline a strategy gives a band whose methods have the given criticality.
constexpr QueueDiscipline discipline_for(Strategy strategy, Criticality criticality) noexcept {
  switch (strategy) {
    case Strategy::kRms:
      return QueueDiscipline::kFifo;
    case Strategy::kEdf:
    case Strategy::kNpEdf:
      return QueueDiscipline::kDeadline;
    case Strategy::kMlf:
      return QueueDiscipline::kLaxity;
    case Strategy::kMuf:
      return QueueDiscipline::kLaxityThenImportance;
    case Strategy::kRmsMlf:
      return criticality == Criticality::kHard ? QueueDiscipline::kFifo : QueueDiscipline::kLaxity;
  }
  return QueueDiscipline::kFifo;
}

/// The place of a ready activation in its band's queue under `discipline` (smaller runs first):
/// `due` is its absolute deadline (a request's: its arrival plus GCT) in ns from the epoch,
/// `work` what it still has to do before it finishes (its WCET and the replies it waits for, as
/// the analysis counts them), `arrival` the order it reached the lane in, which breaks ties.
constexpr ReadyKey ready_key(QueueDiscipline discipline, std::int64_t due, kal::Duration work,
                             std::uint8_t importance, std::uint64_t arrival) noexcept {
  switch (discipline) {
    case QueueDiscipline::kFifo:
      return ReadyKey{0, 0, arrival};
    case QueueDiscipline::kDeadline:
      return ReadyKey{due, 0, arrival};
    case QueueDiscipline::kLaxity:
      // Laxity at any common instant orders like (deadline - remaining work); a waiting
      // activation has all of its work still to do.
      return ReadyKey{due - work.count(), 0, arrival};
    case QueueDiscipline::kLaxityThenImportance:
      return ReadyKey{due - work.count(), -static_cast<std::int64_t>(importance), arrival};
  }
  return ReadyKey{0, 0, arrival};
}

}  // namespace kairos
