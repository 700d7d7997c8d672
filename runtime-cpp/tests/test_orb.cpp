// The ORB core over real sockets on loopback: frames, two-way and oneway calls served by the TMO
// engine, deadlines, bad peers, a server that goes away and comes back, the steady state that
// allocates nothing and locks nothing, and oneways over UDP datagrams.
#include "kairos_catch.hpp"

#include <dirent.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <array>
#include <atomic>
#include <cstring>
#include <fstream>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/orb/frame.hpp>
#include <kairos/orb/gate.hpp>
#include <kairos/orb/orb.hpp>
#include <kairos/orb/service.hpp>

#include "../tools/openssl_keys.hpp"
#include "allocation_counter.hpp"
#include "mutex_counter.hpp"
#include "orb_cube.hpp"
#include "tls_identities.hpp"

using kairos::kal::MonotonicClock;
using kairos::orb::CallStatus;
using kairos::orb::FrameHeader;
using kairos::orb::FrameKind;
using kairos::orb::HeaderError;
using kairos::orb::ReplyStatus;
using namespace std::chrono_literals;

namespace {

std::string unique_endpoint(const char* transport, int salt) {
  if (std::strcmp(transport, "uds") == 0) {
    return "uds:/tmp/kairos-orb-test-" + std::to_string(getpid()) + "-" + std::to_string(salt);
  }
  if (std::strcmp(transport, "shm") == 0) {
    return "shm:kairos-orb-test-" + std::to_string(getpid()) + "-" + std::to_string(salt);
  }
  // Ports below the kernel's ephemeral range (32768 and up by default): a port there may be held
  // by any process's outgoing connection, and listening on it then fails (kAddressInUse).
  if (std::strcmp(transport, "udp") == 0) {
    // Band b listens on this port + b: 64 ports apart, so that no two tests' bands meet.
    return "udp:127.0.0.1:" + std::to_string(12000 + 64 * ((getpid() + salt) % 300));
  }
  return "tcp:127.0.0.1:" + std::to_string(21000 + (getpid() * 7 + salt) % 11000);
}

// ------------------------------------------------------------ a cube server on the engine

using namespace orb_cube;

/// A node serving the cube: its engine runs on a thread of its own for `duration`, or until the
/// server goes out of scope (a clean stop, as on SIGTERM), so that a test does not wait out a run
/// it no longer needs.
struct CubeServer {
  CubeServant servant;
  kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kRms}};
  kairos::orb::Orb orb{kairos::orb::OrbOptions{"server"}};
  std::thread runner;

  /// With `callers`, only they may invoke what they name (Orb::permit_only); its ORB's threads
  /// run on `orb_cpu` (-1: anywhere).
  /// With `identity`, its tcp: endpoint takes only connections that prove a node by TLS.
  /// With `local_peers`, the members of its group may connect to its uds: or shm: endpoint.
  CubeServer(const std::string& endpoint, kairos::kal::Duration duration,
             const std::vector<kairos::orb::CallerPermit>* callers = nullptr, int orb_cpu = -1,
             const kairos::kal::TlsIdentity* identity = nullptr,
             kairos::kal::LocalPeers local_peers = {})
      : orb{kairos::orb::OrbOptions{
            .node = "server", .cpu = orb_cpu, .identity = identity, .local_peers = local_peers}} {
    servant.engine = &engine;
    REQUIRE(engine.add_svm(kCubeRow, &servant, &serve_cube, &no_miss) == kairos::kal::Status::kOk);
    REQUIRE(orb.listen(endpoint, identity != nullptr) == kairos::kal::Status::kOk);
    REQUIRE(orb.add_object(kCubeObject, &dispatch_cube, &servant) == kairos::kal::Status::kOk);
    REQUIRE(orb.serve_band(kServiceBand) == kairos::kal::Status::kOk);
    if (callers != nullptr) {
      REQUIRE(orb.permit_only(*callers) == kairos::kal::Status::kOk);
    }
    REQUIRE(orb.start() == kairos::kal::Status::kOk);
    runner = std::thread([this, duration] { engine.run_for(duration, nullptr, nullptr); });
  }
  ~CubeServer() {
    engine.request_stop();
    runner.join();
    orb.stop();
  }
};

/// A client whose calling thread stands for lane (core 0, band 2).
struct CubeClient {
  kairos::orb::Orb orb;
  std::uint8_t peer = 0;

  /// With `wait_for_service`, returns once the server answers (a request before its engine's
  /// epoch waits for it; one before its socket listens is unavailable). `name` is the node its
  /// hello names.
  /// With `identity`, it calls by TLS a server that must prove it is node `server`.
  explicit CubeClient(const std::string& endpoint, bool wait_for_service = true,
                      const char* name = "client",
                      const kairos::kal::TlsIdentity* identity = nullptr,
                      const char* server = "server")
      : orb{kairos::orb::OrbOptions{.node = name, .identity = identity}} {
    kairos::set_current_lane(kairos::LaneIdentity{0, 2, false});
    REQUIRE(orb.add_peer(endpoint, peer, identity != nullptr ? server : "") ==
            kairos::kal::Status::kOk);
    REQUIRE(orb.add_route(peer, kServiceBand, 0, 2) == kairos::kal::Status::kOk);
    REQUIRE(orb.start() == kairos::kal::Status::kOk);
    if (wait_for_service) {
      const auto give_up = MonotonicClock::now() + 5s;
      std::int32_t result = 0;
      while (cube(0, result) == CallStatus::kUnavailable && MonotonicClock::now() < give_up) {
        std::this_thread::sleep_for(2ms);
      }
      REQUIRE(cube(0, result) == CallStatus::kOk);
      baseline = orb.counters();
    }
  }

  kairos::orb::OrbCounters baseline{};

  CallStatus cube(std::int32_t x, std::int32_t& result, std::uint16_t operation = kCubeOperation,
                  kairos::kal::Duration budget = 2s) {
    return orb_cube::cube(orb, peer, x, result, operation, MonotonicClock::now() + budget);
  }
};

}  // namespace

TEST_CASE("frame headers round-trip and every malformed header is named", "[unit][orb]") {
  FrameHeader header{};
  header.kind = FrameKind::kReply;
  header.status = ReplyStatus::kUserException;
  header.band = 9;
  header.exception = 2;
  header.object = 0x1234;
  header.operation = 0xbeef;
  header.request_id = 0xdeadbeef;
  header.body_size = 100;
  header.budget_ns = -5;
  std::array<std::byte, kairos::orb::kHeaderSize> bytes{};
  kairos::orb::encode_header(header, bytes);
  FrameHeader decoded{};
  REQUIRE(kairos::orb::decode_header(bytes, 100, decoded) == HeaderError::kNone);
  REQUIRE(decoded.kind == header.kind);
  REQUIRE(decoded.status == header.status);
  REQUIRE(decoded.band == 9);
  REQUIRE(decoded.exception == 2);
  REQUIRE(decoded.object == 0x1234);
  REQUIRE(decoded.operation == 0xbeef);
  REQUIRE(decoded.request_id == 0xdeadbeef);
  REQUIRE(decoded.body_size == 100);
  REQUIRE(decoded.budget_ns == -5);

  SECTION("a sender of the other byte order") {
    auto swapped = bytes;
    swapped[5] = std::byte{static_cast<std::uint8_t>(std::to_integer<std::uint8_t>(bytes[5]) ^
                                                     kairos::orb::kLittleEndianFlag)};
    auto reverse = [&](std::size_t at, std::size_t size) {
      std::reverse(swapped.begin() + static_cast<std::ptrdiff_t>(at),
                   swapped.begin() + static_cast<std::ptrdiff_t>(at + size));
    };
    reverse(8, 4);
    reverse(12, 4);
    reverse(16, 2);
    reverse(18, 2);
    reverse(24, 8);
    FrameHeader foreign{};
    REQUIRE(kairos::orb::decode_header(swapped, 100, foreign) == HeaderError::kNone);
    REQUIRE(foreign.request_id == 0xdeadbeef);
    REQUIRE(foreign.object == 0x1234);
    REQUIRE(foreign.budget_ns == -5);
    REQUIRE(foreign.little_endian != decoded.little_endian);
  }
  SECTION("errors") {
    REQUIRE(kairos::orb::decode_header(std::span(bytes).first(31), 100, decoded) ==
            HeaderError::kShort);
    REQUIRE(kairos::orb::decode_header(bytes, 99, decoded) == HeaderError::kTooLarge);
    auto bad = bytes;
    bad[0] = std::byte{'X'};
    REQUIRE(kairos::orb::decode_header(bad, 100, decoded) == HeaderError::kBadMagic);
    bad = bytes;
    bad[4] = std::byte{2};
    REQUIRE(kairos::orb::decode_header(bad, 100, decoded) == HeaderError::kBadVersion);
    bad = bytes;
    bad[6] = std::byte{9};
    REQUIRE(kairos::orb::decode_header(bad, 100, decoded) == HeaderError::kBadKind);
    bad = bytes;
    bad[7] = std::byte{200};
    REQUIRE(kairos::orb::decode_header(bad, 100, decoded) == HeaderError::kBadKind);
    bad = bytes;
    bad[5] = std::byte{0x80};
    REQUIRE(kairos::orb::decode_header(bad, 100, decoded) == HeaderError::kBadReserved);
    bad = bytes;
    bad[22] = std::byte{1};
    REQUIRE(kairos::orb::decode_header(bad, 100, decoded) == HeaderError::kBadReserved);
  }
}

