#include <kairos/node.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <limits>

#include <sys/stat.h>

#include <kairos/kal/error.hpp>
#include <kairos/kal/memory.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/probe.hpp>
#include <kairos/timings_report.hpp>

namespace kairos {

namespace {
void print_usage(std::FILE* stream, std::string_view node_name) {
  std::fprintf(
      stream,
      "usage: %.*s [--duration <time>] [--cpu <n> | --cpus <list>] [--peer-wait <time>]\n"
      "       [--clock-skew <time>] [--clock-log] [--probe <file>] [--timings <file>]\n"
      "       [--quiet]\n"
      "  --duration <time>  how long to release methods, e.g. 2s, 1500ms (default 10s)\n"
      "  --cpu <n>          single-core nodes: run the engine's threads on CPU n\n"
      "                     (releases are handed to lanes without a cross-CPU wake-up)\n"
      "  --cpus <list>      one CPU per core of the node, e.g. --cpus 2,3 runs core 0 on\n"
      "                     CPU 2 and core 1 on CPU 3 (default: the first CPUs this\n"
      "                     node may use, in order)\n"
      "  --peer-wait <time> how long to wait for the nodes this one calls before it starts\n"
      "                     (default 5s; 0s starts at once, and calls to a node not up\n"
      "                     yet fail until it is)\n"
      "  --clock-skew <time> add this offset (e.g. 5ms, -250us) to the node's local clock,\n"
      "                     for clock synchronisation to find (nodes on one host share\n"
      "                     one clock)\n"
      "  --clock-log        after the run, print a clock-round line per synchronisation\n"
      "                     round\n"
      "  --probe <file>     do not run: measure this machine's overheads (release lateness,\n"
      "                     dispatch handoff, context switch, ceiling lock, ORB call) for\n"
      "                     --duration on --cpu and write the platform file a model's\n"
      "                     hardware names (kairos probe)\n"
      "  --timings <file>   write each method's measured execution and response times\n"
      "                     (JSON) to <file> at the end of the run and on SIGUSR1\n"
      "  --quiet            print only the summary line\n",
      static_cast<int>(node_name.size()), node_name.data());
}

/// Writes the CPUs this process may use as ranges, e.g. "0-3,6", into `out` (cut to fit).
void describe_available_cpus(std::span<char> out) noexcept {
  constexpr int kCpusLooked = 1024;  // the size of Linux's fixed CPU set
  std::size_t used = 0;
  for (int cpu = 0; cpu < kCpusLooked && used + 1 < out.size(); ++cpu) {
    if (!kal::cpu_available(cpu)) {
      continue;
    }
    int last = cpu;
    while (last + 1 < kCpusLooked && kal::cpu_available(last + 1)) {
      ++last;
    }
    const int length = last == cpu ? std::snprintf(out.data() + used, out.size() - used, "%s%d",
                                                   used == 0 ? "" : ",", cpu)
                                   : std::snprintf(out.data() + used, out.size() - used, "%s%d-%d",
                                                   used == 0 ? "" : ",", cpu, last);
    used = std::min(out.size() - 1, used + static_cast<std::size_t>(std::max(length, 0)));
    cpu = last;
  }
  if (used == 0 && !out.empty()) {
    std::snprintf(out.data(), out.size(), "none");
  }
}

/// Writes an example CPU list for `cores` cores, "0,1,...", into `out`.
void example_cpus(std::span<char> out, std::size_t cores) noexcept {
  std::size_t used = 0;
  for (std::size_t c = 0; c < cores && used + 1 < out.size(); ++c) {
    const int length =
        std::snprintf(out.data() + used, out.size() - used, "%s%zu", c == 0 ? "" : ",", c);
    used = std::min(out.size() - 1, used + static_cast<std::size_t>(std::max(length, 0)));
  }
}

/// Parses a CPU number: digits only, fitting an int.
bool parse_cpu(std::string_view text, int& cpu) noexcept {
  const auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), cpu);
  return !text.empty() && error == std::errc{} && rest == text.data() + text.size() && cpu >= 0;
}

