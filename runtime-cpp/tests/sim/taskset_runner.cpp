// Plays periodic task sets on the engine over the simulated platform, one after another in one
// process, each for one hyperperiod, with every method taking exactly its WCET; prints what
// happened to each set. The schedulability property test (tests/e2e) feeds it the sets and the
// priority bands `kairos check` analysed, and compares the outcome with the verdicts.
//
// Input (a file, or standard input), one set per line; `#` starts a comment line:
//   <name> <rms|edf|mlf|muf|rms+mlf> <period_ns>:<wcet_ns>:<deadline_ns>:<band> ...
// Every task is released at 0, then every period; its start window is (t, t + deadline).
//
// Output, one line per set, tasks in input order:
//   <name> hyperperiod_ns=<h> records=<n> deadline_misses=<n> window_misses=<n> overruns=<n>
//     late_reports=<n> trace_drops=<n> missed=<m0>,<m1>,... worst_response_ns=<r0>,<r1>,...
// where `late_reports` counts deadline misses reported after the deadline passed (the watchdog
// must see a method still running at its deadline), `missed` counts each task's activations
// that started late or finished late, and the worst response is the latest finish after
// release of a started activation (-1: none ran).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <kairos/engine.hpp>

namespace {

using kairos::kal::Duration;

struct Task {
  std::int64_t period_ns = 0;
  std::int64_t wcet_ns = 0;
  std::int64_t deadline_ns = 0;
  int band = 0;
};

struct TaskSet {
  std::string name;
  kairos::Strategy strategy = kairos::Strategy::kRms;
  std::vector<Task> tasks;
};

/// What the engine reported about one task's misses.
struct MissWatch {
  Duration deadline{};
  /// Deadline misses reported after the deadline: the watchdog should have seen them at it.
  std::uint64_t late_reports = 0;
};

void check_report(void* servant, const kairos::MissReport& miss) noexcept {
  auto& watch = *static_cast<MissWatch*>(servant);
  if (miss.kind == kairos::MissKind::kCompletionDeadline &&
      miss.observed != miss.release + watch.deadline) {
    ++watch.late_reports;
  }
}

struct Outcome {
  std::vector<std::uint64_t> records;
  std::vector<std::uint64_t> missed;
  std::vector<std::int64_t> worst_response_ns;
};

bool parse_strategy(const std::string& word, kairos::Strategy& strategy) {
  static constexpr struct {
    const char* name;
    kairos::Strategy strategy;
  } kStrategies[] = {{"rms", kairos::Strategy::kRms},
                     {"edf", kairos::Strategy::kEdf},
                     {"mlf", kairos::Strategy::kMlf},
                     {"muf", kairos::Strategy::kMuf},
                     {"rms+mlf", kairos::Strategy::kRmsMlf}};
  for (const auto& known : kStrategies) {
    if (word == known.name) {
      strategy = known.strategy;
      return true;
    }
  }
  return false;
}

bool parse_task(const std::string& word, Task& task) {
  char colon[3] = {};
  std::istringstream fields(word);
  fields >> task.period_ns >> colon[0] >> task.wcet_ns >> colon[1] >> task.deadline_ns >>
      colon[2] >> task.band;
  return !fields.fail() && fields.peek() == std::char_traits<char>::eof() &&
         std::memcmp(colon, ":::", 3) == 0 && task.period_ns > 0 && task.wcet_ns > 0 &&
         task.deadline_ns >= task.wcet_ns && task.deadline_ns <= task.period_ns &&
         task.band >= kairos::kal::kLowestBand && task.band < kairos::kal::kHighestBand;
}

/// Parses one input line; false (with `error` set) when it is not a task set.
bool parse_set(const std::string& line, TaskSet& set, std::string& error) {
  std::istringstream words(line);
  std::string strategy;
  if (!(words >> set.name >> strategy) || !parse_strategy(strategy, set.strategy)) {
    error = "expected <name> <strategy> <tasks...>";
    return false;
  }
  std::string word;
  while (words >> word) {
    Task task;
    if (!parse_task(word, task)) {
      error = "bad task '" + word + "' (expected period:wcet:deadline:band, in ns)";
      return false;
    }
    set.tasks.push_back(task);
  }
  if (set.tasks.empty() || set.tasks.size() > kairos::Engine::kMaxSpms) {
    error = "a set needs 1 to " + std::to_string(kairos::Engine::kMaxSpms) + " tasks";
    return false;
  }
  return true;
}

void count_record(void* context, const kairos::SpmEntry&, const kairos::ActivationRecord& r) {
  auto& outcome = *static_cast<Outcome*>(context);
  ++outcome.records[r.spm];
  if (r.outcome != kairos::ActivationOutcome::kMet) {
    ++outcome.missed[r.spm];
  }
  if (r.ran()) {
    outcome.worst_response_ns[r.spm] =
        std::max(outcome.worst_response_ns[r.spm], r.finish_ns - r.release_ns);
  }
}

/// Methods do nothing themselves: the engine models their WCET on the virtual processor.
void no_work(void*) {}

int play(const TaskSet& set, Duration dispatch_ahead, bool release_table) {
  std::int64_t hyperperiod_ns = 1;
  for (const Task& task : set.tasks) {
    hyperperiod_ns = std::lcm(hyperperiod_ns, task.period_ns);
  }
  std::vector<std::string> names;
  std::vector<kairos::SpmEntry> entries;
  names.reserve(set.tasks.size());
  entries.reserve(set.tasks.size());
  // As a generated node with `os sim` configures it: WCETs modelled, the platform's dispatch.
  kairos::EngineOptions options{set.strategy, -1, /*model_execution_time=*/true};
  options.dispatch_ahead = dispatch_ahead;
  auto engine = std::make_unique<kairos::Engine>(options);
  std::vector<MissWatch> watches(set.tasks.size());
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    const Task& task = set.tasks[i];
    watches[i].deadline = Duration{task.deadline_ns};
    names.push_back("t" + std::to_string(i));
    entries.push_back(kairos::SpmEntry{
        set.name, names.back(), "taskset", Duration::zero(), kairos::kForever,
        Duration{task.period_ns}, Duration::zero(), watches[i].deadline, watches[i].deadline,
        Duration{task.wcet_ns}, kairos::Criticality::kHard, task.band});
    if (engine->add_spm(entries.back(), &watches[i], &no_work, &check_report) !=
        kairos::kal::Status::kOk) {
      std::fprintf(stderr, "%s: the engine refused task %zu\n", set.name.c_str(), i);
      return 1;
    }
  }
  // As a generated node does: the trigger walks the release table of one hyperperiod (every
  // window opening, in order) instead of deriving releases from each row.
  std::vector<kairos::ReleaseEntry> table;
  if (release_table) {
    for (std::size_t i = 0; i < set.tasks.size(); ++i) {
      for (std::int64_t open = 0; open < hyperperiod_ns; open += set.tasks[i].period_ns) {
        table.push_back(kairos::ReleaseEntry{Duration{open}, static_cast<std::uint16_t>(i)});
      }
    }
    std::sort(table.begin(), table.end(), [](const auto& a, const auto& b) {
      return a.open != b.open ? a.open < b.open : a.spm < b.spm;
    });
    if (engine->set_release_table(table, Duration{hyperperiod_ns}) != kairos::kal::Status::kOk) {
      std::fprintf(stderr, "%s: the engine refused the release table\n", set.name.c_str());
      return 1;
    }
  }
  Outcome outcome{std::vector<std::uint64_t>(set.tasks.size()),
                  std::vector<std::uint64_t>(set.tasks.size()),
                  std::vector<std::int64_t>(set.tasks.size(), -1)};
  if (const auto status = engine->run_for(Duration{hyperperiod_ns}, &count_record, &outcome);
      status != kairos::kal::Status::kOk) {
    std::fprintf(stderr, "%s: the engine did not run: %s\n", set.name.c_str(),
                 kairos::kal::to_string(status));
    return 1;
  }
  const kairos::EngineCounters counters = engine->counters();
  std::uint64_t records = 0;
  for (const std::uint64_t n : outcome.records) {
    records += n;
  }
  std::uint64_t late_reports = 0;
  for (const MissWatch& watch : watches) {
    late_reports += watch.late_reports;
  }
  std::printf(
      "%s hyperperiod_ns=%lld records=%llu deadline_misses=%llu window_misses=%llu overruns=%llu "
      "late_reports=%llu trace_drops=%llu missed=",
      set.name.c_str(), static_cast<long long>(hyperperiod_ns),
      static_cast<unsigned long long>(records),
      static_cast<unsigned long long>(counters.deadline_misses),
      static_cast<unsigned long long>(counters.start_window_misses),
      static_cast<unsigned long long>(counters.overruns),
      static_cast<unsigned long long>(late_reports),
      static_cast<unsigned long long>(counters.trace_drops));
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    std::printf("%s%llu", i == 0 ? "" : ",", static_cast<unsigned long long>(outcome.missed[i]));
  }
  std::printf(" worst_response_ns=");
  for (std::size_t i = 0; i < set.tasks.size(); ++i) {
    std::printf("%s%lld", i == 0 ? "" : ",", static_cast<long long>(outcome.worst_response_ns[i]));
  }
  std::printf("\n");
  return 0;
}

