#include "kairos_catch.hpp"

#include <algorithm>
#include <array>
#include <filesystem>
#include <initializer_list>
#include <string>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/node.hpp>

using kairos::kal::Duration;

namespace {
/// The options of a node named "node" started with `args`.
kairos::NodeCommand parse_args(std::initializer_list<const char*> args,
                               kairos::NodeOptions& options) {
  std::vector<const char*> argv{"node"};
  argv.insert(argv.end(), args);
  return kairos::parse_node_options(static_cast<int>(argv.size()), argv.data(), "node", options);
}
}  // namespace

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

TEST_CASE("the --cpus option gives each core of a multicore node its CPU",
          "[unit][node][multicore]") {
  auto parse = [](std::uint8_t cores, std::initializer_list<const char*> args,
                  kairos::NodeOptions& options) {
    options.cores = cores;
    std::array<const char*, 8> argv{"node"};
    std::copy(args.begin(), args.end(), argv.begin() + 1);
    return kairos::parse_node_options(static_cast<int>(args.size() + 1), argv.data(), "node",
                                      options);
  };
  kairos::NodeOptions options;
  // --cpu pins single-core nodes only; a multicore node is told to use --cpus.
  REQUIRE(parse(2, {"--cpu", "0"}, options) == kairos::NodeCommand::kUsageError);
  REQUIRE(options.cpu == -1);
  for (const char* bad : {"", "0", "0,", ",0", "0,,1", "0;1", "a,b", "0,-1", "0,1,2"}) {
    INFO("--cpus '" << bad << "'");
    kairos::NodeOptions fresh;
    REQUIRE(parse(2, {"--cpus", bad}, fresh) == kairos::NodeCommand::kUsageError);
    REQUIRE(fresh.cpu_count == 0);
  }
  REQUIRE(parse(2, {"--cpus"}, options) == kairos::NodeCommand::kUsageError);
  REQUIRE(parse(2, {"--cpus", "0,0"}, options) == kairos::NodeCommand::kUsageError);  // twice
  REQUIRE(parse(2, {"--cpus", "0,1048576"}, options) == kairos::NodeCommand::kUsageError);

  // A single-core node may name its one CPU either way, but not both ways.
  kairos::NodeOptions single;
  REQUIRE(parse(1, {"--cpus", "0"}, single) == kairos::NodeCommand::kRun);
  REQUIRE(single.core_cpus().size() == 1);
  kairos::NodeOptions both;
  REQUIRE(parse(1, {"--cpu", "0", "--cpus", "0"}, both) == kairos::NodeCommand::kUsageError);

  // The first two CPUs this process may use, when it has two.
  std::vector<int> usable;
  for (int cpu = 0; cpu < 1024 && usable.size() < 2; ++cpu) {
    if (kairos::kal::cpu_available(cpu)) {
      usable.push_back(cpu);
    }
  }
  // Without --cpus the engine places the cores (and needs CPUs only for cores with methods).
  kairos::NodeOptions placed_by_kairos;
  REQUIRE(parse(2, {}, placed_by_kairos) == kairos::NodeCommand::kRun);
  REQUIRE(placed_by_kairos.core_cpus().empty());
  if (usable.size() < 2) {
    WARN("skipped the accepted --cpus case: it needs 2 CPUs this process may use");
    return;
  }
  const std::string list = std::to_string(usable[1]) + "," + std::to_string(usable[0]);
  kairos::NodeOptions pair;
  REQUIRE(parse(2, {"--cpus", list.c_str()}, pair) == kairos::NodeCommand::kRun);
  REQUIRE(pair.cpu_count == 2);
  const auto engine = kairos::engine_options(pair, kairos::Strategy::kEdf, true);
  REQUIRE(engine.strategy == kairos::Strategy::kEdf);
  REQUIRE(engine.model_execution_time);
  REQUIRE(engine.cores == 2);
  REQUIRE(engine.cpu == -1);
  REQUIRE(engine.core_cpus.size() == 2);
  REQUIRE(engine.core_cpus[0] == usable[1]);
  REQUIRE(engine.core_cpus[1] == usable[0]);
}