void explain_unavailable(std::string_view node_name, const char* option, std::string_view value,
                         int cpu) noexcept {
  std::array<char, 256> available{};
  describe_available_cpus(available);
  std::fprintf(stderr,
               "%.*s: error: %s %.*s: CPU %d is not available to this node (available: %s)\n",
               static_cast<int>(node_name.size()), node_name.data(), option,
               static_cast<int>(value.size()), value.data(), cpu, available.data());
}

/// True when `path` can be a file to write: not a directory, in a directory that exists.
/// Otherwise says why and returns false, so that a run is not wasted on a file it cannot write.
bool check_writable_path(std::string_view node_name, const char* path) noexcept {
  struct stat status {};
  if (stat(path, &status) == 0 && S_ISDIR(status.st_mode)) {
    std::fprintf(stderr, "%.*s: error: --timings %s: is a directory\n",
                 static_cast<int>(node_name.size()), node_name.data(), path);
    return false;
  }
  const std::string_view text(path);
  const std::size_t slash = text.rfind('/');
  if (slash == std::string_view::npos || slash == 0) {
    return true;  // the working directory, or the root
  }
  std::array<char, 4096> directory{};
  if (slash >= directory.size()) {
    std::fprintf(stderr, "%.*s: error: --timings: the path is too long\n",
                 static_cast<int>(node_name.size()), node_name.data());
    return false;
  }
  text.copy(directory.data(), slash);
  if (stat(directory.data(), &status) != 0 || !S_ISDIR(status.st_mode)) {
    std::fprintf(stderr, "%.*s: error: --timings %s: no such directory %s\n",
                 static_cast<int>(node_name.size()), node_name.data(), path, directory.data());
    return false;
  }
  return true;
}
}  // namespace

bool parse_duration(std::string_view text, kal::Duration& out) noexcept {
  std::uint64_t value = 0;
  const auto [rest, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || rest == text.data()) {
    return false;
  }
  const std::string_view unit(rest, static_cast<std::size_t>(text.data() + text.size() - rest));
  std::uint64_t scale = 0;
  if (unit == "ns") {
    scale = 1;
  } else if (unit == "us") {
    scale = 1'000;
  } else if (unit == "ms") {
    scale = 1'000'000;
  } else if (unit == "s") {
    scale = 1'000'000'000;
  } else if (unit == "min") {
    scale = 60'000'000'000;
  } else {
    return false;
  }
  constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  if (value > kMax / scale) {
    return false;
  }
  out = kal::Duration{static_cast<std::int64_t>(value * scale)};
  return true;
}

bool parse_signed_duration(std::string_view text, kal::Duration& out) noexcept {
  const bool negative = !text.empty() && text.front() == '-';
  if (!parse_duration(negative ? text.substr(1) : text, out)) {
    return false;
  }
  if (negative) {
    out = -out;
  }
  return true;
}

