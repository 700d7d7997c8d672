// The Kairos ORB as a cubit stack: the serving child is a Kairos node (a TMO engine on the Linux
// platform with one service method, an ORB listening on UDS, TCP or shared memory and serving that
// method's band); the client is an ORB with one route, calling from the driver's thread, which
// stands for one lane of the client node. A request travels reader -> engine (admission) -> lane,
// and the lane that ran the method sends the reply (docs/orb.md).
//
// Over UDP the ORB carries oneways only: the `udp` transport measures oneway throughput, each
// oneway one datagram to the band's port. The node's second ORB, on a Unix socket, answers the
// two-way question of the totals (the same servant, through the same engine); no two-way row.
//
// Marshalling: the payload's bytes are copied as they lie in memory (native byte order, the C
// layout of the struct), as the raw stack does; the ORB's 32-byte frame header says the byte
// order, and the server refuses a body of the other order instead of swapping. The operation id
// says the payload's kind, so the body is nothing but the payload.
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/orb/orb.hpp>
#include <kairos/orb/service.hpp>

#include "../../runtime-cpp/tools/openssl_keys.hpp"
#include "../stats.hpp"
#include "kairos_cubit.hpp"
#include "process.hpp"
#include "stack.hpp"

namespace cubit {
namespace {

using kairos::kal::MonotonicClock;
using kairos::orb::CallStatus;
using kairos::orb::ReplyStatus;
using namespace std::chrono_literals;

/// The service method's band on the server, and the band of the client's calling lane.
constexpr kairos::kal::PriorityBand kServiceBand = 8;
constexpr kairos::kal::PriorityBand kCallerBand = 8;
constexpr std::uint16_t kObject = 1;
/// Operations 0..4 cube a payload of that Kind; this one answers the oneway totals.
constexpr std::uint16_t kTotalsOperation = 5;
/// Every two-way call's result-return deadline (the bench's calls never come near it).
constexpr auto kCallBudget = 5s;
constexpr int kServerIdleMs = 60'000;

/// With --breakdown: when each request's steps happened, by its sequence number (the engine
/// numbers the requests of a service method in arrival order, and so does the servant).
struct Breakdown {
  static constexpr std::size_t kCapacity = std::size_t{1} << 20;
  std::vector<std::int64_t> frame_in;       // the reader decoded the frame (absolute)
  std::vector<std::int64_t> handler_start;  // the lane entered the method (absolute)
  std::vector<std::int64_t> before_reply;   // the method's work was done (absolute)
  std::vector<std::int64_t> reply_sent;     // complete() returned: the reply is sent (absolute)
  std::vector<std::int64_t> request_in;     // engine.request() (relative to the epoch)
  std::vector<std::int64_t> dispatched;     // the time trigger handed it to the lane (relative)
  std::vector<std::int64_t> lane_start;     // the lane took it (relative)
  std::vector<std::uint8_t> two_way_cube;   // 1 for a two-way cube (what the table measures)
  std::uint64_t observed = 0;

