// The ORB core on the simulated network: the calls of test_orb.cpp, with exact virtual times.
// With a link of 100 us and no jitter, a two-way call takes 100 us there, the service method's
// WCET on the server (the engine models it, before the handler that sends the reply: nothing
// else on the request path takes virtual time) and 100 us back. The server node runs on virtual
// processor 1 and the client (the test's thread) on processor 0, as two machines would.
#include "../kairos_catch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/orb/orb.hpp>

#include "../allocation_counter.hpp"
#include "../orb_cube.hpp"

using kairos::kal::Duration;
using kairos::kal::MonotonicClock;
using kairos::kal::Status;
using kairos::kal::TimePoint;
using kairos::orb::CallStatus;
using namespace orb_cube;
using namespace std::chrono_literals;

namespace {

constexpr Duration kLatency = 100us;
/// What a cube call costs on the server in virtual time: the method's modelled WCET.
constexpr Duration kHandling = 10us;  // kCubeRow.wcet
constexpr Duration kRoundTrip = 2 * kLatency + kHandling;

kairos::EngineOptions simulated_node(std::span<const int> cpus = {}) {
  kairos::EngineOptions options{kairos::Strategy::kRms, -1, /*model_execution_time=*/true};
  options.core_cpus = cpus;
  return options;
}

/// The server node's processor: its computations must not hold up the client (the test's own
/// thread, on processor 0), as on a machine of its own.
constexpr int kServerCpu = 1;
const int kServerCpus[] = {kServerCpu};

/// A node serving the cube on processor 1: its engine runs for `duration` on a simulated thread
/// of its own.
struct SimCubeServer {
  CubeServant servant;
  kairos::Engine engine{simulated_node(kServerCpus)};
  kairos::orb::Orb orb{kairos::orb::OrbOptions{.node = "server", .cpu = kServerCpu}};
  kairos::kal::Thread runner;
  Duration duration;

  SimCubeServer(const char* endpoint, Duration run) : duration(run) {
    REQUIRE(kairos::kal::provision_processors(2) == Status::kOk);
    servant.engine = &engine;
    servant.slow_work = 300us;
    REQUIRE(engine.add_svm(kCubeRow, &servant, &serve_cube, &no_miss) == Status::kOk);
    REQUIRE(orb.listen(endpoint) == Status::kOk);
    REQUIRE(orb.add_object(kCubeObject, &dispatch_cube, &servant) == Status::kOk);
    REQUIRE(orb.serve_band(kServiceBand) == Status::kOk);
    REQUIRE(orb.start() == Status::kOk);
    REQUIRE(runner.start({"server-node", kairos::kal::kLowestBand, kServerCpu}, &run_engine,
                         this) == Status::kOk);
  }
  ~SimCubeServer() {
    runner.join();
    orb.stop();
  }
  static void run_engine(void* self) noexcept {
    auto* server = static_cast<SimCubeServer*>(self);
    server->engine.run_for(server->duration, nullptr, nullptr);
  }
};

/// A client on the test's own thread, standing for lane (core 0, band 2).
struct SimCubeClient {
  kairos::orb::Orb orb{kairos::orb::OrbOptions{.node = "client"}};
  std::uint8_t peer = 0;
  kairos::orb::OrbCounters baseline{};

  explicit SimCubeClient(const char* endpoint) {
    kairos::set_current_lane(kairos::LaneIdentity{0, 2, false});
    REQUIRE(orb.add_peer(endpoint, peer) == Status::kOk);
    REQUIRE(orb.add_route(peer, kServiceBand, 0, 2) == Status::kOk);
    REQUIRE(orb.start() == Status::kOk);
    // The server's engine holds requests until its run's epoch (a fixed lead after it starts).
    std::int32_t result = 0;
    REQUIRE(cube(0, result, kCubeOperation, 50ms) == CallStatus::kOk);
    baseline = orb.counters();
  }

  CallStatus cube(std::int32_t x, std::int32_t& result, std::uint16_t operation = kCubeOperation,
                  Duration budget = 2ms) {
    return orb_cube::cube(orb, peer, x, result, operation, MonotonicClock::now() + budget);
  }
};

Duration since(TimePoint start) {
  return MonotonicClock::now() - start;
}

}  // namespace

