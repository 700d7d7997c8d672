#include "kernel.hpp"

#include <algorithm>
#include <cstdlib>
#include <vector>

#include <kairos/kal/error.hpp>

namespace kairos::kal::sim {

namespace detail {
std::atomic<std::int64_t> now_ns{0};
}

namespace {
std::mutex kernel_mutex;
SimThread main_thread;
SimThread* running = nullptr;
std::vector<SimThread*> threads;  // every live thread; grows only at thread start-up
std::uint64_t next_ready_order = 1;

std::vector<TraceEvent> trace;
std::size_t trace_capacity = 0;
std::size_t trace_drops = 0;
std::size_t preemption_count = 0;

void record(TraceKind kind, const SimThread* thread) {
  if (kind == TraceKind::kPreempt) {
    ++preemption_count;
  }
  if (trace.size() < trace_capacity) {
    TraceEvent event{detail::now_ns.load(), kind, {}};
    std::snprintf(event.thread.data(), event.thread.size(), "%s", thread->name);
    trace.push_back(event);
  } else if (trace_capacity > 0) {
    ++trace_drops;
  }
}

/// The most urgent ready thread: highest band, then earliest ready order.
SimThread* pick() {
  SimThread* best = nullptr;
  for (SimThread* t : threads) {
    if (t->state != State::kReady) {
      continue;
    }
    if (best == nullptr || t->band > best->band ||
        (t->band == best->band && t->ready_order < best->ready_order)) {
      best = t;
    }
  }
  return best;
}

/// The earliest virtual time at which a blocked thread's timed wait ends, or -1.
std::int64_t next_timeout() {
  std::int64_t earliest = -1;
  for (const SimThread* t : threads) {
    if (t->state == State::kBlocked && t->wake_at >= 0 && (earliest < 0 || t->wake_at < earliest)) {
      earliest = t->wake_at;
    }
  }
  return earliest;
}

/// Readies every thread whose timed wait ends at or before the current virtual time, in the
/// deterministic order of their registration.
void expire_timeouts() {
  const std::int64_t now = detail::now_ns.load();
  for (SimThread* t : threads) {
    if (t->state == State::kBlocked && t->wake_at >= 0 && t->wake_at <= now) {
      t->wake_at = -1;
      t->timed_out = true;
      if (t->waiting_on != nullptr) {
        t->waiting_on->waiter = nullptr;
        t->waiting_on = nullptr;
      }
      t->state = State::kReady;
      t->ready_order = next_ready_order++;
    }
  }
}

/// Hands the processor to the most urgent ready thread, advancing virtual time while nobody
/// is ready. Called by the running thread, which has already left the running state.
void dispatch() {
  SimThread* next = pick();
  while (next == nullptr) {
    const std::int64_t timeout = next_timeout();
    if (timeout < 0) {
      report(Severity::kError, "sim",
             "every simulated thread is blocked and no timer is pending: the program can never "
             "continue");
      std::abort();
    }
    detail::now_ns.store(std::max(timeout, detail::now_ns.load()));
    expire_timeouts();
    next = pick();
  }
  next->state = State::kRunning;
  running = next;
  record(TraceKind::kSwitchIn, next);
  next->turn.notify_one();
}

void wait_for_turn(std::unique_lock<std::mutex>& lock, SimThread* self) {
  self->turn.wait(lock, [self] { return running == self; });
}

/// After a thread became ready: if it outranks the running one, the running one is preempted.
void preempt_if_outranked(std::unique_lock<std::mutex>& lock, SimThread* self) {
  const SimThread* best = pick();
  if (best != nullptr && best->band > self->band) {
    self->state = State::kReady;
    // A preempted thread resumes before others of its band that became ready later.
    self->ready_order = 0;
    record(TraceKind::kPreempt, self);
    dispatch();
    wait_for_turn(lock, self);
  }
}
}  // namespace

std::unique_lock<std::mutex> enter() {
  return std::unique_lock<std::mutex>(kernel_mutex);
}

SimThread* current(std::unique_lock<std::mutex>& /*lock*/) {
  if (running == nullptr) {
    // The first thread to use the kernel is the program's main thread.
    main_thread.handle = pthread_self();
    main_thread.state = State::kRunning;
    threads.push_back(&main_thread);
    running = &main_thread;
  }
  return running;
}

void make_ready(std::unique_lock<std::mutex>& lock, SimThread* thread) {
  thread->state = State::kReady;
  thread->wake_at = -1;
  thread->ready_order = next_ready_order++;
  preempt_if_outranked(lock, current(lock));
}

void yield_to_more_urgent(std::unique_lock<std::mutex>& lock, SimThread* self) {
  preempt_if_outranked(lock, self);
}

void block(std::unique_lock<std::mutex>& lock, SimThread* self) {
  self->state = State::kBlocked;
  self->timed_out = false;
  record(TraceKind::kBlock, self);
  dispatch();
  wait_for_turn(lock, self);
}

void consume(std::unique_lock<std::mutex>& lock, SimThread* self, std::int64_t duration) {
  std::int64_t remaining = duration;
  while (remaining > 0) {
    const std::int64_t now = detail::now_ns.load();
    const std::int64_t timeout = next_timeout();
    if (timeout < 0 || now + remaining <= timeout) {
      detail::now_ns.store(now + remaining);
      return;
    }
    remaining -= timeout - now;
    detail::now_ns.store(timeout);
    expire_timeouts();
    preempt_if_outranked(lock, self);
  }
}

void admit(std::unique_lock<std::mutex>& lock, SimThread* thread) {
  current(lock);
  threads.push_back(thread);
  thread->state = State::kReady;
  thread->ready_order = next_ready_order++;
}

void wait_first_turn(SimThread* self) {
  auto lock = enter();
  wait_for_turn(lock, self);
}

void finish(SimThread* self) {
  auto lock = enter();
  self->state = State::kDone;
  record(TraceKind::kExit, self);
  if (self->joiner != nullptr) {
    SimThread* joiner = self->joiner;
    self->joiner = nullptr;
    joiner->state = State::kReady;
    joiner->ready_order = next_ready_order++;
  }
  threads.erase(std::find(threads.begin(), threads.end(), self));
  dispatch();
}

void join(std::unique_lock<std::mutex>& lock, SimThread* self, SimThread* target) {
  if (target->state != State::kDone) {
    target->joiner = self;
    block(lock, self);
  }
}

void start_trace(std::size_t capacity) {
  auto lock = enter();
  trace.clear();
  trace.reserve(capacity);
  trace_capacity = capacity;
  trace_drops = 0;
  preemption_count = 0;
}

std::size_t trace_size() noexcept {
  return trace.size();
}
std::size_t trace_dropped() noexcept {
  return trace_drops;
}
const TraceEvent& trace_event(std::size_t index) noexcept {
  return trace[index];
}
std::size_t preemptions() noexcept {
  return preemption_count;
}

namespace {
const char* kind_name(TraceKind kind) {
  switch (kind) {
    case TraceKind::kSwitchIn:
      return "switch-in";
    case TraceKind::kPreempt:
      return "preempt";
    case TraceKind::kBlock:
      return "block";
    case TraceKind::kExit:
      return "exit";
  }
  return "unknown";
}
}  // namespace

void write_trace_csv(std::FILE* out) {
  std::fprintf(out, "time_ns,event,thread\n");
  for (const TraceEvent& e : trace) {
    std::fprintf(out, "%lld,%s,%s\n", static_cast<long long>(e.time_ns), kind_name(e.kind),
                 e.thread.data());
  }
}

void write_trace_json(std::FILE* out) {
  std::fprintf(out, "[");
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceEvent& e = trace[i];
    std::fprintf(out, "%s\n  {\"time_ns\": %lld, \"event\": \"%s\", \"thread\": \"%s\"}",
                 i == 0 ? "" : ",", static_cast<long long>(e.time_ns), kind_name(e.kind),
                 e.thread.data());
  }
  std::fprintf(out, "\n]\n");
}

}  // namespace kairos::kal::sim
