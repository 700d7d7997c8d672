#include "priority_clients.hpp"

#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>
#include <thread>
#include <utility>

#include <kairos/engine.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/orb/orb.hpp>
#include <kairos/orb/service.hpp>

#include "kairos_cubit.hpp"
#include "payload.hpp"
#include "process.hpp"

namespace cubit::priority {
namespace {

using kairos::kal::MonotonicClock;
using kairos::kal::TimePoint;
using kairos::orb::CallStatus;
using kairos::orb::ReplyStatus;
using namespace std::chrono_literals;

constexpr std::uint16_t kObject = 1;
/// A call's result-return deadline: far above any round trip here, so a miss is a failure.
constexpr auto kCallBudget = 1s;
/// A node has at most this many cores, so a class of more clients spreads its calling lanes
/// over several bands from its own upwards (lane identities only: every client of the class
/// runs at the class's priority).
constexpr int kLaneCores = static_cast<int>(kairos::capacity::kCores);

// ------------------------------------------------------------------ the serving node

struct Servant {
  kairos::Engine* engine = nullptr;
  std::size_t row = 0;
  int band = 0;
  std::int64_t work_ns = 0;
};

struct ServingNode {
  kairos::Engine engine{kairos::EngineOptions{kairos::Strategy::kRms}};
  kairos::orb::Orb orb{kairos::orb::OrbOptions{"priority-server"}};
  std::array<Servant, kairos::capacity::kBands> servants{};
  std::array<kairos::SvmEntry, kairos::capacity::kBands> rows{};
  std::array<std::array<char, 16>, kairos::capacity::kBands> names{};
  std::size_t count = 0;
};

// Runs on the lane of the servant's band: cube the long, then stay busy for the work time.
void serve_cube(void* context, void* request) {
  const auto& servant = *static_cast<const Servant*>(context);
  auto& call = *static_cast<kairos::orb::ServerRequest*>(request);
  std::int32_t x = 0;
  if (call.body().size() != sizeof x) {
    call.complete(ReplyStatus::kMalformed, 0);
    return;
  }
  std::memcpy(&x, call.body().data(), sizeof x);
  const std::int32_t cubed = cube(x);
  const std::int64_t until = now_ns() + servant.work_ns;
  while (now_ns() < until) {
  }
  std::memcpy(call.reply_body().data(), &cubed, sizeof cubed);
  call.complete(ReplyStatus::kOk, sizeof cubed);
}

void ignore_miss(void*, const kairos::MissReport&) noexcept {}

ReplyStatus dispatch(void* context, kairos::orb::ServerRequest& request) noexcept {
  auto& node = *static_cast<ServingNode*>(context);
  const auto& header = request.header();
  if (header.operation >= node.count || header.band != node.servants[header.operation].band) {
    return ReplyStatus::kNoSuchTarget;
  }
  return kairos::orb::admit(node.engine, header.operation, request);
}

bool parse_int(std::string_view text, long low, long high, long& out) {
  if (text.empty() || text.size() > 18) {
    return false;
  }
  long value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  if (value < low || value > high) {
    return false;
  }
  out = value;
  return true;
}

// ------------------------------------------------------------------ the clients

struct Shared {
  kairos::orb::Orb orb{kairos::orb::OrbOptions{"priority-clients"}};
  std::uint8_t peer = 0;
  std::atomic<int> ready{0};
  std::atomic<std::int64_t> epoch_ns{0};  // 0 until every client is ready
  std::atomic<bool> abort{false};
  std::int64_t length_ns = 0;
};

struct Client {
  Shared* shared = nullptr;
  std::size_t class_index = 0;
  std::uint16_t operation = 0;
  int server_band = 0;
  kairos::LaneIdentity lane{};
  std::int64_t period_ns = 0;
  std::int64_t phase_ns = 0;
  std::int32_t seed = 0;
  std::vector<std::int64_t> samples;
  std::uint64_t failed = 0;
  std::uint64_t wrong = 0;
  std::string first_error;
  kairos::kal::Thread thread;

