#include <kairos/node.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <sys/stat.h>

#include <kairos/kal/error.hpp>
#include <kairos/kal/memory.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/node_signals.hpp>
#include <kairos/probe.hpp>
#include <kairos/timings_report.hpp>

namespace kairos {

EngineOptions engine_options(const NodeOptions& options, Strategy strategy,
                             bool model_execution_time, kal::Duration serve_after_end) noexcept {
  EngineOptions engine{};
  engine.serve_after_end = serve_after_end;
  engine.strategy = strategy;
  engine.cpu = options.cpu;
  engine.model_execution_time = model_execution_time;
  engine.cores = options.cores;
  engine.core_cpus = options.core_cpus();
  // Measuring costs two reads of the thread's CPU clock a run; a node asked for its timings pays.
  engine.measure_execution_time = kal::kSimulatedTime || options.timings != nullptr;
  return engine;
}

clock::ClockSyncOptions clock_sync_options(const NodeOptions& options,
                                           const clock::ClockSyncTable& table,
                                           const char* node_name) noexcept {
  clock::ClockSyncOptions sync{};
  sync.node = node_name;
  sync.skew = options.clock_skew;
  sync.sets_process_clock = options.sets_process_clock;
  sync.cpu = options.orb_cpu;
  if (options.clock_log && table.period.count() > 0) {
    // A round a period, and a few more for rounds made while peers meet.
    constexpr std::size_t kMostRounds = 1 << 20;
    const auto rounds = static_cast<std::size_t>(options.duration / table.period) + 64;
    sync.rounds_kept = std::min(rounds, kMostRounds);
  }
  return sync;
}

namespace {
/// How far ahead a rejoining node's first release is at least: more than the engine needs to start
/// its threads, so that the epoch is the boundary itself and not a moment after it.
constexpr kal::Duration kRejoinMargin = std::chrono::milliseconds{100};

/// The analysis takes each node's cores as its own. A node placed on CPUs (--cpu, --cpus) keeps
/// its threads there, except threads that run by deadline while the kernel's deadline admission
/// control is on: the kernel admits those only with the affinity of every CPU, where they would
/// run ahead of every SCHED_FIFO thread, other nodes' lanes among them. Such a placement is
/// refused (with what to do) instead of run as something the analysis did not check.
bool placement_holds(const NodeProgram& program, const NodeOptions& options,
                     int process_cpus) noexcept {
  if (kal::kSimulatedTime || program.engine == nullptr || kal::deadline_threads_pinned()) {
    return true;
  }
  const Engine* engine = program.engine();
  const int placed_on =
      options.cpu_count > 0 ? static_cast<int>(options.cpu_count) : (options.cpu >= 0 ? 1 : 0);
  if (engine == nullptr || !engine->schedules_by_deadline() || placed_on == 0) {
    return true;
  }
  if (process_cpus <= placed_on) {
    return true;
  }
  kal::report(kal::Severity::kError, program.name,
              "its lanes run by deadline (scheduling edf), and with the kernel's deadline "
              "admission control on (kernel.sched_rt_runtime_us is not -1) the kernel runs them "
              "on every CPU, not only on those --cpu or --cpus gives, ahead of every SCHED_FIFO "
              "thread there (other nodes' lanes among them), which kairos check does not assume; "
              "turn admission control off (sysctl -w kernel.sched_rt_runtime_us=-1, as root) or "
              "start the node without --cpu and --cpus");
  return false;
}
}  // namespace

int run_node(const NodeProgram& program, int argc, const char* const* argv) noexcept {
  NodeOptions options;  // outlives the run: the engine keeps a view of its CPUs
  options.cores = program.cores;
  switch (parse_node_options(argc, argv, program.name, options)) {
    case NodeCommand::kHelp:
      return 0;
    case NodeCommand::kUsageError:
      return 2;
    case NodeCommand::kRun:
      break;
  }
  if (options.probe_path != nullptr) {
    probe::ProbeOptions probe_options;
    probe_options.duration = options.duration;
    probe_options.cpu = options.cpu_count > 0 ? options.cpus[0] : options.cpu;
    probe_options.label = program.name;
    probe_options.channel_transport = program.channel_transport;
    return probe::run_probe(probe_options, options.probe_path);
  }
  // The ORB's threads share the CPU of the node's core 0 when it is pinned: a band's reader
  // standing where its lane runs may serve a request at once on the lane's behalf
  // (Engine::serve_here), saving two thread wake-ups per request.
  options.orb_cpu = options.cpu_count > 0 ? options.cpus[0] : options.cpu;
  // Host bands before any thread starts: each lane, reader and ceiling on a shared CPU then runs
  // where kairos run ranked it among the other nodes'.
  for (std::size_t k = 0; k < options.band_map_count; ++k) {
    const NodeOptions::BandMapping& mapping = options.band_map[k];
    kal::map_band(options.cpu_count > 0 ? options.cpus[mapping.core] : options.cpu, mapping.band,
                  mapping.host);
  }
  // From here on no thread of the node waits for its error stream (a pipe nobody reads would
  // stop a band's reader at its next warning): lines go through a queue to a thread of their
  // own. On sim, time is virtual and the lines stay in step with the run.
  if (!kal::kSimulatedTime) {
    kal::start_log_drain();
  }
  // One write per line: where stdout and stderr are one file (kairos run's NODE.log), a line of
  // one never lands inside a line of the other.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  struct FlushLogOnReturn {
    ~FlushLogOnReturn() { kal::flush_log(); }  // what is still queued, before the process ends
  } flush_on_return;
  // Before set_up starts any thread: they inherit the mask that keeps SIGINT, SIGTERM and
  // SIGUSR1 for the watcher.
  NodeSignals signals;
  const bool writes_timings = options.timings != nullptr && program.engine != nullptr;
  if (program.engine != nullptr) {
    signals.start(program.engine, program.name, writes_timings ? options.timings : nullptr);
  }
  if (options.timings != nullptr && !writes_timings) {
    kal::report(kal::Severity::kWarning, program.name,
                "this node program measures no timings (generated by an older kairos); "
                "--timings is ignored");
  }
  // Memory is locked before any thread starts, and set-up and teardown run as the node's lowest
  // band, above every time-shared process: locking and allocating memory holds the address
  // space's lock, and making or deleting DDS entities holds DDS's, which the node's real-time
  // threads (DDS's receive thread among them) wait for. A set-up thread preempted by ordinary
  // processes while it held them delayed a sample's delivery by up to 33 ms.
  kal::lock_memory();  // a refusal is said once, and the node runs on
  struct SetUp {
    const NodeProgram& program;
    const NodeOptions& options;
    int process_cpus;
    bool ready;
  } set_up{program, options, kal::available_cpu_count(), false};  // before set-up pins this thread
  kal::run_as_band(
      kal::kLowestBand, options.orb_cpu,
      [](void* context) noexcept {
        auto& step = *static_cast<SetUp*>(context);
        step.ready = step.program.set_up(step.options) &&
                     placement_holds(step.program, step.options, step.process_cpus);
        // The nodes of a system start together: meet every peer before the engine begins (for
        // at most --peer-wait); a gate to a peer that is not up fails until it is.
        if (step.ready && step.program.meet_peers != nullptr &&
            !step.program.meet_peers(kal::MonotonicClock::now() + step.options.peer_wait)) {
          kal::report(kal::Severity::kWarning, step.program.name,
                      "not every peer answered; their gates fail until they do");
        }
      },
      &set_up);
  if (!set_up.ready) {
    return 1;
  }
  Engine* const engine = program.engine != nullptr ? program.engine() : nullptr;
  if (options.start_at_unix_ns > 0 && engine != nullptr && !kal::kSimulatedTime) {
    // One instant for every node started together: the Unix time, read on this host's clock.
    const auto wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
    const std::int64_t begin = rejoin_instant(options.start_at_unix_ns, wall,
                                              options.rejoin_every.count(), kRejoinMargin.count());
    if (begin != options.start_at_unix_ns) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "started %.3f s after the --start-at instant: rejoins its peers at the next "
                    "--rejoin-every boundary, in %.3f s",
                    static_cast<double>(wall - options.start_at_unix_ns) / 1e9,
                    static_cast<double>(begin - wall) / 1e9);
      kal::report(kal::Severity::kInfo, program.name, line);
    }
    engine->start_no_earlier_than(kal::MonotonicClock::now() + kal::Duration{begin - wall});
  }
  const kal::Status status =
      program.run(options.duration, options.quiet ? nullptr : &print_activation, nullptr);
  if (engine != nullptr && engine->epoch_later_than_asked()) {
    kal::report(kal::Severity::kWarning, program.name,
                "the run began after the --start-at instant (set-up and meeting the peers took "
                "longer): its epoch differs from its peers'");
  }
  if (signals.stop_asked()) {
    kal::report(kal::Severity::kInfo, program.name,
                "SIGINT or SIGTERM came: the run ended at the first clean point after it");
  }
  kal::flush_log();  // the run's warnings before its summary
  kal::run_as_band(
      kal::kLowestBand, options.orb_cpu,
      [](void* context) noexcept { static_cast<SetUp*>(context)->program.finish(); }, &set_up);
  signals.stop();
  const bool timings_written =
      !writes_timings || write_timings_file(options.timings, program.name, *program.engine(), true);
  if (status != kal::Status::kOk) {
    kal::report(kal::Severity::kError, program.name, kal::to_string(status));
    return 1;
  }
  return timings_written ? 0 : 1;
}

