#include <kairos/kal/error.hpp>

#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <ctime>

#include <kairos/mpmc_queue.hpp>

namespace kairos::kal {

namespace {
const char* severity_text(Severity severity) noexcept {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

void write_all(const char* text, std::size_t length) noexcept {
  while (length > 0) {
    const ssize_t written = ::write(STDERR_FILENO, text, length);
    if (written <= 0) {
      return;
    }
    text += written;
    length -= static_cast<std::size_t>(written);
  }
}

/// One line, formatted whole by its reporter: the drain only copies it out.
struct LogLine {
  std::array<char, 1024> text{};
  std::size_t length = 0;
};

/// Lines waiting for the drain: a burst this long is kept, beyond it lines are dropped.
constexpr std::size_t kQueuedLines = 128;
/// At most this many lines a second are queued; the rest are dropped (and counted), so that a
/// peer that provokes a report per frame cannot make the log the node's busiest work.
constexpr std::uint64_t kLinesPerSecond = 100;
/// How often the drain looks for lines, and how long it waits for a full stream each time.
constexpr long kDrainIntervalNs = 20'000'000;
/// How long flush_log waits for a full stream before it leaves the rest queued.
constexpr int kFlushWaitMs = 200;

MpmcQueue<LogLine, kQueuedLines> queued_lines;
std::atomic<bool> draining{false};
std::atomic<std::uint64_t> dropped{0};
std::atomic<std::int64_t> window_second{-1};
std::atomic<std::uint64_t> window_lines{0};
/// Serialises the drain thread and flush_log's caller, which never run on a real-time lane.
pthread_mutex_t drain_lock = PTHREAD_MUTEX_INITIALIZER;

std::int64_t monotonic_second() noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::int64_t>(now.tv_sec);
}

/// Whether one more line fits this second's allowance (a window per whole second).
bool within_rate() noexcept {
  const std::int64_t second = monotonic_second();
  std::int64_t seen = window_second.load(std::memory_order_relaxed);
  if (seen != second && window_second.compare_exchange_strong(seen, second)) {
    window_lines.store(0, std::memory_order_relaxed);
  }
  return window_lines.fetch_add(1, std::memory_order_relaxed) < kLinesPerSecond;
}

/// Whether the error stream takes a line within `timeout_ms` (a regular file always does; a pipe
/// nobody reads never does).
bool writable_within(int timeout_ms) noexcept {
  pollfd stream{STDERR_FILENO, POLLOUT, 0};
  return ::poll(&stream, 1, timeout_ms) == 1 && (stream.revents & POLLOUT) != 0;
}

/// The line the drain took but could not write yet (the stream was full); under drain_lock.
LogLine held_line;
bool holding = false;

/// Writes the queued lines while the stream takes them, waiting at most `wait_ms` for it each
/// time; a line it cannot write yet is held for the next turn. Under drain_lock.
void drain_queued(int wait_ms) noexcept {
  for (;;) {
    if (!holding) {
      if (!queued_lines.try_pop(held_line)) {
        return;
      }
      holding = true;
    }
    if (!writable_within(wait_ms)) {
      return;
    }
    // A stream with room takes a line of up to PIPE_BUF (4096 on Linux) bytes whole.
    write_all(held_line.text.data(), held_line.length);
    holding = false;
  }
}

void* drain_main(void*) noexcept {
  for (;;) {
    ::pthread_mutex_lock(&drain_lock);
    drain_queued(static_cast<int>(kDrainIntervalNs / 1'000'000));
    ::pthread_mutex_unlock(&drain_lock);
    const timespec interval{0, kDrainIntervalNs};
    ::nanosleep(&interval, nullptr);
  }
  return nullptr;
}
}  // namespace

void report(Severity severity, const char* component, const char* message) noexcept {
  if (!draining.load(std::memory_order_acquire)) {
    // Pieces are written separately: no buffer to size, no line cut short.
    for (const char* piece :
         {"kairos: ", severity_text(severity), ": ", component, ": ", message, "\n"}) {
      write_all(piece, std::strlen(piece));
    }
    return;
  }
  LogLine line;
  const int length = std::snprintf(line.text.data(), line.text.size(), "kairos: %s: %s: %s\n",
                                   severity_text(severity), component, message);
  if (length < 0) {
    return;
  }
  line.length = std::min(static_cast<std::size_t>(length), line.text.size() - 1);
  if (line.length == line.text.size() - 1) {
    line.text[line.length - 1] = '\n';  // cut short, still one line
  }
  if (!within_rate() || !queued_lines.try_push(line)) {
    dropped.fetch_add(1, std::memory_order_relaxed);
  }
}

bool start_log_drain() noexcept {
  bool expected = false;
  if (!draining.compare_exchange_strong(expected, true)) {
    return true;
  }
  pthread_attr_t attributes;
  ::pthread_attr_init(&attributes);
  ::pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  // Created by a thread at normal priority, it inherits that: it may block on the stream.
  ::pthread_attr_setinheritsched(&attributes, PTHREAD_EXPLICIT_SCHED);
  ::pthread_attr_setschedpolicy(&attributes, SCHED_OTHER);
  sched_param normal{};
  ::pthread_attr_setschedparam(&attributes, &normal);
  pthread_t thread{};
  const int error = ::pthread_create(&thread, &attributes, &drain_main, nullptr);
  ::pthread_attr_destroy(&attributes);
  if (error != 0) {
    draining.store(false, std::memory_order_release);
    report(Severity::kWarning, "log",
           "cannot start the log's drain thread; lines are written at once");
    return false;
  }
  ::pthread_setname_np(thread, "kairos-log");
  return true;
}

void flush_log() noexcept {
  if (!draining.load(std::memory_order_acquire)) {
    return;
  }
  ::pthread_mutex_lock(&drain_lock);
  drain_queued(kFlushWaitMs);
  ::pthread_mutex_unlock(&drain_lock);
}

std::uint64_t log_lines_dropped() noexcept {
  return dropped.load(std::memory_order_relaxed);
}

}  // namespace kairos::kal
