// Shared pieces of the conformance suite: a task set, an engine to run it, and what happened.
// The same scenarios run on every platform; exact expectations apply where time is simulated.
#pragma once

#include "../kairos_catch.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/kal/execution.hpp>

namespace conformance {

using kairos::kal::Duration;
using namespace std::chrono_literals;

/// One time unit of the textbook task sets: 1 ms of virtual time; 2 ms on a real machine,
/// where a coarser grain keeps thread switches small against the work.
inline Duration unit() {
  return kairos::kal::kSimulatedTime ? Duration{1ms} : Duration{2ms};
}

/// Every engine thread on one processor, so that real platforms schedule like the textbooks.
inline constexpr int kOneCpu = 0;

/// A method that computes for a fixed time (its WCET).
struct Worker {
  Duration work{};
  std::atomic<int> runs{0};
  std::atomic<int> misses{0};
  std::atomic<int> start_window_misses{0};  ///< of `misses`, those of kind kStartWindow
  std::atomic<std::int64_t> first_miss_observed_ns{-1};
};

/// Computes for `duration` of this thread's processor time: time a loaded machine takes the
/// processor away for is not counted, so a body measured against its WCET computes what it says.
inline void compute_for(Duration duration) {
  if (kairos::kal::kSimulatedTime) {
    kairos::kal::busy_for(duration);
    return;
  }
  const Duration start = kairos::kal::thread_cpu_time();
  while (kairos::kal::thread_cpu_time() - start < duration) {
    // Spinning on purpose: this stands for computation.
  }
}

inline void work(void* servant) {
  auto* worker = static_cast<Worker*>(servant);
  worker->runs.fetch_add(1);
  kairos::kal::busy_for(worker->work);
}

inline void count_miss(void* servant, const kairos::MissReport& miss) noexcept {
  auto* worker = static_cast<Worker*>(servant);
  if (miss.kind == kairos::MissKind::kStartWindow) {
    worker->start_window_misses.fetch_add(1);
  }
  if (worker->misses.fetch_add(1) == 0) {
    worker->first_miss_observed_ns = miss.observed.count();
  }
}

struct Task {
  std::string_view name;
  std::int64_t wcet_units;
  std::int64_t period_units;
  kairos::Criticality criticality = kairos::Criticality::kHard;
  int band = 1;
  std::uint8_t importance = 0;
  std::int64_t deadline_units = 0;  ///< 0: implicit deadline (the period)
  std::uint8_t core = 0;            ///< the engine's core it is bound to
};

struct Outcome {
  std::vector<kairos::ActivationRecord> records;
  kairos::EngineCounters counters{};
  std::vector<std::unique_ptr<Worker>> workers;

  /// Records of one task, by sequence.
  std::vector<kairos::ActivationRecord> of(std::uint16_t task) const {
    std::vector<kairos::ActivationRecord> mine;
    for (const auto& r : records) {
      if (r.spm == task) {
        mine.push_back(r);
      }
    }
    std::sort(mine.begin(), mine.end(),
              [](const auto& a, const auto& b) { return a.sequence < b.sequence; });
    return mine;
  }

  int misses(std::uint16_t task) const { return workers[task]->misses.load(); }
};

inline void collect(void* context, const kairos::SpmEntry&, const kairos::ActivationRecord& r) {
  static_cast<Outcome*>(context)->records.push_back(r);
}

/// Runs a task set (implicit deadlines, start window = the whole period) for `units` time units,
/// each task a TMO of its own. One core: every thread on one processor; several: core c on the
/// c-th CPU this process may use (on sim, virtual processor c).
inline Outcome run(kairos::Strategy strategy, const std::vector<Task>& tasks, std::int64_t units,
                   std::uint8_t cores = 1) {
  auto entries = std::make_unique<std::vector<kairos::SpmEntry>>();
  entries->reserve(tasks.size());
  Outcome outcome;
  outcome.records.reserve(8192);
  kairos::EngineOptions options{strategy, cores == 1 ? kOneCpu : -1,
                                /*model_execution_time=*/false};
  options.cores = cores;
  auto engine = std::make_unique<kairos::Engine>(options);
  for (const Task& task : tasks) {
    const Duration period = unit() * task.period_units;
    const Duration deadline = task.deadline_units > 0 ? unit() * task.deadline_units : period;
    entries->push_back(kairos::SpmEntry{
        task.name, task.name, "scenario", 0ms, kairos::kForever, period, 0ms, deadline, deadline,
        unit() * task.wcet_units, task.criticality, task.band, task.importance, 0, task.core});
    auto worker = std::make_unique<Worker>();
    worker->work = unit() * task.wcet_units;
    REQUIRE(engine->add_spm(entries->back(), worker.get(), &work, &count_miss) ==
            kairos::kal::Status::kOk);
    outcome.workers.push_back(std::move(worker));
  }
  REQUIRE(engine->run_for(unit() * units, &collect, &outcome) == kairos::kal::Status::kOk);
  outcome.counters = engine->counters();
  return outcome;
}

}  // namespace conformance