TEST_CASE("an activation line of a node among several names the node", "[unit][node]") {
  static const kairos::SpmEntry entry{"nav",
                                      "update",
                                      "m.tmo:3",
                                      Duration{0},
                                      kairos::kForever,
                                      std::chrono::milliseconds{10},
                                      Duration{0},
                                      std::chrono::milliseconds{1},
                                      std::chrono::milliseconds{5},
                                      std::chrono::milliseconds{1},
                                      kairos::Criticality::kHard,
                                      2};
  const kairos::ActivationRecord record{};
  std::array<char, kairos::kLineCapacity> line{};
  const std::string alone(line.data(), kairos::format_activation(line, entry, record));
  REQUIRE(alone.rfind("activation instance=nav method=update core=0 seq=0 ", 0) == 0);
  const std::string named(line.data(), kairos::format_activation(line, "mission1", entry, record));
  REQUIRE(named == "activation node=mission1 " + alone.substr(std::string("activation ").size()));
}

TEST_CASE("the --timings option names a file in a directory that exists", "[unit][node]") {
  // The system's temporary directory, as this run finds it: a directory, so not a file to write.
  const std::string directory = std::filesystem::temp_directory_path().string();
  const std::string in_directory = directory + "/kairos-node-options-timings.json";
  const std::string in_no_directory = directory + "/kairos-no-such-directory/run.json";

  kairos::NodeOptions options;
  const char* good[] = {"node", "--timings", "run.json"};
  REQUIRE(kairos::parse_node_options(3, good, "node", options) == kairos::NodeCommand::kRun);
  REQUIRE(std::string{options.timings} == "run.json");
  const char* inside[] = {"node", "--timings", in_directory.c_str()};
  REQUIRE(kairos::parse_node_options(3, inside, "node", options) == kairos::NodeCommand::kRun);

  kairos::NodeOptions fresh;
  const char* missing[] = {"node", "--timings"};
  REQUIRE(kairos::parse_node_options(2, missing, "node", fresh) ==
          kairos::NodeCommand::kUsageError);
  const char* option_instead[] = {"node", "--timings", "--quiet"};
  REQUIRE(kairos::parse_node_options(3, option_instead, "node", fresh) ==
          kairos::NodeCommand::kUsageError);
  const char* a_directory[] = {"node", "--timings", directory.c_str()};
  REQUIRE(kairos::parse_node_options(3, a_directory, "node", fresh) ==
          kairos::NodeCommand::kUsageError);
  const char* no_directory[] = {"node", "--timings", in_no_directory.c_str()};
  REQUIRE(kairos::parse_node_options(3, no_directory, "node", fresh) ==
          kairos::NodeCommand::kUsageError);
  REQUIRE(fresh.timings == nullptr);
}

TEST_CASE("a node option gives its clock a signed skew with a unit, and asks for a round log",
          "[unit][node][clock]") {
  kairos::NodeOptions options;
  const char* good[] = {"node", "--clock-skew", "-250us", "--clock-log"};
  REQUIRE(kairos::parse_node_options(4, good, "node", options) == kairos::NodeCommand::kRun);
  REQUIRE(options.clock_skew == std::chrono::microseconds{-250});
  REQUIRE(options.clock_log);
  const char* positive[] = {"node", "--clock-skew", "5ms"};
  REQUIRE(kairos::parse_node_options(3, positive, "node", options) == kairos::NodeCommand::kRun);
  REQUIRE(options.clock_skew == std::chrono::milliseconds{5});
  for (const char* bad : {"5", "--", "-", "5 ms", "ms", "--5ms", "5parsecs"}) {
    const char* args[] = {"node", "--clock-skew", bad};
    kairos::NodeOptions rejected;
    REQUIRE(kairos::parse_node_options(3, args, "node", rejected) ==
            kairos::NodeCommand::kUsageError);
  }
  const char* missing[] = {"node", "--clock-skew"};
  kairos::NodeOptions rejected;
  REQUIRE(kairos::parse_node_options(2, missing, "node", rejected) ==
          kairos::NodeCommand::kUsageError);
}

