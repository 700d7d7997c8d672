// Small helpers shared by the benchmarks: percentiles and the machine's load.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace bench {

struct Summary {
  double p50_us;
  double p99_us;
  double max_us;
  double mean_us;
  std::size_t samples;
};

inline Summary summarize(std::vector<std::int64_t> ns) {
  if (ns.empty()) {
    return {0, 0, 0, 0, 0};
  }
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    const auto index = static_cast<std::size_t>(q * static_cast<double>(ns.size() - 1));
    return static_cast<double>(ns[index]) / 1000.0;
  };
  double sum = 0;
  for (auto v : ns) {
    sum += static_cast<double>(v);
  }
  return {at(0.50), at(0.99), static_cast<double>(ns.back()) / 1000.0,
          sum / static_cast<double>(ns.size()) / 1000.0, ns.size()};
}

inline void print(const char* what, const Summary& s) {
  std::printf("%-52s p50 %8.1f us  p99 %8.1f us  max %9.1f us  mean %8.1f us  (n=%zu)\n", what,
              s.p50_us, s.p99_us, s.max_us, s.mean_us, s.samples);
}

inline void print_load() {
  double load[3] = {0, 0, 0};
  if (std::FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3) {
      load[0] = load[1] = load[2] = -1;
    }
    std::fclose(f);
  }
  std::printf("load average: %.2f %.2f %.2f\n", load[0], load[1], load[2]);
}

}  // namespace bench
