// The simulated platform: the same program gives the same schedule, and its trace exports.
#include "../kairos_catch.hpp"

#include <cstdio>
#include <string>

#include <kairos/kal/sim_kernel.hpp>

#include "../conformance/scenario.hpp"

using conformance::Task;
using kairos::Criticality;

namespace {
const std::vector<Task> kTasks{{"t1", 1, 4, Criticality::kHard, 3},
                               {"t2", 2, 6, Criticality::kHard, 2},
                               {"t3", 3, 10, Criticality::kHard, 1}};

std::string read_all(std::FILE* file) {
  std::rewind(file);
  std::string text;
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
    text.append(buffer, n);
  }
  return text;
}
}  // namespace

TEST_CASE("two runs of the same task set give identical schedules", "[sim][determinism]") {
  const auto first = conformance::run(kairos::Strategy::kRms, kTasks, 60);
  const auto second = conformance::run(kairos::Strategy::kRms, kTasks, 60);
  REQUIRE(first.records.size() == second.records.size());
  for (std::uint16_t t = 0; t < kTasks.size(); ++t) {
    const auto a = first.of(t);
    const auto b = second.of(t);
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      REQUIRE(a[k].start_ns == b[k].start_ns);
      REQUIRE(a[k].finish_ns == b[k].finish_ns);
    }
  }
}