TEST_CASE("two-way and oneway calls are served by the engine over UDS, TCP and shared memory",
          "[integration][orb]") {
  for (const char* transport : {"uds", "tcp", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 1);
    CubeServer server(endpoint, 3s);
    CubeClient client(endpoint);
    for (std::int32_t x = 0; x < 50; ++x) {
      std::int32_t result = -1;
      REQUIRE(client.cube(x, result) == CallStatus::kOk);
      REQUIRE(result == x * x * x);
    }
    // A declared exception reaches the caller as such, with its body.
    auto raising = client.orb.begin({client.peer, kServiceBand, kCubeObject, kCubeOperation});
    const std::int32_t negative = -3;
    std::memcpy(raising.request_body().data(), &negative, sizeof negative);
    REQUIRE(client.orb.invoke(raising, sizeof negative, MonotonicClock::now() + 2s) ==
            CallStatus::kUserException);
    REQUIRE(raising.exception() == 1);
    REQUIRE(raising.reply_body().size() == 4);
    // Oneway: sent, never answered.
    for (int i = 0; i < 5; ++i) {
      auto oneway = client.orb.begin({client.peer, kServiceBand, kCubeObject, kCubeOperation});
      REQUIRE(client.orb.send(oneway, 0, MonotonicClock::now() + 1s, true) == CallStatus::kOk);
    }
    // Non-blocking: two in flight, polled until answered.
    std::array<kairos::orb::Call, 2> calls{};
    for (std::size_t i = 0; i < calls.size(); ++i) {
      calls[i] = client.orb.begin({client.peer, kServiceBand, kCubeObject, kCubeOperation});
      const std::int32_t x = static_cast<std::int32_t>(10 + i);
      std::memcpy(calls[i].request_body().data(), &x, sizeof x);
      REQUIRE(client.orb.send(calls[i], sizeof x, MonotonicClock::now() + 2s) ==
              CallStatus::kPending);
    }
    for (std::size_t i = 0; i < calls.size(); ++i) {
      const auto give_up = MonotonicClock::now() + 5s;
      while (client.orb.poll(calls[i]) == CallStatus::kPending && MonotonicClock::now() < give_up) {
        std::this_thread::sleep_for(100us);
      }
      REQUIRE(calls[i].status() == CallStatus::kOk);
      const std::int32_t x = static_cast<std::int32_t>(10 + i);
      REQUIRE(read_int(calls[i].reply_body()) == x * x * x);
    }
    const auto give_up = MonotonicClock::now() + 2s;
    while (server.servant.oneways.load() < 5 && MonotonicClock::now() < give_up) {
      std::this_thread::sleep_for(1ms);
    }
    REQUIRE(server.servant.oneways.load() == 5);
    const auto counters = client.orb.counters();
    REQUIRE(counters.calls - client.baseline.calls == 50 + 1 + 5 + 2);
    REQUIRE(counters.replies - client.baseline.replies == 50 + 1 + 2);
    REQUIRE(counters.failed == client.baseline.failed);
    REQUIRE(counters.connects == 1);
    REQUIRE(server.orb.counters().requests == counters.calls);
    REQUIRE(server.orb.counters().connections_accepted == 1);
  }
}

TEST_CASE("a call whose deadline passes fails at its deadline and its late reply is dropped",
          "[integration][orb]") {
  for (const char* transport : {"uds", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 2);
    CubeServer server(endpoint, 2s);
    CubeClient client(endpoint);
    std::int32_t result = 0;
    const auto before = MonotonicClock::now();
    REQUIRE(client.cube(2, result, kSlowOperation, 5ms) == CallStatus::kDeadlineExpired);
    const auto waited = MonotonicClock::now() - before;
    REQUIRE(waited >= 5ms);
    REQUIRE(waited < 150ms);  // the slow operation takes 200 ms: the caller did not wait for it
    std::this_thread::sleep_for(300ms);
    // The next call reads the late reply first, drops it, and gets its own.
    REQUIRE(client.cube(3, result) == CallStatus::kOk);
    REQUIRE(result == 27);
    const auto counters = client.orb.counters();
    REQUIRE(counters.deadline_expired - client.baseline.deadline_expired == 1);
    REQUIRE(counters.late_replies - client.baseline.late_replies == 1);
  }
}

/// The scheduling policy of this process's thread named `name`, or -1 if there is none.
int policy_of_thread(const std::string& name) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) {
    return -1;
  }
  int policy = -1;
  while (const dirent* task = readdir(tasks)) {
    std::string comm;
    std::ifstream(std::string("/proc/self/task/") + task->d_name + "/comm") >> comm;
    if (comm == name) {
      policy = sched_getscheduler(static_cast<pid_t>(std::atoi(task->d_name)));
      break;
    }
  }
  closedir(tasks);
  return policy;
}

TEST_CASE("the band readers of a node whose lanes run by deadline do not rank below them",
          "[integration][orb][edf]") {
  const std::string endpoint = unique_endpoint("tcp", 11);
  CubeServant servant;
  kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kEdf}};
  servant.engine = &engine;
  REQUIRE(engine.add_svm(kCubeRow, &servant, &serve_cube, &no_miss) == kairos::kal::Status::kOk);
  kairos::orb::Orb orb{kairos::orb::OrbOptions{.node = "edf-server", .lanes_by_deadline = true}};
  REQUIRE(orb.listen(endpoint) == kairos::kal::Status::kOk);
  REQUIRE(orb.add_object(kCubeObject, &dispatch_cube, &servant) == kairos::kal::Status::kOk);
  REQUIRE(orb.serve_band(kServiceBand) == kairos::kal::Status::kOk);
  REQUIRE(orb.start() == kairos::kal::Status::kOk);
  std::thread runner([&engine] { engine.run_for(1s, nullptr, nullptr); });
  {
    CubeClient client(endpoint);
    std::int32_t result = 0;
    REQUIRE(client.cube(3, result) == CallStatus::kOk);
    REQUIRE(result == 27);
  }
  if (!kairos::kal::kSimulatedTime) {
    // The kernel's own EDF, as the lanes: as SCHED_FIFO the reader would wait for every
    // deadline lane of its CPU to sleep. Where SCHED_DEADLINE is refused, it keeps its band.
    const int policy = policy_of_thread("kairos-orb-b" + std::to_string(kServiceBand));
    REQUIRE(policy == (kairos::kal::deadline_scheduling_granted() ? SCHED_DEADLINE : SCHED_FIFO));
  }
  engine.request_stop();
  runner.join();
  orb.stop();
}

TEST_CASE("requests the server cannot take are answered with the reason", "[integration][orb]") {
  const std::string endpoint = unique_endpoint("tcp", 3);
  {
    CubeServer server(endpoint, 1s);
    CubeClient client(endpoint);
    std::int32_t result = 0;
    REQUIRE(client.cube(1, result, 7) == CallStatus::kNoSuchTarget);
    auto unknown = client.orb.begin({client.peer, kServiceBand, 9, 0});
    REQUIRE(client.orb.invoke(unknown, 0, MonotonicClock::now() + 1s) == CallStatus::kNoSuchTarget);
    // No route from this lane to another band of that peer.
    auto other_band = client.orb.begin({client.peer, 4, kCubeObject, 0});
    REQUIRE(other_band.status() == CallStatus::kNoRoute);
    REQUIRE(client.cube(4, result) == CallStatus::kOk);
  }
  {
    // The server's ORB is up but its engine has not begun its run: a request waits for the
    // run's epoch and is served then; once the run is over, requests are refused.
    kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kRms}};
    CubeServant servant;
    servant.engine = &engine;
    REQUIRE(engine.add_svm(kCubeRow, &servant, &serve_cube, &no_miss) == kairos::kal::Status::kOk);
    kairos::orb::Orb orb{kairos::orb::OrbOptions{"server"}};
    REQUIRE(orb.listen(endpoint) == kairos::kal::Status::kOk);
    REQUIRE(orb.add_object(kCubeObject, &dispatch_cube, &servant) == kairos::kal::Status::kOk);
    REQUIRE(orb.serve_band(kServiceBand) == kairos::kal::Status::kOk);
    REQUIRE(orb.start() == kairos::kal::Status::kOk);
    CubeClient client(endpoint, false);
    std::thread late_start([&engine] {
      std::this_thread::sleep_for(100ms);
      engine.run_for(300ms, nullptr, nullptr);
    });
    std::int32_t result = 0;
    const CallStatus early = client.cube(3, result);
    late_start.join();
    REQUIRE(early == CallStatus::kOk);
    REQUIRE(result == 27);
    REQUIRE(engine.counters().requests_refused == 0);
    REQUIRE(client.cube(1, result) == CallStatus::kUnavailable);
    orb.stop();
  }
}

