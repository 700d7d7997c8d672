// Partitioned scheduling: each row runs on its core, in lanes pinned to that core's CPU. Exact on
// simulated time (one virtual processor per core); on a real machine the 2-core scenarios need
// two CPUs this process may use.
#include "../kairos_catch.hpp"

#include <array>
#include <memory>
#include <string>

#include <kairos/kal/thread.hpp>
#include <kairos/node.hpp>

#include "scenario.hpp"

using conformance::Task;
using conformance::unit;
using kairos::Criticality;
using kairos::Strategy;
using kairos::kal::kSimulatedTime;
using kairos::kal::Status;
using namespace std::chrono_literals;

namespace {

/// CPUs this process may use (on sim: virtual processors provisioned so far).
int usable_cpus() {
  int count = 0;
  for (int cpu = 0; cpu < 1024; ++cpu) {
    count += kairos::kal::cpu_available(cpu) ? 1 : 0;
  }
  return count;
}

/// True when a 2-core engine can run here; otherwise says why the scenario is skipped.
bool two_cpus_or_skip() {
  if (kSimulatedTime) {
    return true;  // the engine provisions a virtual processor per core
  }
  const int cpus = usable_cpus();
  if (cpus < 2) {
    WARN("skipped: a 2-core engine needs 2 CPUs this process may use; it has " << cpus);
    return false;
  }
  return true;
}

bool real_time() {
  return kairos::kal::scheduling_mode() == kairos::kal::SchedulingMode::kRealTime;
}

bool overlap(const kairos::ActivationRecord& a, const kairos::ActivationRecord& b) {
  return a.start_ns < b.finish_ns && b.start_ns < a.finish_ns;
}

void no_work(void*) {}

kairos::SpmEntry row(std::string_view instance, std::uint8_t core, int band = 1,
                     std::uint64_t segments = 0) {
  return kairos::SpmEntry{instance,           "tick", "scenario",  0ms,         kairos::kForever,
                          unit() * 10,        0ms,    unit() * 10, unit() * 10, unit(),
                          Criticality::kHard, band,   0,           segments,    core};
}

kairos::SvmEntry service(std::string_view instance, std::uint8_t core, std::uint64_t conflicts) {
  kairos::SvmEntry entry{instance, "serve", "scenario", unit() * 5, unit(), Criticality::kSoft,
                         1,        0,       conflicts,  unit() * 2, 0};
  entry.core = core;
  return entry;
}

void no_service(void*, void*) {}

kairos::EngineOptions two_cores() {
  kairos::EngineOptions options{Strategy::kRms, -1, false};
  options.cores = 2;
  return options;
}

}  // namespace

TEST_CASE("two SpMs at 60% each meet every deadline on two cores, in parallel, and not on one",
          "[conformance][multicore]") {
  // WCET 6 of period 10 each: U = 1.2 for the node, 0.6 per core.
  const std::vector<Task> tasks{{"a", 6, 10, Criticality::kHard, 1, 0, 0, /*core=*/0},
                                {"b", 6, 10, Criticality::kHard, 1, 0, 0, /*core=*/1}};
  if (two_cpus_or_skip()) {
    const auto outcome = conformance::run(Strategy::kRms, tasks, 40, /*cores=*/2);
    const auto a = outcome.of(0);
    const auto b = outcome.of(1);
    REQUIRE(a.size() == 4);
    REQUIRE(b.size() == 4);
    REQUIRE(outcome.counters.trace_drops == 0);
    if (kSimulatedTime || real_time()) {
      REQUIRE(outcome.counters.deadline_misses == 0);
      REQUIRE(outcome.counters.start_window_misses == 0);
      for (std::size_t k = 0; k < a.size(); ++k) {
        REQUIRE(overlap(a[k], b[k]));
      }
    }
    if (kSimulatedTime) {
      // Side by side: each starts at its release and takes exactly its WCET.
      for (std::size_t k = 0; k < a.size(); ++k) {
        const std::int64_t release = (unit() * static_cast<std::int64_t>(10 * k)).count();
        for (const auto* r : {&a[k], &b[k]}) {
          REQUIRE(r->start_ns == release);
          REQUIRE(r->finish_ns == release + (unit() * 6).count());
        }
      }
    }
  }

  // The same two on one core: 12 units of work every 10, so the less urgent one misses.
  std::vector<Task> one_core = tasks;
  one_core[0].band = 2;
  one_core[1].core = 0;
  const auto crowded = conformance::run(Strategy::kRms, one_core, 40);
  REQUIRE(crowded.misses(1) > 0);
  if (kSimulatedTime) {
    REQUIRE(crowded.misses(0) == 0);
    REQUIRE(crowded.of(1)[0].start_ns == (unit() * 6).count());
    REQUIRE_FALSE(overlap(crowded.of(0)[0], crowded.of(1)[0]));
  }
}