namespace {
/// The words of an activation line: `window=` and `deadline=` follow from the outcome alone,
/// and each summary count is the number of lines with one of these words.
struct OutcomeWords {
  const char* window;
  const char* deadline;
};

constexpr OutcomeWords words_of(ActivationOutcome outcome) noexcept {
  switch (outcome) {
    case ActivationOutcome::kMet:
      return {"met", "met"};
    case ActivationOutcome::kDeadlineMissed:
      return {"met", "missed"};
    case ActivationOutcome::kStartWindowMissed:
      return {"missed", "not-run"};
    case ActivationOutcome::kOverrun:
      return {"overrun", "not-run"};
  }
  return {"?", "?"};
}

std::size_t written(int length, std::span<char> out) noexcept {
  if (length < 0 || out.empty()) {
    return 0;
  }
  return std::min(static_cast<std::size_t>(length), out.size() - 1);
}
}  // namespace

std::size_t format_activation(std::span<char> out, const SpmEntry& entry,
                              const ActivationRecord& record) noexcept {
  return format_activation(out, {}, entry, record);
}

std::size_t format_activation(std::span<char> out, std::string_view node_name,
                              const SpmEntry& entry, const ActivationRecord& record) noexcept {
  const long long earliest_start = record.release_ns + entry.window_open.count();
  const OutcomeWords words = words_of(record.outcome);
  // A lone node's lines say nothing of it (its summary does); a node among several says its name.
  const char* node_key = node_name.empty() ? "" : "node=";
  const char* node_space = node_name.empty() ? "" : " ";
  return written(
      std::snprintf(
          out.data(), out.size(),
          "activation %s%.*s%sinstance=%.*s method=%.*s core=%u seq=%llu release_ns=%lld "
          "start_ns=%lld "
          "start_lateness_ns=%lld handoff_ns=%lld finish_ns=%lld window=%s "
          "deadline=%s source=%.*s\n",
          node_key, static_cast<int>(node_name.size()), node_name.data(), node_space,
          static_cast<int>(entry.instance.size()), entry.instance.data(),
          static_cast<int>(entry.method.size()), entry.method.data(),
          static_cast<unsigned>(entry.core), static_cast<unsigned long long>(record.sequence),
          static_cast<long long>(record.release_ns), static_cast<long long>(record.start_ns),
          static_cast<long long>(record.start_ns) - earliest_start,
          static_cast<long long>(record.start_ns - record.dispatch_ns),
          static_cast<long long>(record.finish_ns), words.window, words.deadline,
          static_cast<int>(entry.source.size()), entry.source.data()),
      out);
}

