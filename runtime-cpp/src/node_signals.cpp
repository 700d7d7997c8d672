#include <kairos/node_signals.hpp>

#include <csignal>
#include <ctime>

#include <kairos/kal/error.hpp>
#include <kairos/timings_report.hpp>

namespace kairos {

namespace {
// Set by the handlers, taken by the watcher: the one thing a signal handler may safely do here.
std::atomic<bool> timings_wanted{false};
std::atomic<bool> stop_wanted{false};
static_assert(std::atomic<bool>::is_always_lock_free, "the signal handlers store flags");

extern "C" void on_timings_signal(int /*signal*/) {
  timings_wanted.store(true, std::memory_order_relaxed);
}

extern "C" void on_stop_signal(int signal) {
  if (stop_wanted.exchange(true, std::memory_order_relaxed)) {
    // Asked twice: the user will not wait for the clean end. The default action ends the process
    // (both calls are async-signal-safe; this thread is the one that takes the signal).
    std::signal(signal, SIG_DFL);
    std::raise(signal);
  }
}

// How often the watcher looks at the flags when no signal wakes it; a signal interrupts its
// sleep, so this bounds only how long stop() waits and how soon a held stop reaches a new engine.
constexpr long kWatchPollNs = 50'000'000;

/// SIGINT and SIGTERM, and SIGUSR1 when there is a timings file to write (without one it keeps
/// its default action).
sigset_t node_signals(bool timings) noexcept {
  sigset_t signals{};
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  if (timings) {
    sigaddset(&signals, SIGUSR1);
  }
  return signals;
}

void install(int signal, void (*handler)(int)) noexcept {
  struct sigaction action {};
  action.sa_handler = handler;
  sigemptyset(&action.sa_mask);
  sigaction(signal, &action, nullptr);  // no SA_RESTART: a signal cuts the watcher's sleep
}
}  // namespace

void NodeSignals::start(Engine* (*engine)() noexcept, const char* node_name,
                        const char* timings) noexcept {
  if (started_) {
    return;
  }
  engine_ = engine;
  node_name_ = node_name;
  timings_ = timings;
  stopping_.store(false);
  timings_wanted.store(false);
  stop_wanted.store(false);
  const sigset_t signals = node_signals(timings_ != nullptr);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  if (timings_ != nullptr) {
    install(SIGUSR1, &on_timings_signal);
  }
  install(SIGINT, &on_stop_signal);
  install(SIGTERM, &on_stop_signal);
  started_ = pthread_create(&watcher_, nullptr, &NodeSignals::watcher_main, this) == 0;
  if (!started_) {
    pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
    install(SIGINT, SIG_DFL);
    install(SIGTERM, SIG_DFL);
    kal::report(kal::Severity::kWarning, node_name_,
                "no thread to watch signals: SIGINT and SIGTERM end the process at once, and "
                "timings are written at the end only");
    if (timings_ != nullptr) {
      install(SIGUSR1, SIG_IGN);
    }
  }
}

void NodeSignals::stop() noexcept {
  if (!started_) {
    return;
  }
  stopping_.store(true, std::memory_order_release);
  pthread_join(watcher_, nullptr);
  started_ = false;
  install(SIGINT, SIG_DFL);
  install(SIGTERM, SIG_DFL);
}

bool NodeSignals::stop_asked() const noexcept {
  return stop_wanted.load(std::memory_order_relaxed);
}

void* NodeSignals::watcher_main(void* self) noexcept {
  static_cast<NodeSignals*>(self)->watch();
  return nullptr;
}

void NodeSignals::watch() noexcept {
  // The one thread the signals reach: every other thread of the node blocks them.
  const sigset_t signals = node_signals(timings_ != nullptr);
  pthread_sigmask(SIG_UNBLOCK, &signals, nullptr);
  bool stop_delivered = false;
  for (;;) {
    stop_delivered = act(stop_delivered);
    if (stopping_.load(std::memory_order_acquire)) {
      return;
    }
    const timespec pause{0, kWatchPollNs};
    nanosleep(&pause, nullptr);  // EINTR when a signal comes: acted on at once
  }
}

bool NodeSignals::act(bool stop_delivered) noexcept {
  Engine* engine = engine_ != nullptr ? engine_() : nullptr;
  if (timings_wanted.exchange(false, std::memory_order_relaxed) && engine != nullptr &&
      timings_ != nullptr) {
    write_timings_file(timings_, node_name_, *engine, false);
  }
  if (!stop_delivered && stop_wanted.load(std::memory_order_relaxed) && engine != nullptr) {
    engine->request_stop();
    return true;
  }
  return stop_delivered;
}

}  // namespace kairos