TEST_CASE("lanes of different cores do not preempt each other", "[conformance][multicore]") {
  // Both released at 0: 'urgent' (band 5) on core 1 and 'patient' (band 1) on core 0, 4 units
  // each. On one core 'patient' would finish at 8; on its own core nothing delays it.
  const std::vector<Task> tasks{{"patient", 4, 10, Criticality::kHard, 1, 0, 0, /*core=*/0},
                                {"urgent", 4, 10, Criticality::kHard, 5, 0, 0, /*core=*/1}};
  if (!two_cpus_or_skip()) {
    return;
  }
  const auto outcome = conformance::run(Strategy::kRms, tasks, 30, /*cores=*/2);
  const auto patient = outcome.of(0);
  REQUIRE(patient.size() == 3);
  if (kSimulatedTime) {
    for (const auto& r : patient) {
      REQUIRE(r.start_ns == r.release_ns);
      REQUIRE(r.finish_ns == r.release_ns + (unit() * 4).count());
    }
    for (const auto& r : outcome.of(1)) {
      REQUIRE(r.finish_ns == r.release_ns + (unit() * 4).count());
    }
  } else if (real_time()) {
    // Each 'patient' starts while its 'urgent' still runs: on one core it would start only once
    // 'urgent' finished. An order, not a time: a host that stalls a vCPU for a few milliseconds
    // (this machine's host does) delays both alike.
    const auto urgent = outcome.of(1);
    REQUIRE(urgent.size() == patient.size());
    for (std::size_t k = 0; k < patient.size(); ++k) {
      REQUIRE(patient[k].start_ns < urgent[k].finish_ns);
    }
  }
}

TEST_CASE("rows bound to a core the engine does not have are refused", "[conformance][multicore]") {
  static const kairos::SpmEntry on_core_1 = row("far", 1);
  static const kairos::SpmEntry on_core_2 = row("farther", 2);
  static const kairos::SvmEntry service_on_core_2 = service("farther", 2, 0);
  int servant = 0;

  auto single = std::make_unique<kairos::Engine>();  // cores = 1: only core 0 exists
  REQUIRE(single->add_spm(on_core_1, &servant, &no_work, nullptr) == Status::kInvalidArgument);

  auto pair = std::make_unique<kairos::Engine>(two_cores());
  REQUIRE(pair->add_spm(on_core_2, &servant, &no_work, nullptr) == Status::kInvalidArgument);
  REQUIRE(pair->add_svm(service_on_core_2, &servant, &no_service, nullptr) ==
          Status::kInvalidArgument);
  REQUIRE(pair->add_spm(on_core_1, &servant, &no_work, nullptr) == Status::kOk);
}