std::size_t format_summary(std::span<char> out, std::string_view node_name,
                           const EngineCounters& counters) noexcept {
  const char* scheduling = kal::scheduling_in_effect();
  // Without measured execution times nothing was compared with the WCETs: say so, not 0.
  char wcet_overruns[24] = "unmeasured";
  if (counters.execution_time_measured) {
    std::snprintf(wcet_overruns, sizeof wcet_overruns, "%llu",
                  static_cast<unsigned long long>(counters.wcet_overruns));
  }
  // An activation that never ran has missed its deadline as surely as one that finished late: a
  // hard method starved by a flood must not read as `deadline_misses=0`.
  const std::uint64_t not_run = counters.start_window_misses + counters.overruns;
  return written(std::snprintf(out.data(), out.size(),
                               "summary node=%.*s activations=%llu start_window_misses=%llu "
                               "deadline_misses=%llu overruns=%llu not_run=%llu trace_drops=%llu "
                               "scheduling=%s "
                               "requests_served=%llu requests_refused=%llu "
                               "requests_over_rate=%llu gct_misses=%llu wcet_overruns=%s "
                               "log_drops=%llu\n",
                               static_cast<int>(node_name.size()), node_name.data(),
                               static_cast<unsigned long long>(counters.activations),
                               static_cast<unsigned long long>(counters.start_window_misses),
                               static_cast<unsigned long long>(counters.deadline_misses + not_run),
                               static_cast<unsigned long long>(counters.overruns),
                               static_cast<unsigned long long>(not_run),
                               static_cast<unsigned long long>(counters.trace_drops), scheduling,
                               static_cast<unsigned long long>(counters.requests_served),
                               static_cast<unsigned long long>(counters.requests_refused),
                               static_cast<unsigned long long>(counters.requests_over_rate),
                               static_cast<unsigned long long>(counters.gct_misses), wcet_overruns,
                               static_cast<unsigned long long>(kal::log_lines_dropped())),
                 out);
}