TEST_CASE("the processor trace records preemptions and exports as CSV and JSON", "[sim][trace]") {
  kairos::kal::sim::start_trace(100'000);
  conformance::run(kairos::Strategy::kRms, kTasks, 20);
  // t3 (released at 0, runs 3..) is preempted by t1 at 4 and by t2 at 6.
  REQUIRE(kairos::kal::sim::preemptions() >= 2);
  REQUIRE(kairos::kal::sim::trace_dropped() == 0);

  std::FILE* csv = std::tmpfile();
  kairos::kal::sim::write_trace_csv(csv);
  const std::string csv_text = read_all(csv);
  std::fclose(csv);
  REQUIRE(csv_text.rfind("time_ns,event,thread\n", 0) == 0);
  REQUIRE(csv_text.find(",preempt,kairos-lane") != std::string::npos);

  std::FILE* json = std::tmpfile();
  kairos::kal::sim::write_trace_json(json);
  const std::string json_text = read_all(json);
  std::fclose(json);
  REQUIRE(json_text.front() == '[');
  REQUIRE(json_text.find("\"event\": \"switch-in\"") != std::string::npos);
  kairos::kal::sim::start_trace(0);
}

TEST_CASE("a 2-core run is deterministic and its trace names each event's processor",
          "[sim][determinism][multicore]") {
  // Rate-monotonic on each core; every method WCET-bound on its own virtual processor.
  const std::vector<Task> tasks{{"t1", 1, 4, Criticality::kHard, 3, 0, 0, 0},
                                {"t2", 2, 6, Criticality::kHard, 2, 0, 0, 0},
                                {"t3", 3, 5, Criticality::kHard, 2, 0, 0, 1},
                                {"t4", 4, 10, Criticality::kHard, 1, 0, 0, 1}};
  kairos::kal::sim::start_trace(100'000);
  const auto first = conformance::run(kairos::Strategy::kRms, tasks, 60, 2);
  std::vector<kairos::kal::sim::TraceEvent> first_trace;
  for (std::size_t i = 0; i < kairos::kal::sim::trace_size(); ++i) {
    first_trace.push_back(kairos::kal::sim::trace_event(i));
  }
  kairos::kal::sim::start_trace(100'000);
  const auto second = conformance::run(kairos::Strategy::kRms, tasks, 60, 2);
  REQUIRE(kairos::kal::sim::trace_dropped() == 0);
  REQUIRE(kairos::kal::sim::trace_size() == first_trace.size());
  bool seen[2] = {false, false};
  for (std::size_t i = 0; i < first_trace.size(); ++i) {
    const auto& a = first_trace[i];
    const auto& b = kairos::kal::sim::trace_event(i);
    // The virtual clock runs on between the runs: compare times from each run's first event.
    REQUIRE(a.time_ns - first_trace[0].time_ns ==
            b.time_ns - kairos::kal::sim::trace_event(0).time_ns);
    REQUIRE(a.kind == b.kind);
    REQUIRE(std::string(a.thread.data()) == b.thread.data());
    REQUIRE(a.processor == b.processor);
    REQUIRE((a.processor == 0 || a.processor == 1));
    seen[a.processor] = true;
  }
  REQUIRE((seen[0] && seen[1]));
  for (std::uint16_t t = 0; t < tasks.size(); ++t) {
    const auto a = first.of(t);
    const auto b = second.of(t);
    REQUIRE(a.size() == b.size());
    for (std::size_t k = 0; k < a.size(); ++k) {
      REQUIRE(a[k].start_ns == b[k].start_ns);
      REQUIRE(a[k].finish_ns == b[k].finish_ns);
    }
  }
  // Each core alone meets every deadline (U = 0.58 and 0.8), so the node does.
  REQUIRE(first.counters.deadline_misses == 0);
  REQUIRE(first.counters.start_window_misses == 0);
  // t3 is the most urgent on core 1 whatever core 0 runs: it always starts at its release.
  for (const auto& r : first.of(2)) {
    REQUIRE(r.start_ns == r.release_ns);
  }

  std::FILE* csv = std::tmpfile();
  kairos::kal::sim::write_trace_csv(csv);
  const std::string csv_text = read_all(csv);
  std::fclose(csv);
  REQUIRE(csv_text.rfind("time_ns,event,thread,processor\n", 0) == 0);
  REQUIRE(csv_text.find(",switch-in,kairos-trigger,0\n") != std::string::npos);
  kairos::kal::sim::start_trace(0);
}

namespace {
struct Pinned {
  kairos::kal::Duration work{};
  std::int64_t finished_ns = -1;
  static void run(void* self) noexcept {
    auto* p = static_cast<Pinned*>(self);
    kairos::kal::busy_for(p->work);
    p->finished_ns = kairos::kal::MonotonicClock::now().time_since_epoch().count();
  }
};
}  // namespace

TEST_CASE("a thread pinned to a virtual processor runs only there, beside the others",
          "[sim][multicore]") {
  REQUIRE(kairos::kal::provision_processors(2) == kairos::kal::Status::kOk);
  REQUIRE(kairos::kal::cpu_available(1));
  REQUIRE_FALSE(kairos::kal::cpu_available(2));
  REQUIRE(kairos::kal::provision_processors(kairos::kal::sim::kMaxProcessors + 1) ==
          kairos::kal::Status::kCapacityExceeded);
  const std::int64_t start = kairos::kal::MonotonicClock::now().time_since_epoch().count();
  // Two on processor 0 at different bands, one on processor 1 at the lowest band: the one on
  // processor 1 is preempted by neither. Each preempts the main thread (processor 0, below every
  // band), which starts `low` once `high` is done.
  Pinned high{std::chrono::milliseconds{3}};
  Pinned low{std::chrono::milliseconds{2}};
  Pinned alone{std::chrono::milliseconds{4}};
  kairos::kal::Thread a;
  kairos::kal::Thread b;
  kairos::kal::Thread c;
  kairos::kal::Thread nowhere;
  REQUIRE(nowhere.start({"nowhere", 1, 2}, &Pinned::run, &alone) ==
          kairos::kal::Status::kInvalidArgument);
  REQUIRE(c.start({"alone", 1, 1}, &Pinned::run, &alone) == kairos::kal::Status::kOk);
  REQUIRE(a.start({"high", 9, 0}, &Pinned::run, &high) == kairos::kal::Status::kOk);
  REQUIRE(b.start({"low", 2, 0}, &Pinned::run, &low) == kairos::kal::Status::kOk);
  a.join();
  b.join();
  c.join();
  REQUIRE(high.finished_ns - start == 3'000'000);
  REQUIRE(low.finished_ns - start == 5'000'000);  // after `high`, on the same processor
  REQUIRE(alone.finished_ns - start == 4'000'000);
}