TEST_CASE("on sim a two-way call takes two latencies and the method's WCET, exactly",
          "[sim][orb]") {
  for (const char* endpoint : {"uds:/sim/orb-cube", "tcp:10.0.0.2:7001"}) {
    INFO(endpoint);
    REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
    SimCubeServer server(endpoint, 100ms);
    SimCubeClient client(endpoint);
    for (std::int32_t x = 0; x < 20; ++x) {
      const TimePoint start = MonotonicClock::now();
      std::int32_t result = -1;
      REQUIRE(client.cube(x, result) == CallStatus::kOk);
      REQUIRE(since(start) == kRoundTrip);
      REQUIRE(result == x * x * x);
    }
    // A declared exception takes as long as a value.
    TimePoint start = MonotonicClock::now();
    std::int32_t result = 0;
    REQUIRE(client.cube(-3, result) == CallStatus::kUserException);
    REQUIRE(since(start) == kRoundTrip);

    // Oneway: over once sent; the server has it one latency later.
    start = MonotonicClock::now();
    auto oneway = client.orb.begin({client.peer, kServiceBand, kCubeObject, kCubeOperation});
    REQUIRE(client.orb.send(oneway, 0, start + 1ms, true) == CallStatus::kOk);
    REQUIRE(since(start) == 0ns);
    kairos::kal::sleep_until(start + 1ms);
    REQUIRE(server.servant.oneways.load() == 1);
    REQUIRE(server.servant.oneway_arrival_ns.load() ==
            kairos::kal::to_nanoseconds(start + kLatency));

    // Non-blocking: two requests sent at one instant reach the server together; its lane serves
    // them one after the other, so the replies come one WCET apart.
    start = MonotonicClock::now();
    std::array<kairos::orb::Call, 2> calls{};
    for (std::size_t i = 0; i < calls.size(); ++i) {
      calls[i] = client.orb.begin({client.peer, kServiceBand, kCubeObject, kCubeOperation});
      const std::int32_t x = static_cast<std::int32_t>(10 + i);
      std::memcpy(calls[i].request_body().data(), &x, sizeof x);
      REQUIRE(client.orb.send(calls[i], sizeof x, start + 1ms) == CallStatus::kPending);
    }
    kairos::kal::sleep_until(start + kRoundTrip - 1ns);
    REQUIRE(client.orb.poll(calls[0]) == CallStatus::kPending);
    kairos::kal::sleep_until(start + kRoundTrip);
    REQUIRE(client.orb.poll(calls[0]) == CallStatus::kOk);
    REQUIRE(read_int(calls[0].reply_body()) == 1000);
    REQUIRE(client.orb.poll(calls[1]) == CallStatus::kPending);
    kairos::kal::sleep_until(start + kRoundTrip + kHandling);
    REQUIRE(client.orb.poll(calls[1]) == CallStatus::kOk);
    REQUIRE(read_int(calls[1].reply_body()) == 1331);

    const auto counters = client.orb.counters();
    REQUIRE(counters.calls - client.baseline.calls == 20 + 1 + 1 + 2);
    REQUIRE(counters.replies - client.baseline.replies == 20 + 1 + 2);
    REQUIRE(counters.failed == client.baseline.failed);
    REQUIRE(counters.connects == 1);
    REQUIRE(server.orb.counters().connections_accepted == 1);
  }
}

TEST_CASE("on sim a call whose deadline passes ends at it exactly, and its reply counts late",
          "[sim][orb]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
  SimCubeServer server("uds:/sim/orb-deadline", 100ms);
  SimCubeClient client("uds:/sim/orb-deadline");
  const TimePoint start = MonotonicClock::now();
  std::int32_t result = 0;
  REQUIRE(client.cube(2, result, kSlowOperation, 150us) == CallStatus::kDeadlineExpired);
  REQUIRE(since(start) == 150us);
  // Its reply leaves after the WCET and the slow body's 300 us, and arrives at 510 us; the next
  // call reads it first, drops it, and gets its own.
  kairos::kal::sleep_until(start + 2 * kLatency + kHandling + 300us);
  const TimePoint next = MonotonicClock::now();
  REQUIRE(client.cube(3, result) == CallStatus::kOk);
  REQUIRE(result == 27);
  REQUIRE(since(next) == kRoundTrip);
  const auto counters = client.orb.counters();
  REQUIRE(counters.deadline_expired - client.baseline.deadline_expired == 1);
  REQUIRE(counters.late_replies - client.baseline.late_replies == 1);
}

