// A node's measured method timings as a file: JSON written at the end of a run and whenever the
// process receives SIGUSR1 during it (docs/cli.md, "Method timings"). `kairos calibrate` reads it.
#pragma once

#include <cstdio>
#include <string_view>

#include <kairos/engine.hpp>

namespace kairos {

/// Writes what `engine` measured of every SpM and SvM row as the timings document: the node, then
/// per method its model line, declared WCET and deadline, execution and response times (count,
/// max, p99, p99.9, in nanoseconds) and its WCET overruns. `complete` says the run is over (false:
/// a snapshot taken during it). Not for real-time threads: it formats with stdio.
void write_timings_json(std::FILE* out, std::string_view node_name, const Engine& engine,
                        bool complete) noexcept;

/// Writes the document to `path` through a temporary file beside it, renamed over `path`, so that
/// a reader never sees half of one. False, after saying why (kal::report), when it cannot.
bool write_timings_file(const char* path, std::string_view node_name, const Engine& engine,
                        bool complete) noexcept;

}  // namespace kairos
