#include "kernel.hpp"

#include <algorithm>
#include <array>
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
SimThread* active = nullptr;                       // the one thread whose pthread executes now
std::array<SimThread*, kMaxProcessors> running{};  // per virtual processor, or nullptr: idle
std::atomic<int> processors{1};
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
    TraceEvent event{detail::now_ns.load(), kind, {}, thread->processor};
    std::snprintf(event.thread.data(), event.thread.size(), "%s", thread->name);
    trace.push_back(event);
  } else if (trace_capacity > 0) {
    ++trace_drops;
  }
}

/// Whether `a` takes the processor from `b`: a higher band, or in the same band, both scheduled by
/// deadline, a strictly earlier absolute deadline (on a tie the holder keeps it).
bool outranks(const SimThread* a, const SimThread* b) {
  if (a->band != b->band) {
    return a->band > b->band;
  }
  return a->by_deadline && b->by_deadline && a->absolute_deadline < b->absolute_deadline;
}

/// Whether ready thread `a` goes before ready thread `b`: the higher band; in a band, threads
/// scheduled by deadline by their jobs' earliest absolute deadline, then a preempted (started)
/// job first, then the job ready first, then the thread registered first; others first in, first
/// out (a preempted thread has ready order 0: it resumes first).
bool goes_before(const SimThread* a, const SimThread* b) {
  if (a->band != b->band) {
    return a->band > b->band;
  }
  if (a->by_deadline && b->by_deadline) {
    if (a->absolute_deadline != b->absolute_deadline) {
      return a->absolute_deadline < b->absolute_deadline;
    }
    if ((a->ready_order == 0) != (b->ready_order == 0)) {
      return a->ready_order == 0;
    }
    return a->job_ready_since < b->job_ready_since;
  }
  return a->ready_order < b->ready_order;
}

