#include <kairos/probe.hpp>

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/kal/mutex.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/orb/orb.hpp>
#include <kairos/orb/service.hpp>

#include "../tools/openssl_keys.hpp"

namespace kairos::probe {

namespace {

using namespace std::chrono_literals;

// The bands the probe's threads run at: in the middle, as a node's lanes do, so that the
// figures include what a lane pays (the ceiling lock raises to a band above).
constexpr kal::PriorityBand kProbeBand = 20;
constexpr kal::PriorityBand kCeilingBand = 30;
constexpr int kSwitchRoundTrips = 20'000;
constexpr int kLockBatches = 2'000;
constexpr int kLockPairsPerBatch = 100;
constexpr int kClockBatches = 2'000;
constexpr int kClockReadsPerBatch = 1'000;
constexpr int kHandoffSamples = 2'000;
constexpr int kOrbWarmUpCalls = 200;
constexpr int kOrbCalls = 5'000;
constexpr int kOrbEnoughCalls = 100;
/// How long the probe's engine serves the calls: far more than 5,000 calls take (about 0.1 s).
constexpr kal::Duration kOrbServing = 2s;

std::int64_t now_ns() noexcept {
  return kal::to_nanoseconds(kal::MonotonicClock::now());
}

// ------------------------------------------------------------------ release lateness

void empty_body(void*) {}

void collect_lateness(void* context, const SpmEntry& entry, const ActivationRecord& record) {
  if (record.ran()) {
    static_cast<std::vector<std::int64_t>*>(context)->push_back(
        record.start_ns - record.release_ns - entry.window_open.count());
  }
}

/// Runs an engine releasing one SpM every millisecond on `cpu` for `duration`, dispatched
/// `dispatch_ahead` before its window opens (zero: at the opening), and gives `collect` each
/// activation's record; `samples` receives what it collects.
kal::Status every_millisecond(const ProbeOptions& options, int cpu, kal::Duration dispatch_ahead,
                              kal::Duration duration, ActivationObserver collect,
                              std::vector<std::int64_t>& samples) {
  static const SpmEntry kEveryMillisecond{"probe",
                                          "release",
                                          "kairos probe",
                                          kal::Duration::zero(),
                                          kForever,
                                          1ms,
                                          kal::Duration::zero(),
                                          1ms,
                                          1ms,
                                          kal::Duration{10'000},
                                          Criticality::kHard,
                                          kProbeBand};
  EngineOptions engine_options{Strategy::kRms};
  engine_options.cpu = cpu;
  engine_options.real_time = options.real_time;
  engine_options.dispatch_ahead = dispatch_ahead;
  auto engine = std::make_unique<Engine>(engine_options);
  if (const kal::Status status = engine->add_spm(kEveryMillisecond, nullptr, &empty_body, nullptr);
      status != kal::Status::kOk) {
    return status;
  }
  samples.reserve(static_cast<std::size_t>(duration / 1ms) + 16);
  return engine->run_for(duration, collect, &samples);
}

kal::Status release_lateness(const ProbeOptions& options, int cpu, Distribution& out) {
  std::vector<std::int64_t> lateness;
  // The engine's own dispatch ahead, as a node runs.
  const kal::Status status = every_millisecond(options, cpu, EngineOptions{}.dispatch_ahead,
                                               options.duration, &collect_lateness, lateness);
  out = distribution_of(lateness);
  return status;
}

// ------------------------------------------------------------------ dispatch handoff

void collect_handoff(void* context, const SpmEntry&, const ActivationRecord& record) {
  if (record.ran()) {
    static_cast<std::vector<std::int64_t>*>(context)->push_back(record.start_ns -
                                                                record.dispatch_ns);
  }
}

/// An SpM every millisecond, dispatched at its window's opening (no dispatch ahead), so that
/// its lane is asleep when the trigger hands it over: the start minus the hand-over.
kal::Status dispatch_handoff(const ProbeOptions& options, int cpu, Distribution& out) {
  std::vector<std::int64_t> handoffs;
  const kal::Status status = every_millisecond(options, cpu, kal::Duration::zero(),
                                               1ms * kHandoffSamples, &collect_handoff, handoffs);
  out = distribution_of(handoffs);
  return status;
}

// ------------------------------------------------------------------ context switch

struct PingPong {
  kal::Event to_pong{kal::ResetMode::kAuto};
  kal::Event to_ping{kal::ResetMode::kAuto};
  std::vector<std::int64_t> half_round_trips;
};

void pong_main(void* context) noexcept {
  auto& game = *static_cast<PingPong*>(context);
  for (int i = 0; i < kSwitchRoundTrips; ++i) {
    game.to_pong.wait();
    game.to_ping.set();
  }
}

void ping_main(void* context) noexcept {
  auto& game = *static_cast<PingPong*>(context);
  for (int i = 0; i < kSwitchRoundTrips; ++i) {
    const std::int64_t start = now_ns();
    game.to_pong.set();
    game.to_ping.wait();
    game.half_round_trips.push_back((now_ns() - start) / 2);
  }
}

kal::Status context_switch(const ProbeOptions& options, int cpu, Distribution& out) {
  auto game = std::make_unique<PingPong>();
  game->half_round_trips.reserve(kSwitchRoundTrips);
  kal::Thread pong;
  kal::Thread ping;
  kal::Status status =
      pong.start({"kairos-probe-pong", kProbeBand, cpu, 256 * 1024, options.real_time}, &pong_main,
                 game.get());
  if (status == kal::Status::kOk) {
    status = ping.start({"kairos-probe-ping", kProbeBand, cpu, 256 * 1024, options.real_time},
                        &ping_main, game.get());
    if (status == kal::Status::kOk) {
      ping.join();
    } else {
      // Let the partner finish its rounds: answer each of them ourselves.
      for (int i = 0; i < kSwitchRoundTrips; ++i) {
        game->to_pong.set();
        game->to_ping.wait();
      }
    }
    pong.join();
  }
  out = distribution_of(game->half_round_trips);
  return status;
}

// ------------------------------------------------------------------ ceiling lock, clock read

struct Timing {
  kal::CeilingMutex mutex;
  std::vector<std::int64_t> lock_pairs;
  std::vector<std::int64_t> clock_reads;
};

void timing_main(void* context) noexcept {
  auto& timing = *static_cast<Timing*>(context);
  for (int batch = 0; batch < kLockBatches; ++batch) {
    const std::int64_t start = now_ns();
    for (int i = 0; i < kLockPairsPerBatch; ++i) {
      timing.mutex.lock();
      timing.mutex.unlock();
    }
    timing.lock_pairs.push_back((now_ns() - start) / kLockPairsPerBatch);
  }
  std::int64_t sink = 0;
  for (int batch = 0; batch < kClockBatches; ++batch) {
    const std::int64_t start = now_ns();
    for (int i = 0; i < kClockReadsPerBatch; ++i) {
      sink += kal::MonotonicClock::now().time_since_epoch().count() & 1;
    }
    timing.clock_reads.push_back((now_ns() - start) / kClockReadsPerBatch);
  }
  if (sink < 0) {  // keeps the reads from being optimised away
    timing.clock_reads.clear();
  }
}

kal::Status lock_and_clock(const ProbeOptions& options, int cpu, Distribution& lock,
                           Distribution& clock) {
  auto timing = std::make_unique<Timing>();
  timing->lock_pairs.reserve(kLockBatches);
  timing->clock_reads.reserve(kClockBatches);
  if (const kal::Status status = timing->mutex.init(kCeilingBand); status != kal::Status::kOk) {
    return status;
  }
  kal::Thread thread;
  const kal::Status status =
      thread.start({"kairos-probe-time", kProbeBand, cpu, 256 * 1024, options.real_time},
                   &timing_main, timing.get());
  if (status != kal::Status::kOk) {
    return status;
  }
  thread.join();
  lock = distribution_of(timing->lock_pairs);
  clock = distribution_of(timing->clock_reads);
  return kal::Status::kOk;
}

// ------------------------------------------------------------------ ORB call

constexpr kal::PriorityBand kOrbServiceBand = kProbeBand;
constexpr std::uint16_t kOrbObject = 1;

// The serving side: what a generated skeleton does for an operation without arguments.
void serve_empty(void*, void* request) {
  static_cast<orb::ServerRequest*>(request)->complete(orb::ReplyStatus::kOk, 0);
}

void no_miss(void*, const MissReport&) noexcept {}

orb::ReplyStatus dispatch_empty(void* context, orb::ServerRequest& request) noexcept {
  return orb::admit(*static_cast<Engine*>(context), 0, request);
}

struct OrbGame {
  orb::Orb* client = nullptr;
  std::uint8_t peer = 0;
  kal::TimePoint stop_calling{};  ///< well before the engine stops serving
  std::vector<std::int64_t> round_trips;
};

orb::CallStatus call_empty(OrbGame& game) noexcept {
  auto call = game.client->begin({game.peer, kOrbServiceBand, kOrbObject, 0});
  if (call.status() != orb::CallStatus::kPending) {
    return call.status();
  }
  return game.client->invoke(call, 0, kal::MonotonicClock::now() + 1s);
}

// The calling lane: waits for the server, warms the connection up, then times the calls.
void orb_client_main(void* context) noexcept {
  auto& game = *static_cast<OrbGame*>(context);
  set_current_lane(LaneIdentity{0, kProbeBand, false});
  orb::CallStatus status = call_empty(game);
  while (status != orb::CallStatus::kOk && kal::MonotonicClock::now() < game.stop_calling) {
    kal::sleep_until(kal::MonotonicClock::now() + 2ms);
    status = call_empty(game);
  }
  for (int i = 0; i < kOrbWarmUpCalls && status == orb::CallStatus::kOk; ++i) {
    status = call_empty(game);
  }
  for (int i = 0; i < kOrbCalls && status == orb::CallStatus::kOk &&
                  kal::MonotonicClock::now() < game.stop_calling;
       ++i) {
    const std::int64_t start = now_ns();
    status = call_empty(game);
    if (status == orb::CallStatus::kOk) {
      game.round_trips.push_back(now_ns() - start);
    }
  }
}

/// Two-way calls of an empty operation through the ORB over a Unix socket, both ends on `cpu`:
/// on one CPU a round trip is all work of the two ends (no idle time in it), which is what a
/// call costs the nodes it joins.
/// The probe's two nodes' keys for orb_call over TLS, made in /tmp and removed as it ends.
struct ProbeKeys {
  std::string directory;
  kal::TlsIdentity server;
  kal::TlsIdentity client;
  ~ProbeKeys() {
    if (!directory.empty()) {
      const std::string command = "rm -rf '" + directory + "'";
      static_cast<void>(std::system(command.c_str()));
    }
  }
  bool made() {
    directory = openssl_keys::in_tmp("probe", {"probe-server", "probe-client"});
    return !directory.empty() &&
           server.load(directory.c_str(), "probe-server") == kal::Status::kOk &&
           client.load(directory.c_str(), "probe-client") == kal::Status::kOk;
  }
};

/// An empty two-way call's round trip: over uds:, or with `secured` over loopback tcp: under
/// TLS 1.3.
kal::Status orb_call(const ProbeOptions& options, int cpu, Distribution& out, bool secured) {
  static const SvmEntry kEmptyRow{.instance = "probe",
                                  .method = "empty",
                                  .source = "kairos probe",
                                  .gct = 1s,
                                  .wcet = kal::Duration{10'000},
                                  .criticality = Criticality::kHard,
                                  .band = kOrbServiceBand,
                                  .admission_slot = kal::Duration{10'000}};
  ProbeKeys keys;
  if (secured && !keys.made()) {
    return kal::Status::kUnavailable;
  }
  const std::string endpoint = secured
                                   ? "tcp:127.0.0.1:" + std::to_string(24000 + ::getpid() % 8000)
                                   : "uds:/tmp/kairos-probe-" + std::to_string(::getpid());
  EngineOptions engine_options{Strategy::kRms};
  engine_options.cpu = cpu;
  engine_options.real_time = options.real_time;
  auto engine = std::make_unique<Engine>(engine_options);
  orb::OrbOptions server_options{"probe-server"};
  server_options.real_time = options.real_time;
  server_options.cpu = cpu;
  server_options.identity = &keys.server;
  auto server = std::make_unique<orb::Orb>(server_options);
  orb::OrbOptions client_options{"probe-client"};
  client_options.real_time = options.real_time;
  client_options.cpu = cpu;
  client_options.identity = &keys.client;
  auto client = std::make_unique<orb::Orb>(client_options);
  auto game = std::make_unique<OrbGame>();
  game->client = client.get();
  game->round_trips.reserve(kOrbCalls);
  kal::Status status = engine->add_svm(kEmptyRow, nullptr, &serve_empty, &no_miss);
  if (status == kal::Status::kOk) {
    status = server->listen(endpoint, secured);
  }
  if (status == kal::Status::kOk) {
    status = server->add_object(kOrbObject, &dispatch_empty, engine.get());
  }
  if (status == kal::Status::kOk) {
    status = server->serve_band(kOrbServiceBand);
  }
  if (status == kal::Status::kOk) {
    status = server->start();
  }
  if (status == kal::Status::kOk) {
    status = client->add_peer(endpoint, game->peer, secured ? "probe-server" : "");
  }
  if (status == kal::Status::kOk) {
    status = client->add_route(game->peer, kOrbServiceBand, 0, kProbeBand);
  }
  if (status == kal::Status::kOk) {
    status = client->start();
  }
  if (status != kal::Status::kOk) {
    server->stop();
    return status;
  }
  game->stop_calling = kal::MonotonicClock::now() + kOrbServing - 300ms;
  kal::Thread caller;
  status = caller.start({"kairos-probe-call", kProbeBand, cpu, 256 * 1024, options.real_time},
                        &orb_client_main, game.get());
  if (status == kal::Status::kOk) {
    // The engine serves for a fixed time, longer than the calls take; the caller stops first.
    status = engine->run_for(kOrbServing, nullptr, nullptr);
    caller.join();
  }
  client->stop();
  server->stop();
  if (status == kal::Status::kOk && game->round_trips.size() < kOrbEnoughCalls) {
    status = kal::Status::kUnavailable;  // the server never answered, or hardly
  }
  out = distribution_of(game->round_trips);
  return status;
}

// ------------------------------------------------------------------ the platform file

std::string first_line_with(const char* path, const char* key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      const std::size_t colon = line.find(':');
      if (colon != std::string::npos) {
        const std::size_t start = line.find_first_not_of(" \t", colon + 1);
        return start == std::string::npos ? "" : line.substr(start);
      }
    }
  }
  return "";
}

/// Whether the probe's threads got real-time priorities, as platform files name it.
const char* scheduling_name(const ProbeResult& result) {
  return kal::to_string(result.real_time ? kal::SchedulingMode::kRealTime
                                         : kal::SchedulingMode::kBestEffort);
}

/// A JSON string's body: quotes, backslashes and control characters escaped.
void write_string(std::FILE* out, const std::string& text) {
  std::fputc('"', out);
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      std::fprintf(out, "\\%c", c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      std::fprintf(out, "\\u%04x", static_cast<unsigned>(c));
    } else {
      std::fputc(c, out);
    }
  }
  std::fputc('"', out);
}

/// Every figure the probe measures, in the order the summary and the platform file give them: the
/// summary prints `name`, the file names it `name` + "_ns". An optional one (`measured_by`, the
/// ProbeOptions hook that measures it) is left out of the file where it was not measured.
struct Figure {
  const char* name;
  Distribution ProbeResult::*distribution;
  FigureMeasure ProbeOptions::*measured_by = nullptr;
  /// Left out of the file where it could not be measured, whatever measures it.
  bool optional = false;
};
constexpr Figure kFigures[] = {
    {"release_lateness", &ProbeResult::release_lateness},
    {"dispatch_handoff", &ProbeResult::dispatch_handoff},
    {"context_switch", &ProbeResult::context_switch},
    {"ceiling_lock", &ProbeResult::ceiling_lock},
    {"orb_call", &ProbeResult::orb_call},
    {"orb_call_tls", &ProbeResult::orb_call_tls, nullptr, true},
    {"clock_read", &ProbeResult::clock_read},
    {"channel_transport", &ProbeResult::channel_transport, &ProbeOptions::channel_transport},
};

void write_distribution(std::FILE* out, const char* name, const Distribution& d) {
  std::fprintf(out,
               "  \"%s_ns\": {\"samples\": %llu, \"p50\": %lld, \"p99\": %lld, \"p99.9\": %lld, "
               "\"max\": %lld}",
               name, static_cast<unsigned long long>(d.samples), static_cast<long long>(d.p50_ns),
               static_cast<long long>(d.p99_ns), static_cast<long long>(d.p999_ns),
               static_cast<long long>(d.max_ns));
}

void print_summary(const char* what, const Distribution& d) {
  std::printf("probe %-17s samples=%llu p50_us=%.1f p99_us=%.1f p99.9_us=%.1f max_us=%.1f\n", what,
              static_cast<unsigned long long>(d.samples), static_cast<double>(d.p50_ns) / 1e3,
              static_cast<double>(d.p99_ns) / 1e3, static_cast<double>(d.p999_ns) / 1e3,
              static_cast<double>(d.max_ns) / 1e3);
}

/// The first CPU this process may use, for a probe that was given none: the figures are those
/// of one CPU, as a node pinned to it sees them.
int first_cpu() noexcept {
  for (int cpu = 0; cpu < 1024; ++cpu) {
    if (kal::cpu_available(cpu)) {
      return cpu;
    }
  }
  return -1;
}

}  // namespace

Distribution distribution_of(std::vector<std::int64_t>& samples) {
  Distribution d;
  if (samples.empty()) {
    return d;
  }
  std::sort(samples.begin(), samples.end());
  auto at = [&](double quantile) {
    const auto index = static_cast<std::size_t>(quantile * static_cast<double>(samples.size() - 1));
    return samples[index];
  };
  d.samples = samples.size();
  d.p50_ns = at(0.50);
  d.p99_ns = at(0.99);
  d.p999_ns = at(0.999);
  d.max_ns = samples.back();
  return d;
}

kal::Status measure(const ProbeOptions& options, ProbeResult& result) noexcept {
  if (kal::kSimulatedTime) {
    return kal::Status::kUnavailable;
  }
  if (options.duration < 100ms) {
    return kal::Status::kInvalidArgument;
  }
  result = ProbeResult{};
  result.cpu = options.cpu >= 0 ? options.cpu : first_cpu();
  if (result.cpu >= 0 && !kal::cpu_available(result.cpu)) {
    return kal::Status::kInvalidArgument;
  }
  // The runs are short and sequential: nothing of one disturbs the next.
  kal::Status status = lock_and_clock(options, result.cpu, result.ceiling_lock, result.clock_read);
  if (status == kal::Status::kOk) {
    status = context_switch(options, result.cpu, result.context_switch);
  }
  if (status == kal::Status::kOk) {
    status = dispatch_handoff(options, result.cpu, result.dispatch_handoff);
  }
  if (status == kal::Status::kOk) {
    status = orb_call(options, result.cpu, result.orb_call, false);
  }
  if (status == kal::Status::kOk) {
    // Between nodes on a network without `security none` each call's records are sealed and
    // opened; without the openssl command for the probe's keys the figure is left out, and the
    // analysis charges such calls as the others.
    if (orb_call(options, result.cpu, result.orb_call_tls, true) != kal::Status::kOk) {
      result.orb_call_tls = Distribution{};
      kal::report(kal::Severity::kWarning, "probe",
                  "the ORB call under TLS could not be measured; the platform file leaves it "
                  "out");
    }
  }
  if (status == kal::Status::kOk && options.channel_transport != nullptr) {
    // Not every machine lets DDS discover itself (a firewall, no interface): the other figures
    // still stand, and the analysis charges nothing for a transport it was not told about.
    if (const kal::Status transport =
            options.channel_transport(options, result.cpu, result.channel_transport);
        transport != kal::Status::kOk) {
      result.channel_transport = Distribution{};
      kal::report(kal::Severity::kWarning, "probe",
                  "the channel transport (Cyclone DDS) could not be measured; the platform file "
                  "leaves it out");
    }
  }
  if (status == kal::Status::kOk) {
    status = release_lateness(options, result.cpu, result.release_lateness);
  }
  result.real_time = options.real_time && kal::scheduling_mode() == kal::SchedulingMode::kRealTime;
  return status;
}

void write_platform_file(std::FILE* out, const ProbeOptions& options,
                         const ProbeResult& result) noexcept {
  char date[32] = "";
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  if (gmtime_r(&now, &utc) != nullptr) {
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  }
  utsname system{};
  const bool named = uname(&system) == 0;
  std::fprintf(out, "{\n  \"format\": \"kairos-platform/1\",\n  \"measured_at\": \"%s\",\n", date);
  std::fprintf(out, "  \"measured_by\": ");
  write_string(out, options.label[0] == '\0' ? std::string{"kairos-probe"} : options.label);
  std::fprintf(out, ",\n  \"kernel\": ");
  write_string(out, named ? std::string{system.sysname} + " " + system.release : std::string{});
  std::fprintf(out, ",\n  \"cpu_model\": ");
  write_string(out, first_line_with("/proc/cpuinfo", "model name"));
  std::fprintf(out, ",\n  \"cpu\": %d,\n  \"scheduling\": \"%s\",\n  \"duration_ns\": %lld,\n",
               result.cpu, scheduling_name(result),
               static_cast<long long>(options.duration.count()));
  const char* separator = "";
  for (const Figure& figure : kFigures) {
    const Distribution& measured = result.*figure.distribution;
    if (measured.samples > 0 || (figure.measured_by == nullptr && !figure.optional)) {
      std::fprintf(out, "%s", separator);
      write_distribution(out, figure.name, measured);
      separator = ",\n";
    }
  }
  std::fprintf(out, "\n}\n");
}

int run_probe(const ProbeOptions& options, const char* path) noexcept {
  ProbeResult result;
  if (const kal::Status status = measure(options, result); status != kal::Status::kOk) {
    std::fprintf(stderr, "kairos probe: cannot measure: %s%s\n", kal::to_string(status),
                 status == kal::Status::kUnavailable ? " (a simulated platform has no overheads)"
                 : status == kal::Status::kInvalidArgument
                     ? " (the CPU is not one this process may use, or the run is under 100 ms)"
                     : "");
    return 1;
  }
  std::printf("probe cpu=%d scheduling=%s\n", result.cpu, scheduling_name(result));
  for (const Figure& figure : kFigures) {
    if ((figure.measured_by != nullptr || figure.optional) &&
        (result.*figure.distribution).samples == 0) {
      std::printf("probe %-17s unmeasured%s\n", figure.name,
                  figure.optional ? " (no openssl command to make the probe's keys)"
                  : options.*figure.measured_by == nullptr
                      ? " (this probe is built without Cyclone DDS; kairos-probe measures it)"
                      : "");
      continue;
    }
    print_summary(figure.name, result.*figure.distribution);
  }
  const bool to_stdout = std::strcmp(path, "-") == 0;
  std::FILE* out = to_stdout ? stdout : std::fopen(path, "w");
  if (out == nullptr) {
    std::fprintf(stderr, "kairos probe: cannot write %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  write_platform_file(out, options, result);
  if (!to_stdout && std::fclose(out) != 0) {
    std::fprintf(stderr, "kairos probe: cannot write %s: %s\n", path, std::strerror(errno));
    return 1;
  }
  return 0;
}

}  // namespace kairos::probe
