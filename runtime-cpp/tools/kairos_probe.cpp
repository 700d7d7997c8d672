// kairos-probe: measures this machine's overheads for the schedulability analysis and writes
// the platform file a model's `hardware` names (docs/cli.md#probe). `kairos probe` runs it; a
// generated node does the same with `--probe FILE`, measuring through its own binary.
//
//   kairos-probe [--duration <time>] [--cpu <n>] [--time-shared] [-o <file>]
#include <charconv>
#include <cstdio>
#include <string_view>

#include <kairos/kal/thread.hpp>
#include <kairos/node.hpp>
#include <kairos/probe.hpp>

#ifdef KAIROS_PROBE_DDS
#include <kairos/probe_dds.hpp>
#endif

namespace {
int usage(std::FILE* stream) {
  std::fprintf(stream,
               "usage: kairos-probe [--duration <time>] [--cpu <n>] [--time-shared] [-o <file>]\n"
               "  measures release lateness, dispatch handoff, context switch, ceiling lock, an\n"
               "  ORB call, clock read and the channel transport (Cyclone DDS) on one CPU and\n"
               "  writes the platform file a model's hardware names\n"
               "  --duration <time>  how long to release an SpM every millisecond (default 10s)\n"
               "  --cpu <n>          the CPU to measure (default: the first this process may use)\n"
               "  --time-shared      measure without real-time priorities\n"
               "  -o <file>          the platform file (default: standard output)\n");
  return stream == stdout ? 0 : 2;
}
}  // namespace

int main(int argc, char** argv) {
  kairos::probe::ProbeOptions options;
#ifdef KAIROS_PROBE_DDS
  options.channel_transport = &kairos::probe::dds_transport;
#endif
  const char* path = "-";
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      return usage(stdout);
    }
    if (arg == "--duration" && has_value) {
      if (!kairos::parse_duration(argv[++i], options.duration) ||
          options.duration < std::chrono::milliseconds{100}) {
        std::fprintf(stderr,
                     "kairos-probe: error: --duration '%s' is not a time of at least 100ms with "
                     "a unit (ns, us, ms, s, min)\n",
                     argv[i]);
        return 2;
      }
    } else if (arg == "--cpu" && has_value) {
      const std::string_view value = argv[++i];
      int cpu = -1;
      const auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), cpu);
      if (value.empty() || error != std::errc{} || rest != value.data() + value.size() ||
          !kairos::kal::cpu_available(cpu)) {
        std::fprintf(stderr, "kairos-probe: error: --cpu '%s' is not a CPU this process may use\n",
                     argv[i]);
        return 2;
      }
      options.cpu = cpu;
    } else if (arg == "--time-shared") {
      options.real_time = false;
    } else if (arg == "-o" && has_value) {
      path = argv[++i];
    } else {
      std::fprintf(stderr, "kairos-probe: error: unknown or incomplete argument '%s'\n", argv[i]);
      return usage(stderr);
    }
  }
  return kairos::probe::run_probe(options, path);
}