/// The most urgent ready thread of processor `processor` (goes_before; `threads` is in
/// registration order, so the first registered wins what goes_before leaves tied).
SimThread* pick(int processor) {
  SimThread* best = nullptr;
  for (SimThread* t : threads) {
    if (t->state != State::kReady || t->processor != processor) {
      continue;
    }
    if (best == nullptr || goes_before(t, best)) {
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

/// Readies every thread (or only those scheduled by deadline) whose timed wait ends at or before
/// the current virtual time, in the deterministic order of their registration.
void expire_timeouts(bool deadline_threads_only = false) {
  const std::int64_t now = detail::now_ns.load();
  for (SimThread* t : threads) {
    if (deadline_threads_only && !t->by_deadline) {
      continue;
    }
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

/// Gives `thread` processor `processor`; one preempted inside busy_for goes on computing.
void start_on(int processor, SimThread* thread) {
  thread->state = State::kRunning;
  running[static_cast<std::size_t>(processor)] = thread;
  if (thread->busy_left > 0) {
    thread->busy_until = detail::now_ns.load() + thread->busy_left;
    thread->busy_left = 0;
  }
  record(TraceKind::kSwitchIn, thread);
}

/// Takes its processor from a running thread that a more urgent one outranks.
void preempt(SimThread* thread) {
  running[static_cast<std::size_t>(thread->processor)] = nullptr;
  thread->state = State::kReady;
  // A preempted thread resumes before others of its band that became ready later.
  thread->ready_order = 0;
  if (thread->busy_until >= 0) {
    thread->busy_left = thread->busy_until - detail::now_ns.load();
    thread->busy_until = -1;
  }
  record(TraceKind::kPreempt, thread);
}

/// Gives every processor its most urgent thread: an idle one takes its best ready thread, and
/// a running thread that a ready one of its processor outranks is preempted. Processors never
/// take threads from each other.
void settle() {
  const int count = processors.load();
  for (int p = 0; p < count; ++p) {
    SimThread* best = pick(p);
    if (best == nullptr) {
      continue;
    }
    SimThread* holder = running[static_cast<std::size_t>(p)];
    if (holder == nullptr) {
      start_on(p, best);
    } else if (outranks(best, holder)) {
      preempt(holder);
      start_on(p, best);
    }
  }
}

/// Chooses the next thread to execute, called by the one that stops executing (it blocked,
/// ended, was preempted or computes inside busy_for). Running threads that need to execute at
/// the current virtual time go first, lowest processor first; when every running thread
/// computes, virtual time advances to the next event: the end of a computation (first, on a
/// tie) or of a timed wait.
void reschedule() {
  for (;;) {
    settle();
    const int count = processors.load();
    for (int p = 0; p < count; ++p) {
      SimThread* t = running[static_cast<std::size_t>(p)];
      if (t != nullptr && t->busy_until < 0) {
        active = t;
        t->turn.notify_one();
        return;
      }
    }
    std::int64_t busy = -1;
    for (int p = 0; p < count; ++p) {
      const SimThread* t = running[static_cast<std::size_t>(p)];
      if (t != nullptr && (busy < 0 || t->busy_until < busy)) {
        busy = t->busy_until;
      }
    }
    const std::int64_t timeout = next_timeout();
    if (busy >= 0 && (timeout < 0 || busy <= timeout)) {
      detail::now_ns.store(busy);
      for (int p = 0; p < count; ++p) {
        SimThread* t = running[static_cast<std::size_t>(p)];
        if (t != nullptr && t->busy_until == busy) {
          t->busy_until = -1;
        }
      }
    } else if (timeout >= 0) {
      detail::now_ns.store(std::max(timeout, detail::now_ns.load()));
      expire_timeouts();
    } else {
      report(Severity::kError, "sim",
             "every simulated thread is blocked and no timer is pending: the program can never "
             "continue");
      std::abort();
    }
  }
}

void wait_for_turn(std::unique_lock<std::mutex>& lock, SimThread* self) {
  self->turn.wait(lock, [self] { return active == self; });
}

/// After threads became ready: the caller waits for its turn again if it lost its processor.
void settle_then_continue(std::unique_lock<std::mutex>& lock, SimThread* self) {
  settle();
  if (self->state != State::kRunning) {
    reschedule();
    wait_for_turn(lock, self);
  }
}
}  // namespace

std::unique_lock<std::mutex> enter() {
  return std::unique_lock<std::mutex>(kernel_mutex);
}

SimThread* current(std::unique_lock<std::mutex>& /*lock*/) {
  if (active == nullptr) {
    // The first thread to use the kernel is the program's main thread, on processor 0.
    main_thread.handle = pthread_self();
    main_thread.state = State::kRunning;
    threads.push_back(&main_thread);
    running[0] = &main_thread;
    active = &main_thread;
  }
  return active;
}

int processor_count() noexcept {
  return processors.load();
}

bool provision(std::unique_lock<std::mutex>& /*lock*/, int count) {
  if (count < 1 || count > kMaxProcessors) {
    return false;
  }
  processors.store(std::max(count, processors.load()));
  return true;
}

void make_ready(std::unique_lock<std::mutex>& lock, SimThread* thread) {
  SimThread* self = current(lock);
  thread->state = State::kReady;
  thread->wake_at = -1;
  thread->ready_order = next_ready_order++;
  settle_then_continue(lock, self);
}

void yield_to_more_urgent(std::unique_lock<std::mutex>& lock, SimThread* self) {
  settle_then_continue(lock, self);
}

void take_job(std::unique_lock<std::mutex>& lock, SimThread* self, std::int64_t deadline,
              std::int64_t ready_since) {
  self->absolute_deadline = deadline;
  self->job_ready_since = ready_since;
  // A choice made now includes the jobs that become ready now: those of other threads scheduled
  // by deadline whose timed wait for a start window ends now. (Other timed waits ending now, the
  // time trigger's, still come after the computations that end now.)
  expire_timeouts(/*deadline_threads_only=*/true);
  // Not started yet: it steps back among the ready threads and is picked again only if no ready
  // job goes before its own.
  running[static_cast<std::size_t>(self->processor)] = nullptr;
  self->state = State::kReady;
  self->ready_order = next_ready_order++;
  settle_then_continue(lock, self);
}

void offer_job(std::unique_lock<std::mutex>& lock, SimThread* thread, std::int64_t deadline,
               std::int64_t ready_since) {
  SimThread* self = current(lock);
  if (thread->absolute_deadline == INT64_MAX) {
    thread->absolute_deadline = deadline;
    thread->job_ready_since = ready_since;
    if (thread->state == State::kReady) {
      thread->ready_order = next_ready_order++;  // preempted while it had no job: not started
    }
  }
  settle_then_continue(lock, self);
}

void block(std::unique_lock<std::mutex>& lock, SimThread* self) {
  self->state = State::kBlocked;
  self->timed_out = false;
  running[static_cast<std::size_t>(self->processor)] = nullptr;
  record(TraceKind::kBlock, self);
  reschedule();
  wait_for_turn(lock, self);
}

void consume(std::unique_lock<std::mutex>& lock, SimThread* self, std::int64_t duration) {
  if (duration <= 0) {
    return;
  }
  // Still running, but computing: the kernel hands the turn back when the work is done, which
  // takes longer if more urgent threads of its processor preempt it meanwhile.
  self->busy_until = detail::now_ns.load() + duration;
  reschedule();
  wait_for_turn(lock, self);
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
  running[static_cast<std::size_t>(self->processor)] = nullptr;
  record(TraceKind::kExit, self);
  if (self->joiner != nullptr) {
    SimThread* joiner = self->joiner;
    self->joiner = nullptr;
    joiner->state = State::kReady;
    joiner->ready_order = next_ready_order++;
  }
  threads.erase(std::find(threads.begin(), threads.end(), self));
  reschedule();
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
  // The processor column appears when the trace has more than one processor to tell apart.
  const bool processor_column =
      std::any_of(trace.begin(), trace.end(), [](const TraceEvent& e) { return e.processor != 0; });
  std::fprintf(out,
               processor_column ? "time_ns,event,thread,processor\n" : "time_ns,event,thread\n");
  for (const TraceEvent& e : trace) {
    std::fprintf(out, "%lld,%s,%s", static_cast<long long>(e.time_ns), kind_name(e.kind),
                 e.thread.data());
    if (processor_column) {
      std::fprintf(out, ",%d", e.processor);
    }
    std::fprintf(out, "\n");
  }
}

void write_trace_json(std::FILE* out) {
  std::fprintf(out, "[");
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const TraceEvent& e = trace[i];
    std::fprintf(out,
                 "%s\n  {\"time_ns\": %lld, \"event\": \"%s\", \"thread\": \"%s\", "
                 "\"processor\": %d}",
                 i == 0 ? "" : ",", static_cast<long long>(e.time_ns), kind_name(e.kind),
                 e.thread.data(), e.processor);
  }
  std::fprintf(out, "\n]\n");
}

}  // namespace kairos::kal::sim