namespace {
/// Says a hello on the cube's band over a raw socket, naming node `name` (none: unnamed), and
/// waits for the server's answer: whether it answered (a hello it refuses ends the stream).
bool hello_answered(kairos::kal::Socket& socket, std::string_view name = {}) {
  FrameHeader hello{};
  hello.kind = FrameKind::kHello;
  hello.band = kServiceBand;
  hello.body_size = static_cast<std::uint32_t>(name.size());
  std::array<std::byte, kairos::orb::kHeaderSize + kairos::orb::kMaxNodeName> frame{};
  kairos::orb::encode_header(hello, std::span<std::byte, kairos::orb::kHeaderSize>(
                                        frame.data(), kairos::orb::kHeaderSize));
  std::memcpy(frame.data() + kairos::orb::kHeaderSize, name.data(), name.size());
  const std::size_t size = kairos::orb::kHeaderSize + name.size();
  REQUIRE(socket.send({frame.data(), size}) == static_cast<std::int64_t>(size));
  REQUIRE(socket.wait_readable(MonotonicClock::now() + 1s));
  std::array<std::byte, 64> answer{};
  return socket.receive(answer) == kairos::orb::kHeaderSize;
}

/// Says an unnamed hello on the cube's band over a raw socket and waits for its answer.
void say_hello(kairos::kal::Socket& socket) {
  REQUIRE(hello_answered(socket));
}

/// A raw TCP connection to `endpoint`.
void connect_raw(kairos::kal::Socket& socket, const std::string& endpoint) {
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
  REQUIRE(socket.connect(parsed, MonotonicClock::now() + 1s, kairos::kal::Transfer::kStream) ==
          kairos::kal::Status::kOk);
}
}  // namespace

TEST_CASE("a peer sending garbage is cut off and everyone else is still served",
          "[integration][orb]") {
  for (const char* transport : {"uds", "tcp", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 4);
    CubeServer server(endpoint, 2s);
    CubeClient client(endpoint);
    kairos::kal::Endpoint parsed;
    REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
    const auto transfer = parsed.kind == kairos::kal::Endpoint::Kind::kTcp
                              ? kairos::kal::Transfer::kStream
                              : kairos::kal::Transfer::kMessages;
    // One that sends garbage instead of a hello, one that says hello and then sends garbage.
    kairos::kal::Socket rude;
    REQUIRE(rude.connect(parsed, MonotonicClock::now() + 1s, transfer) == kairos::kal::Status::kOk);
    std::array<std::byte, 64> garbage{};
    garbage.fill(std::byte{0x5a});
    REQUIRE(rude.send(garbage) == 64);
    kairos::kal::Socket sly;
    REQUIRE(sly.connect(parsed, MonotonicClock::now() + 1s, transfer) == kairos::kal::Status::kOk);
    say_hello(sly);
    REQUIRE(sly.send(garbage) == 64);

    for (std::int32_t x = 1; x <= 10; ++x) {
      std::int32_t result = 0;
      REQUIRE(client.cube(x, result) == CallStatus::kOk);
      REQUIRE(result == x * x * x);
    }
    // Both were closed by the server: each reads the end of its stream.
    for (kairos::kal::Socket* socket : {&rude, &sly}) {
      REQUIRE(socket->wait_readable(MonotonicClock::now() + 2s));
      std::array<std::byte, 64> rest{};
      REQUIRE(socket->receive(rest) == -1);
    }
    REQUIRE(server.orb.counters().malformed_frames == 2);
  }
}

namespace {
/// Where among the requests the server dispatched after a burst of 400 from one connection the
/// request of another connection, sent right after it, came (-1: never). The server's reader is on
/// CPU 1, this thread on CPU 0.
int position_after_a_burst(const std::string& endpoint) {
  CubeServer server(endpoint, 5s, nullptr, 1);
  CubeClient client(endpoint);
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
  kairos::kal::Socket flood;
  REQUIRE(flood.connect(parsed, MonotonicClock::now() + 1s, kairos::kal::Transfer::kStream) ==
          kairos::kal::Status::kOk);
  say_hello(flood);
  // 400 cube(1) requests in one send: one read of the server's takes them all in.
  constexpr std::size_t kFlood = 400;
  constexpr std::size_t kFrame = kairos::orb::kHeaderSize + sizeof(std::int32_t);
  std::vector<std::byte> burst(kFlood * kFrame);
  for (std::size_t i = 0; i < kFlood; ++i) {
    FrameHeader request{};
    request.kind = FrameKind::kRequest;
    request.band = kServiceBand;
    request.object = kCubeObject;
    request.operation = kCubeOperation;
    request.request_id = static_cast<std::uint32_t>(i + 1);
    request.body_size = sizeof(std::int32_t);
    request.budget_ns = 1'000'000'000;
    std::byte* at = burst.data() + i * kFrame;
    kairos::orb::encode_header(
        request, std::span<std::byte, kairos::orb::kHeaderSize>(at, kairos::orb::kHeaderSize));
    const std::int32_t one = 1;
    std::memcpy(at + kairos::orb::kHeaderSize, &one, sizeof one);
  }
  const int before = server.servant.dispatched_count.load();
  // Above the server's lanes while it sends both: a lane that runs a flooded request on this CPU
  // must not hold the other request back until the reader has taken every turn of the flood
  // (seen: 1 run in 4 on a quiet 2-CPU machine, the request taken 64th).
  const sched_param top{sched_get_priority_max(SCHED_FIFO)};
  const bool raised = pthread_setschedparam(pthread_self(), SCHED_FIFO, &top) == 0;
  REQUIRE(flood.send(burst) == static_cast<std::int64_t>(burst.size()));
  std::int32_t result = 0;
  const CallStatus answered = client.cube(2, result);
  if (raised) {
    const sched_param normal{0};
    pthread_setschedparam(pthread_self(), SCHED_OTHER, &normal);
  }
  REQUIRE(answered == CallStatus::kOk);
  REQUIRE(result == 8);
  for (int k = before;
       k < std::min(server.servant.dispatched_count.load(), orb_cube::CubeServant::kDispatchLog);
       ++k) {
    if (server.servant.dispatched[static_cast<std::size_t>(k)].load() == 2) {
      return k - before;
    }
  }
  return -1;
}
}  // namespace

TEST_CASE("a connection that sends hundreds of requests at once does not hold its band",
          "[integration][orb][security]") {
  // The server's reader on CPU 1, this thread on CPU 0: the reader, at a real-time priority, must
  // not take the whole burst in before this thread has sent its own request.
  if (std::thread::hardware_concurrency() < 2) {
    WARN("one CPU: the reader would take the burst before the other request is sent");
    return;
  }
  cpu_set_t here;
  REQUIRE(pthread_getaffinity_np(pthread_self(), sizeof here, &here) == 0);
  cpu_set_t cpu0;
  CPU_ZERO(&cpu0);
  CPU_SET(0, &cpu0);
  REQUIRE(pthread_setaffinity_np(pthread_self(), sizeof cpu0, &cpu0) == 0);
  // The reader takes the other connection's request after a turn or two of the flood's (8 frames
  // each), not after all 400 of them (of which those that found no request slot free were
  // refused, not dispatched): taken after all, it comes after the 64 that found a slot at least.
  // A host that takes CPU 0 away between the two sends lets the reader go through the whole flood
  // before the other request exists (seen under CI: 64th): such a run is played again, twice at
  // most; the defect puts it after the flood every time.
  int position = -1;
  for (int attempt = 0; attempt < 3; ++attempt) {
    position = position_after_a_burst(unique_endpoint("tcp", 18 + 50 * attempt));
    REQUIRE(position >= 0);
    if (position < 48) {
      break;
    }
    WARN("run " << attempt + 1 << ": the other connection's request was dispatched " << position
                << "th after the burst");
  }
  pthread_setaffinity_np(pthread_self(), sizeof here, &here);
  REQUIRE(position < 48);
}

TEST_CASE("a frame left unfinished closes its connection within seconds, its slot freed",
          "[integration][orb][security]") {
  const std::string endpoint = unique_endpoint("tcp", 13);
  CubeServer server(endpoint, 5s);
  CubeClient client(endpoint);
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
  // Says hello, then announces a request of 8,000 bytes and sends 64 of them.
  kairos::kal::Socket slow;
  REQUIRE(slow.connect(parsed, MonotonicClock::now() + 1s, kairos::kal::Transfer::kStream) ==
          kairos::kal::Status::kOk);
  say_hello(slow);
  std::array<std::byte, kairos::orb::kHeaderSize> frame{};
  FrameHeader request{};
  request.kind = FrameKind::kRequest;
  request.band = kServiceBand;
  request.object = kCubeObject;
  request.body_size = 8000;
  kairos::orb::encode_header(request, frame);
  REQUIRE(slow.send(frame) == kairos::orb::kHeaderSize);
  std::array<std::byte, 64> start{};
  REQUIRE(slow.send(start) == 64);
  const auto sent = MonotonicClock::now();
  // The server closes it: the stream ends, after a second and well before five.
  REQUIRE(slow.wait_readable(sent + 5s));
  std::array<std::byte, 64> rest{};
  REQUIRE(slow.receive(rest) == -1);
  const auto closed_after = MonotonicClock::now() - sent;
  REQUIRE(closed_after >= 900ms);
  REQUIRE(closed_after < 4s);
  // Everyone else was served meanwhile, and still is.
  std::int32_t result = 0;
  REQUIRE(client.cube(6, result) == CallStatus::kOk);
  REQUIRE(result == 216);
}