namespace {
/// A thread of the most urgent band on the client's processor 0 that takes it from `from` for
/// `how_long`: what the OS or a more urgent lane does to a caller waiting for its reply.
struct ProcessorThief {
  TimePoint from;
  Duration how_long;
  kairos::kal::Thread thread;

  ProcessorThief(TimePoint at, Duration hold) : from(at), how_long(hold) {
    REQUIRE(thread.start({"thief", kairos::kal::kHighestBand, 0}, &steal, this) == Status::kOk);
  }
  ~ProcessorThief() { thread.join(); }
  static void steal(void* self) noexcept {
    auto* thief = static_cast<ProcessorThief*>(self);
    kairos::kal::sleep_until(thief->from);
    kairos::kal::busy_for(thief->how_long);
  }
};
}  // namespace

TEST_CASE("on sim a reply the blocked caller can only take after its deadline makes the call late",
          "[sim][orb]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
  SimCubeServer server("uds:/sim/orb-taken-late", 100ms);
  SimCubeClient client("uds:/sim/orb-taken-late");
  std::int32_t result = 0;

  // The reply arrives at 210 us, inside the 300 us deadline, but processor 0 is taken from 150 us
  // to 650 us: the caller takes the reply after its deadline, so to it the call is late.
  TimePoint start = MonotonicClock::now();
  {
    ProcessorThief thief(start + 150us, 500us);
    REQUIRE(client.cube(2, result, kCubeOperation, 300us) == CallStatus::kDeadlineExpired);
    REQUIRE(since(start) == 650us);
  }
  auto counters = client.orb.counters();
  REQUIRE(counters.deadline_expired - client.baseline.deadline_expired == 1);
  REQUIRE(counters.late_replies - client.baseline.late_replies == 1);

  // Taken from 150 us to 200 us, the processor is back before the reply: the call is answered.
  start = MonotonicClock::now();
  {
    ProcessorThief thief(start + 150us, 50us);
    REQUIRE(client.cube(3, result, kCubeOperation, 300us) == CallStatus::kOk);
    REQUIRE(since(start) == kRoundTrip);
    REQUIRE(result == 27);
  }
  counters = client.orb.counters();
  REQUIRE(counters.replies - client.baseline.replies == 1);
  REQUIRE(counters.late_replies - client.baseline.late_replies == 1);
}

namespace {
std::vector<Duration> round_trips(std::uint64_t seed, const char* endpoint) {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 50us}, seed) == Status::kOk);
  SimCubeServer server(endpoint, 100ms);
  SimCubeClient client(endpoint);
  std::vector<Duration> trips;
  for (std::int32_t x = 0; x < 30; ++x) {
    const TimePoint start = MonotonicClock::now();
    std::int32_t result = 0;
    REQUIRE(client.cube(x, result) == CallStatus::kOk);
    trips.push_back(since(start));
  }
  return trips;
}
}  // namespace

TEST_CASE("on sim jitter spreads round trips within the link's bounds, the same for one seed",
          "[sim][orb][determinism]") {
  const auto first = round_trips(11, "uds:/sim/orb-jitter-a");
  for (const Duration trip : first) {
    REQUIRE(trip >= kRoundTrip);
    REQUIRE(trip <= kRoundTrip + 2 * 50us);
  }
  REQUIRE(*std::min_element(first.begin(), first.end()) <
          *std::max_element(first.begin(), first.end()));
  REQUIRE(round_trips(11, "uds:/sim/orb-jitter-b") == first);
  REQUIRE(round_trips(12, "uds:/sim/orb-jitter-c") != first);
}

