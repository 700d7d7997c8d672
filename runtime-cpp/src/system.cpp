#include <kairos/system.hpp>

#include <array>
#include <charconv>
#include <cstdio>

#include <kairos/kal/error.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos {

namespace {

/// How long the nodes of one process have to meet before their engines start: every peer is in
/// the process, so they meet in a few link round trips; this bounds a link slower than expected.
constexpr kal::Duration kMeetingTime = std::chrono::seconds{5};

void print_usage(std::FILE* stream, std::string_view system_name) {
  std::fprintf(stream,
               "usage: %.*s [--duration <time>] [--seed <n>] [--quiet]\n"
               "  runs every node of the system in this process, on simulated processors and\n"
               "  the model's networks, in virtual time\n"
               "  --duration <time>  how long to release methods, e.g. 2s, 1500ms (default 10s)\n"
               "  --seed <n>         where the networks' jitter generator starts (default 1);\n"
               "                     the same seed gives the same run, to the nanosecond\n"
               "  --quiet            print only the summary and gate lines of each node\n",
               static_cast<int>(system_name.size()), system_name.data());
}

/// One node of the run: its program, its options (which outlive the run: its engine keeps a view
/// of their CPUs), the thread that runs its engine and how that run ended.
struct NodeRun {
  const NodeProgram* program = nullptr;
  NodeOptions options;
  kal::Thread runner;
  kal::Status status = kal::Status::kOk;
};

void print_node_activation(void* context, const SpmEntry& entry, const ActivationRecord& record) {
  const auto& run = *static_cast<const NodeRun*>(context);
  std::array<char, kLineCapacity> line{};
  std::fwrite(line.data(), 1, format_activation(line, run.program->name, entry, record), stdout);
}

void run_engine(void* context) noexcept {
  auto& run = *static_cast<NodeRun*>(context);
  run.status = run.program->run(run.options.duration,
                                run.options.quiet ? nullptr : &print_node_activation, &run);
}

void report(std::string_view system_name, const char* message) noexcept {
  std::fprintf(stderr, "%.*s: error: %s\n", static_cast<int>(system_name.size()),
               system_name.data(), message);
}

}  // namespace

NodeCommand parse_system_options(int argc, const char* const* argv, std::string_view system_name,
                                 SystemOptions& options) noexcept {
  const int name_size = static_cast<int>(system_name.size());
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      print_usage(stdout, system_name);
      return NodeCommand::kHelp;
    }
    if (arg == "--quiet") {
      options.quiet = true;
    } else if (arg == "--duration") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[++i]) : "";
      if (!parse_duration(value, options.duration) || options.duration.count() == 0) {
        std::fprintf(stderr,
                     "%.*s: error: --duration '%.*s' is not a positive time with a unit "
                     "(ns, us, ms, s, min)\n",
                     name_size, system_name.data(), static_cast<int>(value.size()), value.data());
        return NodeCommand::kUsageError;
      }
    } else if (arg == "--seed") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[++i]) : "";
      std::uint64_t seed = 0;
      const auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), seed);
      if (value.empty() || error != std::errc{} || rest != value.data() + value.size()) {
        std::fprintf(stderr,
                     "%.*s: error: --seed '%.*s' is not a whole number from 0 to "
                     "18446744073709551615\n",
                     name_size, system_name.data(), static_cast<int>(value.size()), value.data());
        return NodeCommand::kUsageError;
      }
      options.seed = seed;
    } else {
      std::fprintf(stderr, "%.*s: error: unknown argument '%.*s'\n", name_size, system_name.data(),
                   static_cast<int>(arg.size()), arg.data());
      print_usage(stderr, system_name);
      return NodeCommand::kUsageError;
    }
  }
  return NodeCommand::kRun;
}

int run_system(std::string_view system_name, std::span<const NodeProgram* const> nodes,
               const SystemOptions& options) noexcept {
  if (nodes.empty() || nodes.size() > kMaxSystemNodes) {
    std::fprintf(stderr, "%.*s: error: a system in one process runs 1 to %zu nodes, not %zu\n",
                 static_cast<int>(system_name.size()), system_name.data(), kMaxSystemNodes,
                 nodes.size());
    return 1;
  }
  int processors = 0;
  for (const NodeProgram* node : nodes) {
    processors += node->cores;
  }
  if (kal::provision_processors(processors) != kal::Status::kOk) {
    std::fprintf(stderr,
                 "%.*s: error: its nodes have %d cores in all, more processors than the "
                 "machine has (a simulated machine has 8); run fewer nodes in one process\n",
                 static_cast<int>(system_name.size()), system_name.data(), processors);
    return 1;
  }

  std::array<NodeRun, kMaxSystemNodes> runs{};
  int next_cpu = 0;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    NodeRun& run = runs[k];
    run.program = nodes[k];
    run.options.duration = options.duration;
    run.options.quiet = options.quiet;
    run.options.cores = run.program->cores;
    for (std::size_t c = 0; c < run.program->cores; ++c) {
      run.options.cpus[c] = next_cpu + static_cast<int>(c);
    }
    run.options.cpu_count = run.program->cores;
    run.options.orb_cpu = next_cpu;
    // The nodes share the process: each keeps its own global time (its clock synchronisation's).
    run.options.sets_process_clock = false;
    next_cpu += run.program->cores;
    // Every node listens before any engine runs; one that calls a node set up after it meets
    // that node below.
    if (!run.program->set_up(run.options)) {
      return 1;
    }
  }
  const kal::TimePoint until = kal::MonotonicClock::now() + kMeetingTime;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const NodeProgram& program = *runs[k].program;
    if (program.meet_peers != nullptr && !program.meet_peers(until)) {
      kal::report(kal::Severity::kWarning, program.name,
                  "not every peer answered; their gates fail until they do");
    }
  }

  // Each engine from a thread of its own, on its node's first processor: started at one instant,
  // the engines share one epoch, so the nodes' times compare directly.
  std::size_t started = 0;
  for (; started < nodes.size(); ++started) {
    NodeRun& run = runs[started];
    if (run.runner.start({run.program->name, kal::kLowestBand, run.options.orb_cpu}, &run_engine,
                         &run) != kal::Status::kOk) {
      report(system_name, "cannot start a thread to run a node");
      break;
    }
  }
  for (std::size_t k = 0; k < started; ++k) {
    runs[k].runner.join();
  }
  int exit_code = started == nodes.size() ? 0 : 1;
  for (std::size_t k = 0; k < nodes.size(); ++k) {
    const NodeRun& run = runs[k];
    run.program->finish();
    if (run.status != kal::Status::kOk) {
      kal::report(kal::Severity::kError, run.program->name, kal::to_string(run.status));
      exit_code = 1;
    }
  }
  return exit_code;
}

}  // namespace kairos