namespace {
/// What this process writes to its error stream while it lives (a pipe instead of fd 2).
class StderrCapture {
 public:
  StderrCapture() {
    REQUIRE(::pipe(ends_) == 0);
    saved_ = ::dup(STDERR_FILENO);
    REQUIRE(::dup2(ends_[1], STDERR_FILENO) == STDERR_FILENO);
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  ~StderrCapture() {
    restore();
    ::close(ends_[0]);
  }
  /// Everything written so far (the error stream is given back first).
  std::string text() {
    restore();
    std::string all;
    std::array<char, 4096> chunk{};
    ssize_t got = 0;
    while ((got = ::read(ends_[0], chunk.data(), chunk.size())) > 0) {
      all.append(chunk.data(), static_cast<std::size_t>(got));
    }
    return all;
  }

 private:
  void restore() {
    if (saved_ >= 0) {
      ::dup2(saved_, STDERR_FILENO);
      ::close(saved_);
      ::close(ends_[1]);
      saved_ = -1;
    }
  }
  int ends_[2] = {-1, -1};
  int saved_ = -1;
};

std::size_t occurrences(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}
}  // namespace

namespace {
/// In a child process running as user nobody, of group `group` (primary) and `supplementary`:
/// whether it could open a connection to `endpoint` (uds:) or be handed its shared memory (shm:).
/// Exit code 0: refused; 1: let in; 2: no setuid.
int connects_as_nobody(const std::string& endpoint, gid_t group = 65534,
                       std::span<const gid_t> supplementary = {}) noexcept {
  if (::setgroups(supplementary.size(), supplementary.data()) != 0 || ::setgid(group) != 0 ||
      ::setuid(65534) != 0) {
    return 2;
  }
  kairos::kal::Endpoint parsed;
  if (!kairos::kal::parse_endpoint(endpoint, parsed)) {
    return 3;
  }
  kairos::kal::Socket socket;
  // As the ORB connects to a uds: or shm: node: by messages (SOCK_SEQPACKET), which a stream
  // socket could not connect to whatever the permissions.
  return socket.connect(parsed, MonotonicClock::now() + 2s, kairos::kal::Transfer::kMessages) ==
                 kairos::kal::Status::kOk
             ? 1
             : 0;
}
}  // namespace

TEST_CASE("the model is the access list: a node may invoke what its gates name, nothing else",
          "[integration][orb][security]") {
  const std::string endpoint = unique_endpoint("tcp", 11);
  const std::vector<kairos::orb::CallerPermit> callers{{"client", kCubeObject, kCubeOperation}};
  CubeServer server(endpoint, 3s, &callers);
  CubeClient client(endpoint);  // named "client": its gate names the cube
  std::int32_t result = 0;
  REQUIRE(client.cube(4, result) == CallStatus::kOk);
  REQUIRE(result == 64);
  // Another operation under the right name: refused, run nothing, counted. A name the list does
  // not know gets no connection at all.
  const int served = server.servant.served;
  REQUIRE(client.cube(4, result, kCubeOperation + 1) == CallStatus::kNotPermitted);
  CubeClient intruder(endpoint, false, "intruder");
  REQUIRE(intruder.cube(4, result) == CallStatus::kDisconnected);
  const auto counters = server.orb.counters();
  REQUIRE(counters.not_permitted == 1);
  REQUIRE(counters.unknown_callers >= 1);
  REQUIRE(server.servant.served == served);
  // An empty list refuses everyone.
  const std::string closed_endpoint = unique_endpoint("tcp", 12);
  const std::vector<kairos::orb::CallerPermit> nobody;
  CubeServer closed(closed_endpoint, 3s, &nobody);
  CubeClient refused(closed_endpoint, false);
  REQUIRE(refused.cube(4, result) == CallStatus::kDisconnected);
  REQUIRE(closed.orb.counters().unknown_callers >= 1);
}

TEST_CASE("a caller beyond its budget is refused and takes nothing from another caller's share",
          "[integration][orb][security]") {
  const std::string endpoint = unique_endpoint("tcp", 17);
  // "flooder" may call once per 300 ms (no jitter to spare); "steady" has no budget of its own.
  const std::vector<kairos::orb::CallerPermit> callers{
      {"flooder", kCubeObject, kCubeOperation, 300ms, 0ms},
      {"steady", kCubeObject, kCubeOperation}};
  CubeServer server(endpoint, 5s, &callers);
  CubeClient steady(endpoint, true, "steady");  // returns once the server serves
  CubeClient flooder(endpoint, false, "flooder");
  std::int32_t result = 0;
  CallStatus first = CallStatus::kDisconnected;
  const auto give_up = MonotonicClock::now() + 5s;
  while ((first = flooder.cube(2, result)) == CallStatus::kDisconnected &&
         MonotonicClock::now() < give_up) {
    std::this_thread::sleep_for(2ms);  // connecting
  }
  REQUIRE(first == CallStatus::kOk);
  REQUIRE(result == 8);
  const int served = server.servant.served;
  // Seven in a row (the eighth would have its connection read no more until its budget takes
  // one again: see the next test).
  for (int i = 0; i < 7; ++i) {
    REQUIRE(flooder.cube(2, result) == CallStatus::kRateExceeded);
    REQUIRE(steady.cube(3, result) == CallStatus::kOk);  // its share is its own
    REQUIRE(result == 27);
  }
  REQUIRE(server.orb.counters().over_budget == 7);
  REQUIRE(server.servant.served == served + 7);  // the steady caller's, none of the flooder's
  std::this_thread::sleep_for(350ms);
  REQUIRE(flooder.cube(2, result) == CallStatus::kOk);  // its next turn came
  REQUIRE(server.orb.counters().not_permitted == 0);
}

TEST_CASE("each caller has connection slots of its own, and connections without a hello hold none",
          "[integration][orb][security]") {
  const std::string endpoint = unique_endpoint("tcp", 19);
  // Each opens one connection here: it is given two slots (one for a reconnection).
  const std::vector<kairos::orb::CallerPermit> callers{
      {"holder", kCubeObject, kCubeOperation, 0ms, 0ms, 1},
      {"steady", kCubeObject, kCubeOperation, 0ms, 0ms, 1}};
  CubeServer server(endpoint, 10s, &callers);
  // Somebody takes both of holder's slots under its name and sends nothing; a third connection
  // under that name is refused, their connections being fresh.
  std::array<kairos::kal::Socket, 3> held;
  for (auto& socket : held) {
    connect_raw(socket, endpoint);
  }
  REQUIRE(hello_answered(held[0], "holder"));
  REQUIRE(hello_answered(held[1], "holder"));
  REQUIRE_FALSE(hello_answered(held[2], "holder"));
  // And opens three times more connections than there are slots for those without a hello.
  std::array<kairos::kal::Socket, 3 * kairos::orb::kGreetingSlots> silent;
  for (auto& socket : silent) {
    connect_raw(socket, endpoint);
  }
  // Another node of the model still connects at once and is served.
  CubeClient steady(endpoint, true, "steady");
  std::int32_t result = 0;
  REQUIRE(steady.cube(5, result) == CallStatus::kOk);
  REQUIRE(result == 125);
  auto counters = server.orb.counters();
  REQUIRE(counters.connections_refused == 1);
  REQUIRE(counters.connections_evicted >= 2 * kairos::orb::kGreetingSlots);
  // Idle past kIdleBeforeEviction (2 s), a connection under holder's name gives its slot to a
  // new one of holder: a restarted node gets in past connections that only hold its slots.
  std::this_thread::sleep_for(2100ms);
  REQUIRE(steady.cube(2, result) == CallStatus::kOk);  // steady's own is busy, not idle
  kairos::kal::Socket restarted;
  connect_raw(restarted, endpoint);
  REQUIRE(hello_answered(restarted, "holder"));
  std::size_t closed = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    std::array<std::byte, 64> rest{};
    closed += held[i].wait_readable(MonotonicClock::now() + 1s) && held[i].receive(rest) == -1;
  }
  REQUIRE(closed == 1);
  std::array<kairos::orb::CallerCounters, kairos::orb::kMaxCallers> each{};
  REQUIRE(server.orb.caller_counters(each) == 2);
  REQUIRE(each[0].caller == "holder");
  REQUIRE(each[0].connection_slots == 2);
  REQUIRE(each[0].connections == 2);
  REQUIRE(each[0].connections_refused == 1);
  REQUIRE(each[0].connections_evicted == 1);
  REQUIRE(each[1].caller == "steady");
  REQUIRE(each[1].connections == 1);
  REQUIRE(each[1].requests >= 3);  // its first call (waiting for service) and the two above
  REQUIRE(each[1].refused == 0);
}