NodeCommand parse_node_options(int argc, const char* const* argv, std::string_view node_name,
                               NodeOptions& options) noexcept {
  // CPUs are checked against the machine the node will run on: on sim, one virtual processor
  // per core. (A node of more cores than the runtime holds is refused by its engine.)
  kal::provision_processors(options.cores);
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout, node_name);
      return NodeCommand::kHelp;
    }
    if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--cpu") {
      int cpu = -1;
      const std::string_view value = i + 1 < argc ? std::string_view(argv[i + 1]) : "";
      if (options.cores > 1) {
        std::array<char, 32> example{};
        example_cpus(example, options.cores);
        std::fprintf(stderr,
                     "%.*s: error: --cpu pins a single-core node; this node has %u cores: give "
                     "each core its CPU with --cpus, e.g. --cpus %s\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     static_cast<unsigned>(options.cores), example.data());
        return NodeCommand::kUsageError;
      }
      if (!parse_cpu(value, cpu)) {
        std::fprintf(stderr, "%.*s: error: --cpu needs a CPU number, e.g. --cpu 1\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      if (!kal::cpu_available(cpu)) {
        std::array<char, 256> available{};
        describe_available_cpus(available);
        std::fprintf(stderr,
                     "%.*s: error: --cpu %d: no such CPU is available to this node (available: "
                     "%s)\n",
                     static_cast<int>(node_name.size()), node_name.data(), cpu, available.data());
        return NodeCommand::kUsageError;
      }
      options.cpu = cpu;
      ++i;
    } else if (arg == "--cpus") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[i + 1]) : "";
      std::array<char, 32> example{};
      example_cpus(example, options.cores);
      std::array<int, Engine::kMaxCores> cpus{};
      std::size_t count = 0;
      bool well_formed = !value.empty();
      for (std::size_t at = 0; well_formed && at <= value.size();) {
        const std::size_t comma = std::min(value.find(',', at), value.size());
        int cpu = -1;
        well_formed = parse_cpu(value.substr(at, comma - at), cpu);
        if (well_formed && count < cpus.size()) {
          cpus[count] = cpu;
        }
        ++count;
        at = comma + 1;
      }
      if (!well_formed) {
        std::fprintf(stderr,
                     "%.*s: error: --cpus needs one CPU number per core, separated by commas, "
                     "e.g. --cpus %s\n",
                     static_cast<int>(node_name.size()), node_name.data(), example.data());
        return NodeCommand::kUsageError;
      }
      if (count != options.cores) {
        std::fprintf(stderr,
                     "%.*s: error: --cpus %.*s names %zu CPU%s; this node has %u core%s: give "
                     "one CPU per core, e.g. --cpus %s\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     static_cast<int>(value.size()), value.data(), count, count == 1 ? "" : "s",
                     static_cast<unsigned>(options.cores), options.cores == 1 ? "" : "s",
                     example.data());
        return NodeCommand::kUsageError;
      }
      for (std::size_t c = 0; c < count; ++c) {
        if (!kal::cpu_available(cpus[c])) {
          explain_unavailable(node_name, "--cpus", value, cpus[c]);
          return NodeCommand::kUsageError;
        }
        for (std::size_t d = 0; d < c; ++d) {
          if (cpus[d] == cpus[c]) {
            std::fprintf(stderr,
                         "%.*s: error: --cpus %.*s: CPU %d is named twice; each core needs a "
                         "CPU of its own\n",
                         static_cast<int>(node_name.size()), node_name.data(),
                         static_cast<int>(value.size()), value.data(), cpus[c]);
            return NodeCommand::kUsageError;
          }
        }
      }
      options.cpus = cpus;
      options.cpu_count = count;
      ++i;
    } else if (arg == "--duration") {
      if (i + 1 == argc) {
        std::fprintf(stderr, "%.*s: error: --duration needs a value, e.g. --duration 2s\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      const std::string_view value = argv[++i];
      if (!parse_duration(value, options.duration) || options.duration.count() == 0) {
        std::fprintf(stderr,
                     "%.*s: error: --duration '%.*s' is not a positive time with a unit "
                     "(ns, us, ms, s, min)\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     static_cast<int>(value.size()), value.data());
        return NodeCommand::kUsageError;
      }
    } else if (arg == "--clock-skew") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[++i]) : "";
      if (!parse_signed_duration(value, options.clock_skew)) {
        std::fprintf(stderr,
                     "%.*s: error: --clock-skew '%.*s' is not a time with a unit (ns, us, ms, s, "
                     "min), e.g. --clock-skew 5ms or --clock-skew -250us\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     static_cast<int>(value.size()), value.data());
        return NodeCommand::kUsageError;
      }
    } else if (arg == "--clock-log") {
      options.clock_log = true;
    } else if (arg == "--probe") {
      if (i + 1 == argc || argv[i + 1][0] == '\0') {
        std::fprintf(stderr,
                     "%.*s: error: --probe needs the platform file to write, e.g. --probe "
                     "lab.platform.json (- for standard output)\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      options.probe_path = argv[++i];
    } else if (arg == "--peer-wait") {
      if (i + 1 == argc) {
        std::fprintf(stderr, "%.*s: error: --peer-wait needs a value, e.g. --peer-wait 2s\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      const std::string_view value = argv[++i];
      if (!parse_duration(value, options.peer_wait)) {
        std::fprintf(stderr,
                     "%.*s: error: --peer-wait '%.*s' is not a time with a unit "
                     "(ns, us, ms, s, min)\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     static_cast<int>(value.size()), value.data());
        return NodeCommand::kUsageError;
      }
    } else if (arg == "--timings") {
      const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
      if (value == nullptr || value[0] == '\0' || value[0] == '-') {
        std::fprintf(stderr,
                     "%.*s: error: --timings needs a file to write, e.g. --timings run.json\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      if (!check_writable_path(node_name, value)) {
        return NodeCommand::kUsageError;
      }
      options.timings = value;
      ++i;
    } else {
      std::fprintf(stderr, "%.*s: error: unknown argument '%.*s'\n",
                   static_cast<int>(node_name.size()), node_name.data(),
                   static_cast<int>(arg.size()), arg.data());
      print_usage(stderr, node_name);
      return NodeCommand::kUsageError;
    }
  }
  if (options.cpu >= 0 && options.cpu_count > 0) {
    std::fprintf(stderr, "%.*s: error: give --cpu or --cpus, not both\n",
                 static_cast<int>(node_name.size()), node_name.data());
    return NodeCommand::kUsageError;
  }
  return NodeCommand::kRun;
}

EngineOptions engine_options(const NodeOptions& options, Strategy strategy,
                             bool model_execution_time) noexcept {
  EngineOptions engine{};
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
  // Before set_up starts any thread: they inherit the mask that keeps SIGUSR1 for the writer.
  TimingsOnSignal timings_on_signal;
  const bool writes_timings = options.timings != nullptr && program.engine != nullptr;
  if (writes_timings) {
    timings_on_signal.start(options.timings, program.name, program.engine);
  } else if (options.timings != nullptr) {
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
    bool ready;
  } set_up{program, options, false};
  kal::run_as_band(
      kal::kLowestBand, options.orb_cpu,
      [](void* context) noexcept {
        auto& step = *static_cast<SetUp*>(context);
        step.ready = step.program.set_up(step.options);
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
  const kal::Status status =
      program.run(options.duration, options.quiet ? nullptr : &print_activation, nullptr);
  kal::run_as_band(
      kal::kLowestBand, options.orb_cpu,
      [](void* context) noexcept { static_cast<SetUp*>(context)->program.finish(); }, &set_up);
  timings_on_signal.stop();
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
  return written(std::snprintf(out.data(), out.size(),
                               "summary node=%.*s activations=%llu start_window_misses=%llu "
                               "deadline_misses=%llu overruns=%llu trace_drops=%llu scheduling=%s "
                               "requests_served=%llu requests_refused=%llu "
                               "requests_over_rate=%llu gct_misses=%llu wcet_overruns=%s\n",
                               static_cast<int>(node_name.size()), node_name.data(),
                               static_cast<unsigned long long>(counters.activations),
                               static_cast<unsigned long long>(counters.start_window_misses),
                               static_cast<unsigned long long>(counters.deadline_misses),
                               static_cast<unsigned long long>(counters.overruns),
                               static_cast<unsigned long long>(counters.trace_drops), scheduling,
                               static_cast<unsigned long long>(counters.requests_served),
                               static_cast<unsigned long long>(counters.requests_refused),
                               static_cast<unsigned long long>(counters.requests_over_rate),
                               static_cast<unsigned long long>(counters.gct_misses), wcet_overruns),
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

void report_failure(const char* node_name, const char* what, kal::Status status) noexcept {
  std::array<char, kLineCapacity> line{};
  std::snprintf(line.data(), line.size(), "%s: %s", what, kal::to_string(status));
  kal::report(kal::Severity::kError, node_name, line.data());
}

void print_gate(std::string_view node_name, std::string_view gate, std::string_view callee,
                const orb::GateCounters& counters, kal::Duration analysed_bound,
                kal::Duration deadline) {
  std::array<char, kLineCapacity> line{};
  std::fwrite(line.data(), 1,
              format_gate(line, node_name, gate, callee, counters, analysed_bound, deadline),
              stdout);
  std::fflush(stdout);
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