int usage() {
  std::fprintf(stderr,
               "usage: kairos_taskset_runner [--dispatch-ahead-ns N] [--release-table] [FILE]\n"
               "  plays each task set of FILE (or standard input) for one hyperperiod\n"
               "  --release-table: the trigger walks a release table, as generated nodes do\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  Duration dispatch_ahead{-1};  // the platform's default
  bool release_table = false;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--dispatch-ahead-ns") == 0 && i + 1 < argc) {
      char* end = nullptr;
      dispatch_ahead = Duration{std::strtoll(argv[++i], &end, 10)};
      if (end == argv[i] || *end != '\0') {
        return usage();
      }
    } else if (std::strcmp(argv[i], "--release-table") == 0) {
      release_table = true;
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return usage();
    } else if (path == nullptr) {
      path = argv[i];
    } else {
      return usage();
    }
  }
  std::ifstream file;
  if (path != nullptr) {
    file.open(path);
    if (!file) {
      std::fprintf(stderr, "kairos_taskset_runner: cannot read %s\n", path);
      return 2;
    }
  }
  std::istream& input = path != nullptr ? file : std::cin;
  std::string line;
  for (int number = 1; std::getline(input, line); ++number) {
    if (line.empty() || line[0] == '#') {
      continue;
    }
    TaskSet set;
    std::string error;
    if (!parse_set(line, set, error)) {
      std::fprintf(stderr, "%s:%d: %s\n", path != nullptr ? path : "<stdin>", number,
                   error.c_str());
      return 2;
    }
    if (const int failed = play(set, dispatch_ahead, release_table); failed != 0) {
      return failed;
    }
    std::fflush(stdout);
  }
  return 0;
}