TEST_CASE("a flood beyond its caller's budget is held back by the kernel, not read and refused",
          "[integration][orb][security]") {
  const std::string endpoint = unique_endpoint("tcp", 20);
  const std::vector<kairos::orb::CallerPermit> callers{
      {"flooder", kCubeObject, kCubeOperation, 300ms, 0ms},
      {"steady", kCubeObject, kCubeOperation}};
  CubeServer server(endpoint, 5s, &callers);
  CubeClient steady(endpoint, true, "steady");
  const auto before = server.orb.counters();
  std::array<kairos::orb::CallerCounters, kairos::orb::kMaxCallers> at_start{};
  REQUIRE(server.orb.caller_counters(at_start) == 2);
  const std::uint64_t before_steady = at_start[1].requests;
  kairos::kal::Socket flood;
  connect_raw(flood, endpoint);
  REQUIRE(hello_answered(flood, "flooder"));
  // As many requests as the connection takes for a second, never waiting for a reply.
  std::array<std::byte, kairos::orb::kHeaderSize + 4> request{};
  FrameHeader header{};
  header.kind = FrameKind::kRequest;
  header.band = kServiceBand;
  header.object = kCubeObject;
  header.operation = kCubeOperation;
  header.body_size = 4;
  header.budget_ns = 100'000'000;
  std::size_t sent = 0;
  std::int32_t result = 0;
  const auto end = MonotonicClock::now() + 1s;
  for (std::uint32_t id = 1; MonotonicClock::now() < end; ++id) {
    header.request_id = id;
    kairos::orb::encode_header(header, std::span<std::byte, kairos::orb::kHeaderSize>(
                                           request.data(), kairos::orb::kHeaderSize));
    if (flood.send(request) == static_cast<std::int64_t>(request.size())) {
      ++sent;
    } else {
      std::this_thread::sleep_for(1ms);  // full: the server reads no more of it for now
    }
    if (id % 1000 == 0) {
      REQUIRE(steady.cube(3, result) == CallStatus::kOk);  // served all along
      REQUIRE(result == 27);
    }
  }
  // Read by the server: 8 refused in a row, then per budget interval (300 ms) one taken and 8
  // refused again: a few dozen at most, of the thousands sent.
  std::array<kairos::orb::CallerCounters, kairos::orb::kMaxCallers> each{};
  REQUIRE(server.orb.caller_counters(each) == 2);
  REQUIRE(each[0].caller == "flooder");
  INFO("sent " << sent << ", read " << each[0].requests);
  REQUIRE(sent >= 1000);
  REQUIRE(each[0].requests >= 9);
  REQUIRE(each[0].requests <= 8 + 5 * 9);
  REQUIRE(each[0].over_budget >= 8);
  REQUIRE(each[0].requests - each[0].over_budget <= 5);  // one per 300 ms, at most
  REQUIRE(each[1].refused == 0);  // the steady caller's calls: every one answered
  REQUIRE(server.orb.counters().requests - before.requests ==
          each[0].requests + each[1].requests - before_steady);
}

TEST_CASE("a process of another user can neither connect to a uds: node nor map a shm: one's rings",
          "[integration][orb][security]") {
  if (::geteuid() != 0) {
    WARN("not run: it needs root, to become another user in a child process");
    return;
  }
  for (const char* transport : {"uds", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 9);
    CubeServer server(endpoint, 3s);
    {
      // uds:'s socket file, and shm:'s set-up socket file: the node's user's alone.
      const std::string path = std::strcmp(transport, "uds") == 0
                                   ? endpoint.substr(4)
                                   : "/tmp/kairos-shm-" + endpoint.substr(4);
      struct stat file {};
      REQUIRE(::stat(path.c_str(), &file) == 0);
      REQUIRE((file.st_mode & 0777) == 0600);
    }
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
      ::_exit(connects_as_nobody(endpoint));
    }
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    // A socket file the other user may not open refuses it before the node sees it (shm:'s
    // set-up socket was abstract once: the node took the connection, refused and counted it).
    REQUIRE(server.orb.counters().connections_of_other_users == 0);
    // The node's own user (root here) still calls.
    CubeClient client(endpoint);
    std::int32_t result = 0;
    REQUIRE(client.cube(3, result) == CallStatus::kOk);
    REQUIRE(result == 27);
  }
}

namespace {
/// Runs connects_as_nobody in a child process: its exit code.
int exit_code_connecting_as_nobody(const std::string& endpoint, gid_t group,
                                   std::span<const gid_t> supplementary) {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::_exit(connects_as_nobody(endpoint, group, supplementary));
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  return WEXITSTATUS(status);
}
}  // namespace

TEST_CASE("the members of a node's socket group connect to its uds: or shm: endpoint; others not",
          "[integration][orb][security]") {
  if (::geteuid() != 0) {
    WARN("not run: it needs root, to become another user in a child process");
    return;
  }
  // A group no user of this host is in: the node's socket group, as a deployment names it.
  constexpr gid_t kNodesGroup = 47'011;
  const std::array<gid_t, 1> member_of{kNodesGroup};
  for (const char* transport : {"uds", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 21);
    CubeServer server(endpoint, 3s, nullptr, -1, nullptr,
                      kairos::kal::LocalPeers{.group = kNodesGroup});
    const std::string path = std::strcmp(transport, "uds") == 0
                                 ? endpoint.substr(4)
                                 : "/tmp/kairos-shm-" + endpoint.substr(4);
    struct stat file {};
    REQUIRE(::stat(path.c_str(), &file) == 0);
    REQUIRE((file.st_mode & 0777) == 0660);
    REQUIRE(file.st_gid == kNodesGroup);
    const auto accepted_before = server.orb.counters().connections_accepted;
    // Another user in the group, by a supplementary group and as its primary one: let in (shm:
    // hands its memory over; a uds: connection is taken, not refused).
    REQUIRE(exit_code_connecting_as_nobody(endpoint, 65534, member_of) == 1);
    REQUIRE(exit_code_connecting_as_nobody(endpoint, kNodesGroup, {}) == 1);
    // Another user outside it: the file refuses it.
    REQUIRE(exit_code_connecting_as_nobody(endpoint, 65534, {}) == 0);
    const auto taken_by = MonotonicClock::now() + 5s;
    while (server.orb.counters().connections_accepted < accepted_before + 2 &&
           MonotonicClock::now() < taken_by) {
      std::this_thread::sleep_for(2ms);
    }
    REQUIRE(server.orb.counters().connections_accepted == accepted_before + 2);
    REQUIRE(server.orb.counters().connections_of_other_users == 0);
    // With the file open to everyone, the kernel's word on the peer still keeps the outsider out.
    REQUIRE(::chmod(path.c_str(), 0666) == 0);
    REQUIRE(exit_code_connecting_as_nobody(endpoint, 65534, {}) == (transport[0] == 's' ? 0 : 1));
    while (server.orb.counters().connections_of_other_users == 0 &&
           MonotonicClock::now() < taken_by) {
      std::this_thread::sleep_for(2ms);
    }
    REQUIRE(server.orb.counters().connections_of_other_users == 1);
    REQUIRE(server.orb.counters().connections_accepted == accepted_before + 2);
    CubeClient client(endpoint);
    std::int32_t result = 0;
    REQUIRE(client.cube(3, result) == CallStatus::kOk);
    REQUIRE(result == 27);
  }
}

TEST_CASE("a server that goes away fails calls at once, and serves them again when it is back",
          "[integration][orb]") {
  for (const char* transport : {"uds", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 5);
    auto server = std::make_unique<CubeServer>(endpoint, 600ms);
    CubeClient client(endpoint);
    std::int32_t result = 0;
    REQUIRE(client.cube(2, result) == CallStatus::kOk);
    StderrCapture said;
    server.reset();  // gone: its engine's run ended, its ORB stopped
    int failures = 0;
    for (int i = 0; i < 5; ++i) {
      const CallStatus status = client.cube(2, result);
      REQUIRE((status == CallStatus::kDisconnected));
      ++failures;
    }
    server = std::make_unique<CubeServer>(endpoint, 2s);
    const auto give_up = MonotonicClock::now() + 3s;
    CallStatus status = CallStatus::kDisconnected;
    while (status != CallStatus::kOk && MonotonicClock::now() < give_up) {
      std::this_thread::sleep_for(10ms);
      status = client.cube(5, result);
    }
    REQUIRE(status == CallStatus::kOk);
    REQUIRE(result == 125);
    REQUIRE(client.orb.counters().connects == 2);
    REQUIRE(failures == 5);
    // The client said so, once each: the peer lost, then back, with the time.
    const std::string text = said.text();
    CAPTURE(text);
    REQUIRE(occurrences(text, "orb: peer: " + endpoint + " at ") == 2);
    REQUIRE(occurrences(text, " UTC: lost: its calls fail (disconnected) until it is back\n") == 1);
    REQUIRE(occurrences(text, " UTC: back: connected again\n") == 1);
    REQUIRE(text.find("lost") < text.find("back"));
  }
}