TEST_CASE("on sim a peer sending garbage is cut off one latency after it is read", "[sim][orb]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
  const char* endpoint = "tcp:10.0.0.2:7004";
  SimCubeServer server(endpoint, 100ms);
  SimCubeClient client(endpoint);
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
  const TimePoint start = MonotonicClock::now();
  // One sends garbage instead of a hello; one says hello and then sends garbage.
  kairos::kal::Socket rude;
  REQUIRE(rude.connect(parsed, start + 1ms) == Status::kOk);
  std::array<std::byte, 64> garbage{};
  garbage.fill(std::byte{0x5a});
  REQUIRE(rude.send(garbage) == 64);
  kairos::kal::Socket sly;
  REQUIRE(sly.connect(parsed, start + 1ms) == Status::kOk);
  kairos::orb::FrameHeader hello{};
  hello.kind = kairos::orb::FrameKind::kHello;
  hello.band = kServiceBand;
  std::array<std::byte, kairos::orb::kHeaderSize> frame{};
  kairos::orb::encode_header(hello, frame);
  REQUIRE(sly.send(frame) == kairos::orb::kHeaderSize);

  // The acceptor reads both at 100 us: it closes the rude one and answers the sly one.
  std::array<std::byte, 64> answer{};
  REQUIRE(rude.wait_readable(start + 1ms));
  REQUIRE(since(start) == 2 * kLatency);
  REQUIRE(rude.receive(answer) == -1);
  REQUIRE(sly.wait_readable(start + 1ms));
  REQUIRE(since(start) == 2 * kLatency);
  REQUIRE(sly.receive(answer) == kairos::orb::kHeaderSize);
  REQUIRE(sly.send(garbage) == 64);
  REQUIRE(sly.wait_readable(start + 1ms));
  REQUIRE(since(start) == 4 * kLatency);
  REQUIRE(sly.receive(answer) == -1);

  for (std::int32_t x = 1; x <= 5; ++x) {
    std::int32_t result = 0;
    REQUIRE(client.cube(x, result) == CallStatus::kOk);
    REQUIRE(result == x * x * x);
  }
  REQUIRE(server.orb.counters().malformed_frames == 2);
}

TEST_CASE("on sim a server that goes away fails calls as its close arrives, and serves again",
          "[sim][orb]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
  const char* endpoint = "uds:/sim/orb-restart";
  auto server = std::make_unique<SimCubeServer>(endpoint, 30ms);
  SimCubeClient client(endpoint);
  std::int32_t result = 0;
  REQUIRE(client.cube(2, result) == CallStatus::kOk);
  server.reset();  // its run ends, its ORB stops and closes its connections
  // The call goes out before the client can know; the close reaches it one latency later.
  TimePoint start = MonotonicClock::now();
  REQUIRE(client.cube(2, result) == CallStatus::kDisconnected);
  REQUIRE(since(start) == kLatency);
  // Then calls fail at once until the reconnect interval has passed.
  start = MonotonicClock::now();
  REQUIRE(client.cube(2, result) == CallStatus::kDisconnected);
  REQUIRE(since(start) == 0ns);

  server = std::make_unique<SimCubeServer>(endpoint, 100ms);
  CallStatus status = CallStatus::kDisconnected;
  for (int i = 0; i < 200 && status != CallStatus::kOk; ++i) {
    kairos::kal::sleep_until(MonotonicClock::now() + 1ms);
    status = client.cube(5, result);
  }
  REQUIRE(status == CallStatus::kOk);
  REQUIRE(result == 125);
  REQUIRE(client.orb.counters().connects == 2);
}

TEST_CASE("on sim a steady-state two-way call allocates nothing on either side",
          "[sim][orb][allocation]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 20us}, 3) == Status::kOk);
  SimCubeServer server("uds:/sim/orb-steady", 100ms);
  SimCubeClient client("uds:/sim/orb-steady");
  std::int32_t result = 0;
  for (int i = 0; i < 10; ++i) {
    REQUIRE(client.cube(i, result) == CallStatus::kOk);
  }
  const auto allocations = testing::allocations();
  int wrong = 0;  // counted, not asserted in the loop: the test framework may allocate
  for (std::int32_t x = 0; x < 200; ++x) {
    if (client.cube(x, result) != CallStatus::kOk || result != x * x * x) {
      ++wrong;
    }
  }
  REQUIRE(wrong == 0);
  // Both nodes, and the simulated network between them, run in this process.
  REQUIRE(testing::allocations() == allocations);
}

// ------------------------------------------------------------ oneways over UDP