std::size_t format_gate(std::span<char> out, std::string_view node_name, std::string_view gate,
                        std::string_view callee, const orb::GateCounters& counters,
                        kal::Duration analysed_bound, kal::Duration deadline) noexcept {
  auto micros = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  char bound[32] = "unbounded";
  if (analysed_bound.count() >= 0) {
    std::snprintf(bound, sizeof bound, "%.1f", micros(analysed_bound.count()));
  }
  // A non-blocking call's answer is collected when the method polls: that time is printed as
  // such, and the round trip, which the analysed bound is about, is not measured for it.
  char round_trip[64];
  if (counters.max_collected_ns > 0 && counters.max_round_trip_ns == 0) {
    std::snprintf(round_trip, sizeof round_trip, "unmeasured max_collected_us=%.1f",
                  micros(counters.max_collected_ns));
  } else {
    std::snprintf(round_trip, sizeof round_trip, "%.1f", micros(counters.max_round_trip_ns));
  }
  return written(
      std::snprintf(out.data(), out.size(),
                    "gate node=%.*s gate=%.*s callee=%.*s calls=%llu answered=%llu late=%llu "
                    "failed=%llu max_round_trip_us=%s analysed_bound_us=%s deadline_us=%.1f\n",
                    static_cast<int>(node_name.size()), node_name.data(),
                    static_cast<int>(gate.size()), gate.data(), static_cast<int>(callee.size()),
                    callee.data(), static_cast<unsigned long long>(counters.calls),
                    static_cast<unsigned long long>(counters.answered),
                    static_cast<unsigned long long>(counters.late),
                    static_cast<unsigned long long>(counters.failed), round_trip, bound,
                    micros(deadline.count())),
      out);
}

std::size_t format_gate_warning(std::span<char> out, std::string_view gate,
                                const orb::GateCounters& counters, kal::Duration analysed_bound,
                                kal::Duration deadline) noexcept {
  auto micros = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  const bool beyond_bound =
      analysed_bound.count() >= 0 && counters.max_round_trip_ns > analysed_bound.count();
  if (counters.late == 0 && !beyond_bound) {
    return 0;
  }
  char late[128] = "";
  if (counters.late > 0) {
    std::snprintf(late, sizeof late,
                  "%llu of %llu calls had no reply by the %.1f us deadline (not in "
                  "max_round_trip_us)",
                  static_cast<unsigned long long>(counters.late),
                  static_cast<unsigned long long>(counters.calls), micros(deadline.count()));
  }
  char beyond[128] = "";
  if (beyond_bound) {
    std::snprintf(beyond, sizeof beyond,
                  "an answered call took %.1f us, beyond the analysed bound of %.1f us",
                  micros(counters.max_round_trip_ns), micros(analysed_bound.count()));
  }
  return written(std::snprintf(out.data(), out.size(),
                               "gate %.*s: %s%s%s: this run did not keep what kairos check assumed",
                               static_cast<int>(gate.size()), gate.data(), late,
                               counters.late > 0 && beyond_bound ? "; " : "", beyond),
                 out);
}

