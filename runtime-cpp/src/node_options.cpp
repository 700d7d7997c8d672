// A node's command line: its options, checked before anything starts, with a usage text that
// says what each one is for and what this machine offers.
#include <kairos/node.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <grp.h>
#include <sys/stat.h>

#include <kairos/kal/error.hpp>
#include <kairos/kal/memory.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos {

namespace {
void print_usage(std::FILE* stream, std::string_view node_name) {
  std::fprintf(
      stream,
      "usage: %.*s [--duration <time>] [--cpu <n> | --cpus <list>] [--peer-wait <time>]\n"
      "       [--clock-skew <time>] [--clock-log] [--probe <file>] [--timings <file>]\n"
      "       [--band-map <list>] [--start-at <unix-ns>] [--keys <dir>]\n"
      "       [--socket-group <group>] [--rejoin-every <time>] [--quiet]\n"
      "  --duration <time>  how long to release methods, e.g. 2s, 1500ms (default 10s);\n"
      "                     forever: until SIGINT or SIGTERM, which end a run early too\n"
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
      "  --band-map <list>  where cores of several nodes share a CPU: the host band of\n"
      "                     each band of a core, e.g. 0:1=2,0:2=4 (core:band=host band;\n"
      "                     kairos run computes it); needs --cpu or --cpus\n"
      "  --start-at <unix-ns> release from this Unix time in nanoseconds (CLOCK_REALTIME),\n"
      "                     after set-up and meeting the peers: the nodes of a system\n"
      "                     started together share one epoch (kairos run gives it)\n"
      "  --rejoin-every <time> with --start-at: a node that starts after that instant\n"
      "                     begins at the next instant start-at + k x <time> (the\n"
      "                     system's hyperperiod, which kairos deploy gives), in step\n"
      "                     with its peers\n"
      "  --keys <dir>       the node's keys for authenticated tcp: connections: ca.pem,\n"
      "                     NODE.pem and NODE.key of <dir> (kairos keys MODEL -o DIR; TLS\n"
      "                     1.3, each side proving which node it is; default: the\n"
      "                     directory KAIROS_KEYS names, if any)\n"
      "  --socket-group <group> let this group's members (a name or a number) connect to\n"
      "                     the node's uds: or shm: endpoint besides its own user: its\n"
      "                     socket file becomes the group's, mode 0660 (default: its\n"
      "                     user's alone, 0600)\n"
      "  --quiet            print only the summary line\n",
      static_cast<int>(node_name.size()), node_name.data());
}

/// The id of the group `name` names: a name of the host's group database, or a number; false for
/// none. At start-up only: it may read files.
bool find_group(const char* name, std::int64_t& id) {
  if (name == nullptr || name[0] == '\0' || name[0] == '-') {
    return false;
  }
  const std::string_view text(name);
  std::uint32_t number = 0;
  if (const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), number);
      error == std::errc{} && end == text.data() + text.size()) {
    id = number;
    return true;
  }
  group entry{};
  group* found = nullptr;
  std::array<char, 16384> lines{};
  if (::getgrnam_r(name, &entry, lines.data(), lines.size(), &found) != 0 || found == nullptr) {
    return false;
  }
  id = found->gr_gid;
  return true;
}

/// Loads the node's identity from `directory` into `options` (identity, or identity_error). One
/// identity per process: a node's own executable is one node.
kal::Status load_identity(std::string_view node_name, const char* directory, NodeOptions& options) {
  static kal::TlsIdentity identity;
  char name[kal::kMaxIdentityName + 1] = {};
  std::memcpy(name, node_name.data(), std::min(node_name.size(), sizeof name - 1));
  const kal::Status status = identity.load(directory, name);
  options.identity = status == kal::Status::kOk ? &identity : nullptr;
  options.identity_error = identity.error();
  return status;
}

/// Reads `--band-map core:band=host,...` into `options`: each core of the node, each band once,
/// host bands below the time trigger's, and on each core in the order of its bands (the node's
/// own analysis and its ceilings rest on that order).
bool parse_band_map(std::string_view node_name, std::string_view value, NodeOptions& options) {
  auto fail = [&](const char* why) {
    std::fprintf(stderr,
                 "%.*s: error: --band-map '%.*s': %s (expected core:band=host band entries, "
                 "e.g. 0:1=2,0:2=4)\n",
                 static_cast<int>(node_name.size()), node_name.data(),
                 static_cast<int>(value.size()), value.data(), why);
    return false;
  };
  auto number = [](std::string_view text, int& out) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    return error == std::errc{} && end == text.data() + text.size() && !text.empty();
  };
  if (value.empty()) {
    return fail("no entries");
  }
  std::size_t count = 0;
  for (std::size_t at = 0; at <= value.size();) {
    const std::size_t comma = std::min(value.find(',', at), value.size());
    const std::string_view entry = value.substr(at, comma - at);
    at = comma + 1;
    const std::size_t colon = entry.find(':');
    const std::size_t equals = entry.find('=');
    int core = -1;
    int band = -1;
    int host = -1;
    if (colon == std::string_view::npos || equals == std::string_view::npos || equals < colon ||
        !number(entry.substr(0, colon), core) ||
        !number(entry.substr(colon + 1, equals - colon - 1), band) ||
        !number(entry.substr(equals + 1), host)) {
      return fail("an entry is not core:band=host band");
    }
    if (core < 0 || core >= options.cores) {
      return fail("a core the node does not have");
    }
    if (band < kal::kLowestBand || band > kal::kHighestBand || host < kal::kLowestBand ||
        host >= kal::kHighestBand) {
      return fail("a band out of range (host bands 0 to 62: 63 is the time trigger's)");
    }
    if (count == options.band_map.size()) {
      return fail("too many entries");
    }
    for (std::size_t k = 0; k < count; ++k) {
      const NodeOptions::BandMapping& other = options.band_map[k];
      if (other.core == core && other.band == band) {
        return fail("a band is given twice");
      }
      if (other.core == core && (other.band < band) != (other.host < host)) {
        return fail("a core's bands must keep their order");
      }
    }
    options.band_map[count++] = {static_cast<std::uint8_t>(core), band, host};
  }
  options.band_map_count = count;
  return true;
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

