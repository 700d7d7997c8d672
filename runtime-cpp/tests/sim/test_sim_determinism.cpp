// The simulated platform: the same program gives the same schedule, and its trace exports.
#include <catch2/catch.hpp>

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
