// The KAL interfaces on the simulation kernel.
#include <kairos/kal/clock.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/kal/memory.hpp>
#include <kairos/kal/mutex.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/kal/timer.hpp>

#include <algorithm>
#include <cstdlib>

#include <new>

#include "kernel.hpp"

namespace kairos::kal {

// ---------------------------------------------------------------- time

void sleep_until(TimePoint deadline) noexcept {
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  const std::int64_t wake = to_nanoseconds(deadline);
  if (wake <= sim::virtual_now_ns()) {
    return;
  }
  self->wake_at = wake;
  sim::block(lock, self);
}

Duration clock_precision() noexcept {
  return Duration{1};
}

// ---------------------------------------------------------------- execution

const bool kSimulatedTime = true;

namespace {
// What the calling thread has computed in busy_for: code takes no virtual time otherwise, so this
// is its modelled processor time (preempted or not, a computation consumes all of its duration).
thread_local std::int64_t computed_ns = 0;
}  // namespace

void busy_for(Duration duration) noexcept {
  {
    auto lock = sim::enter();
    sim::consume(lock, sim::current(lock), duration.count());
  }
  computed_ns += std::max<std::int64_t>(duration.count(), 0);
}

Duration thread_cpu_time() noexcept {
  return Duration{computed_ns};
}

// ---------------------------------------------------------------- memory

Status lock_memory() noexcept {
  return Status::kOk;
}

MemoryRegion::~MemoryRegion() {
  std::free(data_);
}

Status MemoryRegion::reserve(std::size_t bytes) noexcept {
  if (data_ != nullptr || bytes == 0) {
    return Status::kInvalidArgument;
  }
  data_ = std::calloc(1, bytes);
  if (data_ == nullptr) {
    return Status::kResourceExhausted;
  }
  size_ = bytes;
  return Status::kOk;
}

// ---------------------------------------------------------------- ceiling locks

CeilingMutex::~CeilingMutex() = default;

Status CeilingMutex::init(PriorityBand ceiling) noexcept {
  ceiling_ = ceiling;
  return Status::kOk;
}

Status CeilingMutex::move_ceiling(PriorityBand ceiling) noexcept {
  ceiling_ = ceiling;
  return Status::kOk;
}

void CeilingMutex::lock() noexcept {
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  if (native_.depth > 0 && native_.owner->processor != self->processor) {
    // Raising the band keeps a lock free only on one processor; Kairos keeps every user of an
    // ODS segment on one core, so this is a broken binding, not a wait.
    report(Severity::kError, "sim", "a ceiling lock was taken on two virtual processors at once");
    std::abort();
  }
  if (native_.depth++ == 0) {
    native_.owner = self;
    native_.saved_band = self->band;
    if (ceiling_ > self->band) {
      self->band = ceiling_;
    }
  }
}

void CeilingMutex::unlock() noexcept {
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  if (--native_.depth == 0) {
    native_.owner = nullptr;
    self->band = native_.saved_band;
    sim::yield_to_more_urgent(lock, self);
  }
}

// ---------------------------------------------------------------- timers

Timer::~Timer() = default;

Status Timer::arm(TimePoint first, Duration period) noexcept {
  if (period < Duration::zero()) {
    return Status::kInvalidArgument;
  }
  native_ = NativeTimer{to_nanoseconds(first), period.count(), true};
  return Status::kOk;
}

void Timer::disarm() noexcept {
  native_.armed = false;
}

std::uint64_t Timer::wait() noexcept {
  if (!native_.armed) {
    return 0;
  }
  sleep_until(TimePoint{Duration{native_.next_ns}});
  const std::int64_t now = sim::virtual_now_ns();
  if (native_.period_ns == 0) {
    native_.armed = false;
    return 1;
  }
  const auto expirations =
      static_cast<std::uint64_t>(1 + (now - native_.next_ns) / native_.period_ns);
  native_.next_ns += static_cast<std::int64_t>(expirations) * native_.period_ns;
  return expirations;
}

// ---------------------------------------------------------------- communication
// Sockets and the poller live in network.cpp: a simulated network in virtual time.

// ---------------------------------------------------------------- threads

Thread::~Thread() {
  join();
  delete native_.thread;
}

void* Thread::run(void* self) noexcept {
  auto* thread = static_cast<Thread*>(self);
  sim::wait_first_turn(thread->native_.thread);
  thread->entry_(thread->context_);
  sim::finish(thread->native_.thread);
  return nullptr;
}

Status Thread::start(const ThreadAttributes& attributes, Entry entry, void* context) noexcept {
  if (started_ || entry == nullptr) {
    return Status::kInvalidArgument;
  }
  entry_ = entry;
  context_ = context;
  delete native_.thread;
  native_.thread = new (std::nothrow) sim::SimThread;
  if (native_.thread == nullptr) {
    return Status::kResourceExhausted;
  }
  native_.thread->name = attributes.name;
  native_.thread->band = attributes.band;
  native_.thread->by_deadline = attributes.reservation.runtime > Duration::zero();
  native_.thread->absolute_deadline = INT64_MAX;  // no job yet
  native_.thread->processor = attributes.cpu < 0 ? 0 : attributes.cpu;

  auto lock = sim::enter();
  if (attributes.cpu >= sim::processor_count()) {
    return Status::kInvalidArgument;  // no such virtual processor
  }
  sim::admit(lock, native_.thread);
  if (pthread_create(&native_.thread->handle, nullptr, &Thread::run, this) != 0) {
    return Status::kResourceExhausted;
  }
  started_ = true;
  // The new thread may outrank its creator.
  sim::make_ready(lock, native_.thread);
  return Status::kOk;
}

void Thread::join() noexcept {
  if (!started_) {
    return;
  }
  {
    auto lock = sim::enter();
    sim::join(lock, sim::current(lock), native_.thread);
  }
  pthread_join(native_.thread->handle, nullptr);
  started_ = false;
}

void Thread::set_job_deadline(TimePoint deadline, TimePoint ready_since) noexcept {
  if (!started_) {
    return;
  }
  auto lock = sim::enter();
  sim::take_job(lock, sim::current(lock), to_nanoseconds(deadline), to_nanoseconds(ready_since));
}

void Thread::offer_job_deadline(TimePoint deadline, TimePoint ready_since) noexcept {
  if (!started_) {
    return;
  }
  auto lock = sim::enter();
  sim::offer_job(lock, native_.thread, to_nanoseconds(deadline), to_nanoseconds(ready_since));
}

SchedulingMode scheduling_mode() noexcept {
  return SchedulingMode::kSimulated;
}

void run_as_band(PriorityBand /*band*/, int /*cpu*/, void (*entry)(void* context) noexcept,
                 void* context) noexcept {
  entry(context);  // no library starts threads of its own on the simulated platform
}

bool deadline_scheduling_granted() noexcept {
  return true;  // the simulation kernel schedules by deadline exactly
}

bool deadline_threads_pinned() noexcept {
  return true;  // every thread runs on its virtual processor
}

bool cpu_available(int cpu) noexcept {
  return cpu >= 0 && cpu < sim::processor_count();
}

int available_cpu_count() noexcept {
  return sim::processor_count();
}

Status provision_processors(int count) noexcept {
  if (count < 1) {
    return Status::kInvalidArgument;
  }
  auto lock = sim::enter();
  return sim::provision(lock, count) ? Status::kOk : Status::kCapacityExceeded;
}

// ---------------------------------------------------------------- events

void Event::set() noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (native_.waiter != nullptr && native_.waiter->state != sim::State::kBlocked) {
    // Its waiter was already woken (by another event of a wait_any, or a timeout).
    native_.waiter = nullptr;
  }
  if (native_.waiter != nullptr) {
    sim::SimThread* waiter = native_.waiter;
    native_.waiter = nullptr;
    waiter->waiting_on = nullptr;
    waiter->woken_by = &native_;
    // A manual-reset event stays set for later waiters; an auto-reset one went to this one.
    native_.set = mode_ == ResetMode::kManual;
    sim::make_ready(lock, waiter);
  } else {
    native_.set = true;
  }
}

