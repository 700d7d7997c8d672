// A node's measured method timings as a file: JSON written at the end of a run and whenever the
// process receives SIGUSR1 during it (docs/cli.md, "Method timings"). `kairos calibrate` reads it.
#pragma once

#include <atomic>
#include <cstdio>
#include <string_view>

#include <pthread.h>

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

/// Writes the timings file whenever the process receives SIGUSR1 while it runs. The signal's
/// handler only sets a flag; a thread of its own, time-shared (never real-time) and the only one
/// that takes the signal, writes the file. Start it before any other thread exists (the node's
/// engine and ORB): they inherit a signal mask that keeps SIGUSR1 away from them.
class TimingsOnSignal {
 public:
  TimingsOnSignal() = default;
  TimingsOnSignal(const TimingsOnSignal&) = delete;
  TimingsOnSignal& operator=(const TimingsOnSignal&) = delete;
  ~TimingsOnSignal() { stop(); }

  /// Blocks SIGUSR1 in the calling thread (and the threads it starts from now on), installs the
  /// handler and starts the writer. `engine` is asked for on each signal (nullptr: the node is not
  /// set up yet, and nothing is written).
  void start(const char* path, std::string_view node_name,
             const Engine* (*engine)() noexcept) noexcept;
  /// Ends the writer (a signal pending is written first). Idempotent.
  void stop() noexcept;

 private:
  static void* writer_main(void* self) noexcept;
  void serve() noexcept;

  const char* path_ = nullptr;
  std::string_view node_name_{};
  const Engine* (*engine_)() noexcept = nullptr;
  std::atomic<bool> stopping_{false};
  pthread_t writer_{};
  bool started_ = false;
};

}  // namespace kairos