namespace {

constexpr const char* kUdpEndpoint = "udp:10.0.0.2:7100";

/// A client of the udp: cube server on the test's own thread (lane core 0, band 2). A oneway has
/// no answer to say the server's engine is not running yet, so oneways go until one is served.
struct SimUdpClient {
  kairos::orb::Orb orb{kairos::orb::OrbOptions{.node = "client"}};
  std::uint8_t peer = 0;
  int served = 0;  ///< oneways the server ran before the test's own

  SimUdpClient(const char* endpoint, const SimCubeServer& server) {
    kairos::set_current_lane(kairos::LaneIdentity{0, 2, false});
    REQUIRE(orb.add_peer(endpoint, peer) == Status::kOk);
    REQUIRE(orb.add_route(peer, kServiceBand, 0, 2) == Status::kOk);
    REQUIRE(orb.start() == Status::kOk);
    for (int i = 0; i < 100 && server.servant.oneways.load() == 0; ++i) {
      REQUIRE(oneway(0) == CallStatus::kOk);
      kairos::kal::sleep_until(MonotonicClock::now() + 1ms);
    }
    REQUIRE(server.servant.oneways.load() > 0);
    served = server.servant.oneways.load();
  }

  CallStatus oneway(std::int32_t x) {
    auto call = orb.begin({peer, kServiceBand, kCubeObject, kCubeOperation});
    if (call.status() != CallStatus::kPending) {
      return call.status();
    }
    std::memcpy(call.request_body().data(), &x, sizeof x);
    return orb.send(call, sizeof x, MonotonicClock::now() + 1ms, true);
  }
};

}  // namespace

TEST_CASE("on sim a oneway over UDP reaches its band's port one latency later, exactly",
          "[sim][orb][udp]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
  SimCubeServer server(kUdpEndpoint, 100ms);
  SimUdpClient client(kUdpEndpoint, server);
  for (int i = 1; i <= 5; ++i) {
    const TimePoint start = MonotonicClock::now();
    REQUIRE(client.oneway(i) == CallStatus::kOk);
    REQUIRE(since(start) == 0ns);  // one datagram, no set-up, no waiting
    kairos::kal::sleep_until(start + 1ms);
    REQUIRE(server.servant.oneways.load() == client.served + i);
    REQUIRE(server.servant.oneway_arrival_ns.load() ==
            kairos::kal::to_nanoseconds(start + kLatency));
  }
  // A two-way call has no way back over UDP: refused at once, nothing sent.
  const auto sent = kairos::kal::sim::network_counters().messages;
  std::int32_t result = 0;
  REQUIRE(cube(client.orb, client.peer, 2, result, kCubeOperation, MonotonicClock::now() + 1ms) ==
          CallStatus::kNoRoute);
  REQUIRE(kairos::kal::sim::network_counters().messages == sent);

  // Garbage on the band's port is dropped and counted; the next good oneway is served on time.
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(kUdpEndpoint, parsed));
  kairos::kal::Endpoint band_port;
  REQUIRE(kairos::orb::band_endpoint(parsed, kServiceBand, band_port));
  kairos::kal::Socket rogue;
  REQUIRE(rogue.connect(band_port, MonotonicClock::now() + 1ms, kairos::kal::Transfer::kMessages) ==
          Status::kOk);
  std::array<std::byte, 64> garbage{};
  garbage.fill(std::byte{0x5a});
  const TimePoint start = MonotonicClock::now();
  REQUIRE(rogue.send(garbage) == 64);
  REQUIRE(client.oneway(6) == CallStatus::kOk);
  kairos::kal::sleep_until(start + 1ms);
  REQUIRE(server.orb.counters().datagrams_dropped == 1);
  REQUIRE(server.servant.oneways.load() == client.served + 6);
  REQUIRE(server.servant.oneway_arrival_ns.load() == kairos::kal::to_nanoseconds(start + kLatency));
  REQUIRE(server.orb.counters().connections_accepted == 0);
}