  void allocate() {
    for (auto* v : {&frame_in, &handler_start, &before_reply, &reply_sent, &request_in, &dispatched,
                    &lane_start}) {
      v->assign(kCapacity, -1);
    }
    two_way_cube.assign(kCapacity, 0);
  }
  bool on() const { return !frame_in.empty(); }
  void print(std::FILE* to) const;
};

/// The node's one service method: cubes, counts oneways, answers the totals.
struct CubeServant {
  kairos::Engine* engine = nullptr;
  std::uint64_t calls = 0;
  std::uint64_t wrong_call = UINT64_MAX;
  std::uint64_t oneway_count = 0;
  std::uint64_t oneway_digest = 0;
  std::uint64_t sequence = 0;  // requests run so far
  Value value;
  Breakdown breakdown;
};

// Runs on the engine's lane of kServiceBand for every admitted request.
void serve_cube(void* context, void* request) {
  auto& servant = *static_cast<CubeServant*>(context);
  auto& call = *static_cast<kairos::orb::ServerRequest*>(request);
  const std::int64_t entered = now_ns();
  const std::uint64_t sequence = servant.sequence++;
  const std::uint16_t operation = call.header().operation;
  if (operation == kTotalsOperation) {
    const std::uint64_t totals[2] = {servant.oneway_count, servant.oneway_digest};
    std::memcpy(call.reply_body().data(), totals, sizeof totals);
    call.complete(ReplyStatus::kOk, sizeof totals);
    return;
  }
  const auto body = call.body();
  if (call.header().little_endian != (std::endian::native == std::endian::little) ||
      !decode_body(static_cast<Kind>(operation), body.data(), body.size(), servant.value)) {
    call.complete(ReplyStatus::kMalformed, 0);
    return;
  }
  cube(servant.value);
  if (call.oneway()) {
    ++servant.oneway_count;
    servant.oneway_digest += digest(servant.value);
    call.complete(ReplyStatus::kOk, 0);
    return;
  }
  if (servant.calls++ == servant.wrong_call) {
    perturb(servant.value);  // the bench's own test: this reply must be caught as wrong
  }
  const std::size_t size = encode_body(servant.value, call.reply_body().data());
  Breakdown& b = servant.breakdown;
  const bool timed = b.on() && sequence < Breakdown::kCapacity;
  if (timed) {
    b.frame_in[sequence] = kairos::kal::to_nanoseconds(call.arrival());
    b.handler_start[sequence] = entered;
    b.before_reply[sequence] = now_ns();
  }
  call.complete(ReplyStatus::kOk, size);
  if (timed) {
    b.reply_sent[sequence] = now_ns();
    b.two_way_cube[sequence] = 1;
  }
}

// On the engine's run_for thread: the engine's own record of every request it served.
void observe_service(void* context, const kairos::SvmEntry&,
                     const kairos::ActivationRecord& record) {
  auto& b = static_cast<CubeServant*>(context)->breakdown;
  if (record.sequence < Breakdown::kCapacity) {
    b.request_in[record.sequence] = record.release_ns;
    b.dispatched[record.sequence] = record.dispatch_ns;
    b.lane_start[record.sequence] = record.start_ns;
  }
}

void Breakdown::print(std::FILE* to) const {
  std::vector<std::int64_t> reader, trigger, lane, method, reply, total;
  for (std::size_t i = 0; i < kCapacity; ++i) {
    if (two_way_cube[i] == 0 || request_in[i] < 0) {
      continue;
    }
    // The lane read the clock just before entering the method: that places the epoch of the
    // engine's relative times on the absolute clock.
    const std::int64_t epoch = handler_start[i] - lane_start[i];
    reader.push_back(epoch + request_in[i] - frame_in[i]);
    trigger.push_back(dispatched[i] - request_in[i]);
    lane.push_back(lane_start[i] - dispatched[i]);
    method.push_back(before_reply[i] - handler_start[i]);
    reply.push_back(reply_sent[i] - before_reply[i]);
    total.push_back(reply_sent[i] - frame_in[i]);
  }
  std::fprintf(to, "\nkairos server: where %zu two-way requests spent their time on the server\n",
               total.size());
  const std::pair<const char*, std::vector<std::int64_t>*> parts[] = {
      {"reader: frame decoded -> taken in by the engine", &reader},
      {"time trigger: taken in -> dispatched to the lane", &trigger},
      {"lane: dispatched -> the method starts", &lane},
      {"method: decode, cube, encode", &method},
      {"complete(): reply frame sent", &reply},
      {"total: frame decoded -> reply sent", &total}};
  for (const auto& [what, samples] : parts) {
    const bench::Summary summary = bench::summarize(std::move(*samples));
    std::fprintf(to, "%-52s p50 %8.1f us  p99 %8.1f us  max %9.1f us  mean %8.1f us  (n=%zu)\n",
                 what, summary.p50_us, summary.p99_us, summary.max_us, summary.mean_us,
                 summary.samples);
  }
}

void ignore_miss(void*, const kairos::MissReport&) noexcept {}

kairos::orb::ReplyStatus dispatch(void* context, kairos::orb::ServerRequest& request) noexcept {
  const auto& header = request.header();
  if (header.operation > kTotalsOperation || header.band != kServiceBand) {
    return ReplyStatus::kNoSuchTarget;
  }
  return kairos::orb::admit(*static_cast<CubeServant*>(context)->engine, 0, request);
}

const kairos::SvmEntry kCubeRow{.instance = "cubit",
                                .method = "cube",
                                .source = "bench/cubit/kairos_stack.cpp",
                                .gct = 1s,
                                .wcet = 10us,
                                .criticality = kairos::Criticality::kHard,
                                .band = kServiceBand,
                                .admission_slot = 10us};

class KairosConnection final : public Connection {
 public:
  /// `endpoint` as the server announced it: an ORB endpoint, or over UDP two ("udp:... uds:..."):
  /// where oneways go, and where the totals are asked.
  bool open(const std::string& announced) {
    // "keys=DIR|tcp:...": the tcp-tls server's keys, of which the client takes its own.
    std::string endpoint = announced;
    if (endpoint.rfind("keys=", 0) == 0) {
      const auto bar = endpoint.find('|');
      const std::string keys = endpoint.substr(5, bar - 5);
      if (identity_.load(keys.c_str(), "cubit-client") != kairos::kal::Status::kOk) {
        return fail(std::string("cannot load the client's keys: ") + identity_.error());
      }
      endpoint = endpoint.substr(bar + 1);
      return open(endpoint, endpoint, "cubit-server");
    }
    const auto space = endpoint.find(' ');
    if (space == std::string::npos) {
      return open(endpoint, endpoint);
    }
    datagrams_ = true;
    return open(endpoint.substr(0, space), endpoint.substr(space + 1));
  }

