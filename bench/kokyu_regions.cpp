// Kokyu's operating regions replayed on the TMO engine (Gill et al., "Kokyu: RMS+MLF vs MUF in
// Bold Stroke avionics", §3.2): a constant critical load, extra hard consumers whose execution
// times vary pseudo-randomly by region, and chains of 20 Hz soft route-leg updates that grow
// from region 1 to region 11. Each strategy gets the same sequence of execution times (one seed),
// so the only difference between their outcomes is the strategy.
//
// The paper's own execution times are not published; the ones below keep its shape:
//   - the critical operations at 20, 10, 5 and 1 Hz, 28% of the processor in every region;
//   - one extra hard consumer at each of 10, 5 and 1 Hz whose execution time is drawn per
//     activation from the region's range, cycling every four regions through 0 ms, 0-5 ms,
//     5-10 ms and 0-10 ms (paper's Table 2);
//   - route legs, each a 20 Hz soft method of 4.55 ms: one in regions 0 and 1 (the same
//     non-critical load there, so those two differ in jitter only), then one more per region.
// The offered load crosses 100% in region 7 at its worst draws, and stays above from region 8.
// Under RMS the route legs share the top band (20 Hz) with the 20 Hz critical operation, above
// the 10, 5 and 1 Hz hard methods, which lose their deadlines once the load passes 100%; MUF and
// RMS+MLF put every hard method above every soft one, so none of them misses; EDF and MLF know
// no criticality.
//
// The program runs on each platform the runtime has: exactly and in virtual time on sim (the
// outcome is a function of the seed; tests/e2e/test_kokyu_regions.py checks it), and on Linux
// with the real engine in real time (the benchmark: `make bench`). A sample is one second, the
// hyperperiod; the paper's metrics per region and strategy are
//   - samples with a hard miss, and the hard activations that missed (start window or deadline);
//   - soft deadlines made, of those released;
//   - effectiveness: soft deadlines made in samples with no hard miss, of all soft releases.
//
// Usage: kairos_bench_kokyu_regions_<platform> [--samples N] [--seed N] [--cpu N]
//                                              [--strategies LIST] [--edf-partitioned]
//                                              [--unthrottled] [--json FILE]
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <kairos/engine.hpp>
#include <kairos/kal/execution.hpp>

