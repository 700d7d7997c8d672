// SpM release lateness: how late a 1 ms periodic spontaneous method starts after its release,
// with the engine's threads at SCHED_FIFO and at SCHED_OTHER, against cyclictest (Debian
// rt-tests) measured in the same run, on the same machine.
//
//   kairos_bench_release_lateness [--seconds N] [--cpu C]
//     60 s per measurement by default; the engine's threads pinned to CPU C (default 1; -1 for
//     none), so that the trigger hands releases to its lane without a cross-CPU wake-up.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <kairos/engine.hpp>

#include "stats.hpp"

namespace {
using namespace std::chrono_literals;

struct Latenesses {
  std::vector<std::int64_t> ns;
  std::vector<std::int64_t> release_ns;
};

void collect(void* context, const kairos::SpmEntry& entry, const kairos::ActivationRecord& r) {
  auto* l = static_cast<Latenesses*>(context);
  l->ns.push_back(r.start_ns - (r.release_ns + entry.window_open.count()));
  l->release_ns.push_back(r.release_ns);
}

/// Where in the run the late starts fell: per second, how many were later than `threshold`.
void print_outliers(const Latenesses& l, std::int64_t threshold_ns) {
  std::vector<int> per_second;
  std::size_t total = 0;
  for (std::size_t i = 0; i < l.ns.size(); ++i) {
    if (l.ns[i] > threshold_ns) {
      const auto second = static_cast<std::size_t>(l.release_ns[i] / 1'000'000'000);
      if (per_second.size() <= second) {
        per_second.resize(second + 1);
      }
      ++per_second[second];
      ++total;
    }
  }
  std::printf("  starts later than %lld us: %zu; per second:",
              static_cast<long long>(threshold_ns / 1000), total);
  for (int count : per_second) {
    std::printf(" %d", count);
  }
  std::printf("\n");
}

void nothing(void*) {}

Latenesses engine_lateness(bool real_time, int cpu, int seconds,
                           kairos::kal::Duration ahead = kairos::kal::Duration{-1}) {
  static const kairos::SpmEntry entry{
      "bench", "tick", "bench", 0ms,  kairos::kForever,           1ms,
      0ms,     1ms,    1ms,     10us, kairos::Criticality::kHard, 1};
  auto engine = std::make_unique<kairos::Engine>(
      kairos::EngineOptions{kairos::Strategy::kRms, cpu, false, real_time, ahead});
  engine->add_spm(entry, nullptr, &nothing, nullptr);
  Latenesses latenesses;
  latenesses.ns.reserve(static_cast<std::size_t>(seconds) * 1000 + 16);
  latenesses.release_ns.reserve(static_cast<std::size_t>(seconds) * 1000 + 16);
  engine->run_for(std::chrono::seconds{seconds}, &collect, &latenesses);
  return latenesses;
}

/// cyclictest's histogram (1 us buckets) turned back into samples.
bool cyclictest(int seconds, int cpu, std::vector<std::int64_t>& samples) {
  const std::string command =
      "cyclictest -m -p80 -i1000 -t1 -q -h 5000 -l " + std::to_string(seconds * 1000) +
      (cpu >= 0 ? " -a " + std::to_string(cpu) : std::string()) + " 2>/dev/null";
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) {
    return false;
  }
  char line[256];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    long bucket = 0;
    long count = 0;
    if (line[0] != '#' && std::sscanf(line, "%ld %ld", &bucket, &count) == 2) {
      for (long i = 0; i < count; ++i) {
        samples.push_back(bucket * 1000);
      }
    }
  }
  return pclose(pipe) == 0 && !samples.empty();
}
}  // namespace

int main(int argc, char** argv) {
  int seconds = 60;
  int cpu = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--seconds" && i + 1 < argc) {
      seconds = std::atoi(argv[++i]);
    } else if (std::string_view(argv[i]) == "--cpu" && i + 1 < argc) {
      cpu = std::atoi(argv[++i]);
    }
  }
  if (seconds <= 0) {
    std::fprintf(stderr, "usage: %s [--seconds N]\n", argv[0]);
    return 2;
  }
  std::printf(
      "SpM release lateness, 1 ms period, %d s per measurement, engine threads on CPU %d "
      "(-1: unpinned), cyclictest on the same CPU\n",
      seconds, cpu);
  bench::print_load();
  std::vector<std::int64_t> baseline;
  if (cyclictest(seconds, cpu, baseline)) {
    bench::print("baseline: cyclictest -m -p80 -i1000", bench::summarize(baseline));
  } else {
    std::printf("baseline: cyclictest not available (apt-get install rt-tests)\n");
  }
  const Latenesses fifo = engine_lateness(true, cpu, seconds);
  bench::print("kairos: SpM start lateness, SCHED_FIFO", bench::summarize(fifo.ns));
  print_outliers(fifo, 200'000);
  const Latenesses direct = engine_lateness(true, cpu, seconds, kairos::kal::Duration::zero());
  bench::print("kairos: SCHED_FIFO, dispatched at the window opening", bench::summarize(direct.ns));
  print_outliers(direct, 200'000);
  const Latenesses other = engine_lateness(false, cpu, seconds);
  bench::print("kairos: SpM start lateness, SCHED_OTHER", bench::summarize(other.ns));
  print_outliers(other, 200'000);
  bench::print_load();
  return 0;
}