void Event::reset() noexcept {
  auto lock = sim::enter();
  native_.set = false;
}

void Event::wait() noexcept {
  wait_until(TimePoint::max());
}

bool Event::wait_until(TimePoint deadline) noexcept {
  Event* self_event = this;
  return wait_any(std::span<Event* const>(&self_event, 1), deadline) == 0;
}

int wait_any(std::span<Event* const> events, TimePoint deadline) noexcept {
  if (events.empty() || events.size() > kMaxWaitAny) {
    return -1;
  }
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i]->native_.set) {
      if (events[i]->mode_ == ResetMode::kAuto) {
        events[i]->native_.set = false;
      }
      return static_cast<int>(i);
    }
  }
  if (deadline != TimePoint::max()) {
    if (to_nanoseconds(deadline) <= sim::virtual_now_ns()) {
      return -1;
    }
    self->wake_at = to_nanoseconds(deadline);
  }
  // The simulated event has one waiter slot: the waiting thread takes it on every event.
  for (Event* event : events) {
    event->native_.waiter = self;
  }
  self->woken_by = nullptr;
  sim::block(lock, self);
  int woken = -1;
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (events[i]->native_.waiter == self) {
      events[i]->native_.waiter = nullptr;
    }
    if (&events[i]->native_ == self->woken_by) {
      woken = static_cast<int>(i);
    }
  }
  return self->timed_out && woken < 0 ? -1 : woken;
}

}  // namespace kairos::kal