TEST_CASE("a peer that goes away does not disturb calls to another peer", "[integration][orb]") {
  const std::string leaving_endpoint = unique_endpoint("uds", 15);
  const std::string staying_endpoint = unique_endpoint("tcp", 16);
  // The leaving server goes at `leaving.reset()` (its destructor stops its engine's run and its
  // ORB), the staying one stays to the end of the test.
  auto leaving = std::make_unique<CubeServer>(leaving_endpoint, 600ms);
  CubeServer staying(staying_endpoint, 2s);
  kairos::orb::Orb orb{kairos::orb::OrbOptions{"client"}};
  kairos::set_current_lane(kairos::LaneIdentity{0, 2, false});
  std::uint8_t gone_peer = 0;
  std::uint8_t kept_peer = 0;
  REQUIRE(orb.add_peer(leaving_endpoint, gone_peer) == kairos::kal::Status::kOk);
  REQUIRE(orb.add_peer(staying_endpoint, kept_peer) == kairos::kal::Status::kOk);
  REQUIRE(orb.add_route(gone_peer, kServiceBand, 0, 2) == kairos::kal::Status::kOk);
  REQUIRE(orb.add_route(kept_peer, kServiceBand, 0, 2) == kairos::kal::Status::kOk);
  REQUIRE(orb.start() == kairos::kal::Status::kOk);
  const auto call = [&orb](std::uint8_t peer, std::int32_t x, std::int32_t& result) {
    return cube(orb, peer, x, result, kCubeOperation, MonotonicClock::now() + 2s);
  };
  std::int32_t result = 0;
  const auto give_up = MonotonicClock::now() + 2s;
  while ((call(gone_peer, 1, result) != CallStatus::kOk ||
          call(kept_peer, 1, result) != CallStatus::kOk) &&
         MonotonicClock::now() < give_up) {
    std::this_thread::sleep_for(5ms);
  }
  REQUIRE(call(gone_peer, 2, result) == CallStatus::kOk);
  REQUIRE(call(kept_peer, 2, result) == CallStatus::kOk);

  leaving.reset();  // one peer gone: its engine's run ended, its ORB stopped
  int kept_answers = 0;
  int gone_failures = 0;
  for (std::int32_t x = 0; x < 50; ++x) {
    if (call(gone_peer, x, result) != CallStatus::kOk) {
      ++gone_failures;
    }
    if (call(kept_peer, x, result) == CallStatus::kOk && result == x * x * x) {
      ++kept_answers;
    }
  }
  REQUIRE(gone_failures == 50);
  REQUIRE(kept_answers == 50);
  orb.stop();
}

TEST_CASE("a steady-state two-way call allocates nothing and locks no mutex on either side",
          "[integration][orb][allocation]") {
  for (const char* transport : {"uds", "tcp", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 6);
    CubeServer server(endpoint, 3s);
    CubeClient client(endpoint);
    std::int32_t result = 0;
    for (int i = 0; i < 20; ++i) {  // warm up: first connections, first pages touched
      REQUIRE(client.cube(i, result) == CallStatus::kOk);
    }
    const auto allocations = testing::allocations();
    const auto locks = testing::mutex_locks();
    int wrong = 0;  // counted, not asserted in the loop: the test framework may allocate
    for (std::int32_t x = 0; x < 500; ++x) {
      if (client.cube(x, result) != CallStatus::kOk || result != x * x * x) {
        ++wrong;
      }
    }
    REQUIRE(wrong == 0);
    // Both sides run in this process: the counts include the server's reader and lane.
    REQUIRE(testing::allocations() == allocations);
    REQUIRE(testing::mutex_locks() == locks);
  }
}

namespace {
// What a generated stub is made of: the cube operation's messages and a gate offering it, in
// both the blocking and the non-blocking form.
struct CubeArguments {
  std::int32_t x = 0;
};
kairos::cdr::Status encode(kairos::cdr::Writer& writer, const CubeArguments& arguments) noexcept {
  return writer.write(arguments.x);
}
struct CubeReply {
  std::int32_t result = 0;
};
kairos::cdr::Status decode(kairos::cdr::Reader& reader, CubeReply& reply) noexcept {
  return reader.read(reply.result);
}

class CubeGate final : public kairos::orb::Gate {
 public:
  explicit CubeGate(kairos::kal::Duration deadline = 2s) noexcept : Gate("cube", deadline, false) {}

  kairos::orb::Result<std::int32_t> cube(std::int32_t x) noexcept {
    CubeReply reply{};
    kairos::orb::Result<std::int32_t>::Raised raised{};
    const CallStatus status = invoke<kairos::orb::NoException>(CubeArguments{x}, reply, raised);
    return {status, reply.result, raised};
  }
  kairos::orb::PendingCall start_cube(std::int32_t x) noexcept { return start(CubeArguments{x}); }
  kairos::orb::Result<std::int32_t> poll(kairos::orb::PendingCall& pending) noexcept {
    CubeReply reply{};
    kairos::orb::Result<std::int32_t>::Raised raised{};
    const CallStatus status = collect<kairos::orb::NoException>(pending, reply, raised);
    return {status, reply.result, raised};
  }
};
}  // namespace

TEST_CASE("a gate calls blocking and non-blocking, and counts every outcome",
          "[integration][orb]") {
  const std::string endpoint = unique_endpoint("uds", 7);
  CubeServer server(endpoint, 2s);
  CubeClient client(endpoint);
  CubeGate gate;
  gate.bind(client.orb, {client.peer, kServiceBand, kCubeObject, kCubeOperation});

  const auto blocking = gate.cube(3);
  REQUIRE(blocking.ok());
  REQUIRE(blocking.value() == 27);

  auto first = gate.start_cube(4);
  auto second = gate.start_cube(5);
  REQUIRE(first.in_flight());
  REQUIRE(second.in_flight());
  const auto give_up = MonotonicClock::now() + 5s;
  kairos::orb::Result<std::int32_t> a = gate.poll(first);
  kairos::orb::Result<std::int32_t> b = gate.poll(second);
  while ((a.status() == CallStatus::kPending || b.status() == CallStatus::kPending) &&
         MonotonicClock::now() < give_up) {
    std::this_thread::sleep_for(200us);
    a = gate.poll(first);
    b = gate.poll(second);
  }
  REQUIRE(a.value() == 64);
  REQUIRE(b.value() == 125);
  REQUIRE_FALSE(first.in_flight());
  // Polled again, a collected call keeps its outcome.
  REQUIRE(gate.poll(first).status() == CallStatus::kOk);

  // A gate that was never bound fails at once, as no route.
  CubeGate unbound;
  REQUIRE(unbound.cube(2).status() == CallStatus::kNoRoute);
  auto nowhere = unbound.start_cube(2);
  REQUIRE_FALSE(nowhere.in_flight());
  REQUIRE(nowhere.status() == CallStatus::kNoRoute);

  const auto counters = gate.counters();
  REQUIRE(counters.calls == 3);
  REQUIRE(counters.answered == 3);
  REQUIRE(counters.late + counters.failed == 0);
  REQUIRE(counters.max_round_trip_ns > 0);
  REQUIRE(unbound.counters().failed == 2);
}

TEST_CASE(
    "steady-state calls through a gate, blocking and non-blocking, allocate nothing and lock no "
    "mutex on either side",
    "[integration][orb][allocation]") {
  // The path of a generated stub: the arguments encoded and the reply decoded by CDR around the
  // gate's invoke, or its start and collect.
  for (const char* transport : {"uds", "tcp", "shm"}) {
    INFO(transport);
    const std::string endpoint = unique_endpoint(transport, 14);
    CubeServer server(endpoint, 3s);
    CubeClient client(endpoint);
    CubeGate gate;
    gate.bind(client.orb, {client.peer, kServiceBand, kCubeObject, kCubeOperation});
    const auto call_both_ways = [&gate](std::int32_t x) {
      bool right = gate.cube(x).value() == x * x * x;
      auto pending = gate.start_cube(x + 1);
      const auto give_up = MonotonicClock::now() + 2s;
      auto later = gate.poll(pending);
      while (later.status() == CallStatus::kPending && MonotonicClock::now() < give_up) {
        std::this_thread::sleep_for(50us);
        later = gate.poll(pending);
      }
      return right && later.ok() && later.value() == (x + 1) * (x + 1) * (x + 1);
    };
    for (int i = 0; i < 20; ++i) {  // warm up: first connections, first pages touched
      REQUIRE(call_both_ways(i));
    }
    const auto allocations = testing::allocations();
    const auto locks = testing::mutex_locks();
    int wrong = 0;  // counted, not asserted in the loop: the test framework may allocate
    for (std::int32_t x = 0; x < 200; ++x) {
      if (!call_both_ways(x)) {
        ++wrong;
      }
    }
    REQUIRE(wrong == 0);
    REQUIRE(testing::allocations() == allocations);
    REQUIRE(testing::mutex_locks() == locks);
    REQUIRE(gate.counters().answered == 2 * 220);
  }
}