std::int64_t rejoin_instant(std::int64_t start_at, std::int64_t now, std::int64_t every,
                            std::int64_t margin) noexcept {
  if (start_at - now >= margin || every <= 0) {
    return start_at;
  }
  const std::int64_t behind = now + margin - start_at;  // > 0
  const std::int64_t periods = (behind + every - 1) / every;
  return start_at + periods * every;
}

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
      if (value == "forever") {
        options.duration = kUntilStopped;
      } else if (!parse_duration(value, options.duration) || options.duration.count() == 0) {
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
    } else if (arg == "--start-at") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[i + 1]) : "";
      std::int64_t at = 0;
      const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), at);
      if (value.empty() || error != std::errc{} || end != value.data() + value.size() || at <= 0) {
        std::fprintf(stderr,
                     "%.*s: error: --start-at needs a Unix time in nanoseconds, e.g. --start-at "
                     "1764410000000000000\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      options.start_at_unix_ns = at;
      ++i;
    } else if (arg == "--rejoin-every") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[i + 1]) : "";
      if (!parse_duration(value, options.rejoin_every) || options.rejoin_every.count() <= 0) {
        std::fprintf(stderr,
                     "%.*s: error: --rejoin-every '%.*s' is not a time with a unit "
                     "(ns, us, ms, s, min), more than nothing\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     static_cast<int>(value.size()), value.data());
        return NodeCommand::kUsageError;
      }
      ++i;
    } else if (arg == "--band-map") {
      const std::string_view value = i + 1 < argc ? std::string_view(argv[i + 1]) : "";
      if (!parse_band_map(node_name, value, options)) {
        return NodeCommand::kUsageError;
      }
      ++i;
    } else if (arg == "--keys") {
      const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
      if (value == nullptr || value[0] == '\0' || value[0] == '-') {
        std::fprintf(stderr,
                     "%.*s: error: --keys needs the directory of the system's keys, e.g. --keys "
                     "run/keys (kairos keys MODEL -o run/keys)\n",
                     static_cast<int>(node_name.size()), node_name.data());
        return NodeCommand::kUsageError;
      }
      if (load_identity(node_name, value, options) != kal::Status::kOk) {
        std::fprintf(stderr, "%.*s: error: --keys %s: %s\n", static_cast<int>(node_name.size()),
                     node_name.data(), value, options.identity_error);
        return NodeCommand::kUsageError;
      }
      ++i;
    } else if (arg == "--socket-group") {
      const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
      if (!find_group(value, options.socket_group)) {
        std::fprintf(stderr,
                     "%.*s: error: --socket-group needs a group of this host, by name or "
                     "number (getent group lists them); '%s' is none\n",
                     static_cast<int>(node_name.size()), node_name.data(),
                     value == nullptr ? "" : value);
        return NodeCommand::kUsageError;
      }
      ++i;
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
  if (const char* keystore = std::getenv("KAIROS_KEYS");
      options.identity == nullptr && keystore != nullptr && keystore[0] != '\0') {
    // The keys of the environment, as ROS 2's ROS_SECURITY_KEYSTORE: a node that needs none runs
    // without them, one that does says at set-up what was wrong with them.
    load_identity(node_name, keystore, options);
  }
  if (options.cpu >= 0 && options.cpu_count > 0) {
    std::fprintf(stderr, "%.*s: error: give --cpu or --cpus, not both\n",
                 static_cast<int>(node_name.size()), node_name.data());
    return NodeCommand::kUsageError;
  }
  if (options.band_map_count > 0 && options.cpu < 0 && options.cpu_count == 0) {
    std::fprintf(stderr,
                 "%.*s: error: --band-map gives host bands on the node's CPUs: give them with "
                 "--cpu or --cpus\n",
                 static_cast<int>(node_name.size()), node_name.data());
    return NodeCommand::kUsageError;
  }
  if (options.probe_path != nullptr && options.duration == kUntilStopped) {
    std::fprintf(stderr, "%.*s: error: --probe measures for a time: give --duration a length\n",
                 static_cast<int>(node_name.size()), node_name.data());
    return NodeCommand::kUsageError;
  }
  return NodeCommand::kRun;
}

}  // namespace kairos