namespace {

using kairos::kal::Duration;
using namespace std::chrono_literals;

constexpr int kRegions = 12;
constexpr Duration kSample = 1s;  // the hyperperiod of 20, 10, 5 and 1 Hz

enum class Role : std::uint8_t { kCritical, kConsumer, kRouteLeg };

/// One method of the experiment: its rate, its declared WCET and what kind of load it is.
struct Method {
  std::string name;
  Duration period;
  Duration wcet;  ///< declared; a consumer's execution time is drawn below it
  kairos::Criticality criticality;
  Role role;
};

struct Region {
  int index;
  Duration jitter_min;
  Duration jitter_max;
  int route_legs;
};

Region region(int index) {
  static constexpr std::array<std::array<int, 2>, 4> kJitterMs{{{0, 0}, {0, 5}, {5, 10}, {0, 10}}};
  const auto& range = kJitterMs[static_cast<std::size_t>(index % 4)];
  return Region{index, std::chrono::milliseconds{range[0]}, std::chrono::milliseconds{range[1]},
                std::max(1, index)};
}

std::vector<Method> methods_of(const Region& r) {
  using kairos::Criticality;
  std::vector<Method> methods{
      {"critical20", 50ms, 4ms, Criticality::kHard, Role::kCritical},
      {"critical10", 100ms, 8ms, Criticality::kHard, Role::kCritical},
      {"critical5", 200ms, 16ms, Criticality::kHard, Role::kCritical},
      {"critical1", 1000ms, 40ms, Criticality::kHard, Role::kCritical},
      {"consumer10", 100ms, 10ms, Criticality::kHard, Role::kConsumer},
      {"consumer5", 200ms, 10ms, Criticality::kHard, Role::kConsumer},
      {"consumer1", 1000ms, 10ms, Criticality::kHard, Role::kConsumer},
  };
  for (int leg = 1; leg <= r.route_legs; ++leg) {
    methods.push_back(
        {"leg" + std::to_string(leg), 50ms, 4550us, Criticality::kSoft, Role::kRouteLeg});
  }
  return methods;
}

/// The strategy's priority bands, as `kairos check` assigns them (SchedulingAnalysis.assignBands):
/// RMS by rate; EDF (either) and MLF one band; MUF hard above soft; RMS+MLF hard by rate above the
/// soft.
std::vector<kairos::kal::PriorityBand> bands_of(kairos::Strategy strategy,
                                                const std::vector<Method>& methods) {
  auto by_rate = [](Duration period, int lowest) {
    // Periods 1000, 200, 100, 50 ms: four distinct rates, the shortest period highest.
    const int rank = period == 1000ms ? 0 : period == 200ms ? 1 : period == 100ms ? 2 : 3;
    return static_cast<kairos::kal::PriorityBand>(lowest + rank);
  };
  std::vector<kairos::kal::PriorityBand> bands;
  for (const Method& m : methods) {
    const bool hard = m.criticality == kairos::Criticality::kHard;
    switch (strategy) {
      case kairos::Strategy::kEdf:
      case kairos::Strategy::kNpEdf:
      case kairos::Strategy::kMlf:
        bands.push_back(1);
        break;
      case kairos::Strategy::kMuf:
        bands.push_back(hard ? 2 : 1);
        break;
      case kairos::Strategy::kRms:
        bands.push_back(by_rate(m.period, 1));
        break;
      case kairos::Strategy::kRmsMlf:
        bands.push_back(hard ? by_rate(m.period, 2) : 1);
        break;
    }
  }
  return bands;
}

/// Computation of a given length: on sim the virtual processor's time; on Linux the thread's own
/// CPU time, so that a method preempted by a higher band still owes the rest of its work (the
/// wall clock would let it "compute" while it is not running).
void compute_for(Duration length) noexcept {
  if (kairos::kal::kSimulatedTime) {
    kairos::kal::busy_for(length);
    return;
  }
  auto cpu_now = [] {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
  };
  const std::int64_t end = cpu_now() + length.count();
  while (cpu_now() < end) {
    // Spinning on purpose: this stands for computation.
  }
}

/// A method's body: each activation computes the next of its execution times.
struct Body {
  std::vector<Duration> execution;  ///< one per activation, drawn before the run
  std::size_t next = 0;             ///< only its own lane touches it: activations run in order
};

void run_body(void* servant) {
  auto& body = *static_cast<Body*>(servant);
  compute_for(body.execution[std::min(body.next, body.execution.size() - 1)]);
  ++body.next;
}

struct Record {
  std::uint16_t spm;
  std::int64_t release_ns;
  bool met;
};

void collect(void* context, const kairos::SpmEntry&, const kairos::ActivationRecord& r) {
  static_cast<std::vector<Record>*>(context)->push_back(
      Record{r.spm, r.release_ns, r.outcome == kairos::ActivationOutcome::kMet});
}

struct Outcome {
  int region = 0;
  double offered_load = 0;  ///< mean utilisation of the drawn execution times
  int samples = 0;
  int samples_with_hard_miss = 0;
  std::uint64_t hard_released = 0;
  std::uint64_t hard_missed = 0;
  std::uint64_t soft_released = 0;
  std::uint64_t soft_made = 0;
  std::uint64_t soft_made_clean = 0;                     ///< in samples with no hard miss
  std::array<std::uint64_t, 7> hard_missed_by_method{};  ///< the seven hard methods, in order
  double effectiveness() const {
    return soft_released == 0
               ? 0
               : 100.0 * static_cast<double>(soft_made_clean) / static_cast<double>(soft_released);
  }
  double soft_made_percent() const {
    return soft_released == 0
               ? 0
               : 100.0 * static_cast<double>(soft_made) / static_cast<double>(soft_released);
  }
};

struct Options {
  int samples = 20;
  std::uint32_t seed = 2003;
  int cpu = -1;
  std::vector<kairos::Strategy> strategies{kairos::Strategy::kRms,    kairos::Strategy::kMuf,
                                           kairos::Strategy::kRmsMlf, kairos::Strategy::kNpEdf,
                                           kairos::Strategy::kEdf,    kairos::Strategy::kMlf};
  /// Linux: run preemptive EDF with the kernel's deadline admission control off, so that its
  /// SCHED_DEADLINE lanes may be pinned to --cpu (partitioned EDF, as analysed).
  bool edf_partitioned = false;
  /// Linux: run every strategy with the kernel's real-time throttling off (and with it the
  /// deadline admission control, so edf is partitioned too): the analysis knows no throttling.
  bool unthrottled = false;
  const char* json = nullptr;
};

const char* name_of(kairos::Strategy strategy) {
  switch (strategy) {
    case kairos::Strategy::kRms:
      return "rms";
    case kairos::Strategy::kEdf:
      return "edf";
    case kairos::Strategy::kNpEdf:
      return "np-edf";
    case kairos::Strategy::kMlf:
      return "mlf";
    case kairos::Strategy::kMuf:
      return "muf";
    case kairos::Strategy::kRmsMlf:
      return "rms+mlf";
  }
  return "?";
}

/// Plays one region under one strategy; false if the engine refused it.
bool play(kairos::Strategy strategy, const Region& r, const Options& options, Outcome& outcome) {
  const std::vector<Method> methods = methods_of(r);
  const std::vector<kairos::kal::PriorityBand> bands = bands_of(strategy, methods);
  kairos::EngineOptions engine_options{strategy};
  engine_options.cpu = options.cpu;
  auto engine = std::make_unique<kairos::Engine>(engine_options);

  // The same draws for every strategy: one generator per (region, method), seeded alike.
  std::vector<Body> bodies(methods.size());
  std::vector<kairos::SpmEntry> entries;
  entries.reserve(methods.size());
  double busy_ns = 0;
  for (std::size_t i = 0; i < methods.size(); ++i) {
    const Method& m = methods[i];
    const auto activations = static_cast<std::size_t>(options.samples * (kSample / m.period));
    std::mt19937 draws(options.seed + 1000U * static_cast<std::uint32_t>(r.index) +
                       static_cast<std::uint32_t>(i));
    std::uniform_int_distribution<std::int64_t> jitter(r.jitter_min.count(), r.jitter_max.count());
    for (std::size_t k = 0; k < activations; ++k) {
      const Duration length = m.role == Role::kConsumer ? Duration{jitter(draws)} : m.wcet;
      bodies[i].execution.push_back(length);
      busy_ns += static_cast<double>(length.count());
    }
    // The window is the whole period: an activation runs whenever its band lets it, until its
    // deadline at the end of the period.
    entries.push_back(kairos::SpmEntry{"ofp", m.name, "kokyu_regions", Duration::zero(),
                                       kairos::kForever, m.period, Duration::zero(), m.period,
                                       m.period, m.wcet, m.criticality, bands[i]});
    if (engine->add_spm(entries.back(), &bodies[i], &run_body, nullptr) !=
        kairos::kal::Status::kOk) {
      std::fprintf(stderr, "kokyu_regions: the engine refused %s\n", m.name.c_str());
      return false;
    }
  }
  std::vector<Record> records;
  records.reserve(static_cast<std::size_t>(options.samples) * 64U * methods.size());
  const Duration length = kSample * options.samples;
  if (const auto status = engine->run_for(length, &collect, &records);
      status != kairos::kal::Status::kOk) {
    std::fprintf(stderr, "kokyu_regions: the engine did not run: %s\n",
                 kairos::kal::to_string(status));
    return false;
  }

  outcome = Outcome{};
  outcome.region = r.index;
  outcome.samples = options.samples;
  outcome.offered_load = busy_ns / static_cast<double>(length.count());
  std::vector<bool> hard_miss_in(static_cast<std::size_t>(options.samples), false);
  for (const Record& record : records) {
    const Method& m = methods[record.spm];
    const auto sample = static_cast<std::size_t>(record.release_ns / kSample.count());
    if (m.criticality == kairos::Criticality::kHard) {
      ++outcome.hard_released;
      if (!record.met) {
        ++outcome.hard_missed;
        ++outcome.hard_missed_by_method[record.spm];
        if (sample < hard_miss_in.size()) {
          hard_miss_in[sample] = true;
        }
      }
    }
  }
  for (const Record& record : records) {
    const Method& m = methods[record.spm];
    if (m.criticality != kairos::Criticality::kSoft) {
      continue;
    }
    const auto sample = static_cast<std::size_t>(record.release_ns / kSample.count());
    ++outcome.soft_released;
    if (record.met) {
      ++outcome.soft_made;
      if (sample < hard_miss_in.size() && !hard_miss_in[sample]) {
        ++outcome.soft_made_clean;
      }
    }
  }
  outcome.samples_with_hard_miss =
      static_cast<int>(std::count(hard_miss_in.begin(), hard_miss_in.end(), true));
  return true;
}

bool parse_int(const char* text, long low, long high, long& value) {
  char* end = nullptr;
  errno = 0;
  value = std::strtol(text, &end, 10);
  return errno == 0 && end != text && *end == '\0' && value >= low && value <= high;
}

bool parse_strategies(std::string_view list, std::vector<kairos::Strategy>& strategies) {
  strategies.clear();
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view word = list.substr(0, comma);
    bool known = false;
    for (const auto strategy :
         {kairos::Strategy::kRms, kairos::Strategy::kMuf, kairos::Strategy::kRmsMlf,
          kairos::Strategy::kNpEdf, kairos::Strategy::kMlf, kairos::Strategy::kEdf}) {
      if (word == name_of(strategy)) {
        strategies.push_back(strategy);
        known = true;
      }
    }
    if (!known) {
      return false;
    }
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  return !strategies.empty();
}

/// The kernel's real-time throttling: with the default 950000 of 1000000 us, the real-time
/// threads of a CPU that used 95% of a second all stop for the rest of it, the engine's time
/// trigger included. In the overload regions (above 100%) that delays a second's first releases,
/// so even the top band can miss there; `sysctl kernel.sched_rt_runtime_us=-1` lifts it.
void print_rt_throttling() {
  long runtime = 0;
  long period = 0;
  std::FILE* runtime_file = std::fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
  std::FILE* period_file = std::fopen("/proc/sys/kernel/sched_rt_period_us", "r");
  const bool known = runtime_file != nullptr && period_file != nullptr &&
                     std::fscanf(runtime_file, "%ld", &runtime) == 1 &&
                     std::fscanf(period_file, "%ld", &period) == 1;
  if (runtime_file != nullptr) {
    std::fclose(runtime_file);
  }
  if (period_file != nullptr) {
    std::fclose(period_file);
  }
  if (!known) {
    std::printf("real-time throttling: unknown\n");
  } else if (runtime < 0) {
    std::printf("real-time throttling: off\n");
  } else {
    std::printf(
        "real-time throttling: %ld of every %ld us (overloaded seconds stall for the rest)\n",
        runtime, period);
  }
}

int usage(const char* program) {
  std::fprintf(
      stderr,
      "usage: %s [--samples N] [--seed N] [--cpu N] [--strategies LIST] "
      "[--edf-partitioned] [--unthrottled] [--json FILE]\n"
      "  plays Kokyu's operating regions 0..11 under each strategy (rms,muf,rms+mlf,"
      "np-edf,edf,mlf;\n"
      "  np-edf is Kokyu's EDF queue, edf preemptive EDF)\n"
      "  --samples N   one-second samples per region (default 20)\n"
      "  --seed N      seed of the execution-time draws, the same for every strategy\n"
      "  --cpu N       pin the engine to CPU N (Linux)\n"
      "  --edf-partitioned  Linux, root, with --cpu: run edf with the kernel's deadline\n"
      "                admission control off (sched_rt_runtime_us -1, restored after), so\n"
      "                that its SCHED_DEADLINE lanes are pinned to CPU N too\n"
      "  --unthrottled Linux, root, with --cpu: run every strategy with the kernel's\n"
      "                real-time throttling off (sched_rt_runtime_us -1, restored after);\n"
      "                edf is then partitioned as with --edf-partitioned\n"
      "  --json FILE   also write the figures as JSON (bench/cubit_plot.py draws them)\n",
      program);
  return 2;
}

constexpr const char* kRtRuntimeFile = "/proc/sys/kernel/sched_rt_runtime_us";

bool write_rt_runtime(const char* text) noexcept {
  const int fd = ::open(kRtRuntimeFile, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    return false;
  }
  const auto length = static_cast<ssize_t>(std::strlen(text));
  const bool written = ::write(fd, text, static_cast<std::size_t>(length)) == length;
  ::close(fd);
  return written;
}

/// The write end of the pipe to the restorer (restore_rt_runtime), or -1 when there is none.
int restorer_pipe = -1;
pid_t restorer = -1;

/// Puts sched_rt_runtime_us back and waits until it is (restore_rt_runtime's child does it).
void restore_rt_runtime() noexcept {
  if (restorer_pipe < 0) {
    return;
  }
  ::close(restorer_pipe);
  restorer_pipe = -1;
  int status = 0;
  ::waitpid(restorer, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "kokyu_regions: could not restore %s: set it back by hand\n",
                 kRtRuntimeFile);
  }
}

