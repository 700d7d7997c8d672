#include <catch2/catch.hpp>

#include <string>

#include <kairos/engine.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/node.hpp>

using kairos::kal::Duration;

TEST_CASE("durations need a unit and fit in 64-bit nanoseconds", "[unit][node]") {
  Duration d{};
  REQUIRE(kairos::parse_duration("2s", d));
  REQUIRE(d == std::chrono::seconds{2});
  REQUIRE(kairos::parse_duration("1500ms", d));
  REQUIRE(d == std::chrono::milliseconds{1500});
  REQUIRE(kairos::parse_duration("3min", d));
  REQUIRE(d == std::chrono::minutes{3});
  REQUIRE(kairos::parse_duration("7ns", d));
  REQUIRE(d == Duration{7});
  REQUIRE_FALSE(kairos::parse_duration("", d));
  REQUIRE_FALSE(kairos::parse_duration("10", d));
  REQUIRE_FALSE(kairos::parse_duration("ms", d));
  REQUIRE_FALSE(kairos::parse_duration("-1s", d));
  REQUIRE_FALSE(kairos::parse_duration("10 ms", d));
  REQUIRE_FALSE(kairos::parse_duration("99999999999999999999s", d));
  REQUIRE_FALSE(kairos::parse_duration("9999999999min", d));
}

TEST_CASE("node options accept --duration and --quiet, and reject the rest", "[unit][node]") {
  kairos::NodeOptions options;
  const char* good[] = {"node", "--duration", "250ms", "--quiet"};
  REQUIRE(kairos::parse_node_options(4, good, "node", options) == kairos::NodeCommand::kRun);
  REQUIRE(options.duration == std::chrono::milliseconds{250});
  REQUIRE(options.quiet);

  const char* missing[] = {"node", "--duration"};
  REQUIRE(kairos::parse_node_options(2, missing, "node", options) ==
          kairos::NodeCommand::kUsageError);
  const char* zero[] = {"node", "--duration", "0s"};
  REQUIRE(kairos::parse_node_options(3, zero, "node", options) == kairos::NodeCommand::kUsageError);
  const char* cpu[] = {"node", "--cpu", "0"};
  REQUIRE(kairos::parse_node_options(3, cpu, "node", options) == kairos::NodeCommand::kRun);
  REQUIRE(options.cpu == 0);
  const char* bad_cpu[] = {"node", "--cpu", "one"};
  REQUIRE(kairos::parse_node_options(3, bad_cpu, "node", options) ==
          kairos::NodeCommand::kUsageError);
  const char* unknown[] = {"node", "--fast"};
  REQUIRE(kairos::parse_node_options(2, unknown, "node", options) ==
          kairos::NodeCommand::kUsageError);
}

TEST_CASE("the --cpu option names a CPU this node may run on", "[unit][node]") {
  // The first CPU past the ones this process may use (2 on a 2-CPU machine, where --cpu 7 was
  // accepted and then ignored by the thread affinity call).
  int missing = 0;
  while (kairos::kal::cpu_available(missing)) {
    ++missing;
  }
  REQUIRE(kairos::kal::cpu_available(0));
  REQUIRE_FALSE(kairos::kal::cpu_available(-1));
  REQUIRE_FALSE(kairos::kal::cpu_available(1 << 20));
  const std::string beyond = std::to_string(missing);
  for (const char* value : {beyond.c_str(), "1023", "1024", "99999"}) {
    kairos::NodeOptions options;
    const char* argv[] = {"node", "--cpu", value};
    INFO("--cpu " << value);
    REQUIRE(kairos::parse_node_options(3, argv, "node", options) ==
            kairos::NodeCommand::kUsageError);
    REQUIRE(options.cpu == -1);
  }
  // The engine refuses such a CPU too, before it starts a thread.
  static kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kRms, missing, false}};
  REQUIRE(engine.run_for(std::chrono::milliseconds{1}, nullptr, nullptr) ==
          kairos::kal::Status::kInvalidArgument);
}
