// mt_cubit: the latency of one high-priority client while more and more low-priority clients call
// the same server, over the Kairos ORB (the MT-Cubit benchmark of the TAO papers). One 20 Hz
// client at a high band; N = 0, 1, 5, 10, 20, 50 clients at 10 Hz at a low band; each a thread
// of this process standing for its own lane (its own connection), at its band's priority. The
// server serves both bands: the high client's service method on the high band, the low clients'
// on the low band, each with its own reader and lane. The low clients release their calls a
// little before the high one, so that their requests are in the server when it calls. Printed
// per N: the high client's p50/p99/max round trip beside N = 0 (the same-run baseline).
//
//   kairos_bench_mt_cubit [--clients 0,1,5,10,20,50] [--seconds S] [--work-us W]
//                         [--stagger-us D] [--transport uds|tcp] [--cpu-client C] [--cpu-server C]
#include <unistd.h>

#include <cstdio>

#include "../stats.hpp"
#include "measure.hpp"
#include "priority_clients.hpp"
#include "process.hpp"

namespace {

constexpr int kHighBand = 40;
constexpr int kLowBand = 10;
constexpr double kHighHz = 20;
constexpr double kLowHz = 10;

void usage(std::FILE* to, const char* program) {
  std::fprintf(
      to,
      "usage: %s [--clients 0,1,5,10,20,50] [--seconds S] [--work-us W] "
      "[--stagger-us D]\n"
      "          [--transport uds|tcp] [--cpu-client C] [--cpu-server C]\n"
      "  --clients LIST   numbers of low-priority 10 Hz clients, one run each\n"
      "  --seconds S      length of each run (default 5)\n"
      "  --work-us W      servant's busy time per request (default 100)\n"
      "  --stagger-us D   the low clients release D us before the high one (default "
      "200)\n"
      "  --transport T    uds (default) or tcp\n"
      "  --json FILE      also write the results as JSON (bench/cubit_plot.py plots them)\n"
      "  --cpu-client C, --cpu-server C   pin each side (default: the first two CPUs "
      "this process may use; -1: unpinned)\n",
      program);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cubit::priority;
  RunOptions defaults;
  defaults.seconds = 5;
  defaults.work_us = 100;
  defaults.stagger_us = 200;
  ParsedArgs parsed;
  cubit::RunDirectory run_dir;
  if (const auto stop = prepare(argc, argv, defaults, true, &usage, parsed, run_dir)) {
    return *stop;
  }
  if (parsed.clients.empty()) {
    parsed.clients = {0, 1, 5, 10, 20, 50};
  }
  const RunOptions& options = parsed.options;
  std::printf(
      "mt_cubit: one %.0f Hz high-priority client (band %d) while N low-priority %.0f Hz clients "
      "(band %d) call one server over the Kairos ORB (%s), %.1f s per N\n",
      kHighHz, kHighBand, kLowHz, kLowBand, options.family == cubit::Family::kTcp ? "tcp" : "uds",
      options.seconds);
  std::printf(
      "servant work %d us per request; the low clients release %d us before the high one; "
      "client CPU %d, server CPU %d (-1: unpinned)\n",
      options.work_us, options.stagger_us, options.cpu_client, options.cpu_server);
  double load_before[3];
  cubit::read_load(load_before);
  std::printf("load average: %.2f %.2f %.2f\n", load_before[0], load_before[1], load_before[2]);
  std::fflush(stdout);
  struct Measured {
    int n;
    bench::Summary high;
    bench::Summary low;
  };
  std::vector<Measured> measured;

  std::printf("\n%4s %8s %9s %9s %10s %12s %10s %11s %11s\n", "N", "samples", "p50 us", "p99 us",
              "max us", "p99 / N=0", "low calls", "low p50 us", "low p99 us");
  double baseline_p99 = 0;
  double last_p99 = 0;
  int last_n = -1;
  std::uint64_t verified = 0;
  std::vector<std::string> errors;
  bool real_time = true;
  int serial = 0;
  for (const int n : parsed.clients) {
    std::vector<ClientClass> classes{
        {"high", kHighHz, kHighBand, 1, std::int64_t{options.stagger_us} * 1000}};
    if (n > 0) {
      classes.push_back({"low", kLowHz, kLowBand, n, 0});
    }
    const RunResult result = run(classes, options, run_dir.path(),
                                 std::to_string(getpid()) + "-" + std::to_string(serial++));
    if (!result.error.empty()) {
      errors.push_back("N=" + std::to_string(n) + ": " + result.error);
      continue;
    }
    real_time = real_time && result.real_time;
    for (std::size_t c = 0; c < result.classes.size(); ++c) {
      const ClassResult& r = result.classes[c];
      verified += r.latency.samples;
      if (r.failed + r.wrong > 0) {
        errors.push_back("N=" + std::to_string(n) + " " + classes[c].name + ": " +
                         std::to_string(r.failed) + " failed, " + std::to_string(r.wrong) +
                         " wrong replies (" + r.first_error + ")");
      }
    }
    const bench::Summary& high = result.classes[0].latency;
    if (n == 0) {
      baseline_p99 = high.p99_us;
    }
    last_p99 = high.p99_us;
    last_n = n;
    measured.push_back(
        {n, high, n > 0 ? result.classes[1].latency : bench::Summary{0, 0, 0, 0, 0}});
    std::printf("%4d %8zu %9.1f %9.1f %10.1f ", n, high.samples, high.p50_us, high.p99_us,
                high.max_us);
    if (baseline_p99 > 0) {
      std::printf("%11.2fx ", high.p99_us / baseline_p99);
    } else {
      std::printf("%12s ", "-");
    }
    if (n > 0) {
      const bench::Summary& low = result.classes[1].latency;
      std::printf("%10zu %11.1f %11.1f\n", low.samples, low.p50_us, low.p99_us);
    } else {
      std::printf("%10s %11s %11s\n", "-", "-", "-");
    }
    std::fflush(stdout);
  }
  std::printf("\nscheduling: %s\n", scheduling_note(real_time).c_str());
  double load_after[3];
  cubit::read_load(load_after);
  std::printf("load average: %.2f %.2f %.2f\n", load_after[0], load_after[1], load_after[2]);
  if (!parsed.json.empty()) {
    std::FILE* out = std::fopen(parsed.json.c_str(), "w");
    if (out == nullptr) {
      errors.push_back("cannot write " + parsed.json);
    } else {
      write_json_head(out, "mt_cubit", options, real_time, load_before, load_after, errors);
      for (std::size_t i = 0; i < measured.size(); ++i) {
        const Measured& m = measured[i];
        std::fprintf(out,
                     "    {\"n\": %d, \"high_hz\": %.0f, \"low_hz\": %.0f, \"samples\": %zu, "
                     "\"p50_us\": %.3f, \"p99_us\": %.3f, \"max_us\": %.3f, \"mean_us\": %.3f, "
                     "\"low_samples\": %zu, \"low_p50_us\": %.3f, \"low_p99_us\": %.3f}%s\n",
                     m.n, kHighHz, kLowHz, m.high.samples, m.high.p50_us, m.high.p99_us,
                     m.high.max_us, m.high.mean_us, m.low.samples, m.low.p50_us, m.low.p99_us,
                     i + 1 < measured.size() ? "," : "");
      }
      std::fprintf(out, "  ]\n}\n");
      std::fclose(out);
    }
  }
  if (baseline_p99 > 0 && last_n > 0) {
    const double growth = (last_p99 / baseline_p99 - 1) * 100;
    std::printf("high-priority p99 from N=0 to N=%d: %+.1f%% (target <= +10%%): %s\n", last_n,
                growth, growth <= 10 ? "met" : "missed");
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
