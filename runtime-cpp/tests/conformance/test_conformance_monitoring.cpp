// Every miss is seen: at the deadline of a method still running, at the start of a method
// whose window has closed, and exactly once.
#include "../kairos_catch.hpp"

#include <kairos/node.hpp>

#include <array>
#include <map>
#include <string>

#include "scenario.hpp"

using conformance::unit;
using conformance::Worker;
using kairos::kal::Duration;
using kairos::kal::kSimulatedTime;
using namespace std::chrono_literals;

namespace {

struct SingleRun {
  std::unique_ptr<Worker> worker = std::make_unique<Worker>();
  conformance::Outcome outcome;
  kairos::EngineCounters counters{};
};

// Runs one SpM whose body computes for `work_units` for 30 units.
SingleRun run_single(const kairos::SpmEntry& entry, const kairos::EngineOptions& options,
                     std::int64_t work_units) {
  SingleRun run;
  auto engine = std::make_unique<kairos::Engine>(options);
  run.worker->work = unit() * work_units;
  REQUIRE(engine->add_spm(entry, run.worker.get(), &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  run.outcome.records.reserve(16);
  REQUIRE(engine->run_for(unit() * 30, &conformance::collect, &run.outcome) ==
          kairos::kal::Status::kOk);
  run.counters = engine->counters();
  return run;
}

}  // namespace

TEST_CASE("a method still running at its deadline is reported at the deadline, once",
          "[conformance][monitoring]") {
  // Period 10, deadline 4, but the body computes for 6: the watchdog must not wait for it.
  static const kairos::SpmEntry entry{
      "conformance", "overrun",  "scenario", 0ms,        kairos::kForever,           unit() * 10,
      0ms,           unit() * 2, unit() * 4, unit() * 6, kairos::Criticality::kHard, 1};
  const SingleRun run = run_single(
      entry, kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false}, 6);

  REQUIRE(run.outcome.records.size() == 3);
  REQUIRE(run.counters.deadline_misses == 3);
  REQUIRE(run.worker->misses == 3);  // once per activation, though both watchdog and lane saw it
  for (const auto& r : run.outcome.records) {
    REQUIRE(r.outcome == kairos::ActivationOutcome::kDeadlineMissed);
  }
  if (kSimulatedTime) {
    // Seen at 4 units, while the method still had 2 units of work left.
    REQUIRE(run.worker->first_miss_observed_ns == (unit() * 4).count());
  } else {
    // Seen while the method still ran: an order, which a host's stall of the CPU delays alike.
    REQUIRE(run.worker->first_miss_observed_ns < run.outcome.records[0].finish_ns);
  }
}

TEST_CASE("a deadline is watched even after the next activation was handed to the lane",
          "[conformance][monitoring]") {
  // Implicit deadline (10), body of 12: activation k is still running at its deadline, when
  // activation k + 1 has already been dispatched ahead of its window. Both must be watched.
  static const kairos::SpmEntry entry{
      "conformance", "overrun",   "scenario",  0ms,         kairos::kForever,           unit() * 10,
      0ms,           unit() * 10, unit() * 10, unit() * 12, kairos::Criticality::kHard, 1};
  kairos::EngineOptions options{kairos::Strategy::kRms, conformance::kOneCpu, false};
  options.dispatch_ahead = unit() / 2;
  const SingleRun run = run_single(entry, options, 12);

  REQUIRE(run.outcome.records.size() == 3);
  REQUIRE(run.counters.deadline_misses == 3);
  REQUIRE(run.worker->misses == 3);
  if (kSimulatedTime) {
    // Seen at 10, while the first activation still had 2 units of work left.
    REQUIRE(run.worker->first_miss_observed_ns == (unit() * 10).count());
  } else {
    REQUIRE(run.worker->first_miss_observed_ns < run.outcome.records[0].finish_ns);
  }
}

TEST_CASE("an activation that cannot start inside its window is dropped and reported",
          "[conformance][monitoring]") {
  // 'blocker' (band 2) computes for 5 units from 0; 'late' (band 1) must start by 2.
  static const kairos::SpmEntry blocker{"conformance",
                                        "blocker",
                                        "scenario",
                                        0ms,
                                        0ms,
                                        0ms,
                                        0ms,
                                        unit() * 1,
                                        unit() * 8,
                                        unit() * 5,
                                        kairos::Criticality::kHard,
                                        2};
  static const kairos::SpmEntry late{"conformance",
                                     "late",
                                     "scenario",
                                     0ms,
                                     0ms,
                                     0ms,
                                     0ms,
                                     unit() * 2,
                                     unit() * 8,
                                     unit() * 1,
                                     kairos::Criticality::kHard,
                                     1};
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Worker blocking;
  blocking.work = unit() * 5;
  Worker starved;
  starved.work = unit() * 1;
  REQUIRE(engine->add_spm(blocker, &blocking, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  REQUIRE(engine->add_spm(late, &starved, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(16);
  REQUIRE(engine->run_for(unit() * 10, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  // One-shot AACs: exactly one activation each.
  REQUIRE(outcome.records.size() == 2);
  REQUIRE(blocking.runs == 1);
  REQUIRE(starved.runs == 0);
  REQUIRE(starved.misses == 1);
  REQUIRE(engine->counters().start_window_misses == 1);
}

TEST_CASE("an AAC with an end stops releasing after it", "[conformance][aac]") {
  static const kairos::SpmEntry bounded{"conformance",
                                        "bounded",
                                        "scenario",
                                        unit() * 2,
                                        unit() * 6,
                                        unit() * 2,
                                        0ms,
                                        unit() * 1,
                                        unit() * 2,
                                        unit() * 1 / 4,
                                        kairos::Criticality::kSoft,
                                        1};
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Worker worker;
  worker.work = unit() / 4;
  REQUIRE(engine->add_spm(bounded, &worker, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(16);
  REQUIRE(engine->run_for(unit() * 20, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  // from 2 to 6 every 2: releases at 2, 4 and 6.
  const auto records = outcome.of(0);
  REQUIRE(records.size() == 3);
  for (std::size_t k = 0; k < records.size(); ++k) {
    REQUIRE(records[k].release_ns == (unit() * static_cast<std::int64_t>(2 + 2 * k)).count());
  }
}

TEST_CASE("an activation still waiting at its deadline is reported there, as a start-window miss",
          "[conformance][monitoring]") {
  // 'blocker' (band 2) computes for 5 units from 0; 'late' (band 1) must start by 2 and finish
  // by 3. At 3 the watchdog finds it still waiting: it missed its window, and is not run.
  static const kairos::SpmEntry blocker{"conformance",
                                        "blocker",
                                        "scenario",
                                        0ms,
                                        0ms,
                                        0ms,
                                        0ms,
                                        unit() * 1,
                                        unit() * 8,
                                        unit() * 5,
                                        kairos::Criticality::kHard,
                                        2};
  static const kairos::SpmEntry late{"conformance",
                                     "late",
                                     "scenario",
                                     0ms,
                                     0ms,
                                     0ms,
                                     0ms,
                                     unit() * 2,
                                     unit() * 3,
                                     unit() * 1,
                                     kairos::Criticality::kHard,
                                     1};
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Worker blocking;
  blocking.work = unit() * 5;
  Worker starved;
  starved.work = unit() * 1;
  REQUIRE(engine->add_spm(blocker, &blocking, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  REQUIRE(engine->add_spm(late, &starved, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(16);
  REQUIRE(engine->run_for(unit() * 10, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  REQUIRE(starved.runs == 0);
  REQUIRE(starved.misses == 1);  // reported once, though the lane saw it too
  REQUIRE(starved.start_window_misses == 1);
  const auto record = outcome.of(1).at(0);
  REQUIRE(record.outcome == kairos::ActivationOutcome::kStartWindowMissed);
  // Counted as what its record says.
  const auto counters = engine->counters();
  REQUIRE(counters.start_window_misses == 1);
  REQUIRE(counters.deadline_misses == 0);
  if (kSimulatedTime) {
    REQUIRE(starved.first_miss_observed_ns == (unit() * 3).count());
    REQUIRE(record.start_ns == (unit() * 5).count());  // when its lane came to it
  }
}

namespace {
// Computes for `first` on its first run, for `rest` on every later one.
struct Hog {
  Worker worker;
  Duration first{};
  Duration rest{};
};

void hog(void* servant) {
  auto* h = static_cast<Hog*>(servant);
  kairos::kal::busy_for(h->worker.runs.fetch_add(1) == 0 ? h->first : h->rest);
}
}  // namespace

TEST_CASE("every release has one record, and the counters count the records",
          "[conformance][monitoring][outcomes]") {
  // Released every unit (window and deadline: the unit); the first activation computes for 80
  // units, so releases pile up behind it: 64 fill the lane's queue and miss their windows, the
  // rest are dropped at release until it drains. After 80 every activation keeps its deadline.
  static const kairos::SpmEntry entry{
      "conformance", "hog",  "scenario", 0ms,         kairos::kForever,           unit(),
      0ms,           unit(), unit(),     unit() / 10, kairos::Criticality::kHard, 1};
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Hog h;
  h.first = unit() * 80;
  h.rest = unit() / 10;
  REQUIRE(engine->add_spm(entry, &h, &hog, &conformance::count_miss) == kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(256);
  REQUIRE(engine->run_for(unit() * 100, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);

  std::uint64_t by_outcome[4] = {};
  for (const auto& r : outcome.records) {
    ++by_outcome[static_cast<int>(r.outcome)];
  }
  const auto records = outcome.of(0);
  REQUIRE(records.size() == 100);
  for (std::size_t k = 0; k < records.size(); ++k) {
    REQUIRE(records[k].sequence == k);
  }
  const auto counters = engine->counters();
  REQUIRE(counters.trace_drops == 0);
  REQUIRE(counters.activations == records.size());
  REQUIRE(counters.deadline_misses ==
          by_outcome[static_cast<int>(kairos::ActivationOutcome::kDeadlineMissed)]);
  REQUIRE(counters.start_window_misses ==
          by_outcome[static_cast<int>(kairos::ActivationOutcome::kStartWindowMissed)]);
  REQUIRE(counters.overruns == by_outcome[static_cast<int>(kairos::ActivationOutcome::kOverrun)]);
  // Every activation that did not keep its deadline was reported once.
  REQUIRE(static_cast<std::uint64_t>(h.worker.misses.load()) ==
          records.size() - by_outcome[static_cast<int>(kairos::ActivationOutcome::kMet)]);
  // The first computes for 80 units; a real machine that took the processor away as the run
  // began may also have made it miss its window, and then the next one hogged.
  REQUIRE(records[0].outcome != kairos::ActivationOutcome::kMet);
  if (kSimulatedTime) {
    REQUIRE(records[0].outcome == kairos::ActivationOutcome::kDeadlineMissed);
  }

  // A node's lines and its summary say the same: each count is a count of lines.
  std::array<char, kairos::kLineCapacity> buffer{};
  std::map<std::string, std::uint64_t> words;
  for (const auto& r : records) {
    const std::string line(buffer.data(), kairos::format_activation(buffer, entry, r));
    REQUIRE(line.back() == '\n');
    for (const char* field : {"window=", "deadline="}) {
      const auto at = line.find(std::string(" ") + field);
      REQUIRE(at != std::string::npos);
      ++words[line.substr(at + 1, line.find(' ', at + 1) - at - 1)];
    }
  }
  const std::string summary(buffer.data(), kairos::format_summary(buffer, "node", counters));
  auto count = [&summary](const std::string& key) {
    const auto at = summary.find(" " + key + "=");
    REQUIRE(at != std::string::npos);
    return std::stoull(summary.substr(at + key.size() + 2));
  };
  REQUIRE(count("activations") == records.size());
  // ...and says how priorities were honoured: on sim, by simulation.
  if (kSimulatedTime) {
    REQUIRE(summary.find(" scheduling=simulated ") != std::string::npos);
  } else {
    // "deadline-refused" once the OS refused an earlier engine's deadline reservation.
    REQUIRE((summary.find(" scheduling=real-time ") != std::string::npos ||
             summary.find(" scheduling=best-effort ") != std::string::npos ||
             summary.find(" scheduling=deadline-refused ") != std::string::npos));
  }
  REQUIRE(count("requests_served") == counters.requests_served);
  REQUIRE(count("gct_misses") == counters.gct_misses);
  REQUIRE(count("start_window_misses") == words["window=missed"]);
  REQUIRE(count("overruns") == words["window=overrun"]);
  // A hard activation that never ran missed its deadline too: the summary says so, and how many
  // of its misses were never run.
  REQUIRE(count("not_run") == words["deadline=not-run"]);
  REQUIRE(count("deadline_misses") == words["deadline=missed"] + words["deadline=not-run"]);
  REQUIRE(words["window=met"] + words["window=missed"] + words["window=overrun"] == records.size());
  REQUIRE(words["deadline=not-run"] == words["window=missed"] + words["window=overrun"]);

  if (kSimulatedTime) {
    REQUIRE(counters.deadline_misses == 1);
    REQUIRE(counters.start_window_misses == kairos::Engine::kLaneQueueCapacity);
    REQUIRE(counters.overruns == 80 - kairos::Engine::kLaneQueueCapacity);
    REQUIRE(by_outcome[static_cast<int>(kairos::ActivationOutcome::kMet)] == 19);
    REQUIRE(records[65].outcome == kairos::ActivationOutcome::kOverrun);
    REQUIRE(records[81].outcome == kairos::ActivationOutcome::kMet);
  }
}

namespace {

/// A method that asks its own engine to stop on its `stop_at`-th run, after a quarter unit's work.
struct Stopper {
  kairos::Engine* engine = nullptr;
  int stop_at = 0;
  std::atomic<int> runs{0};
  kairos::kal::TimePoint asked{};
};

void run_then_stop(void* servant) {
  auto* stopper = static_cast<Stopper*>(servant);
  if (stopper->runs.fetch_add(1) + 1 == stopper->stop_at) {
    stopper->asked = kairos::kal::MonotonicClock::now();
    stopper->engine->request_stop();
  }
  kairos::kal::busy_for(unit() / 4);
}

void ignore_miss(void* /*servant*/, const kairos::MissReport& /*miss*/) noexcept {}

// Every 2 units for what would be 1,000 units.
const kairos::SpmEntry kLongRun{
    "conformance", "long",     "scenario", 0ms,        kairos::kForever,           unit() * 2,
    0ms,           unit() * 1, unit() * 2, unit() / 2, kairos::Criticality::kHard, 1};

}  // namespace

TEST_CASE("a stop asked for during the run ends it at a clean point", "[conformance][stop]") {
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Stopper stopper;
  stopper.engine = engine.get();
  stopper.stop_at = 5;
  REQUIRE(engine->add_spm(kLongRun, &stopper, &run_then_stop, &ignore_miss) ==
          kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(16);
  const auto began = kairos::kal::MonotonicClock::now();
  REQUIRE(engine->run_for(unit() * 1000, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  // The fifth run asked while it ran: it finished, and nothing was released after the trigger
  // took the stop in. On a real clock a trigger that wakes late may already be due to release
  // one more, and a loaded host may make an activation miss its window; on sim the run is exact.
  REQUIRE(stopper.runs >= 5);
  const std::int64_t asked_ns = (stopper.asked - engine->epoch()).count();
  std::size_t released_after = 0;
  for (const auto& record : outcome.records) {
    released_after += record.release_ns > asked_ns ? 1U : 0U;
  }
  REQUIRE(outcome.records.size() == engine->counters().activations);
  if (kSimulatedTime) {
    REQUIRE(stopper.runs == 5);
    REQUIRE(outcome.records.size() == 5);
    REQUIRE(released_after == 0);
    for (const auto& record : outcome.records) {
      REQUIRE(record.outcome == kairos::ActivationOutcome::kMet);
    }
  } else {
    REQUIRE(released_after <= 1);
    REQUIRE(kairos::kal::MonotonicClock::now() - began < unit() * 500);
  }
}

TEST_CASE("a stop asked for before the run ends it as it begins", "[conformance][stop]") {
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Stopper stopper;
  stopper.engine = engine.get();
  REQUIRE(engine->add_spm(kLongRun, &stopper, &run_then_stop, &ignore_miss) ==
          kairos::kal::Status::kOk);
  engine->request_stop();
  engine->request_stop();  // idempotent
  conformance::Outcome outcome;
  REQUIRE(engine->run_for(unit() * 1000, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  REQUIRE(stopper.runs == 0);
  REQUIRE(outcome.records.empty());
}
