// A system of node programs in one process (kairos/system.hpp), as a generated system main runs
// it: each node on processors of its own after those of the nodes before it, every node set up
// and met before any engine runs, and all engines started at one instant, so the nodes' records
// compare directly. Node "nav" (two cores: processors 0 and 1) calls node "sensors" (one core:
// processor 2) every period over a link of 100 us and 8 Mbps (a byte a microsecond).
#include "../kairos_catch.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>
#include <vector>

#include <kairos/kal/sim_kernel.hpp>
#include <kairos/kal/sim_network.hpp>
#include <kairos/orb/frame.hpp>
#include <kairos/system.hpp>

#include "../orb_cube.hpp"

using kairos::kal::Duration;
using kairos::kal::MonotonicClock;
using kairos::kal::Status;
using namespace orb_cube;
using namespace std::chrono_literals;

namespace {

constexpr Duration kLatency = 100us;
/// A cube request or reply: a frame header and a 4-byte body, a microsecond a byte on the wire.
constexpr Duration kSerialisation = std::chrono::microseconds{kairos::orb::kHeaderSize + 4};
constexpr Duration kHandling = 10us;  // kCubeRow.wcet
constexpr Duration kRoundTrip = 2 * (kLatency + kSerialisation) + kHandling;
constexpr Duration kPeriod = 1ms;
constexpr Duration kNavigationWcet = 100us;
constexpr const char* kSensorsEndpoint = "tcp:10.0.0.3:7002";
constexpr kairos::kal::PriorityBand kNavigationBand = 5;

void collect_spm(void* records, const kairos::SpmEntry&, const kairos::ActivationRecord& record) {
  static_cast<std::vector<kairos::ActivationRecord>*>(records)->push_back(record);
}
void collect_svm(void* records, const kairos::SvmEntry&, const kairos::ActivationRecord& record) {
  static_cast<std::vector<kairos::ActivationRecord>*>(records)->push_back(record);
}

// ------------------------------------------------------------------ node "sensors"

struct SensorsNode {
  CubeServant servant;
  std::optional<kairos::Engine> engine;
  std::optional<kairos::orb::Orb> orb;
  std::vector<kairos::ActivationRecord> served;
};
SensorsNode sensors;

bool set_up_sensors(const kairos::NodeOptions& options) noexcept {
  sensors.engine.emplace(kairos::engine_options(options, kairos::Strategy::kRms, true));
  sensors.orb.emplace(kairos::orb::OrbOptions{.node = "sensors", .cpu = options.orb_cpu});
  sensors.servant.engine = &*sensors.engine;
  sensors.served.clear();
  sensors.engine->observe_services(&collect_svm, &sensors.served);
  return sensors.engine->add_svm(kCubeRow, &sensors.servant, &serve_cube, &no_miss) ==
             Status::kOk &&
         sensors.orb->listen(kSensorsEndpoint) == Status::kOk &&
         sensors.orb->add_object(kCubeObject, &dispatch_cube, &sensors.servant) == Status::kOk &&
         sensors.orb->serve_band(kServiceBand) == Status::kOk &&
         sensors.orb->start() == Status::kOk;
}

Status run_sensors(Duration duration, kairos::ActivationObserver observer, void* context) noexcept {
  return sensors.engine->run_for(duration, observer, context);
}

void finish_sensors() noexcept {
  sensors.orb->stop();
}

const kairos::NodeProgram kSensors{.name = "sensors",
                                   .cores = 1,
                                   .set_up = &set_up_sensors,
                                   .meet_peers = nullptr,
                                   .run = &run_sensors,
                                   .finish = &finish_sensors};

// ------------------------------------------------------------------ node "nav"

/// Its SpM runs on core 1: every period it calls the cube through the ORB, then computes.
const kairos::SpmEntry kUpdateRow{.instance = "nav",
                                  .method = "update",
                                  .source = "test_sim_system.cpp",
                                  .first_release = 0ms,
                                  .last_release = kairos::kForever,
                                  .period = kPeriod,
                                  .window_open = 0ms,
                                  .window_close = 100us,
                                  .deadline = 800us,
                                  .wcet = kNavigationWcet,
                                  .criticality = kairos::Criticality::kHard,
                                  .band = kNavigationBand,
                                  .core = 1};

struct NavNode {
  std::optional<kairos::Engine> engine;
  std::optional<kairos::orb::Orb> orb;
  std::uint8_t peer = 0;
  std::vector<Duration> round_trips;
  int failures = 0;
  std::vector<kairos::ActivationRecord> records;
};
NavNode nav;

void update(void*) {
  const auto start = MonotonicClock::now();
  std::int32_t result = 0;
  if (cube(*nav.orb, nav.peer, 3, result, kCubeOperation, start + 1ms) ==
          kairos::orb::CallStatus::kOk &&
      result == 27) {
    nav.round_trips.push_back(MonotonicClock::now() - start);
  } else {
    ++nav.failures;
  }
}

bool set_up_nav(const kairos::NodeOptions& options) noexcept {
  nav.engine.emplace(kairos::engine_options(options, kairos::Strategy::kRms, true));
  nav.orb.emplace(kairos::orb::OrbOptions{.node = "nav", .cpu = options.orb_cpu});
  nav.round_trips.clear();
  nav.failures = 0;
  nav.records.clear();
  return nav.engine->add_spm(kUpdateRow, &nav, &update, &no_miss) == Status::kOk &&
         nav.orb->add_peer(kSensorsEndpoint, nav.peer) == Status::kOk &&
         nav.orb->add_route(nav.peer, kServiceBand, 1, kNavigationBand) == Status::kOk &&
         nav.orb->start() == Status::kOk;
}

bool meet_nav_peers(kairos::kal::TimePoint until) noexcept {
  return nav.orb->connect_all(until);
}

Status run_nav(Duration duration, kairos::ActivationObserver, void*) noexcept {
  return nav.engine->run_for(duration, &collect_spm, &nav.records);
}

void finish_nav() noexcept {
  nav.orb->stop();
}

const kairos::NodeProgram kNav{.name = "nav",
                               .cores = 2,
                               .set_up = &set_up_nav,
                               .meet_peers = &meet_nav_peers,
                               .run = &run_nav,
                               .finish = &finish_nav};

/// "nav" first: it calls "sensors", which is not listening yet when nav's ORB starts; they meet
/// before the run all the same.
constexpr std::array<const kairos::NodeProgram*, 2> kSystem{&kNav, &kSensors};

struct Run {
  std::vector<Duration> round_trips;
  int failures = 0;
  std::vector<kairos::ActivationRecord> nav;
  std::vector<kairos::ActivationRecord> sensors;
};

Run run_system(std::uint64_t seed) {
  REQUIRE(kairos::kal::sim::set_network({}, seed) == Status::kOk);
  REQUIRE(kairos::kal::sim::set_endpoint_link(
              kSensorsEndpoint,
              {.latency = kLatency, .jitter = 0us, .bits_per_second = 8'000'000}) == Status::kOk);
  nav.round_trips.reserve(32);
  nav.records.reserve(32);
  sensors.served.reserve(32);
  kairos::SystemOptions options;
  options.duration = 10 * kPeriod;
  options.quiet = true;
  REQUIRE(kairos::run_system("two", kSystem, options) == 0);
  return Run{nav.round_trips, nav.failures, nav.records, sensors.served};
}

bool same(const kairos::ActivationRecord& a, const kairos::ActivationRecord& b) {
  return a.spm == b.spm && a.service == b.service && a.outcome == b.outcome &&
         a.sequence == b.sequence && a.release_ns == b.release_ns && a.start_ns == b.start_ns &&
         a.finish_ns == b.finish_ns;
}

/// The processors a thread of this name was switched in on.
std::vector<int> processors_of(std::string_view thread) {
  std::vector<int> processors;
  for (std::size_t i = 0; i < kairos::kal::sim::trace_size(); ++i) {
    const auto& event = kairos::kal::sim::trace_event(i);
    if (event.kind == kairos::kal::sim::TraceKind::kSwitchIn &&
        std::string_view(event.thread.data()) == thread &&
        std::find(processors.begin(), processors.end(), event.processor) == processors.end()) {
      processors.push_back(event.processor);
    }
  }
  return processors;
}

}  // namespace

