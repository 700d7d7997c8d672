// What every generated node `main` shares: command-line options and the activation log.
#pragma once

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

/// ActivationObserver that prints one `activation ...` line per record on stdout.
void print_activation(void* context, const SpmEntry& entry, const ActivationRecord& record);

/// Prints the closing `summary ...` line on stdout.
void print_summary(std::string_view node_name, const EngineCounters& counters);

}  // namespace kairos