  bool has_two_way() const override { return !datagrams_; }

  bool call(const Value& request, Value& reply) override {
    auto call =
        orb_.begin({peer_, kServiceBand, kObject, static_cast<std::uint16_t>(request.kind)});
    if (call.status() != CallStatus::kPending) {
      return failed(call.status());
    }
    const std::size_t size = encode_body(request, call.request_body().data());
    const CallStatus status = orb_.invoke(call, size, MonotonicClock::now() + kCallBudget);
    if (status != CallStatus::kOk) {
      return failed(status);
    }
    const auto body = call.reply_body();
    return decode_body(request.kind, body.data(), body.size(), reply) || fail("malformed reply");
  }

  bool send_oneway(const Value& request) override {
    // A full connection refuses a frame without sending any of it (kOverloaded): the burst
    // honours that back-pressure and offers the frame again once the server has read some,
    // as a blocking socket send would, within the call budget.
    const auto give_up = MonotonicClock::now() + kCallBudget;
    const CallStatus status = retry_while_overloaded(
        give_up,
        [&] {
          auto call = orb_.begin(
              {oneway_peer_, kServiceBand, kObject, static_cast<std::uint16_t>(request.kind)});
          if (call.status() != CallStatus::kPending) {
            return call.status();
          }
          const std::size_t size = encode_body(request, call.request_body().data());
          return orb_.send(call, size, give_up, true);
        },
        [] { sched_yield(); });
    if (status != CallStatus::kOk) {
      return failed(status);
    }
    ++oneways_sent_;
    return true;
  }

  bool oneway_may_drop() const override { return true; }

  bool oneway_totals(OnewayTotals& totals) override {
    if (!datagrams_) {
      return ask_totals(totals);
    }
    // The question overtakes datagrams still waiting in the server's socket: ask until every
    // oneway sent since the last answer is counted, or the count has stood still for 20 ms
    // (the rest were dropped), within the call budget.
    const std::uint64_t expected = last_totals_.count + oneways_sent_;
    const auto give_up = MonotonicClock::now() + kCallBudget;
    auto changed = MonotonicClock::now();
    std::uint64_t seen = UINT64_MAX;
    for (;;) {
      if (!ask_totals(totals)) {
        return false;
      }
      const auto now = MonotonicClock::now();
      if (totals.count != seen) {
        seen = totals.count;
        changed = now;
      }
      if (totals.count >= expected || now - changed >= 20ms || now > give_up) {
        break;
      }
      std::this_thread::sleep_for(1ms);
    }
    last_totals_ = totals;
    oneways_sent_ = 0;
    return true;
  }