TEST_CASE("a TMO, its segments and its BCC stay on one core", "[conformance][multicore]") {
  static const kairos::SpmEntry first = row("nav", 0, 1, 0b01);
  static const kairos::SpmEntry same_tmo_elsewhere = row("nav", 1);
  static const kairos::SpmEntry shared_segment_elsewhere = row("log", 1, 1, 0b01);
  static const kairos::SpmEntry other = row("log", 1, 1, 0b10);
  static const kairos::SvmEntry conflicting = service("ui", 1, /*conflicts: row 0=*/0b01);
  static const kairos::SegmentEntry segments[] = {{"nav", "state", 1}, {"log", "buffer", 1}};
  int servant = 0;
  auto engine = std::make_unique<kairos::Engine>(two_cores());
  for (const auto& segment : segments) {
    REQUIRE(engine->add_segment(segment) == Status::kOk);
  }
  REQUIRE(engine->add_spm(first, &servant, &no_work, nullptr) == Status::kOk);
  REQUIRE(engine->add_spm(same_tmo_elsewhere, &servant, &no_work, nullptr) ==
          Status::kInvalidArgument);
  REQUIRE(engine->add_spm(shared_segment_elsewhere, &servant, &no_work, nullptr) ==
          Status::kInvalidArgument);
  REQUIRE(engine->add_spm(other, &servant, &no_work, nullptr) == Status::kOk);
  // An SvM on core 1 conflicting with an SpM on core 0: BCC would have to span both cores.
  REQUIRE(engine->add_svm(conflicting, &servant, &no_service, nullptr) == Status::kOk);
  REQUIRE(engine->run_for(unit(), nullptr, nullptr) == Status::kInvalidArgument);
}

TEST_CASE("an engine refuses cores and CPUs it cannot have", "[conformance][multicore]") {
  auto run_with = [](const kairos::EngineOptions& options) {
    auto engine = std::make_unique<kairos::Engine>(options);
    return engine->run_for(unit(), nullptr, nullptr);
  };
  kairos::EngineOptions options = two_cores();

  options.cores = 0;
  REQUIRE(run_with(options) == Status::kInvalidArgument);
  options.cores = static_cast<std::uint8_t>(kairos::Engine::kMaxCores + 1);
  REQUIRE(run_with(options) == Status::kCapacityExceeded);

  options.cores = 2;
  static const std::array<int, 1> one_cpu{0};
  options.core_cpus = one_cpu;  // one CPU for two cores
  REQUIRE(run_with(options) == Status::kInvalidArgument);
  static const std::array<int, 2> same_cpu{0, 0};
  options.core_cpus = same_cpu;
  REQUIRE(run_with(options) == Status::kInvalidArgument);
  static const std::array<int, 2> no_such_cpu{0, 1 << 20};
  options.core_cpus = no_such_cpu;
  REQUIRE(run_with(options) == Status::kInvalidArgument);

  // `cpu` pins a single-core engine only.
  options.core_cpus = {};
  options.cpu = 0;
  REQUIRE(run_with(options) == Status::kInvalidArgument);
  options.cores = 1;
  options.core_cpus = one_cpu;
  REQUIRE(run_with(options) == Status::kInvalidArgument);
}

TEST_CASE("lanes are per (core, band), and a node needing more than kMaxLanes is refused",
          "[conformance][multicore]") {
  // Two cores with kMaxLanes / 2 + 1 bands each: one lane too many. Each row its own TMO.
  constexpr std::size_t kBandsPerCore = kairos::Engine::kMaxLanes / 2 + 1;
  static std::array<std::string, 2 * kBandsPerCore> names;
  static std::array<kairos::SpmEntry, 2 * kBandsPerCore> rows;
  int servant = 0;
  auto engine = std::make_unique<kairos::Engine>(two_cores());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    names[i] = "tmo" + std::to_string(i);
    rows[i] = row(names[i], static_cast<std::uint8_t>(i % 2), static_cast<int>(1 + i / 2));
    REQUIRE(engine->add_spm(rows[i], &servant, &no_work, nullptr) == Status::kOk);
  }
  REQUIRE(engine->run_for(unit(), nullptr, nullptr) == Status::kCapacityExceeded);
}

TEST_CASE("an activation line says the core of its method", "[conformance][multicore]") {
  static const kairos::SpmEntry entry = row("nav", 1);
  kairos::ActivationRecord record{};
  std::array<char, kairos::kLineCapacity> line{};
  const std::string text(line.data(), kairos::format_activation(line, entry, record));
  REQUIRE(text.find(" method=tick core=1 seq=0 ") != std::string::npos);
}