TEST_CASE("on sim a steady-state oneway over UDP allocates nothing on either side",
          "[sim][orb][udp][allocation]") {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 20us}, 3) == Status::kOk);
  SimCubeServer server("udp:10.0.0.2:7200", 100ms);
  SimUdpClient client("udp:10.0.0.2:7200", server);
  const auto allocations = testing::allocations();
  int wrong = 0;  // counted, not asserted in the loop: the test framework may allocate
  for (std::int32_t x = 1; x <= 200; ++x) {
    const TimePoint start = MonotonicClock::now();
    if (client.oneway(x) != CallStatus::kOk) {
      ++wrong;
    }
    kairos::kal::sleep_until(start + 200us);  // past the latency and the jitter
    if (server.servant.oneways.load() != client.served + x) {
      ++wrong;
    }
  }
  REQUIRE(wrong == 0);
  // Both nodes, and the simulated network between them, run in this process.
  REQUIRE(testing::allocations() == allocations);
}

// ------------------------------------------------------------ two nodes in one process

namespace {

constexpr kairos::kal::PriorityBand kNavigationBand = 5;
constexpr Duration kPeriod = 1ms;
constexpr Duration kNavigationWcet = 100us;
constexpr const char* kSensorsEndpoint = "tcp:10.0.0.2:7002";

/// Node A's SpM: every period it calls node B's cube through its gate.
const kairos::SpmEntry kUpdateRow{"nav",
                                  "update",
                                  "test_sim_orb.cpp",
                                  0ms,
                                  kairos::kForever,
                                  kPeriod,
                                  0ms,
                                  100us,
                                  800us,
                                  kNavigationWcet,
                                  kairos::Criticality::kHard,
                                  kNavigationBand};

struct Navigation {
  kairos::orb::Orb* orb = nullptr;
  std::uint8_t peer = 0;
  std::vector<Duration> round_trips;
  int failures = 0;
};

void update(void* servant) {
  auto& navigation = *static_cast<Navigation*>(servant);
  const TimePoint start = MonotonicClock::now();
  std::int32_t result = 0;
  if (cube(*navigation.orb, navigation.peer, 2, result, kCubeOperation, start + 1ms) ==
          CallStatus::kOk &&
      result == 8) {
    navigation.round_trips.push_back(MonotonicClock::now() - start);
  } else {
    ++navigation.failures;
  }
}

struct NodeRun {
  kairos::Engine* engine = nullptr;
  std::vector<kairos::ActivationRecord> records;
};

void collect_spm(void* run, const kairos::SpmEntry&, const kairos::ActivationRecord& record) {
  static_cast<NodeRun*>(run)->records.push_back(record);
}
void collect_svm(void* run, const kairos::SvmEntry&, const kairos::ActivationRecord& record) {
  static_cast<NodeRun*>(run)->records.push_back(record);
}
void run_node(void* run) noexcept {
  auto& node = *static_cast<NodeRun*>(run);
  node.engine->run_for(10 * kPeriod, &collect_spm, &node);
}

struct TwoNodes {
  NodeRun navigation;
  NodeRun sensors;
  std::vector<Duration> round_trips;
  int failures = 0;
};

/// Node A (nav, processor 0) and node B (sensors, processor 1) as one system: A's SpM calls B's
/// SvM through the ORB every period, for ten periods.
TwoNodes run_two_nodes() {
  REQUIRE(kairos::kal::sim::set_network({kLatency, 0us}, 1) == Status::kOk);
  REQUIRE(kairos::kal::provision_processors(2) == Status::kOk);
  TwoNodes result;
  static const int kSensorsCpus[] = {1};
  static const int kNavigationCpus[] = {0};

  CubeServant servant;
  kairos::Engine sensors{simulated_node(kSensorsCpus)};
  servant.engine = &sensors;
  REQUIRE(sensors.add_svm(kCubeRow, &servant, &serve_cube, &no_miss) == Status::kOk);
  sensors.observe_services(&collect_svm, &result.sensors);
  kairos::orb::Orb sensors_orb{kairos::orb::OrbOptions{.node = "sensors", .cpu = 1}};
  REQUIRE(sensors_orb.listen(kSensorsEndpoint) == Status::kOk);
  REQUIRE(sensors_orb.add_object(kCubeObject, &dispatch_cube, &servant) == Status::kOk);
  REQUIRE(sensors_orb.serve_band(kServiceBand) == Status::kOk);
  REQUIRE(sensors_orb.start() == Status::kOk);

  Navigation navigation;
  navigation.round_trips.reserve(16);
  kairos::Engine nav{simulated_node(kNavigationCpus)};
  REQUIRE(nav.add_spm(kUpdateRow, &navigation, &update, &no_miss) == Status::kOk);
  kairos::orb::Orb nav_orb{kairos::orb::OrbOptions{.node = "nav", .cpu = 0}};
  navigation.orb = &nav_orb;
  REQUIRE(nav_orb.add_peer(kSensorsEndpoint, navigation.peer) == Status::kOk);
  REQUIRE(nav_orb.add_route(navigation.peer, kServiceBand, 0, kNavigationBand) == Status::kOk);
  REQUIRE(nav_orb.start() == Status::kOk);
  REQUIRE(nav_orb.connect_all(MonotonicClock::now() + 1ms));

  // Both runs begin at one instant, each node's engine on its own processor.
  result.navigation.engine = &nav;
  result.sensors.engine = &sensors;
  result.navigation.records.reserve(64);
  result.sensors.records.reserve(64);
  kairos::kal::Thread node_a;
  kairos::kal::Thread node_b;
  REQUIRE(node_a.start({"node-nav", kairos::kal::kLowestBand, 0}, &run_node, &result.navigation) ==
          Status::kOk);
  REQUIRE(node_b.start({"node-sensors", kairos::kal::kLowestBand, 1}, &run_node, &result.sensors) ==
          Status::kOk);
  node_a.join();
  node_b.join();
  nav_orb.stop();
  sensors_orb.stop();
  result.round_trips = navigation.round_trips;
  result.failures = navigation.failures;
  return result;
}

bool same(const kairos::ActivationRecord& a, const kairos::ActivationRecord& b) {
  return a.spm == b.spm && a.service == b.service && a.outcome == b.outcome &&
         a.sequence == b.sequence && a.release_ns == b.release_ns &&
         a.dispatch_ns == b.dispatch_ns && a.start_ns == b.start_ns && a.finish_ns == b.finish_ns;
}

}  // namespace