 private:
  /// Routes to the server (oneways to `oneways`), then waits for its engine's run to begin.
  bool open(const std::string& oneways, const std::string& endpoint,
            const char* authenticated_as = "") {
    kairos::set_current_lane(kairos::LaneIdentity{0, kCallerBand, false});
    if (orb_.add_peer(endpoint, peer_, authenticated_as) != kairos::kal::Status::kOk ||
        orb_.add_route(peer_, kServiceBand, 0, kCallerBand) != kairos::kal::Status::kOk) {
      return fail("cannot set up the ORB's route to " + endpoint);
    }
    oneway_peer_ = peer_;
    if (oneways != endpoint &&
        (orb_.add_peer(oneways, oneway_peer_) != kairos::kal::Status::kOk ||
         orb_.add_route(oneway_peer_, kServiceBand, 0, kCallerBand) != kairos::kal::Status::kOk)) {
      return fail("cannot set up the ORB's route to " + oneways);
    }
    if (orb_.start() != kairos::kal::Status::kOk) {
      return fail("cannot start the client's ORB");
    }
    // The server answers kUnavailable until its engine's run has begun.
    const auto give_up = MonotonicClock::now() + 10s;
    OnewayTotals totals;
    for (;;) {
      last_ = CallStatus::kOk;
      if (oneway_totals(totals)) {
        return true;
      }
      if ((last_ != CallStatus::kUnavailable && last_ != CallStatus::kDisconnected) ||
          MonotonicClock::now() > give_up) {
        return false;
      }
      std::this_thread::sleep_for(2ms);
    }
  }

  bool ask_totals(OnewayTotals& totals) {
    // Right after a burst the server may still hold every request slot with oneways to serve:
    // it answers kOverloaded, and the totals are asked again once it has caught up.
    const auto give_up = MonotonicClock::now() + kCallBudget;
    kairos::orb::Call call;  // the last attempt's, whose reply is read below
    const CallStatus status = retry_while_overloaded(
        give_up,
        [&] {
          call = orb_.begin({peer_, kServiceBand, kObject, kTotalsOperation});
          if (call.status() != CallStatus::kPending) {
            return call.status();
          }
          return orb_.invoke(call, 0, give_up);
        },
        [] { std::this_thread::sleep_for(100us); });
    if (status != CallStatus::kOk) {
      return failed(status);
    }
    std::uint64_t values[2];
    if (call.reply_body().size() != sizeof values) {
      return fail("malformed totals");
    }
    std::memcpy(values, call.reply_body().data(), sizeof values);
    totals.count = values[0];
    totals.digest = values[1];
    return true;
  }

  /// Makes a call with `attempt` (which begins it and returns how it went), and makes it again
  /// after `pause` while it comes back kOverloaded (nothing was sent or run: back-pressure),
  /// until `give_up`. Returns the last attempt's status.
  template <typename Attempt, typename Pause>
  static CallStatus retry_while_overloaded(kairos::kal::TimePoint give_up, Attempt attempt,
                                           Pause pause) {
    for (;;) {
      const CallStatus status = attempt();
      if (status != CallStatus::kOverloaded || MonotonicClock::now() > give_up) {
        return status;
      }
      pause();
    }
  }

  bool failed(CallStatus status) {
    last_ = status;
    return fail(std::string("ORB call: ") + kairos::orb::to_string(status));
  }

  /// Loaded for a tcp-tls server (its keys' directory as it announced it).
  kairos::kal::TlsIdentity identity_;
  kairos::orb::Orb orb_{kairos::orb::OrbOptions{.node = "cubit-client", .identity = &identity_}};
  std::uint8_t peer_ = 0;           ///< two-way calls (and, but over UDP, oneways)
  std::uint8_t oneway_peer_ = 0;    ///< oneways
  bool datagrams_ = false;          ///< oneways over UDP, two-way calls over a Unix socket
  std::uint64_t oneways_sent_ = 0;  ///< since the last totals
  OnewayTotals last_totals_{};
  CallStatus last_ = CallStatus::kOk;
};

/// A free TCP or UDP port on loopback (the ORB listens on a port it is given).
std::uint16_t free_port(int type = SOCK_STREAM) {
  const int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    return 0;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  std::uint16_t port = 0;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0 &&
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
    port = ntohs(address.sin_port);
  }
  close(fd);
  return port;
}

}  // namespace