std::size_t format_clock(std::span<char> out, std::string_view node_name,
                         const clock::ClockSyncTable& table,
                         const clock::ClockSummary& summary) noexcept {
  auto micros = [](std::int64_t ns) { return static_cast<double>(ns) / 1000.0; };
  if (summary.master) {
    return written(
        std::snprintf(out.data(), out.size(), "clock node=%.*s role=master answered=%llu\n",
                      static_cast<int>(node_name.size()), node_name.data(),
                      static_cast<unsigned long long>(summary.exchanges)),
        out);
  }
  return written(
      std::snprintf(out.data(), out.size(),
                    "clock node=%.*s role=follower master=%s synchronised=%s rounds=%llu "
                    "exchanges=%llu failed=%llu offset_us=%.1f error_bound_us=%.1f "
                    "max_round_trip_us=%.1f mean_round_trip_us=%.1f\n",
                    static_cast<int>(node_name.size()), node_name.data(), table.master_node,
                    summary.synchronised ? "yes" : "no",
                    static_cast<unsigned long long>(summary.rounds),
                    static_cast<unsigned long long>(summary.exchanges),
                    static_cast<unsigned long long>(summary.failed), micros(summary.offset_ns),
                    micros(summary.error_bound_ns), micros(summary.max_round_trip_ns),
                    micros(summary.mean_round_trip_ns)),
      out);
}

std::size_t format_clock_round(std::span<char> out, std::string_view node_name, std::size_t round,
                               const clock::ClockRound& record) noexcept {
  return written(std::snprintf(out.data(), out.size(),
                               "clock-round node=%.*s round=%zu local_ns=%lld estimate_ns=%lld "
                               "applied_ns=%lld error_bound_ns=%lld round_trip_ns=%lld\n",
                               static_cast<int>(node_name.size()), node_name.data(), round,
                               static_cast<long long>(record.local_ns),
                               static_cast<long long>(record.estimate_ns),
                               static_cast<long long>(record.applied_ns),
                               static_cast<long long>(record.error_bound_ns),
                               static_cast<long long>(record.round_trip_ns)),
                 out);
}

void print_clock(std::string_view node_name, const clock::ClockSync& sync) {
  std::array<char, kLineCapacity> line{};
  const auto rounds = sync.rounds();
  for (std::size_t k = 0; k < rounds.size(); ++k) {
    std::fwrite(line.data(), 1, format_clock_round(line, node_name, k, rounds[k]), stdout);
  }
  std::fwrite(line.data(), 1, format_clock(line, node_name, sync.table(), sync.summary()), stdout);
  std::fflush(stdout);
}

std::size_t format_orb(std::span<char> out, std::string_view node_name,
                       const orb::OrbCounters& counters) noexcept {
  return written(
      std::snprintf(out.data(), out.size(),
                    "orb node=%.*s requests=%llu refused=%llu not_permitted=%llu over_budget=%llu "
                    "unknown_callers=%llu connections_refused=%llu connections_evicted=%llu "
                    "unauthenticated=%llu malformed_frames=%llu connections_of_other_users=%llu\n",
                    static_cast<int>(node_name.size()), node_name.data(),
                    static_cast<unsigned long long>(counters.requests),
                    static_cast<unsigned long long>(counters.refused),
                    static_cast<unsigned long long>(counters.not_permitted),
                    static_cast<unsigned long long>(counters.over_budget),
                    static_cast<unsigned long long>(counters.unknown_callers),
                    static_cast<unsigned long long>(counters.connections_refused),
                    static_cast<unsigned long long>(counters.connections_evicted),
                    static_cast<unsigned long long>(counters.unauthenticated),
                    static_cast<unsigned long long>(counters.malformed_frames),
                    static_cast<unsigned long long>(counters.connections_of_other_users)),
      out);
}