TEST_CASE("the clock line of a follower says its offset, bound and round trips",
          "[unit][node][clock]") {
  const kairos::clock::ClockSyncTable table{.master = false,
                                            .master_node = "mission1",
                                            .master_endpoint = "tcp:127.0.0.1:7001",
                                            .period = std::chrono::seconds{1}};
  kairos::clock::ClockSummary summary;
  summary.synchronised = true;
  summary.rounds = 3;
  summary.exchanges = 24;
  summary.offset_ns = 5'000'300;
  summary.error_bound_ns = 12'400;
  summary.max_round_trip_ns = 31'000;
  summary.mean_round_trip_ns = 25'050;
  std::array<char, kairos::kLineCapacity> line{};
  const std::size_t size = kairos::format_clock(line, "mission2", table, summary);
  REQUIRE(std::string(line.data(), size) ==
          "clock node=mission2 role=follower master=mission1 synchronised=yes rounds=3 "
          "exchanges=24 failed=0 offset_us=5000.3 error_bound_us=12.4 max_round_trip_us=31.0 "
          "mean_round_trip_us=25.1\n");
  kairos::clock::ClockSummary master;
  master.master = true;
  master.exchanges = 24;
  const std::size_t master_size = kairos::format_clock(line, "mission1", table, master);
  REQUIRE(std::string(line.data(), master_size) == "clock node=mission1 role=master answered=24\n");
}