/// Turns the kernel's deadline admission control (and real-time throttling) off until
/// restore_rt_runtime; false, having said why, where it cannot. A child process holds the old
/// value and writes it back once this process closes its pipe, on restore_rt_runtime or at its
/// end, however it ends: the kernel refuses the old value (EBUSY) while deadline threads that
/// exceed it still exist, which they do until this process is gone.
bool deadline_admission_control_off() {
  std::FILE* file = std::fopen(kRtRuntimeFile, "r");
  long runtime_us = 0;
  const bool read = file != nullptr && std::fscanf(file, "%ld", &runtime_us) == 1;
  if (file != nullptr) {
    std::fclose(file);
  }
  if (!read) {
    std::fprintf(stderr, "kokyu_regions: cannot read %s\n", kRtRuntimeFile);
    return false;
  }
  if (runtime_us < 0) {
    return true;  // off already: nothing to restore
  }
  char saved[32];
  std::snprintf(saved, sizeof saved, "%ld", runtime_us);
  int ends[2];
  if (::pipe(ends) != 0) {
    std::fprintf(stderr, "kokyu_regions: no pipe for the restorer: %s\n", std::strerror(errno));
    return false;
  }
  std::fflush(nullptr);
  restorer = ::fork();
  if (restorer < 0) {
    std::fprintf(stderr, "kokyu_regions: cannot start the restorer: %s\n", std::strerror(errno));
    ::close(ends[0]);
    ::close(ends[1]);
    return false;
  }
  if (restorer == 0) {
    ::close(ends[1]);
    char byte = 0;
    while (::read(ends[0], &byte, 1) > 0) {
    }
    // Bounded: 10 s of tries, for the parent's deadline threads to be gone.
    for (int attempt = 0; attempt < 1000; ++attempt) {
      if (write_rt_runtime(saved)) {
        std::_Exit(0);
      }
      ::usleep(10'000);
    }
    std::_Exit(1);
  }
  ::close(ends[0]);
  restorer_pipe = ends[1];
  if (!write_rt_runtime("-1")) {
    std::fprintf(stderr, "kokyu_regions: cannot write %s (%s): it needs root\n", kRtRuntimeFile,
                 std::strerror(errno));
    restore_rt_runtime();
    return false;
  }
  return true;
}

void print_table(kairos::Strategy strategy, const std::vector<Outcome>& outcomes) {
  std::printf("\nstrategy %s\n", name_of(strategy));
  std::printf("%6s %9s %5s %6s %16s %11s %14s %14s\n", "region", "jitter", "legs", "load",
              "hard-miss-samples", "hard-misses", "soft-made", "effectiveness");
  for (const Outcome& o : outcomes) {
    const Region r = region(o.region);
    char jitter[32];
    std::snprintf(jitter, sizeof jitter, "%lld-%lld", static_cast<long long>(r.jitter_min / 1ms),
                  static_cast<long long>(r.jitter_max / 1ms));
    std::printf("%6d %6s ms %5d %5.1f%% %10d of %3d %11llu %13.1f%% %13.1f%%\n", o.region, jitter,
                r.route_legs, 100.0 * o.offered_load, o.samples_with_hard_miss, o.samples,
                static_cast<unsigned long long>(o.hard_missed), o.soft_made_percent(),
                o.effectiveness());
  }
}

void write_json(std::FILE* out, const Options& options,
                const std::vector<std::vector<Outcome>>& all) {
  std::fprintf(out, "{\n  \"benchmark\": \"kokyu_regions\",\n  \"platform\": \"%s\",\n",
               kairos::kal::kSimulatedTime ? "sim" : "linux");
  std::fprintf(out, "  \"samples\": %d,\n  \"seed\": %u,\n  \"strategies\": [\n", options.samples,
               options.seed);
  for (std::size_t s = 0; s < all.size(); ++s) {
    std::fprintf(out, "    {\"strategy\": \"%s\", \"regions\": [\n",
                 name_of(options.strategies[s]));
    for (std::size_t i = 0; i < all[s].size(); ++i) {
      const Outcome& o = all[s][i];
      std::fprintf(out,
                   "      {\"region\": %d, \"offered_load\": %.4f, \"samples\": %d, "
                   "\"samples_with_hard_miss\": %d, \"hard_released\": %llu, \"hard_missed\": "
                   "%llu, \"hard_missed_by_method\": [",
                   o.region, o.offered_load, o.samples, o.samples_with_hard_miss,
                   static_cast<unsigned long long>(o.hard_released),
                   static_cast<unsigned long long>(o.hard_missed));
      for (std::size_t m = 0; m < o.hard_missed_by_method.size(); ++m) {
        std::fprintf(out, "%s%llu", m == 0 ? "" : ", ",
                     static_cast<unsigned long long>(o.hard_missed_by_method[m]));
      }
      std::fprintf(out,
                   "], \"soft_released\": %llu, \"soft_made\": %llu, \"effectiveness\": %.2f}%s\n",
                   static_cast<unsigned long long>(o.soft_released),
                   static_cast<unsigned long long>(o.soft_made), o.effectiveness(),
                   i + 1 == all[s].size() ? "" : ",");
    }
    std::fprintf(out, "    ]}%s\n", s + 1 == all.size() ? "" : ",");
  }
  std::fprintf(out, "  ]\n}\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    long value = 0;
    if (arg == "--samples" && i + 1 < argc && parse_int(argv[i + 1], 1, 3600, value)) {
      options.samples = static_cast<int>(value);
      ++i;
    } else if (arg == "--seed" && i + 1 < argc && parse_int(argv[i + 1], 0, 1L << 31, value)) {
      options.seed = static_cast<std::uint32_t>(value);
      ++i;
    } else if (arg == "--cpu" && i + 1 < argc && parse_int(argv[i + 1], 0, 4095, value)) {
      options.cpu = static_cast<int>(value);
      ++i;
    } else if (arg == "--strategies" && i + 1 < argc &&
               parse_strategies(argv[i + 1], options.strategies)) {
      ++i;
    } else if (arg == "--edf-partitioned") {
      options.edf_partitioned = true;
    } else if (arg == "--unthrottled") {
      options.unthrottled = true;
    } else if (arg == "--json" && i + 1 < argc) {
      options.json = argv[++i];
    } else {
      return usage(argv[0]);
    }
  }
  if (options.edf_partitioned && options.cpu < 0) {
    std::fprintf(stderr,
                 "kokyu_regions: --edf-partitioned pins the edf lanes to --cpu: give one\n");
    return 2;
  }
  if (options.unthrottled && options.cpu < 0) {
    // Unpinned and unthrottled, an overloaded region could starve every CPU of the machine.
    std::fprintf(stderr, "kokyu_regions: --unthrottled needs --cpu, to keep the others free\n");
    return 2;
  }
  const bool unthrottled = options.unthrottled && !kairos::kal::kSimulatedTime;
  if (unthrottled && !deadline_admission_control_off()) {
    return 1;
  }
  std::printf("Kokyu operating regions on %s: %d one-second samples per region, seed %u\n",
              kairos::kal::kSimulatedTime ? "sim (virtual time, exact)" : "Linux (real time)",
              options.samples, options.seed);
  if (!kairos::kal::kSimulatedTime) {
    print_rt_throttling();
  }
  std::vector<std::vector<Outcome>> all;
  for (const kairos::Strategy strategy : options.strategies) {
    std::vector<Outcome> outcomes(kRegions);
    const bool by_deadline = kairos::preempts_by_deadline(strategy) && !kairos::kal::kSimulatedTime;
    const bool partitioned = by_deadline && (options.edf_partitioned || unthrottled);
    const bool toggles_alone = partitioned && !unthrottled;
    if (toggles_alone && !deadline_admission_control_off()) {
      return 1;
    }
    bool played = true;
    for (int r = 0; r < kRegions && played; ++r) {
      played = play(strategy, region(r), options, outcomes[static_cast<std::size_t>(r)]);
    }
    if (toggles_alone) {
      restore_rt_runtime();
    }
    if (!played) {
      return 1;
    }
    print_table(strategy, outcomes);
    if (!kairos::kal::deadline_scheduling_granted() && by_deadline) {
      std::printf("  (edf: SCHED_DEADLINE refused, lanes ran at fixed priority)\n");
    } else if (partitioned) {
      std::printf(
          "  (edf lanes under SCHED_DEADLINE pinned to CPU %d: partitioned EDF; the kernel's "
          "deadline admission control and real-time throttling were off for %s)\n",
          options.cpu, unthrottled ? "the whole run" : "this strategy");
    } else if (by_deadline) {
      // With admission control on, SCHED_DEADLINE threads must be allowed every CPU of their
      // root domain: the lanes are not pinned to --cpu, and the kernel runs global EDF.
      std::printf(
          "  (edf lanes under SCHED_DEADLINE, not pinned: global EDF over the process's CPUs)\n");
    }
    std::fflush(stdout);
    all.push_back(std::move(outcomes));
  }
  if (unthrottled) {
    restore_rt_runtime();
  }
  if (options.json != nullptr) {
    std::FILE* out = std::fopen(options.json, "w");
    if (out == nullptr) {
      std::fprintf(stderr, "kokyu_regions: cannot write %s: %s\n", options.json,
                   std::strerror(errno));
      return 1;
    }
    write_json(out, options, all);
    std::fclose(out);
  }
  return 0;
}
