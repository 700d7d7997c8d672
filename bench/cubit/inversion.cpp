// inversion: clients at 20, 10, 5 and 1 Hz with matching priorities (rate-monotonic: the faster,
// the more urgent; four bands) call one server over the Kairos ORB. The less urgent clients
// release their calls first, a few microseconds apart, so that every request of a less urgent
// client is already in the server when a more urgent one arrives: a server that served in
// arrival order would answer the 1 Hz client first. With priority lanes the latencies must form
// a staircase: the higher the rate, the lower the latency. The same-run baseline is the 20 Hz
// client calling alone.
//
//   kairos_bench_inversion [--seconds S] [--work-us W] [--stagger-us D] [--transport uds|tcp]
//                          [--cpu-client C] [--cpu-server C]
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "../stats.hpp"
#include "measure.hpp"
#include "priority_clients.hpp"
#include "process.hpp"

namespace {

struct Rate {
  const char* name;
  double hz;
  int band;
};
// Most urgent first.
constexpr Rate kRates[] = {{"20 Hz", 20, 40}, {"10 Hz", 10, 30}, {"5 Hz", 5, 20}, {"1 Hz", 1, 10}};
constexpr int kRateCount = 4;

void usage(std::FILE* to, const char* program) {
  std::fprintf(
      to,
      "usage: %s [--seconds S] [--work-us W] [--stagger-us D] [--transport uds|tcp]\n"
      "          [--cpu-client C] [--cpu-server C]\n"
      "  --seconds S      length of the run (default 10; the 1 Hz client calls S times)\n"
      "  --work-us W      servant's busy time per request (default 200)\n"
      "  --stagger-us D   each less urgent client releases D us earlier (default 20)\n"
      "  --transport T    uds (default) or tcp\n"
      "  --json FILE      also write the results as JSON (bench/cubit_plot.py plots them)\n"
      "  --cpu-client C, --cpu-server C   pin each side (default: the first two CPUs "
      "this process may use; -1: unpinned)\n",
      program);
}

bool report(const char* what, const cubit::priority::RunResult& result,
            const std::vector<cubit::priority::ClientClass>& classes,
            std::vector<std::string>& errors, std::uint64_t& verified) {
  if (!result.error.empty()) {
    errors.push_back(std::string(what) + ": " + result.error);
    return false;
  }
  for (std::size_t c = 0; c < result.classes.size(); ++c) {
    const auto& r = result.classes[c];
    verified += r.latency.samples;
    if (r.failed + r.wrong > 0) {
      errors.push_back(std::string(what) + " " + classes[c].name + ": " + std::to_string(r.failed) +
                       " failed, " + std::to_string(r.wrong) + " wrong replies (" + r.first_error +
                       ")");
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cubit::priority;
  RunOptions defaults;
  defaults.seconds = 10;
  defaults.work_us = 200;
  defaults.stagger_us = 20;
  ParsedArgs parsed;
  cubit::RunDirectory run_dir;
  if (const auto stop = prepare(argc, argv, defaults, false, &usage, parsed, run_dir)) {
    return *stop;
  }
  const RunOptions& options = parsed.options;
  std::printf(
      "inversion: clients at 20/10/5/1 Hz on bands 40/30/20/10 call one server over the Kairos "
      "ORB (%s) for %.1f s\n",
      options.family == cubit::Family::kTcp ? "tcp" : "uds", options.seconds);
  std::printf(
      "servant work %d us per request; each less urgent client releases %d us before the next "
      "more urgent one; client CPU %d, server CPU %d (-1: unpinned)\n",
      options.work_us, options.stagger_us, options.cpu_client, options.cpu_server);
  double load_before[3];
  cubit::read_load(load_before);
  std::printf("load average: %.2f %.2f %.2f\n", load_before[0], load_before[1], load_before[2]);
  std::fflush(stdout);

  std::vector<std::string> errors;
  std::uint64_t verified = 0;
  const std::string token = std::to_string(getpid());

  // Baseline: the most urgent client alone.
  RunOptions alone = options;
  alone.seconds = std::min(options.seconds, 2.0);
  const std::vector<ClientClass> solo{{kRates[0].name, kRates[0].hz, kRates[0].band, 1, 0}};
  const RunResult baseline = run(solo, alone, run_dir.path(), token + "-0");
  report("baseline", baseline, solo, errors, verified);

  std::vector<ClientClass> classes;
  for (int i = 0; i < kRateCount; ++i) {
    classes.push_back({kRates[i].name, kRates[i].hz, kRates[i].band, 1,
                       std::int64_t{kRateCount - 1 - i} * options.stagger_us * 1000});
  }
  const RunResult result = run(classes, options, run_dir.path(), token + "-1");
  const bool measured = report("run", result, classes, errors, verified);

  std::printf("\n%-28s %5s %8s %9s %9s %10s %9s\n", "client", "band", "samples", "p50 us", "p99 us",
              "max us", "mean us");
  if (baseline.error.empty()) {
    const auto& s = baseline.classes[0].latency;
    std::printf("%-28s %5d %8zu %9.1f %9.1f %10.1f %9.1f\n", "baseline: 20 Hz alone",
                kRates[0].band, s.samples, s.p50_us, s.p99_us, s.max_us, s.mean_us);
  }
  bool staircase = measured;
  for (int i = 0; measured && i < kRateCount; ++i) {
    const auto& s = result.classes[static_cast<std::size_t>(i)].latency;
    std::printf("%-28s %5d %8zu %9.1f %9.1f %10.1f %9.1f\n", kRates[i].name, kRates[i].band,
                s.samples, s.p50_us, s.p99_us, s.max_us, s.mean_us);
    if (i > 0 && !(s.p50_us > result.classes[static_cast<std::size_t>(i - 1)].latency.p50_us)) {
      staircase = false;
    }
  }
  std::printf("\nscheduling: %s\n", scheduling_note(result.real_time).c_str());
  double load_after[3];
  cubit::read_load(load_after);
  std::printf("load average: %.2f %.2f %.2f\n", load_after[0], load_after[1], load_after[2]);
  if (!parsed.json.empty()) {
    std::FILE* out = std::fopen(parsed.json.c_str(), "w");
    if (out == nullptr) {
      errors.push_back("cannot write " + parsed.json);
    } else {
      write_json_head(out, "inversion", options, result.real_time, load_before, load_after, errors);
      auto row = [&](const char* client, const Rate& rate, const bench::Summary& s, bool last) {
        std::fprintf(out,
                     "    {\"client\": %s, \"hz\": %.0f, \"band\": %d, \"samples\": %zu, "
                     "\"p50_us\": %.3f, \"p99_us\": %.3f, \"max_us\": %.3f, \"mean_us\": %.3f}%s\n",
                     json_string(client).c_str(), rate.hz, rate.band, s.samples, s.p50_us, s.p99_us,
                     s.max_us, s.mean_us, last ? "" : ",");
      };
      const bool have_baseline = baseline.error.empty() && !baseline.classes.empty();
      if (have_baseline) {
        row("baseline: 20 Hz alone", kRates[0], baseline.classes[0].latency, !measured);
      }
      for (int i = 0; measured && i < kRateCount; ++i) {
        row(kRates[i].name, kRates[i], result.classes[static_cast<std::size_t>(i)].latency,
            i + 1 == kRateCount);
      }
      std::fprintf(out, "  ],\n  \"staircase\": %s\n}\n", staircase ? "true" : "false");
      std::fclose(out);
    }
  }
  if (measured) {
    std::printf("staircase: %s (p50 %s as the rate rises: 1 Hz > 5 Hz > 10 Hz > 20 Hz)\n",
                staircase ? "yes" : "no", staircase ? "falls" : "does not fall");
  }
  for (const auto& e : errors) {
    std::printf("ERROR: %s\n", e.c_str());
  }
  if (errors.empty()) {
    std::printf("verified: %llu replies were the cubes of their requests\n",
                static_cast<unsigned long long>(verified));
  }
  return errors.empty() ? 0 : 1;
}
