// What a node measures of its methods: the histograms' percentiles, execution and response
// times per row, and the runs that took longer than the declared WCET. Exact on sim, where a
// method's execution time is the time it models.
#include "../kairos_catch.hpp"

#include <kairos/method_timings.hpp>
#include <kairos/timings_report.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "scenario.hpp"

using conformance::unit;
using conformance::Worker;
using kairos::TimingHistogram;
using kairos::kal::kSimulatedTime;
using namespace std::chrono_literals;

TEST_CASE("timing histogram: every value below 64 ns has a bucket of its own",
          "[conformance][timings]") {
  TimingHistogram histogram;
  for (int value = 1; value <= 50; ++value) {
    histogram.record(value);
  }
  REQUIRE(histogram.count() == 50);
  REQUIRE(histogram.max() == 50);
  REQUIRE(histogram.percentile({1, 2}) == 25);        // rank 25 of 50
  REQUIRE(histogram.percentile(kairos::kP99) == 50);  // rank ceil(49.5) = 50
  REQUIRE(histogram.percentile({1, 50}) == 1);
  REQUIRE(histogram.percentile({0, 1}) == 1);  // rank 0 is taken as the smallest
}

TEST_CASE("timing histogram: p99 and p99.9 of a known sequence, exactly",
          "[conformance][timings]") {
  // Bucket boundaries are kept exactly: 989 typical runs, 10 slow ones, one slowest.
  const auto typical = TimingHistogram::highest_in(TimingHistogram::bucket_of(200'000));
  const auto slow = TimingHistogram::highest_in(TimingHistogram::bucket_of(900'000));
  const std::uint64_t slowest = 1'234'567;
  TimingHistogram histogram;
  for (int i = 0; i < 989; ++i) {
    histogram.record(static_cast<std::int64_t>(typical));
  }
  for (int i = 0; i < 10; ++i) {
    histogram.record(static_cast<std::int64_t>(slow));
  }
  histogram.record(static_cast<std::int64_t>(slowest));
  REQUIRE(histogram.count() == 1000);
  REQUIRE(histogram.max() == slowest);
  REQUIRE(histogram.percentile({989, 1000}) == typical);
  REQUIRE(histogram.percentile(kairos::kP99) == slow);   // rank 990
  REQUIRE(histogram.percentile(kairos::kP999) == slow);  // rank 999
  REQUIRE(histogram.percentile({1, 1}) == slowest);      // the largest: max, not its bucket's top
}

TEST_CASE("timing histogram: any percentile is at most 1/32 above the true one",
          "[conformance][timings]") {
  std::mt19937_64 random{14};
  std::uniform_int_distribution<std::int64_t> durations{1, 50'000'000};
  std::vector<std::int64_t> values(5000);
  TimingHistogram histogram;
  for (auto& value : values) {
    value = durations(random);
    histogram.record(value);
  }
  std::sort(values.begin(), values.end());
  for (const kairos::Quantile q : {kairos::Quantile{1, 2}, kairos::kP99, kairos::kP999}) {
    const auto rank = (values.size() * q.parts + q.of - 1) / q.of;
    const auto exact = static_cast<std::uint64_t>(values[rank - 1]);
    const auto measured = histogram.percentile(q);
    REQUIRE(measured >= exact);
    REQUIRE(measured <= exact + exact / 32);
  }
  REQUIRE(histogram.max() == static_cast<std::uint64_t>(values.back()));
}

TEST_CASE("timing histogram: empty, negative and enormous values", "[conformance][timings]") {
  TimingHistogram histogram;
  REQUIRE(histogram.percentile(kairos::kP99) == 0);
  histogram.record(-5);
  REQUIRE(histogram.max() == 0);
  histogram.record(std::int64_t{1} << 40);  // beyond the last bucket: still its exact max
  REQUIRE(histogram.percentile({1, 1}) == std::uint64_t{1} << 40);
}

namespace {
// Computes for `work` in its body: one unit more than the row's WCET on odd runs.
struct Uneven {
  kairos::kal::Duration wcet{};
  int runs = 0;
};

/// Period 10, WCET 2, window (t, t + 2), deadline t + 9: room for the uneven body's 4 units.
kairos::SpmEntry uneven_entry(const char* method, const char* source) {
  return {
      "conformance", method,     source,     0ms,        kairos::kForever,           unit() * 10,
      0ms,           unit() * 2, unit() * 9, unit() * 2, kairos::Criticality::kHard, 1};
}

void uneven_work(void* servant) {
  auto* uneven = static_cast<Uneven*>(servant);
  conformance::compute_for(uneven->runs++ % 2 == 1 ? uneven->wcet * 2 : uneven->wcet / 2);
}
}  // namespace

TEST_CASE("each run's execution and response time is measured and runs past the WCET are counted",
          "[conformance][timings]") {
  // Period 10, WCET 2; the body computes for 1 or 4 units in turn: runs 1, 3, 5 overrun.
  static const kairos::SpmEntry entry = uneven_entry("uneven", "scenario.tmo:7");
  Uneven uneven{unit() * 2};
  kairos::EngineOptions options{kairos::Strategy::kRms, conformance::kOneCpu, false};
  options.measure_execution_time = true;  // off by default on Linux: it reads the CPU clock
  auto engine = std::make_unique<kairos::Engine>(options);
  REQUIRE(engine->add_spm(entry, &uneven, &uneven_work, nullptr) == kairos::kal::Status::kOk);
  conformance::Outcome outcome;
  REQUIRE(engine->run_for(unit() * 60, &conformance::collect, &outcome) ==
          kairos::kal::Status::kOk);

  REQUIRE(engine->spm_count() == 1);
  const kairos::MethodTimings& timings = engine->spm_timings(0);
  // Every run is measured once; a loaded real machine may make a release miss its window (not
  // run, not measured), so only sim knows that all six run. The body alternates by its own
  // count, so every second run overruns whichever releases ran.
  const std::uint64_t runs = timings.execution.count();
  REQUIRE(runs == static_cast<std::uint64_t>(uneven.runs));
  REQUIRE(timings.response.count() == runs);
  REQUIRE(timings.wcet_overruns.load() == runs / 2);
  REQUIRE(engine->counters().wcet_overruns == runs / 2);
  if (kSimulatedTime) {
    REQUIRE(runs == 6);
  } else {
    REQUIRE(runs >= 2);
    REQUIRE(runs <= 6);
  }
  const auto four_units = static_cast<std::uint64_t>((unit() * 4).count());
  if (kSimulatedTime) {
    // Modelled time: exactly what the body computed, and nothing preempts it.
    REQUIRE(timings.execution.max() == four_units);
    // The median is one unit, reported as the top of the bucket that holds it.
    const auto one_unit = static_cast<std::uint64_t>(unit().count());
    REQUIRE(timings.execution.percentile({1, 2}) ==
            TimingHistogram::highest_in(TimingHistogram::bucket_of(one_unit)));
    REQUIRE(timings.response.max() == four_units);
  } else {
    // CPU time of a spinning body: close to what it spun, never more than its response.
    REQUIRE(timings.execution.max() >= four_units * 9 / 10);
    REQUIRE(timings.response.max() >= timings.execution.max());
  }
}

TEST_CASE("without measured execution times only responses are recorded, and no overrun counted",
          "[conformance][timings]") {
  // The same uneven body as above, whose every second run computes past its WCET.
  static const kairos::SpmEntry entry = uneven_entry("unmeasured", "scenario.tmo:8");
  Uneven uneven{unit() * 2};
  kairos::EngineOptions options{kairos::Strategy::kRms, conformance::kOneCpu, false};
  options.measure_execution_time = false;
  auto engine = std::make_unique<kairos::Engine>(options);
  REQUIRE(engine->add_spm(entry, &uneven, &uneven_work, nullptr) == kairos::kal::Status::kOk);
  REQUIRE(engine->run_for(unit() * 40, nullptr, nullptr) == kairos::kal::Status::kOk);
  const kairos::MethodTimings& timings = engine->spm_timings(0);
  REQUIRE(uneven.runs >= 2);
  REQUIRE(timings.response.count() == static_cast<std::uint64_t>(uneven.runs));
  REQUIRE(timings.execution.count() == 0);
  REQUIRE(timings.wcet_overruns.load() == 0);
  const kairos::EngineCounters counters = engine->counters();
  REQUIRE_FALSE(counters.execution_time_measured);
  REQUIRE(counters.wcet_overruns == 0);
}

TEST_CASE("a modelled execution is the row's WCET and never an overrun", "[conformance][timings]") {
  static const kairos::SpmEntry entry{"conformance",
                                      "modelled",
                                      "scenario.tmo:9",
                                      0ms,
                                      kairos::kForever,
                                      unit() * 10,
                                      0ms,
                                      unit() * 2,
                                      unit() * 9,
                                      unit() * 3,
                                      kairos::Criticality::kHard,
                                      1};
  Worker worker;  // the body computes nothing: the engine models the WCET
  kairos::EngineOptions options{kairos::Strategy::kRms, conformance::kOneCpu, true};
  options.measure_execution_time = true;  // off by default on Linux: it reads the CPU clock
  auto engine = std::make_unique<kairos::Engine>(options);
  REQUIRE(engine->add_spm(entry, &worker, &conformance::work, nullptr) == kairos::kal::Status::kOk);
  REQUIRE(engine->run_for(unit() * 30, nullptr, nullptr) == kairos::kal::Status::kOk);
  const kairos::MethodTimings& timings = engine->spm_timings(0);
  REQUIRE(timings.execution.count() == static_cast<std::uint64_t>(worker.runs.load()));
  const std::string runs = std::to_string(timings.execution.count());
  if (kSimulatedTime) {
    REQUIRE(timings.execution.count() == 3);
    REQUIRE(timings.execution.max() == static_cast<std::uint64_t>((unit() * 3).count()));
    REQUIRE(timings.wcet_overruns.load() == 0);
  }

  // The timings document names the row with its model line and figures.
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  kairos::write_timings_json(out, "conformance_node", *engine, true);
  std::rewind(out);
  std::string text;
  for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) {
    text.push_back(static_cast<char>(c));
  }
  std::fclose(out);
  REQUIRE(text.find("\"format\": \"kairos-timings\"") != std::string::npos);
  REQUIRE(text.find("\"node\": \"conformance_node\"") != std::string::npos);
  REQUIRE(text.find("\"complete\": true") != std::string::npos);
  REQUIRE(text.find("\"source\": \"scenario.tmo:9\"") != std::string::npos);
  REQUIRE(text.find("\"execution\": {\"count\": " + runs + ",") != std::string::npos);
  REQUIRE(text.find("\"wcet_ns\": " + std::to_string((unit() * 3).count())) != std::string::npos);
}
