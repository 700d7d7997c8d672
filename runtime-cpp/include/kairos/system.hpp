// A distributed system in one process: the programs of several nodes (kairos/node.hpp), each on
// processors of its own, run together from one instant. On the sim platform this is how a whole
// system runs deterministically: its nodes call each other over the simulated network, in one
// virtual time. The generated `<System>.system.cpp` of a system whose nodes are `os sim` is its
// main.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/kal/clock.hpp>
#include <kairos/node.hpp>

namespace kairos {

/// The most nodes one process runs together: each needs a processor of its own at least, and a
/// simulated machine has eight.
inline constexpr std::size_t kMaxSystemNodes = 8;

struct SystemOptions {
  kal::Duration duration = std::chrono::seconds{10};
  bool quiet = false;  ///< no line per activation, only the summaries and gate lines
  /// `--seed`: where the simulated network's jitter generator starts (kal::sim::set_network).
  std::uint64_t seed = 1;
  /// `--timings <dir>`: an existing directory where each node writes its timings file,
  /// `<node>.timings.json` (kairos/timings_report.hpp), at the end of the run (nullptr: none).
  const char* timings_directory = nullptr;
};

/// Parses `--duration <time>`, `--seed <n>`, `--timings <dir>`, `--quiet` and `--help` for the
/// system program `system_name`. Problems are explained on stderr; the caller exits with 2 on
/// kUsageError.
NodeCommand parse_system_options(int argc, const char* const* argv, std::string_view system_name,
                                 SystemOptions& options) noexcept;

/// Runs `nodes` as one system in this process, in three steps: every node is set up (node k's
/// cores on the processors after those of nodes 0..k-1, provisioned here, and its ORB on the
/// processor of its core 0), then every node meets its peers, then all engines run from one
/// instant, each started from a thread of its own, for `options.duration`. Afterwards each node,
/// in order, stops its ORB and prints its summary and gate lines, and writes its timings file if
/// asked; activation lines (unless quiet) name their node. Returns the exit code: 0; 1 when a
/// node could not be set up or run, a timings file could not be written, or the nodes need more
/// processors than the machine has.
int run_system(std::string_view system_name, std::span<const NodeProgram* const> nodes,
               const SystemOptions& options) noexcept;

}  // namespace kairos