std::size_t format_orb_caller(std::span<char> out, std::string_view node_name,
                              const orb::CallerCounters& caller) noexcept {
  return written(
      std::snprintf(out.data(), out.size(),
                    "orb-caller node=%.*s caller=%.*s requests=%llu refused=%llu "
                    "not_permitted=%llu over_budget=%llu connections=%u connection_slots=%u "
                    "connections_refused=%llu connections_evicted=%llu\n",
                    static_cast<int>(node_name.size()), node_name.data(),
                    static_cast<int>(caller.caller.size()), caller.caller.data(),
                    static_cast<unsigned long long>(caller.requests),
                    static_cast<unsigned long long>(caller.refused),
                    static_cast<unsigned long long>(caller.not_permitted),
                    static_cast<unsigned long long>(caller.over_budget), caller.connections,
                    caller.connection_slots,
                    static_cast<unsigned long long>(caller.connections_refused),
                    static_cast<unsigned long long>(caller.connections_evicted)),
      out);
}

void print_orb(std::string_view node_name, const orb::Orb& orb) {
  std::array<char, kLineCapacity> line{};
  std::fwrite(line.data(), 1, format_orb(line, node_name, orb.counters()), stdout);
  std::array<orb::CallerCounters, orb::kMaxCallers> callers{};
  const std::size_t count = std::min(callers.size(), orb.caller_counters(callers));
  for (std::size_t c = 0; c < count; ++c) {
    std::fwrite(line.data(), 1, format_orb_caller(line, node_name, callers[c]), stdout);
  }
  std::fflush(stdout);
}

void report_failure(const char* node_name, const char* what, kal::Status status) noexcept {
  std::array<char, kLineCapacity> line{};
  std::snprintf(line.data(), line.size(), "%s: %s", what, kal::to_string(status));
  kal::report(kal::Severity::kError, node_name, line.data());
}

void report_missing_identity(const NodeOptions& options, const char* node) noexcept {
  std::array<char, kLineCapacity> line{};
  const char* keystore = std::getenv("KAIROS_KEYS");
  std::snprintf(line.data(), line.size(),
                "its tcp: connections are authenticated (TLS 1.3): give it its keys with --keys "
                "DIR or KAIROS_KEYS=DIR (made by `kairos keys MODEL -o DIR`), or write `security "
                "none;` in its network%s%s%s%s",
                keystore != nullptr ? "; KAIROS_KEYS=" : "", keystore != nullptr ? keystore : "",
                keystore != nullptr ? ": " : "", keystore != nullptr ? options.identity_error : "");
  kal::report(kal::Severity::kError, node, line.data());
}

void print_gate(std::string_view node_name, std::string_view gate, std::string_view callee,
                const orb::GateCounters& counters, kal::Duration analysed_bound,
                kal::Duration deadline) {
  std::array<char, kLineCapacity> line{};
  std::fwrite(line.data(), 1,
              format_gate(line, node_name, gate, callee, counters, analysed_bound, deadline),
              stdout);
  std::fflush(stdout);
  if (format_gate_warning(line, gate, counters, analysed_bound, deadline) > 0) {
    std::array<char, 64> node{};
    std::snprintf(node.data(), node.size(), "%.*s", static_cast<int>(node_name.size()),
                  node_name.data());
    kal::report(kal::Severity::kWarning, node.data(), line.data());
  }
}

void print_activation(void* /*context*/, const SpmEntry& entry, const ActivationRecord& record) {
  std::array<char, kLineCapacity> line{};
  std::fwrite(line.data(), 1, format_activation(line, entry, record), stdout);
}

void print_summary(std::string_view node_name, const EngineCounters& counters) {
  std::array<char, kLineCapacity> line{};
  std::fwrite(line.data(), 1, format_summary(line, node_name, counters), stdout);
  std::fflush(stdout);
}

}  // namespace kairos
