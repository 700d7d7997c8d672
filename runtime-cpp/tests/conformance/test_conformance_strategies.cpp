// Kokyu's dispatching strategies on textbook task sets. Exact on simulated time; on a real
// machine, counts, order and generous bounds.
#include "../kairos_catch.hpp"

#include "scenario.hpp"

using conformance::run;
using conformance::Task;
using kairos::Criticality;
using kairos::Strategy;
using kairos::kal::kSimulatedTime;

namespace {
/// Every release of every task in [0, units) is recorded once, in sequence order.
void require_complete_and_ordered(const conformance::Outcome& outcome,
                                  const std::vector<Task>& tasks, std::int64_t units) {
  std::uint64_t expected_total = 0;
  for (std::uint16_t t = 0; t < tasks.size(); ++t) {
    const auto records = outcome.of(t);
    const auto releases =
        static_cast<std::size_t>((units + tasks[t].period_units - 1) / tasks[t].period_units);
    REQUIRE(records.size() == releases);
    for (std::size_t k = 0; k < records.size(); ++k) {
      REQUIRE(records[k].sequence == k);
      REQUIRE(records[k].release_ns ==
              static_cast<std::int64_t>(k) * (conformance::unit() * tasks[t].period_units).count());
      if (records[k].ran()) {
        REQUIRE(records[k].start_ns >= records[k].release_ns);
        REQUIRE(records[k].finish_ns >= records[k].start_ns);
      }
    }
    expected_total += releases;
  }
  REQUIRE(outcome.counters.activations == expected_total);
  REQUIRE(outcome.counters.trace_drops == 0);
}

std::int64_t response_units(const kairos::ActivationRecord& r) {
  return (r.finish_ns - r.release_ns) / conformance::unit().count();
}
}  // namespace

TEST_CASE("RMS meets every deadline of {(1,4),(2,6),(3,10)} above the Liu-Layland bound",
          "[conformance][strategy][rms]") {
  // Buttazzo, Hard Real-Time Computing Systems: U = 0.983 > 0.780, yet R = 1, 3, 10.
  const std::vector<Task> tasks{{"t1", 1, 4, Criticality::kHard, 3},
                                {"t2", 2, 6, Criticality::kHard, 2},
                                {"t3", 3, 10, Criticality::kHard, 1}};
  const auto outcome = run(Strategy::kRms, tasks, 60);
  require_complete_and_ordered(outcome, tasks, 60);
  if (kSimulatedTime) {
    REQUIRE(outcome.counters.deadline_misses == 0);
    REQUIRE(outcome.counters.start_window_misses == 0);
    REQUIRE(response_units(outcome.of(0)[0]) == 1);
    REQUIRE(response_units(outcome.of(1)[0]) == 3);
    REQUIRE(response_units(outcome.of(2)[0]) == 10);  // exactly at its deadline
  }
}

TEST_CASE("a set with U = 1 misses under RMS and not under EDF", "[conformance][strategy][edf]") {
  // {(2,4),(3,6)}: under RMS the second task needs 7 > 6; EDF orders by deadline and fits,
  // preemptive or not.
  const std::vector<Task> rms_tasks{{"a", 2, 4, Criticality::kHard, 2},
                                    {"b", 3, 6, Criticality::kHard, 1}};
  const auto rms = run(Strategy::kRms, rms_tasks, 24);
  require_complete_and_ordered(rms, rms_tasks, 24);

  const std::vector<Task> edf_tasks{{"a", 2, 4, Criticality::kHard, 1},
                                    {"b", 3, 6, Criticality::kHard, 1}};
  const auto edf = run(Strategy::kEdf, edf_tasks, 24);
  require_complete_and_ordered(edf, edf_tasks, 24);
  const auto np_edf = run(Strategy::kNpEdf, edf_tasks, 24);
  require_complete_and_ordered(np_edf, edf_tasks, 24);
  if (kSimulatedTime) {
    REQUIRE(rms.misses(1) > 0);
    REQUIRE(rms.misses(0) == 0);
    for (const auto* outcome : {&edf, &np_edf}) {
      REQUIRE(outcome->counters.deadline_misses == 0);
      REQUIRE(outcome->counters.start_window_misses == 0);
    }
  }
}

TEST_CASE("a long job makes non-preemptive EDF miss where preemptive EDF meets every deadline",
          "[conformance][strategy][edf]") {
  // {(1,2),(3,8)}, U = 0.875. Non-preemptive (Kokyu's queue): 'long' runs [1,4) once started,
  // so 'short' released at 2 (due 4) runs [4,5) and misses. Preemptive: an earlier deadline
  // takes the processor, 'long' runs in [1,2), [3,4), [5,6) and completes at 6 (due 8).
  const std::vector<Task> tasks{{"short", 1, 2, Criticality::kHard, 1},
                                {"long", 3, 8, Criticality::kHard, 1}};
  const auto np_edf = run(Strategy::kNpEdf, tasks, 16);
  require_complete_and_ordered(np_edf, tasks, 16);
  const auto edf = run(Strategy::kEdf, tasks, 16);
  require_complete_and_ordered(edf, tasks, 16);
  if (kSimulatedTime) {
    REQUIRE(np_edf.misses(0) > 0);
    REQUIRE(np_edf.of(0)[1].finish_ns == (conformance::unit() * 5).count());
    REQUIRE(edf.counters.deadline_misses == 0);
    REQUIRE(edf.counters.start_window_misses == 0);
    for (const auto& r : edf.of(0)) {
      REQUIRE(response_units(r) == 1);  // never waits: its deadline is always the earliest
    }
    REQUIRE(edf.of(1)[0].start_ns == conformance::unit().count());
    REQUIRE(edf.of(1)[0].finish_ns == (conformance::unit() * 6).count());
    REQUIRE(edf.of(1)[1].finish_ns == (conformance::unit() * 14).count());
  }
}

