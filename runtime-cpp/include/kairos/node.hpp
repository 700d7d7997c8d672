// What every generated node `main` shares: command-line options and the activation log.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include <kairos/engine.hpp>
#include <kairos/kal/clock.hpp>

namespace kairos {

struct NodeOptions {
  kal::Duration duration = std::chrono::seconds{10};
  bool quiet = false;  ///< no line per activation, only the summary
  int cpu = -1;        ///< pin the engine's threads to this CPU (-1: any)
};

enum class NodeCommand { kRun, kHelp, kUsageError };

/// Parses `--duration <time>` (e.g. 2s, 1500ms), `--cpu <n>`, `--quiet` and `--help`. Problems are
/// explained on stderr; the caller exits with 2 on kUsageError.
NodeCommand parse_node_options(int argc, const char* const* argv, std::string_view node_name,
                               NodeOptions& options) noexcept;

/// Parses a duration with a unit: ns, us, ms, s or min. False on any malformed text.
bool parse_duration(std::string_view text, kal::Duration& out) noexcept;

/// Longest line print_activation and print_summary write; longer ones are cut at this length.
inline constexpr std::size_t kLineCapacity = 1024;

/// Writes the `activation ...` line of one record, newline included, into `out` (cut to fit,
/// always terminated); returns its length. `window=` and `deadline=` follow from the outcome:
/// met/met, met/missed, missed/not-run (start window missed) or overrun/not-run.
std::size_t format_activation(std::span<char> out, const SpmEntry& entry,
                              const ActivationRecord& record) noexcept;

/// Writes the closing `summary ...` line into `out` as format_activation does. Its counts are
/// those of the lines: `activations` all of them, `start_window_misses` those with
/// `window=missed`, `overruns` those with `window=overrun`, `deadline_misses` those with
/// `deadline=missed`.
std::size_t format_summary(std::span<char> out, std::string_view node_name,
                           const EngineCounters& counters) noexcept;

/// ActivationObserver that prints one `activation ...` line per record on stdout.
void print_activation(void* context, const SpmEntry& entry, const ActivationRecord& record);

/// Prints the closing `summary ...` line on stdout.
void print_summary(std::string_view node_name, const EngineCounters& counters);

}  // namespace kairos