bool listen_orb(kairos::orb::Orb& orb, Family family, const ServeContext& context,
                std::string& endpoint, bool authenticate) {
  // The ORB binds at start(): a port another process takes in between fails start().
  if (family == Family::kShm) {
    // A shm: name is letters, digits, '_' and '-': the token, with anything else replaced.
    std::string name = "kairos-cubit-" + context.token;
    for (char& c : name) {
      if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '-') {
        c = '-';
      }
    }
    endpoint = "shm:" + name;
  } else {
    endpoint = family == Family::kUds ? "uds:" + context.run_dir + "/" + context.token + ".sock"
                                      : "tcp:127.0.0.1:" + std::to_string(free_port());
  }
  return orb.listen(endpoint, authenticate) == kairos::kal::Status::kOk;
}

namespace {

/// Puts thread `tid` (0: the calling one) at the top real-time priority but one, or back to
/// time-sharing; false when the OS refuses.
bool set_fifo(pid_t tid, bool fifo) {
  sched_param param{};
  param.sched_priority = fifo ? sched_get_priority_max(SCHED_FIFO) - 1 : 0;
  return sched_setscheduler(tid, fifo ? SCHED_FIFO : SCHED_OTHER, &param) == 0;
}

pid_t thread_named(const char* name) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == nullptr) {
    return -1;
  }
  pid_t found = -1;
  while (const dirent* entry = readdir(tasks)) {
    char comm[32] = {};
    const std::string path = std::string("/proc/self/task/") + entry->d_name + "/comm";
    if (std::FILE* f = std::fopen(path.c_str(), "r")) {
      if (std::fgets(comm, sizeof comm, f) != nullptr &&
          std::strncmp(comm, name, std::strlen(name)) == 0) {
        found = static_cast<pid_t>(std::atoi(entry->d_name));
      }
      std::fclose(f);
    }
  }
  closedir(tasks);
  return found;
}

}  // namespace

bool start_serving(kairos::orb::Orb& orb, const ServeContext& context,
                   const std::string& endpoint) {
  const bool raised = set_fifo(0, true);
  if (orb.start() != kairos::kal::Status::kOk) {
    std::fprintf(stderr, "cubit server: cannot start the ORB on %s\n", endpoint.c_str());
    return false;
  }
  if (raised) {
    const pid_t acceptor = thread_named("kairos-orb-acc");
    if (acceptor <= 0 || !set_fifo(acceptor, true)) {
      std::fprintf(stderr, "cubit server: cannot raise the ORB's acceptor\n");
      return false;
    }
  }
  const bool announced = announce(context, endpoint);
  if (raised) {
    set_fifo(0, false);
  }
  return announced;
}

int wait_for_client_to_leave(const kairos::orb::Orb& orb) {
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    std::this_thread::sleep_for(10ms);
    const auto counters = orb.counters();
    if (counters.connections_accepted > 0 &&
        counters.connections_closed >= counters.connections_accepted) {
      return 0;
    }
    if (getppid() == 1) {
      return 3;  // the driver is gone
    }
    if (counters.connections_accepted == 0 &&
        std::chrono::steady_clock::now() - started > std::chrono::milliseconds{kServerIdleMs}) {
      std::fprintf(stderr, "cubit server: no client came\n");
      return 3;
    }
  }
}

namespace {

/// Sets up `datagrams` to take the cube's oneways over UDP on a free port of loopback, and puts
/// its endpoint before `endpoint` (the Unix socket where the same node answers two-way calls):
/// "udp:127.0.0.1:port uds:/path".
bool listen_datagrams(kairos::orb::Orb& datagrams, CubeServant& servant, std::string& endpoint) {
  // The band's socket is at the endpoint's port + band: that is the port to find free.
  const std::uint16_t band_port = free_port(SOCK_DGRAM);
  if (band_port <= kServiceBand) {
    return false;
  }
  const std::string oneways = "udp:127.0.0.1:" + std::to_string(band_port - kServiceBand);
  if (datagrams.listen(oneways) != kairos::kal::Status::kOk ||
      datagrams.add_object(kObject, &dispatch, &servant) != kairos::kal::Status::kOk ||
      datagrams.serve_band(kServiceBand) != kairos::kal::Status::kOk) {
    return false;
  }
  endpoint = oneways + " " + endpoint;
  return true;
}

class KairosStack final : public Stack {
 public:
  std::string name() const override { return "kairos"; }
  std::vector<Transport> transports() const override {
    // tcp-tls: TLS 1.3 with mutual authentication, as on a network without `security none`.
    return {{"uds", Family::kUds},
            {"tcp", Family::kTcp},
            {"tcp-tls", Family::kTcp},
            {"udp", Family::kUdp},
            {"shm", Family::kShm}};
  }