TEST_CASE("lanes of one band with different slots call on connections of their own",
          "[integration][orb]") {
  // Under preemptive EDF every method has a lane of its own in one band: the slot tells them
  // apart, and a lane whose slot has no route cannot borrow another lane's connection.
  const std::string endpoint = unique_endpoint("uds", 13);
  CubeServer server(endpoint, 2s);
  CubeClient client(endpoint);  // routes lane (0, 2) slot 0, and waits for the server
  kairos::orb::Orb edf_client{kairos::orb::OrbOptions{"edf-client"}};
  std::uint8_t peer = 0;
  REQUIRE(edf_client.add_peer(endpoint, peer) == kairos::kal::Status::kOk);
  REQUIRE(edf_client.add_route(peer, kServiceBand, 0, 2, 1) == kairos::kal::Status::kOk);
  REQUIRE(edf_client.add_route(peer, kServiceBand, 0, 2, 2) == kairos::kal::Status::kOk);
  REQUIRE(edf_client.start() == kairos::kal::Status::kOk);

  auto call_from_slot = [&](std::uint8_t slot) {
    kairos::set_current_lane(kairos::LaneIdentity{0, 2, false, -1, slot});
    std::int32_t result = 0;
    const CallStatus status =
        orb_cube::cube(edf_client, peer, 3, result, kCubeOperation, MonotonicClock::now() + 2s);
    return status == CallStatus::kOk && result == 27 ? CallStatus::kOk : status;
  };
  CallStatus from_first = CallStatus::kPending;
  CallStatus from_second = CallStatus::kPending;
  std::thread first([&] { from_first = call_from_slot(1); });
  std::thread second([&] { from_second = call_from_slot(2); });
  first.join();
  second.join();
  REQUIRE(from_first == CallStatus::kOk);
  REQUIRE(from_second == CallStatus::kOk);
  REQUIRE(call_from_slot(0) == CallStatus::kNoRoute);
  REQUIRE(edf_client.counters().connects == 2);
  edf_client.stop();
}

TEST_CASE("a non-blocking call collected after its deadline keeps the reply that came in time",
          "[integration][orb]") {
  const std::string endpoint = unique_endpoint("uds", 12);
  CubeServer server(endpoint, 2s);
  CubeClient client(endpoint);
  CubeGate gate(100ms);
  gate.bind(client.orb, {client.peer, kServiceBand, kCubeObject, kCubeOperation});

  // The reply comes at once; the method collects it in a later activation, after the deadline.
  auto pending = gate.start_cube(2);
  REQUIRE(pending.in_flight());
  std::this_thread::sleep_for(300ms);
  const auto collected = gate.poll(pending);
  REQUIRE(collected.ok());
  REQUIRE(collected.value() == 8);

  const auto counters = gate.counters();
  REQUIRE(counters.calls == 1);
  REQUIRE(counters.answered == 1);
  REQUIRE(counters.late == 0);
  REQUIRE(client.orb.counters().late_replies == client.baseline.late_replies);
}

// ------------------------------------------------------------ oneways over UDP

namespace {

/// Sends one cube oneway from the calling lane; its status.
CallStatus send_oneway(kairos::orb::Orb& orb, std::uint8_t peer, std::int32_t x) {
  auto call = orb.begin({peer, kServiceBand, kCubeObject, kCubeOperation});
  if (call.status() != CallStatus::kPending) {
    return call.status();
  }
  std::memcpy(call.request_body().data(), &x, sizeof x);
  return orb.send(call, sizeof x, MonotonicClock::now() + 1s, true);
}

/// Waits (a bounded time) until the server has run `count` oneways in all.
bool served_oneways(const CubeServer& server, int count) {
  const auto give_up = MonotonicClock::now() + 3s;
  while (server.servant.oneways.load() < count && MonotonicClock::now() < give_up) {
    std::this_thread::yield();
  }
  return server.servant.oneways.load() == count;
}

/// A client of a udp: server, once the server's engine runs: a oneway has no answer to say
/// kUnavailable, so oneways go until one is served.
struct UdpCubeClient : CubeClient {
  explicit UdpCubeClient(const std::string& endpoint, const CubeServer& server)
      : CubeClient(endpoint, false) {
    const auto give_up = MonotonicClock::now() + 5s;
    while (server.servant.oneways.load() == 0 && MonotonicClock::now() < give_up) {
      REQUIRE(send_oneway(orb, peer, 1) == CallStatus::kOk);
      std::this_thread::sleep_for(2ms);
    }
    REQUIRE(server.servant.oneways.load() > 0);
    std::this_thread::sleep_for(20ms);  // the last of those reach the server too
    served = server.servant.oneways.load();
    baseline = orb.counters();
  }
  int served = 0;  ///< oneways the server ran before the test's own
};

std::array<std::byte, kairos::orb::kHeaderSize> oneway_header(std::uint8_t band,
                                                              std::uint32_t body_size) {
  FrameHeader header{};
  header.kind = FrameKind::kOneway;
  header.band = band;
  header.object = kCubeObject;
  header.operation = kCubeOperation;
  header.body_size = body_size;
  header.budget_ns = 1'000'000;
  std::array<std::byte, kairos::orb::kHeaderSize> bytes{};
  kairos::orb::encode_header(header, bytes);
  return bytes;
}

}  // namespace

TEST_CASE("a udp: endpoint takes oneways on a port per band, and refuses two-way calls",
          "[integration][orb][udp]") {
  const std::string endpoint = unique_endpoint("udp", 8);
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
  kairos::kal::Endpoint band_port;
  REQUIRE(kairos::orb::band_endpoint(parsed, kServiceBand, band_port));
  REQUIRE(band_port.port == parsed.port + kServiceBand);
  REQUIRE(std::strcmp(band_port.address, "127.0.0.1") == 0);
  parsed.port = 65535 - 2;
  REQUIRE_FALSE(kairos::orb::band_endpoint(parsed, kServiceBand, band_port));

  CubeServer server(endpoint, 3s);
  UdpCubeClient client(endpoint, server);
  // One datagram each, no connection: the server accepted none, and nothing was dropped.
  for (std::int32_t x = 0; x < 20; ++x) {
    REQUIRE(send_oneway(client.orb, client.peer, x) == CallStatus::kOk);
  }
  REQUIRE(served_oneways(server, client.served + 20));
  // A two-way call cannot be answered over UDP: refused at the client, nothing sent.
  std::int32_t result = 0;
  REQUIRE(client.cube(2, result) == CallStatus::kNoRoute);
  auto non_blocking = client.orb.begin({client.peer, kServiceBand, kCubeObject, kCubeOperation});
  REQUIRE(client.orb.send(non_blocking, 0, MonotonicClock::now() + 1s) == CallStatus::kNoRoute);

  const auto counters = client.orb.counters();
  REQUIRE(counters.calls - client.baseline.calls == 20);
  REQUIRE(counters.failed - client.baseline.failed == 2);
  REQUIRE(counters.connects == 1);
  const auto served = server.orb.counters();
  REQUIRE(served.requests == counters.calls);
  REQUIRE(served.replies_sent == 0);
  REQUIRE(served.connections_accepted == 0);
  REQUIRE(served.datagrams_dropped == 0);
  REQUIRE(server.servant.served.load() == 0);  // no two-way call was run
}

