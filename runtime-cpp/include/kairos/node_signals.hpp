// What a node's own process does with signals (docs/cli.md, "Stopping a node"): SIGINT and
// SIGTERM end its run at a clean point (Engine::request_stop), after which the node prints its
// summary and writes its timings as at the end of its duration; a second one ends the process at
// once. SIGUSR1 writes the timings file during the run.
#pragma once

#include <atomic>

#include <pthread.h>

#include <kairos/engine.hpp>

namespace kairos {

/// The signals of a node's process. The handlers only set flags; a thread of its own,
/// time-shared (never real-time) and the only one that takes these signals, acts on them. Start
/// it before any other thread exists (the node's engine and ORB): they inherit a signal mask that
/// keeps the signals away from them.
class NodeSignals {
 public:
  NodeSignals() = default;
  NodeSignals(const NodeSignals&) = delete;
  NodeSignals& operator=(const NodeSignals&) = delete;
  ~NodeSignals() { stop(); }

  /// Blocks SIGINT and SIGTERM (and SIGUSR1, with `timings`) in the calling thread and the threads
  /// it starts from now on, installs the handlers and starts the watcher. `engine` is asked for
  /// whenever a signal is to be acted on: nullptr (the node is not set up yet) holds a stop until
  /// there is one, and writes no timings. `timings` is the --timings file (nullptr: SIGUSR1 writes
  /// nothing).
  void start(Engine* (*engine)() noexcept, const char* node_name, const char* timings) noexcept;
  /// Ends the watcher (what a signal already asked for is done first) and gives SIGINT and
  /// SIGTERM back their default actions. Idempotent.
  void stop() noexcept;
  /// Whether SIGINT or SIGTERM came since start.
  bool stop_asked() const noexcept;

 private:
  static void* watcher_main(void* self) noexcept;
  void watch() noexcept;
  /// Does what the signals that came ask for; true once a stop has reached the engine.
  bool act(bool stop_delivered) noexcept;

  Engine* (*engine_)() noexcept = nullptr;
  const char* node_name_ = "";
  const char* timings_ = nullptr;
  std::atomic<bool> stopping_{false};
  pthread_t watcher_{};
  bool started_ = false;
};

}  // namespace kairos