  int serve(const Transport& transport, const ServeContext& context) override {
    // Static: the engine and the ORB hold their tables inline, and the process ends with
    // std::_Exit while the engine still runs (it has no early stop).
    static CubeServant servant;
    static kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kRms}};
    static kairos::kal::TlsIdentity identity;
    static kairos::orb::Orb orb{
        kairos::orb::OrbOptions{.node = "cubit-server", .identity = &identity}};
    const bool tls = transport.name == "tcp-tls";
    const std::string keys = context.run_dir + "/keys-" + context.token;
    if (tls && (!openssl_keys::make(keys, {"cubit-server", "cubit-client"}) ||
                identity.load(keys.c_str(), "cubit-server") != kairos::kal::Status::kOk)) {
      std::fprintf(stderr, "cubit server: cannot make its keys in %s: %s\n", keys.c_str(),
                   identity.error());
      return 1;
    }
    // Over UDP, this one takes the oneways and `orb` (on a Unix socket) the totals question.
    static kairos::orb::Orb datagrams{kairos::orb::OrbOptions{"cubit-server"}};
    const bool udp = transport.family == Family::kUdp;
    servant.engine = &engine;
    if (context.wrong_reply >= 0) {
      servant.wrong_call = static_cast<std::uint64_t>(context.wrong_reply);
    }
    if (context.breakdown) {
      servant.breakdown.allocate();
      engine.observe_services(&observe_service, &servant);
    }
    std::string endpoint;
    if (engine.add_svm(kCubeRow, &servant, &serve_cube, &ignore_miss) != kairos::kal::Status::kOk ||
        !listen_orb(orb, udp ? Family::kUds : transport.family, context, endpoint, tls) ||
        orb.add_object(kObject, &dispatch, &servant) != kairos::kal::Status::kOk ||
        orb.serve_band(kServiceBand) != kairos::kal::Status::kOk ||
        (udp && !listen_datagrams(datagrams, servant, endpoint))) {
      std::fprintf(stderr, "cubit server: cannot set up the Kairos node\n");
      return 1;
    }
    // The engine runs on a thread of its own for longer than any run; the process ends when
    // its client leaves.
    std::thread([] { engine.run_for(std::chrono::hours{1}, nullptr, nullptr); }).detach();
    if (udp && datagrams.start() != kairos::kal::Status::kOk) {
      std::fprintf(stderr, "cubit server: cannot start the ORB on %s\n", endpoint.c_str());
      return 1;
    }
    if (tls) {
      endpoint = "keys=" + keys + "|" + endpoint;  // the client's keys are there too
    }
    if (!start_serving(orb, context, endpoint)) {
      return 1;
    }
    const int status = wait_for_client_to_leave(orb);
    orb.stop();
    datagrams.stop();
    if (context.breakdown) {
      std::this_thread::sleep_for(50ms);  // the engine's last records reach the observer
      servant.breakdown.print(stderr);
      std::fprintf(stderr,
                   "served at once by the band's reader on the idle lane's behalf (no trigger, "
                   "no lane wake-up): %llu of %llu requests\n",
                   static_cast<unsigned long long>(engine.counters().requests_served_at_once),
                   static_cast<unsigned long long>(engine.counters().requests_served));
    }
    std::fflush(nullptr);
    std::_Exit(status);
  }

  std::unique_ptr<Connection> connect(const Transport&, const std::string& endpoint,
                                      std::string& error) override {
    auto connection = std::make_unique<KairosConnection>();
    if (!connection->open(endpoint)) {
      error = connection->error();
      return nullptr;
    }
    return connection;
  }
};

}  // namespace

std::unique_ptr<Stack> make_kairos_stack() {
  return std::make_unique<KairosStack>();
}

}  // namespace cubit