  CallStatus cube_call(std::int32_t x, std::int32_t& result) {
    auto& orb = shared->orb;
    auto call =
        orb.begin({shared->peer, static_cast<std::uint8_t>(server_band), kObject, operation});
    if (call.status() != CallStatus::kPending) {
      return call.status();
    }
    std::memcpy(call.request_body().data(), &x, sizeof x);
    const CallStatus status = orb.invoke(call, sizeof x, MonotonicClock::now() + kCallBudget);
    if (status == CallStatus::kOk) {
      if (call.reply_body().size() != sizeof result) {
        return CallStatus::kMalformed;
      }
      std::memcpy(&result, call.reply_body().data(), sizeof result);
    }
    return status;
  }

  void note_failure(const char* what) {
    ++failed;
    if (first_error.empty()) {
      first_error = what;
    }
  }

  static void main(void* self) noexcept { static_cast<Client*>(self)->body(); }

  void body() {
    kairos::set_current_lane(lane);
    // The server refuses calls (kUnavailable) until its engine's run has begun.
    const std::int64_t give_up = now_ns() + 10'000'000'000;
    std::int32_t result = 0;
    for (;;) {
      const CallStatus status = cube_call(seed, result);
      if (status == CallStatus::kOk) {
        break;
      }
      if ((status != CallStatus::kUnavailable && status != CallStatus::kDisconnected) ||
          now_ns() > give_up) {
        note_failure(kairos::orb::to_string(status));
        shared->abort.store(true);
        break;
      }
      std::this_thread::sleep_for(2ms);
    }
    shared->ready.fetch_add(1);
    std::int64_t epoch = 0;
    while ((epoch = shared->epoch_ns.load()) == 0 && !shared->abort.load()) {
      std::this_thread::sleep_for(1ms);
    }
    if (shared->abort.load()) {
      return;
    }
    for (std::int64_t k = 0;; ++k) {
      const std::int64_t release = epoch + phase_ns + k * period_ns;
      if (release >= epoch + shared->length_ns) {
        break;
      }
      kairos::kal::sleep_until(TimePoint{kairos::kal::Duration{release}});
      const auto x = static_cast<std::int32_t>(seed + k * 7919);
      const std::int64_t start = now_ns();
      const CallStatus status = cube_call(x, result);
      const std::int64_t end = now_ns();
      if (status != CallStatus::kOk) {
        note_failure(kairos::orb::to_string(status));
        continue;
      }
      if (result != cube(x)) {
        ++wrong;
        if (first_error.empty()) {
          first_error = "wrong reply to " + std::to_string(x);
        }
        continue;
      }
      samples.push_back(end - start);
    }
  }
};

}  // namespace

RunResult run(const std::vector<ClientClass>& classes, const RunOptions& options,
              const std::string& run_dir, const std::string& token) {
  RunResult result;
  std::string bands;
  for (const ClientClass& c : classes) {
    bands += (bands.empty() ? "" : ",") + std::to_string(c.band);
  }
  std::vector<std::string> arguments{"--serve-priority",
                                     bands,
                                     std::to_string(options.work_us),
                                     options.family == Family::kTcp ? "tcp" : "uds",
                                     "--run-dir",
                                     run_dir,
                                     "--token",
                                     token};
  if (options.cpu_server >= 0) {
    arguments.insert(arguments.end(), {"--cpu-server", std::to_string(options.cpu_server)});
  }
  ServerProcess server;
  std::string endpoint;
  if (!server.start(arguments, 30'000, endpoint, result.error)) {
    return result;
  }

  Shared shared;
  shared.length_ns = static_cast<std::int64_t>(options.seconds * 1e9);
  if (shared.orb.add_peer(endpoint, shared.peer) != kairos::kal::Status::kOk) {
    result.error = "cannot name the server " + endpoint;
    return result;
  }
  std::vector<std::unique_ptr<Client>> clients;
  std::set<std::pair<int, int>> lanes;
  for (std::size_t c = 0; c < classes.size(); ++c) {
    const ClientClass& cls = classes[c];
    for (int j = 0; j < cls.count; ++j) {
      auto client = std::make_unique<Client>();
      client->shared = &shared;
      client->class_index = c;
      client->operation = static_cast<std::uint16_t>(c);
      client->server_band = cls.band;
      client->lane = {static_cast<std::uint8_t>(j % kLaneCores), cls.band + j / kLaneCores, false};
      client->period_ns = static_cast<std::int64_t>(1e9 / cls.hz);
      client->phase_ns = cls.phase_ns;
      client->seed = static_cast<std::int32_t>(1000 * c + static_cast<std::size_t>(j));
      client->samples.reserve(static_cast<std::size_t>(options.seconds * cls.hz) + 2);
      if (!lanes.insert({client->lane.core, client->lane.band}).second ||
          shared.orb.add_route(shared.peer, static_cast<std::uint8_t>(cls.band), client->lane.core,
                               client->lane.band) != kairos::kal::Status::kOk) {
        result.error = "cannot set up a route for client " + std::to_string(j) + " of " + cls.name;
        return result;
      }
      clients.push_back(std::move(client));
    }
  }
  if (shared.orb.start() != kairos::kal::Status::kOk) {
    result.error = "cannot start the client ORB";
    return result;
  }
  for (auto& client : clients) {
    kairos::kal::ThreadAttributes attributes{};
    attributes.name = "cubit-client";
    attributes.band = classes[client->class_index].band;
    attributes.cpu = options.cpu_client;
    if (client->thread.start(attributes, &Client::main, client.get()) != kairos::kal::Status::kOk) {
      shared.abort.store(true);
      result.error = "cannot start a client thread";
      break;
    }
  }
  result.real_time = kairos::kal::scheduling_mode() == kairos::kal::SchedulingMode::kRealTime;
  const std::int64_t give_up = now_ns() + 20'000'000'000;
  while (shared.ready.load() < static_cast<int>(clients.size()) && !shared.abort.load() &&
         now_ns() < give_up) {
    std::this_thread::sleep_for(1ms);
  }
  if (shared.ready.load() < static_cast<int>(clients.size())) {
    shared.abort.store(true);
  } else {
    shared.epoch_ns.store(now_ns() + 50'000'000);
  }
  for (auto& client : clients) {
    if (client->thread.joinable()) {
      client->thread.join();
    }
  }
  shared.orb.stop();
  const std::string exit = server.stop(3000);

  result.classes.resize(classes.size());
  std::vector<std::vector<std::int64_t>> samples(classes.size());
  for (const auto& client : clients) {
    ClassResult& r = result.classes[client->class_index];
    samples[client->class_index].insert(samples[client->class_index].end(), client->samples.begin(),
                                        client->samples.end());
    r.calls += client->samples.size() + client->failed + client->wrong;
    r.failed += client->failed;
    r.wrong += client->wrong;
    if (r.first_error.empty()) {
      r.first_error = client->first_error;
    }
  }
  for (std::size_t c = 0; c < classes.size(); ++c) {
    result.classes[c].latency = bench::summarize(std::move(samples[c]));
  }
  if (shared.abort.load() && result.error.empty()) {
    result.error = "the clients could not reach the server: " + result.classes[0].first_error;
  }
  if (!exit.empty() && result.error.empty()) {
    result.error = "server: " + exit;
  }
  return result;
}

int serve(int argc, char** argv) {
  // --serve-priority BANDS WORK_US FAMILY --run-dir D --token T [--cpu-server C] --ready-fd N
  if (argc < 5) {
    std::fprintf(stderr, "server: too few arguments\n");
    return 2;
  }
  static ServingNode node;
  std::string_view bands = argv[2];
  long work_us = 0;
  if (!parse_int(argv[3], 0, 100'000, work_us)) {
    std::fprintf(stderr, "server: bad work time '%s'\n", argv[3]);
    return 2;
  }
  const Family family = std::string_view(argv[4]) == "tcp" ? Family::kTcp : Family::kUds;
  ServeContext context;
  long cpu = -1;
  for (int i = 5; i + 1 < argc; i += 2) {
    const std::string_view flag = argv[i];
    long number = 0;
    if (flag == "--run-dir") {
      context.run_dir = argv[i + 1];
    } else if (flag == "--token") {
      context.token = argv[i + 1];
    } else if (flag == "--ready-fd" && parse_int(argv[i + 1], 0, 1 << 20, number)) {
      context.ready_fd = static_cast<int>(number);
    } else if (flag == "--cpu-server" && parse_int(argv[i + 1], 0, 4096, number)) {
      cpu = number;
    } else {
      std::fprintf(stderr, "server: bad argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (context.ready_fd < 0 || !pin_to_cpu(static_cast<int>(cpu))) {
    std::fprintf(stderr, "server: no ready pipe, or cannot pin to CPU %ld\n", cpu);
    return 2;
  }
  while (!bands.empty()) {
    const std::size_t comma = bands.find(',');
    long band = 0;
    if (node.count == node.servants.size() ||
        !parse_int(bands.substr(0, comma), kairos::kal::kLowestBand, kairos::kal::kHighestBand - 1,
                   band)) {
      std::fprintf(stderr, "server: bad bands '%s'\n", argv[2]);
      return 2;
    }
    const std::size_t row = node.count++;
    std::snprintf(node.names[row].data(), node.names[row].size(), "band%ld", band);
    node.servants[row] = {&node.engine, row, static_cast<int>(band), work_us * 1000};
    node.rows[row] = kairos::SvmEntry{.instance = node.names[row].data(),
                                      .method = "cube",
                                      .source = "bench/cubit/priority_clients.cpp",
                                      .gct = 1s,
                                      .wcet = std::chrono::microseconds{work_us + 10},
                                      .criticality = kairos::Criticality::kHard,
                                      .band = static_cast<int>(band),
                                      .admission_slot = std::chrono::microseconds{work_us + 10}};
    if (node.engine.add_svm(node.rows[row], &node.servants[row], &serve_cube, &ignore_miss) !=
            kairos::kal::Status::kOk ||
        node.orb.serve_band(static_cast<int>(band)) != kairos::kal::Status::kOk) {
      std::fprintf(stderr, "server: cannot serve band %ld\n", band);
      return 1;
    }
    bands = comma == std::string_view::npos ? std::string_view{} : bands.substr(comma + 1);
  }
  std::string endpoint;
  if (!listen_orb(node.orb, family, context, endpoint) ||
      node.orb.add_object(kObject, &dispatch, &node) != kairos::kal::Status::kOk) {
    std::fprintf(stderr, "server: cannot set up the Kairos node\n");
    return 1;
  }
  // The engine runs longer than any run; the process ends when its clients have left.
  std::thread([] { node.engine.run_for(std::chrono::hours{1}, nullptr, nullptr); }).detach();
  if (!start_serving(node.orb, context, endpoint)) {
    return 1;
  }
  const int status = wait_for_client_to_leave(node.orb);
  node.orb.stop();
  std::fflush(nullptr);
  std::_Exit(status);
}

ParsedArgs parse_arguments(int argc, char** argv, const RunOptions& defaults, bool with_clients) {
  ParsedArgs parsed;
  parsed.options = defaults;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      parsed.help = true;
      return parsed;
    }
    if (i + 1 >= argc) {
      parsed.error = std::string(flag) + " needs a value";
      return parsed;
    }
    const std::string_view value = argv[++i];
    long number = 0;
    if (flag == "--seconds") {
      char* end = nullptr;
      const double seconds = std::strtod(argv[i], &end);
      if (end == argv[i] || *end != '\0' || !(seconds > 0 && seconds <= 600)) {
        parsed.error = "--seconds takes a number of seconds in (0, 600]";
        return parsed;
      }
      parsed.options.seconds = seconds;
    } else if (flag == "--work-us" && parse_int(value, 0, 10'000, number)) {
      parsed.options.work_us = static_cast<int>(number);
    } else if (flag == "--json" && !value.empty()) {
      parsed.json = value;
    } else if (flag == "--stagger-us" && parse_int(value, 0, 100'000, number)) {
      parsed.options.stagger_us = static_cast<int>(number);
    } else if (flag == "--clients" && with_clients) {
      parsed.clients.clear();
      std::string_view rest = value;
      while (!rest.empty()) {
        const std::size_t comma = rest.find(',');
        if (!parse_int(rest.substr(0, comma), 0, kMaxLowClients, number)) {
          parsed.error = "--clients takes numbers from 0 to " + std::to_string(kMaxLowClients) +
                         ", comma-separated";
          return parsed;
        }
        parsed.clients.push_back(static_cast<int>(number));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
      }
      if (parsed.clients.empty()) {
        parsed.error = "--clients needs at least one number";
        return parsed;
      }
    } else if (flag == "--transport" && (value == "uds" || value == "tcp")) {
      parsed.options.family = value == "tcp" ? Family::kTcp : Family::kUds;
    } else if ((flag == "--cpu-client" || flag == "--cpu-server") &&
               (value == "-1" || parse_int(value, 0, 4096, number))) {
      (flag == "--cpu-client" ? parsed.options.cpu_client : parsed.options.cpu_server) =
          value == "-1" ? -1 : static_cast<int>(number);
      parsed.placed = true;
    } else {
      parsed.error = "bad argument: " + std::string(flag) + " " + std::string(value);
      return parsed;
    }
  }
  return parsed;
}

std::optional<int> prepare(int argc, char** argv, const RunOptions& defaults, bool with_clients,
                           void (*usage)(std::FILE* to, const char* program), ParsedArgs& parsed,
                           RunDirectory& run_dir) {
  signal(SIGPIPE, SIG_IGN);
  if (argc > 1 && std::strcmp(argv[1], "--serve-priority") == 0) {
    return serve(argc, argv);
  }
  parsed = parse_arguments(argc, argv, defaults, with_clients);
  if (parsed.help) {
    usage(stdout, argv[0]);
    return 0;
  }
  if (!parsed.error.empty()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], parsed.error.c_str());
    usage(stderr, argv[0]);
    return 2;
  }
  if (!parsed.placed) {
    default_placement(parsed.options);
  }
  if (!pin_to_cpu(parsed.options.cpu_client)) {
    std::fprintf(stderr, "%s: cannot pin the client to CPU %d\n", argv[0],
                 parsed.options.cpu_client);
    return 2;
  }
  std::string error;
  if (!run_dir.create(error)) {
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    return 1;
  }
  return std::nullopt;
}

void default_placement(RunOptions& options) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0 || CPU_COUNT(&set) < 2) {
    return;
  }
  std::vector<int> cpus;
  for (std::size_t cpu = 0; cpu < CPU_SETSIZE && cpus.size() < 2; ++cpu) {
    if (CPU_ISSET(cpu, &set)) {
      cpus.push_back(static_cast<int>(cpu));
    }
  }
  options.cpu_client = cpus[0];
  options.cpu_server = cpus[1];
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

void write_json_head(std::FILE* out, const char* benchmark, const RunOptions& options,
                     bool real_time, const double load_before[3], const double load_after[3],
                     const std::vector<std::string>& errors) {
  std::fprintf(out,
               "{\n  \"benchmark\": \"%s\",\n  \"transport\": \"%s\",\n  \"seconds\": %.3f,\n"
               "  \"work_us\": %d,\n  \"stagger_us\": %d,\n  \"cpu_client\": %d,\n"
               "  \"cpu_server\": %d,\n  \"real_time\": %s,\n",
               benchmark, options.family == Family::kTcp ? "tcp" : "uds", options.seconds,
               options.work_us, options.stagger_us, options.cpu_client, options.cpu_server,
               real_time ? "true" : "false");
  std::fprintf(out,
               "  \"load_average_before\": [%.2f, %.2f, %.2f],\n"
               "  \"load_average_after\": [%.2f, %.2f, %.2f],\n  \"errors\": [",
               load_before[0], load_before[1], load_before[2], load_after[0], load_after[1],
               load_after[2]);
  for (std::size_t i = 0; i < errors.size(); ++i) {
    std::fprintf(out, "%s%s", i == 0 ? "" : ", ", json_string(errors[i]).c_str());
  }
  std::fprintf(out, "],\n  \"results\": [\n");
}

std::string scheduling_note(bool real_time) {
  return real_time ? "SCHED_FIFO (clients, server readers, engine lanes)"
                   : "time-shared: SCHED_FIFO was refused (run as root or raise RLIMIT_RTPRIO)";
}

}  // namespace cubit::priority