TEST_CASE("under overload MUF and RMS+MLF keep every hard deadline while RMS misses hard ones",
          "[conformance][strategy][muf][rms+mlf]") {
  // A hard task (3, 10) and a soft one (4, 5): U = 1.1. RMS ranks the soft task higher (its
  // rate is higher) and starves the hard one; MUF and RMS+MLF rank by criticality first.
  const std::int64_t units = 100;
  const auto rms =
      run(Strategy::kRms,
          {{"hard", 3, 10, Criticality::kHard, 1}, {"soft", 4, 5, Criticality::kSoft, 2}}, units);
  const auto muf =
      run(Strategy::kMuf,
          {{"hard", 3, 10, Criticality::kHard, 2}, {"soft", 4, 5, Criticality::kSoft, 1}}, units);
  const auto rms_mlf =
      run(Strategy::kRmsMlf,
          {{"hard", 3, 10, Criticality::kHard, 2}, {"soft", 4, 5, Criticality::kSoft, 1}}, units);
  for (const auto* outcome : {&rms, &muf, &rms_mlf}) {
    REQUIRE(outcome->of(0).size() == 10);
    REQUIRE(outcome->of(1).size() == 20);
  }
  if (kSimulatedTime) {
    REQUIRE(rms.misses(0) > 0);
    REQUIRE(muf.misses(0) == 0);
    REQUIRE(rms_mlf.misses(0) == 0);
    REQUIRE(muf.misses(1) > 0);  // the overload lands on the soft task
    REQUIRE(rms_mlf.misses(1) > 0);
  } else {
    // Hard deadlines hold with a whole time unit of margin even on a shared machine.
    REQUIRE(muf.misses(0) <= 1);
    REQUIRE(rms_mlf.misses(0) <= 1);
  }
}

TEST_CASE("MLF runs the activation with the least laxity first", "[conformance][strategy][mlf]") {
  // Both released at 0 in one band: 'relaxed' (C=1, D=10) arrives first but has laxity 9;
  // 'urgent' (C=3, D=4) has laxity 1 and must run first. FIFO would miss 'urgent'.
  const std::vector<Task> tasks{{"relaxed", 1, 10, Criticality::kSoft, 1, 0, 10},
                                {"urgent", 3, 10, Criticality::kSoft, 1, 0, 4}};
  const auto mlf = run(Strategy::kMlf, tasks, 10);
  REQUIRE(mlf.of(0).size() == 1);
  REQUIRE(mlf.of(1).size() == 1);
  REQUIRE(mlf.of(1)[0].start_ns < mlf.of(0)[0].start_ns);
  if (kSimulatedTime) {
    REQUIRE(mlf.counters.deadline_misses == 0);
    REQUIRE(response_units(mlf.of(1)[0]) == 3);
    REQUIRE(response_units(mlf.of(0)[0]) == 4);
  }
}

TEST_CASE("MUF breaks laxity ties by importance", "[conformance][strategy][muf]") {
  const std::vector<Task> tasks{{"plain", 2, 10, Criticality::kSoft, 1, 0},
                                {"important", 2, 10, Criticality::kSoft, 1, 5}};
  const auto muf = run(Strategy::kMuf, tasks, 10);
  REQUIRE(muf.of(1)[0].start_ns < muf.of(0)[0].start_ns);
}

TEST_CASE("non-preemptive EDF sees a release that falls due just as the running method completes",
          "[conformance][strategy][np-edf]") {
  // One band, non-preemptive: at 4, 'a' (released at 0) completes just as 'b' is released
  // again. The choice at 4 must include it: b (deadline 8) before c (deadline 20), or b waits
  // out all of c and misses. Textbook non-preemptive EDF, and what `kairos check` assumes.
  const std::vector<Task> tasks{{"a", 3, 12, Criticality::kHard, 1},
                                {"b", 1, 4, Criticality::kHard, 1},
                                {"c", 4, 20, Criticality::kHard, 1}};
  const auto edf = run(Strategy::kNpEdf, tasks, 60);
  require_complete_and_ordered(edf, tasks, 60);
  if (kSimulatedTime) {
    REQUIRE(edf.counters.deadline_misses == 0);
    REQUIRE(edf.counters.start_window_misses == 0);
    REQUIRE(edf.of(0)[0].finish_ns == (conformance::unit() * 4).count());
    REQUIRE(edf.of(1)[1].start_ns == (conformance::unit() * 4).count());
    REQUIRE(edf.of(2)[0].start_ns == (conformance::unit() * 5).count());
  }
}
