// Host bands (kal/thread.hpp): the band each band of this process runs at on a CPU it shares with
// other nodes, as `kairos run` ranked them. Written once before any thread starts, read when one
// starts: no lock.
#include <array>
#include <cstdint>

#include <kairos/kal/thread.hpp>

namespace kairos::kal {

namespace {
// Linux's fixed CPU set size; a CPU beyond it is refused.
constexpr int kCpus = 1024;
constexpr int kBands = kHighestBand + 1;
constexpr std::uint8_t kUnmapped = 0xff;

struct HostBands {
  HostBands() noexcept {
    for (auto& cpu : bands) {
      cpu.fill(kUnmapped);
    }
  }
  std::array<std::array<std::uint8_t, kBands>, kCpus> bands;
};

HostBands& host_bands() noexcept {
  static HostBands table;
  return table;
}
}  // namespace

bool map_band(int cpu, PriorityBand band, PriorityBand host) noexcept {
  if (cpu < 0 || cpu >= kCpus || band < kLowestBand || band > kHighestBand || host < kLowestBand ||
      host > kHighestBand) {
    return false;
  }
  host_bands().bands[static_cast<std::size_t>(cpu)][static_cast<std::size_t>(band)] =
      static_cast<std::uint8_t>(host);
  return true;
}

PriorityBand host_band(int cpu, PriorityBand band) noexcept {
  if (cpu < 0 || cpu >= kCpus || band < kLowestBand || band > kHighestBand) {
    return band;
  }
  const std::uint8_t host =
      host_bands().bands[static_cast<std::size_t>(cpu)][static_cast<std::size_t>(band)];
  return host == kUnmapped ? band : static_cast<PriorityBand>(host);
}

}  // namespace kairos::kal
