// The runtime allocates nothing once it runs: counted, not assumed.
#include "../kairos_catch.hpp"

#include "../allocation_counter.hpp"
#include "scenario.hpp"

using conformance::unit;
using namespace std::chrono_literals;

namespace {
struct Probe {
  conformance::Worker worker;
  std::atomic<std::uint64_t> at_warm{0};
  std::atomic<std::uint64_t> at_last{0};
  std::atomic<int> runs{0};
  int warm_run = 5;
};

void probe(void* servant) {
  auto* p = static_cast<Probe*>(servant);
  const int run = ++p->runs;
  if (run == p->warm_run) {
    p->at_warm = testing::allocations();
  }
  if (run >= p->warm_run) {
    p->at_last = testing::allocations();  // at the latest run: whichever that is
  }
  kairos::kal::busy_for(p->worker.work);
}
}  // namespace

TEST_CASE("a steady-state run allocates nothing", "[conformance][allocation]") {
  // Two lanes, releases every unit: the time trigger, both lanes, the trace rings and the
  // observer all run between the fifth activation of the probe and its last.
  static const kairos::SpmEntry fast{
      "conformance", "fast", "scenario", 0ms,         kairos::kForever,           unit(),
      0ms,           unit(), unit(),     unit() / 10, kairos::Criticality::kHard, 2};
  static const kairos::SpmEntry slow{
      "conformance", "slow",     "scenario", 0ms,        kairos::kForever,           unit() * 3,
      0ms,           unit() * 3, unit() * 3, unit() / 5, kairos::Criticality::kSoft, 1};
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, conformance::kOneCpu, false});
  Probe fast_probe;
  fast_probe.worker.work = unit() / 10;
  conformance::Worker slow_worker;
  slow_worker.work = unit() / 5;
  REQUIRE(engine->add_spm(fast, &fast_probe, &probe, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  REQUIRE(engine->add_spm(slow, &slow_worker, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(4096);
  REQUIRE(engine->run_for(unit() * 45, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  // A machine that takes the processor away may make some releases miss their windows; the
  // steady state is the runs after the fifth, however many ran.
  REQUIRE(fast_probe.runs >= 20);
  REQUIRE(fast_probe.at_warm > 0);
  REQUIRE(fast_probe.at_last == fast_probe.at_warm);
}

TEST_CASE("a steady-state run of a 2-core engine allocates nothing",
          "[conformance][allocation][multicore]") {
  // As above, with the slow method's TMO on core 1: lanes on both cores, the trigger handing
  // activations across.
  int cpus = 0;
  for (int cpu = 0; cpu < 1024; ++cpu) {
    cpus += kairos::kal::cpu_available(cpu) ? 1 : 0;
  }
  if (!kairos::kal::kSimulatedTime && cpus < 2) {
    WARN("skipped: a 2-core engine needs 2 CPUs this process may use; it has " << cpus);
    return;
  }
  static const kairos::SpmEntry fast{
      "fast", "tick", "scenario", 0ms,         kairos::kForever,           unit(),
      0ms,    unit(), unit(),     unit() / 10, kairos::Criticality::kHard, 2};
  static kairos::SpmEntry slow{
      "slow", "tick",     "scenario", 0ms,        kairos::kForever,           unit() * 3,
      0ms,    unit() * 3, unit() * 3, unit() / 5, kairos::Criticality::kSoft, 1};
  slow.core = 1;
  kairos::EngineOptions options{kairos::Strategy::kRms, -1, false};
  options.cores = 2;
  auto engine = std::make_unique<kairos::Engine>(options);
  Probe fast_probe;
  fast_probe.worker.work = unit() / 10;
  conformance::Worker slow_worker;
  slow_worker.work = unit() / 5;
  REQUIRE(engine->add_spm(fast, &fast_probe, &probe, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  REQUIRE(engine->add_spm(slow, &slow_worker, &conformance::work, &conformance::count_miss) ==
          kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  outcome.records.reserve(4096);
  REQUIRE(engine->run_for(unit() * 45, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);
  REQUIRE(fast_probe.runs >= 20);
  REQUIRE(slow_worker.runs >= 7);
  REQUIRE(fast_probe.at_warm > 0);
  REQUIRE(fast_probe.at_last == fast_probe.at_warm);
}