TEST_CASE("on sim node A's SpM calls node B's SvM through the ORB at exact virtual times",
          "[sim][orb][nodes]") {
  const TwoNodes first = run_two_nodes();
  REQUIRE(first.failures == 0);
  REQUIRE(first.round_trips.size() == 10);
  for (const Duration trip : first.round_trips) {
    REQUIRE(trip == kRoundTrip);
  }
  // A: released every period, starts at once, calls (210 us), then computes its WCET.
  REQUIRE(first.navigation.records.size() == 10);
  for (std::size_t k = 0; k < first.navigation.records.size(); ++k) {
    const auto& record = first.navigation.records[k];
    const std::int64_t release = (kPeriod * static_cast<std::int64_t>(k)).count();
    INFO("activation " << k);
    REQUIRE(record.outcome == kairos::ActivationOutcome::kMet);
    REQUIRE(record.release_ns == release);
    REQUIRE(record.start_ns == release);
    REQUIRE(record.finish_ns == release + (kRoundTrip + kNavigationWcet).count());
  }
  // B (its epoch is A's: both runs began at one instant): each request arrives one latency
  // after A's release and is served at once, for its WCET.
  REQUIRE(first.sensors.records.size() == 10);
  for (std::size_t k = 0; k < first.sensors.records.size(); ++k) {
    const auto& record = first.sensors.records[k];
    const std::int64_t arrival = (kPeriod * static_cast<std::int64_t>(k) + kLatency).count();
    INFO("request " << k);
    REQUIRE(record.service);
    REQUIRE(record.outcome == kairos::ActivationOutcome::kMet);
    REQUIRE(record.release_ns == arrival);
    REQUIRE(record.start_ns == arrival);
    REQUIRE(record.finish_ns == arrival + kHandling.count());
  }

  // The whole system again: the same records to the nanosecond.
  const TwoNodes second = run_two_nodes();
  REQUIRE(second.round_trips == first.round_trips);
  REQUIRE(second.navigation.records.size() == first.navigation.records.size());
  REQUIRE(second.sensors.records.size() == first.sensors.records.size());
  for (std::size_t k = 0; k < first.navigation.records.size(); ++k) {
    REQUIRE(same(second.navigation.records[k], first.navigation.records[k]));
  }
  for (std::size_t k = 0; k < first.sensors.records.size(); ++k) {
    REQUIRE(same(second.sensors.records[k], first.sensors.records[k]));
  }
}