TEST_CASE("a garbage datagram is dropped and counted while good oneways still arrive",
          "[integration][orb][udp]") {
  const std::string endpoint = unique_endpoint("udp", 9);
  CubeServer server(endpoint, 3s);
  UdpCubeClient client(endpoint, server);
  kairos::kal::Endpoint parsed;
  REQUIRE(kairos::kal::parse_endpoint(endpoint, parsed));
  kairos::kal::Endpoint band_port;
  REQUIRE(kairos::orb::band_endpoint(parsed, kServiceBand, band_port));
  kairos::kal::Socket rogue;
  REQUIRE(rogue.connect(band_port, MonotonicClock::now() + 1s, kairos::kal::Transfer::kMessages) ==
          kairos::kal::Status::kOk);

  // Every way a datagram can be wrong, each sent between good oneways of the client.
  std::vector<std::vector<std::byte>> bad;
  bad.emplace_back(64, std::byte{0x5a});  // not a frame
  bad.emplace_back(10, std::byte{0});     // shorter than a header
  {
    auto cut = oneway_header(kServiceBand, 100);  // a header promising more than came
    bad.emplace_back(cut.begin(), cut.end());
    bad.back().resize(kairos::orb::kHeaderSize + 50);
  }
  {
    auto padded = oneway_header(kServiceBand, 4);  // more than its header says
    bad.emplace_back(padded.begin(), padded.end());
    bad.back().resize(kairos::orb::kHeaderSize + 8);
  }
  {
    auto other_band = oneway_header(kServiceBand + 1, 4);  // a band this port does not serve
    bad.emplace_back(other_band.begin(), other_band.end());
    bad.back().resize(kairos::orb::kHeaderSize + 4);
  }
  {
    auto two_way = oneway_header(kServiceBand, 4);  // a request: its reply could not go back
    two_way[6] = std::byte{static_cast<std::uint8_t>(FrameKind::kRequest)};
    bad.emplace_back(two_way.begin(), two_way.end());
    bad.back().resize(kairos::orb::kHeaderSize + 4);
  }
  {
    auto huge = oneway_header(kServiceBand, kairos::orb::kMaxBody);  // larger than any frame
    bad.emplace_back(huge.begin(), huge.end());
    bad.back().resize(kairos::orb::kHeaderSize + kairos::orb::kMaxBody + 100);
  }
  for (std::size_t i = 0; i < bad.size(); ++i) {
    INFO("bad datagram " << i);
    REQUIRE(rogue.send(bad[i]) == static_cast<std::int64_t>(bad[i].size()));
    REQUIRE(send_oneway(client.orb, client.peer, static_cast<std::int32_t>(i)) == CallStatus::kOk);
    REQUIRE(served_oneways(server, client.served + static_cast<int>(i) + 1));
  }
  // A well-formed oneway from any sender is served like the client's.
  auto good = oneway_header(kServiceBand, 4);
  std::vector<std::byte> frame(good.begin(), good.end());
  frame.resize(kairos::orb::kHeaderSize + 4);
  REQUIRE(rogue.send(frame) == static_cast<std::int64_t>(frame.size()));
  REQUIRE(served_oneways(server, client.served + static_cast<int>(bad.size()) + 1));

  const auto give_up = MonotonicClock::now() + 2s;
  while (server.orb.counters().datagrams_dropped < bad.size() && MonotonicClock::now() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  const auto counters = server.orb.counters();
  REQUIRE(counters.datagrams_dropped == bad.size());
  REQUIRE(counters.malformed_frames == 0);
  // Every request the reader took in was a good oneway: run, or refused before the engine ran.
  REQUIRE(counters.requests - counters.refused ==
          static_cast<std::uint64_t>(server.servant.oneways.load()));
}

TEST_CASE("a steady-state oneway over UDP allocates nothing and locks no mutex on either side",
          "[integration][orb][udp][allocation]") {
  const std::string endpoint = unique_endpoint("udp", 10);
  CubeServer server(endpoint, 3s);
  UdpCubeClient client(endpoint, server);
  int expected = client.served;
  for (int i = 0; i < 20; ++i) {  // warm up
    REQUIRE(send_oneway(client.orb, client.peer, i) == CallStatus::kOk);
    REQUIRE(served_oneways(server, ++expected));
  }
  const auto allocations = testing::allocations();
  const auto locks = testing::mutex_locks();
  int wrong = 0;  // counted, not asserted in the loop: the test framework may allocate
  for (std::int32_t x = 0; x < 500; ++x) {
    // One at a time, each waited for: every one must arrive (a burst may outrun a datagram
    // socket's buffer, which is the bench's business, not this test's).
    if (send_oneway(client.orb, client.peer, x) != CallStatus::kOk ||
        !served_oneways(server, ++expected)) {
      ++wrong;
    }
  }
  REQUIRE(wrong == 0);
  // Both sides run in this process: the counts include the server's reader and lane.
  REQUIRE(testing::allocations() == allocations);
  REQUIRE(testing::mutex_locks() == locks);
}

TEST_CASE("oneways to a udp: server that went away fail or vanish, never block, and arrive again",
          "[integration][orb][udp]") {
  const std::string endpoint = unique_endpoint("udp", 11);
  auto server = std::make_unique<CubeServer>(endpoint, 600ms);
  UdpCubeClient client(endpoint, *server);
  server.reset();
  // Nobody listens: a datagram is lost, and the port-unreachable answer it causes makes the next
  // send fail as disconnected (then calls fail at once until the reconnect interval passes).
  int disconnected = 0;
  for (int i = 0; i < 20; ++i) {
    const auto before = MonotonicClock::now();
    const CallStatus status = send_oneway(client.orb, client.peer, i);
    REQUIRE((status == CallStatus::kOk || status == CallStatus::kDisconnected));
    REQUIRE(MonotonicClock::now() - before < 100ms);
    disconnected += status == CallStatus::kDisconnected ? 1 : 0;
  }
  REQUIRE(disconnected > 0);
  server = std::make_unique<CubeServer>(endpoint, 2s);
  const auto give_up = MonotonicClock::now() + 5s;
  while (server->servant.oneways.load() == 0 && MonotonicClock::now() < give_up) {
    send_oneway(client.orb, client.peer, 1);
    std::this_thread::sleep_for(5ms);
  }
  REQUIRE(server->servant.oneways.load() > 0);
}

// ------------------------------------------------------------ authenticated tcp: (TLS 1.3)

TEST_CASE("over authenticated tcp: calls are served as ever, and allocate nothing once connected",
          "[integration][orb][tls]") {
  const std::string keys = openssl_keys::in_tmp("orb", {"server", "client"});
  REQUIRE_FALSE(keys.empty());
  const std::string endpoint = unique_endpoint("tcp", 40);
  CubeServer server(endpoint, 4s, nullptr, -1, &testing::loaded_identity(keys, "server"));
  CubeClient client(endpoint, true, "client", &testing::loaded_identity(keys, "client"));
  std::int32_t result = 0;
  for (std::int32_t x = 0; x < 50; ++x) {
    REQUIRE(client.cube(x, result) == CallStatus::kOk);
    REQUIRE(result == x * x * x);
  }
  // The steady state: sealing and opening records allocates nothing; each side's send takes its
  // connection's send lock once (the only lock: records leave in sequence-number order).
  const auto allocations = testing::allocations();
  const auto locks = testing::mutex_locks();
  int wrong = 0;
  for (std::int32_t x = 0; x < 300; ++x) {
    if (client.cube(x, result) != CallStatus::kOk || result != x * x * x) {
      ++wrong;
    }
  }
  REQUIRE(wrong == 0);
  REQUIRE(testing::allocations() == allocations);
  REQUIRE(testing::mutex_locks() - locks == 2 * 300);
  REQUIRE(server.orb.counters().unauthenticated == 0);
  REQUIRE(server.orb.counters().connections_accepted == 1);
}

TEST_CASE("an authenticated tcp: endpoint refuses whoever proves no node, or not the one it names",
          "[integration][orb][tls]") {
  const std::string keys = openssl_keys::in_tmp("orb-refused", {"server", "client", "mallory"});
  const std::string foreign = openssl_keys::in_tmp("orb-foreign", {"client"});
  REQUIRE_FALSE(keys.empty());
  REQUIRE_FALSE(foreign.empty());
  const std::string endpoint = unique_endpoint("tcp", 41);
  CubeServer server(endpoint, 6s, nullptr, -1, &testing::loaded_identity(keys, "server"));
  auto refused = [&](CubeClient& client) {
    std::int32_t result = 0;
    for (int i = 0; i < 3; ++i) {
      REQUIRE(client.cube(1, result, kCubeOperation, 200ms) != CallStatus::kOk);
      std::this_thread::sleep_for(60ms);  // past the reconnect interval: it tries again
    }
  };
  std::uint64_t before = 0;
  {
    INFO("no TLS: a hello in the clear");
    CubeClient plain(endpoint, false);
    refused(plain);
  }
  const auto wait_counted = [&](std::uint64_t more) {
    const auto give_up = MonotonicClock::now() + 3s;
    while (server.orb.counters().unauthenticated < before + more &&
           MonotonicClock::now() < give_up) {
      std::this_thread::sleep_for(5ms);
    }
    REQUIRE(server.orb.counters().unauthenticated >= before + more);
    before = server.orb.counters().unauthenticated;
  };
  wait_counted(1);
  {
    INFO("a certificate of another CA under the name of a model node");
    CubeClient impostor(endpoint, false, "client", &testing::loaded_identity(foreign, "client"));
    refused(impostor);
  }
  wait_counted(1);
  {
    INFO("a node of the CA whose hello names another node");
    CubeClient impostor(endpoint, false, "client", &testing::loaded_identity(keys, "mallory"));
    refused(impostor);
  }
  wait_counted(1);
  {
    INFO("a client that expects another node at this endpoint calls nothing");
    const auto requests = server.orb.counters().requests;
    CubeClient misled(endpoint, false, "client", &testing::loaded_identity(keys, "client"),
                      "elsewhere");
    refused(misled);
    REQUIRE(server.orb.counters().requests == requests);
  }
  // And the node that proves its name is served.
  CubeClient honest(endpoint, true, "client", &testing::loaded_identity(keys, "client"));
  std::int32_t result = 0;
  REQUIRE(honest.cube(3, result) == CallStatus::kOk);
  REQUIRE(result == 27);
}
