#include <catch2/catch.hpp>

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
  const char* cpu[] = {"node", "--cpu", "1"};
  REQUIRE(kairos::parse_node_options(3, cpu, "node", options) == kairos::NodeCommand::kRun);
  REQUIRE(options.cpu == 1);
  const char* bad_cpu[] = {"node", "--cpu", "one"};
  REQUIRE(kairos::parse_node_options(3, bad_cpu, "node", options) ==
          kairos::NodeCommand::kUsageError);
  const char* unknown[] = {"node", "--fast"};
  REQUIRE(kairos::parse_node_options(2, unknown, "node", options) ==
          kairos::NodeCommand::kUsageError);
}