TEST_CASE("a system of node programs runs in one process from one instant, on its own processors",
          "[sim][system]") {
  kairos::kal::sim::start_trace(100'000);
  const Run first = run_system(1);
  REQUIRE(first.failures == 0);
  REQUIRE(first.round_trips.size() == 10);
  for (const Duration trip : first.round_trips) {
    REQUIRE(trip == kRoundTrip);
  }
  // nav: released every period, starts at once, calls, then computes its WCET.
  REQUIRE(first.nav.size() == 10);
  for (std::size_t k = 0; k < first.nav.size(); ++k) {
    const std::int64_t release = (kPeriod * static_cast<std::int64_t>(k)).count();
    INFO("activation " << k);
    REQUIRE(first.nav[k].outcome == kairos::ActivationOutcome::kMet);
    REQUIRE(first.nav[k].release_ns == release);
    REQUIRE(first.nav[k].start_ns == release);
    REQUIRE(first.nav[k].finish_ns == release + (kRoundTrip + kNavigationWcet).count());
  }
  // sensors shares nav's epoch: each request arrives once serialised and carried, and is served
  // at once.
  REQUIRE(first.sensors.size() == 10);
  for (std::size_t k = 0; k < first.sensors.size(); ++k) {
    const std::int64_t arrival =
        (kPeriod * static_cast<std::int64_t>(k) + kSerialisation + kLatency).count();
    INFO("request " << k);
    REQUIRE(first.sensors[k].release_ns == arrival);
    REQUIRE(first.sensors[k].start_ns == arrival);
    REQUIRE(first.sensors[k].finish_ns == arrival + kHandling.count());
  }
  // Each node's threads on its own processors: nav's run and its core 0 on processor 0, its
  // core 1 on processor 1; sensors (its run, its ORB's acceptor and reader) on processor 2.
  REQUIRE(processors_of("nav") == std::vector<int>{0});
  REQUIRE(processors_of("sensors") == std::vector<int>{2});
  REQUIRE(processors_of("kairos-orb-acc") == std::vector<int>{2});
  REQUIRE(processors_of("kairos-orb-b3") == std::vector<int>{2});

  // The whole system again: the same records to the nanosecond.
  const Run second = run_system(1);
  REQUIRE(second.round_trips == first.round_trips);
  REQUIRE(second.nav.size() == first.nav.size());
  REQUIRE(second.sensors.size() == first.sensors.size());
  for (std::size_t k = 0; k < first.nav.size(); ++k) {
    REQUIRE(same(second.nav[k], first.nav[k]));
  }
  for (std::size_t k = 0; k < first.sensors.size(); ++k) {
    REQUIRE(same(second.sensors[k], first.sensors[k]));
  }
}

TEST_CASE("a system whose nodes need more processors than the machine has is refused",
          "[sim][system]") {
  const kairos::NodeProgram wide{.name = "wide", .cores = 5};
  const std::array<const kairos::NodeProgram*, 2> nodes{&wide, &wide};
  // Refused before any node is set up (these have no steps at all).
  REQUIRE(kairos::run_system("too-wide", nodes, kairos::SystemOptions{}) == 1);
  REQUIRE(kairos::run_system("empty", {}, kairos::SystemOptions{}) == 1);
}

TEST_CASE("system options accept --duration, --seed and --quiet, and reject the rest",
          "[sim][system]") {
  kairos::SystemOptions options;
  const char* good[] = {"sys", "--duration", "3s", "--seed", "42", "--quiet"};
  REQUIRE(kairos::parse_system_options(6, good, "sys", options) == kairos::NodeCommand::kRun);
  REQUIRE(options.duration == 3s);
  REQUIRE(options.seed == 42);
  REQUIRE(options.quiet);
  for (const char* bad_seed : {"-1", "x", "", "18446744073709551616"}) {
    const char* args[] = {"sys", "--seed", bad_seed};
    REQUIRE(kairos::parse_system_options(3, args, "sys", options) ==
            kairos::NodeCommand::kUsageError);
  }
  const char* missing[] = {"sys", "--duration"};
  REQUIRE(kairos::parse_system_options(2, missing, "sys", options) ==
          kairos::NodeCommand::kUsageError);
  const char* unknown[] = {"sys", "--cpus", "0,1"};
  REQUIRE(kairos::parse_system_options(3, unknown, "sys", options) ==
          kairos::NodeCommand::kUsageError);
}
