// The KAL interfaces on the simulation kernel.
#include <kairos/kal/clock.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/kal/memory.hpp>
#include <kairos/kal/thread.hpp>

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

void busy_for(Duration duration) noexcept {
  auto lock = sim::enter();
  sim::consume(lock, sim::current(lock), duration.count());
}

// ---------------------------------------------------------------- memory

Status lock_memory() noexcept {
  return Status::kOk;
}

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

  auto lock = sim::enter();
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

SchedulingMode scheduling_mode() noexcept {
  return SchedulingMode::kRealTime;
}

// ---------------------------------------------------------------- events

void Event::set() noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (native_.waiter != nullptr) {
    sim::SimThread* waiter = native_.waiter;
    native_.waiter = nullptr;
    waiter->waiting_on = nullptr;
    sim::make_ready(lock, waiter);
  } else {
    native_.set = true;
  }
}

void Event::wait() noexcept {
  wait_until(TimePoint::max());
}

bool Event::wait_until(TimePoint deadline) noexcept {
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  if (native_.set) {
    native_.set = false;
    return true;
  }
  if (deadline != TimePoint::max()) {
    if (to_nanoseconds(deadline) <= sim::virtual_now_ns()) {
      return false;
    }
    self->wake_at = to_nanoseconds(deadline);
  }
  native_.waiter = self;
  self->waiting_on = &native_;
  sim::block(lock, self);
  return !self->timed_out;
}

}  // namespace kairos::kal