TEST_CASE("a gate's late calls and a round trip beyond its bound are said, not left out",
          "[unit][node][gate]") {
  using std::chrono::microseconds;
  std::array<char, kairos::kLineCapacity> line{};
  kairos::orb::GateCounters kept{.calls = 20, .answered = 20, .max_round_trip_ns = 229'400};
  REQUIRE(kairos::format_gate_warning(line, "planner.sensors", kept, microseconds{3450},
                                      microseconds{5000}) == 0);
  kairos::orb::GateCounters late{
      .calls = 20, .answered = 19, .late = 1, .max_round_trip_ns = 412'000};
  std::size_t size = kairos::format_gate_warning(line, "planner.sensors", late, microseconds{3763},
                                                 microseconds{5000});
  REQUIRE(std::string(line.data(), size) ==
          "gate planner.sensors: 1 of 20 calls had no reply by the 5000.0 us deadline (not in "
          "max_round_trip_us): this run did not keep what kairos check assumed");
  kairos::orb::GateCounters beyond{.calls = 20, .answered = 20, .max_round_trip_ns = 4'047'700};
  size = kairos::format_gate_warning(line, "planner.sensors", beyond, microseconds{3763},
                                     microseconds{5000});
  REQUIRE(std::string(line.data(), size) ==
          "gate planner.sensors: an answered call took 4047.7 us, beyond the analysed bound of "
          "3763.0 us: this run did not keep what kairos check assumed");
  late.max_round_trip_ns = 4'047'700;
  size = kairos::format_gate_warning(line, "planner.sensors", late, microseconds{3763},
                                     microseconds{5000});
  REQUIRE(std::string(line.data(), size)
              .find("deadline (not in max_round_trip_us); an answered "
                    "call took 4047.7 us") != std::string::npos);
  // Without a bound (the analysis found none) only late calls are said.
  REQUIRE(kairos::format_gate_warning(line, "planner.sensors", beyond, microseconds{-1},
                                      microseconds{5000}) == 0);
}

TEST_CASE("the band map gives each band of a core its host band, in the core's order",
          "[unit][node]") {
  kairos::NodeOptions options;
  options.cores = 2;
  REQUIRE(parse_args({"--cpus", "0,1", "--band-map", "0:1=2,0:2=4,1:1=1"}, options) ==
          kairos::NodeCommand::kRun);
  REQUIRE(options.band_map_count == 3);
  REQUIRE(options.band_map[1].core == 0);
  REQUIRE(options.band_map[1].band == 2);
  REQUIRE(options.band_map[1].host == 4);

  for (const char* bad :
       {"", "0:1", "0:1=", "x:1=2", "2:1=2", "0:1=63", "0:1=2,0:1=3", "0:1=4,0:2=3", "0:1=2,"}) {
    kairos::NodeOptions other;
    other.cores = 2;
    CAPTURE(bad);
    REQUIRE(parse_args({"--cpus", "0,1", "--band-map", bad}, other) ==
            kairos::NodeCommand::kUsageError);
  }
  kairos::NodeOptions unpinned;
  unpinned.cores = 2;
  REQUIRE(parse_args({"--band-map", "0:1=2"}, unpinned) == kairos::NodeCommand::kUsageError);
}

TEST_CASE("a node started after its --start-at instant rejoins at a --rejoin-every boundary",
          "[unit][node]") {
  kairos::NodeOptions options;
  REQUIRE(parse_args({"--start-at", "1000000000", "--rejoin-every", "100ms"}, options) ==
          kairos::NodeCommand::kRun);
  REQUIRE(options.rejoin_every == std::chrono::milliseconds{100});
  for (const char* bad : {"", "0ms", "100", "-1ms", "soon"}) {
    kairos::NodeOptions other;
    CAPTURE(bad);
    REQUIRE(parse_args({"--rejoin-every", bad}, other) == kairos::NodeCommand::kUsageError);
  }

  constexpr std::int64_t kMs = 1'000'000;
  // Ahead by at least the margin: the instant asked for.
  REQUIRE(kairos::rejoin_instant(1000 * kMs, 800 * kMs, 100 * kMs, 50 * kMs) == 1000 * kMs);
  // Past it (a restart 2.37 s later): the first boundary at least the margin ahead.
  REQUIRE(kairos::rejoin_instant(1000 * kMs, 3370 * kMs, 100 * kMs, 50 * kMs) == 3500 * kMs);
  REQUIRE(kairos::rejoin_instant(1000 * kMs, 3450 * kMs, 100 * kMs, 50 * kMs) == 3500 * kMs);
  REQUIRE(kairos::rejoin_instant(1000 * kMs, 3451 * kMs, 100 * kMs, 50 * kMs) == 3600 * kMs);
  // Too close to it to start in time: the next boundary.
  REQUIRE(kairos::rejoin_instant(1000 * kMs, 990 * kMs, 100 * kMs, 50 * kMs) == 1100 * kMs);
  // No period: the instant, past or not (the run begins as soon as it can).
  REQUIRE(kairos::rejoin_instant(1000 * kMs, 3370 * kMs, 0, 50 * kMs) == 1000 * kMs);
}

TEST_CASE("a host band applies on its CPU only, to the band it maps", "[unit][kal]") {
  // CPU 900: far from any this test's threads use, so the map changes nothing else here.
  REQUIRE(kairos::kal::host_band(900, 3) == 3);
  REQUIRE(kairos::kal::map_band(900, 3, 7));
  REQUIRE(kairos::kal::host_band(900, 3) == 7);
  REQUIRE(kairos::kal::host_band(900, 4) == 4);
  REQUIRE(kairos::kal::host_band(901, 3) == 3);
  REQUIRE(kairos::kal::host_band(-1, 3) == 3);
  REQUIRE_FALSE(kairos::kal::map_band(5000, 3, 7));
  REQUIRE_FALSE(kairos::kal::map_band(900, 64, 7));
}

TEST_CASE("the --socket-group option names a group of the host, by name or by number",
          "[unit][node]") {
  kairos::NodeOptions options;
  REQUIRE(options.socket_group == -1);  // the node's user alone
  REQUIRE(parse_args({"--socket-group", "0"}, options) == kairos::NodeCommand::kRun);
  REQUIRE(options.socket_group == 0);
  kairos::NodeOptions named;
  REQUIRE(parse_args({"--socket-group", "root"}, named) == kairos::NodeCommand::kRun);
  REQUIRE(named.socket_group == 0);  // the group database's root, gid 0
  kairos::NodeOptions numbered;
  REQUIRE(parse_args({"--socket-group", "47011"}, numbered) == kairos::NodeCommand::kRun);
  REQUIRE(numbered.socket_group == 47'011);
  for (const auto* wrong : {"no-such-group-here", "-1", "4294967296", "12ab"}) {
    INFO(wrong);
    kairos::NodeOptions refused;
    REQUIRE(parse_args({"--socket-group", wrong}, refused) == kairos::NodeCommand::kUsageError);
    REQUIRE(refused.socket_group == -1);
  }
  kairos::NodeOptions missing;
  REQUIRE(parse_args({"--socket-group"}, missing) == kairos::NodeCommand::kUsageError);
}
