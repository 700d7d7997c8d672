#include "kairos_catch.hpp"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <memory>
#include <vector>

#include <kairos/engine.hpp>

using namespace std::chrono_literals;

namespace {
struct Counter {
  std::atomic<int> runs{0};
  std::atomic<int> misses{0};
};

void count_run(void* servant) {
  static_cast<Counter*>(servant)->runs.fetch_add(1);
}
void count_miss(void* servant, const kairos::MissReport&) noexcept {
  static_cast<Counter*>(servant)->misses.fetch_add(1);
}

struct Observed {
  std::vector<kairos::ActivationRecord> records;
};
void collect(void* context, const kairos::SpmEntry&, const kairos::ActivationRecord& record) {
  static_cast<Observed*>(context)->records.push_back(record);
}

constexpr kairos::SpmEntry periodic(std::string_view method, kairos::kal::Duration period,
                                    int band) {
  // Windows are generous: this test runs on shared, noisy machines.
  return kairos::SpmEntry{"test", method,     "test.tmo:1", 0ms, kairos::kForever,           period,
                          0ms,    period / 2, period,       1ms, kairos::Criticality::kHard, band};
}
}  // namespace

TEST_CASE("the engine releases each periodic SpM once per period, in order",
          "[integration][engine]") {
  static constexpr kairos::SpmEntry kFast = periodic("fast", 10ms, 2);
  static constexpr kairos::SpmEntry kSlow = periodic("slow", 50ms, 1);
  static kairos::Engine engine;  // static: the engine's tables are sized for a whole node
  Counter fast;
  Counter slow;
  REQUIRE(engine.add_spm(kFast, &fast, &count_run, &count_miss) == kairos::kal::Status::kOk);
  REQUIRE(engine.add_spm(kSlow, &slow, &count_run, &count_miss) == kairos::kal::Status::kOk);

  Observed observed;
  REQUIRE(engine.run_for(200ms, &collect, &observed) == kairos::kal::Status::kOk);

  // Releases fall at 0, 10, ..., 190 ms and 0, 50, 100, 150 ms: exact counts.
  const auto counters = engine.counters();
  REQUIRE(counters.activations == 24);
  REQUIRE(observed.records.size() == 24);
  REQUIRE(fast.runs + fast.misses <= 20);
  REQUIRE(slow.runs + slow.misses <= 4);

  std::int64_t last_fast_release = -1;
  std::uint64_t next_fast_sequence = 0;
  for (const auto& record : observed.records) {
    if (record.spm != 0) {
      continue;
    }
    REQUIRE(record.sequence == next_fast_sequence++);
    REQUIRE(record.release_ns == static_cast<std::int64_t>(record.sequence) * 10'000'000);
    REQUIRE(record.release_ns > last_fast_release);
    last_fast_release = record.release_ns;
    if (record.ran()) {
      REQUIRE(record.start_ns >= record.release_ns);
      REQUIRE(record.finish_ns >= record.start_ns);
    }
  }
  REQUIRE(next_fast_sequence == 20);
}

TEST_CASE("the engine refuses rows it cannot honour", "[unit][engine]") {
  static kairos::Engine engine;
  static constexpr kairos::SpmEntry kInverted{
      "test", "inverted", "test.tmo:1", 0ms, kairos::kForever,           10ms,
      5ms,    1ms,        10ms,         1ms, kairos::Criticality::kHard, 1};
  Counter counter;
  REQUIRE(engine.add_spm(kInverted, &counter, &count_run, &count_miss) ==
          kairos::kal::Status::kInvalidArgument);
  REQUIRE(engine.add_spm(kInverted, &counter, nullptr, &count_miss) ==
          kairos::kal::Status::kInvalidArgument);
}

TEST_CASE("a multicore engine needs CPUs only for the cores its methods use",
          "[integration][engine][multicore]") {
  // Confine this thread (whose affinity mask cpu_available reads, and which the engine's threads
  // inherit) to one CPU, as a container of one CPU would.
  cpu_set_t saved;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0);

  kairos::EngineOptions options{kairos::Strategy::kRms, -1, false};
  options.cores = 2;
  static constexpr kairos::SpmEntry kOnCore0 = periodic("here", 10ms, 1);
  static kairos::SpmEntry on_core_1 = periodic("there", 10ms, 1);
  on_core_1.instance = "elsewhere";
  on_core_1.core = 1;
  Counter counter;

  auto placed_on_core_0 = std::make_unique<kairos::Engine>(options);
  REQUIRE(placed_on_core_0->add_spm(kOnCore0, &counter, &count_run, &count_miss) ==
          kairos::kal::Status::kOk);
  const auto runs_on_one_cpu = placed_on_core_0->run_for(30ms, nullptr, nullptr);

  auto using_core_1 = std::make_unique<kairos::Engine>(options);
  REQUIRE(using_core_1->add_spm(kOnCore0, &counter, &count_run, &count_miss) ==
          kairos::kal::Status::kOk);
  REQUIRE(using_core_1->add_spm(on_core_1, &counter, &count_run, &count_miss) ==
          kairos::kal::Status::kOk);
  const auto refused = using_core_1->run_for(30ms, nullptr, nullptr);

  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof saved, &saved) == 0);
  REQUIRE(runs_on_one_cpu == kairos::kal::Status::kOk);
  REQUIRE(counter.runs == 3);
  REQUIRE(refused == kairos::kal::Status::kUnavailable);
}
