// Internal interface of the simulation kernel, shared by kernel.cpp and kal.cpp.
#pragma once

#include <pthread.h>
#include <condition_variable>
#include <cstdint>
#include <mutex>

#include <kairos/kal/native_event.hpp>
#include <kairos/kal/sim_kernel.hpp>

namespace kairos::kal::sim {

enum class State : std::uint8_t { kReady, kRunning, kBlocked, kDone };

struct SimThread {
  const char* name = "main";
  int band = -1;      ///< the adopted main thread sits below every band
  int processor = 0;  ///< the virtual processor it runs on (its affinity; 0 without one)
  State state = State::kReady;
  std::uint64_t ready_order = 0;  ///< FIFO position within a band
  /// Scheduled by deadline within its band (a kal::DeadlineReservation): such threads of one band
  /// run earliest absolute deadline first, and a strictly earlier one preempts.
  bool by_deadline = false;
  std::int64_t absolute_deadline = 0;  ///< virtual ns; its job's (INT64_MAX: no job)
  std::int64_t job_ready_since = 0;    ///< virtual ns; when its job became ready
  std::condition_variable turn;
  std::int64_t wake_at = -1;  ///< virtual time of a timed wait, or -1
  bool timed_out = false;
  /// While running inside busy_for: the virtual time its work is done, or -1. A running thread
  /// without it needs its pthread to execute at the current virtual time.
  std::int64_t busy_until = -1;
  std::int64_t busy_left = 0;  ///< work still to do when it was preempted inside busy_for
  NativeEvent* waiting_on = nullptr;
  NativeEvent* woken_by = nullptr;  ///< which event's set() readied this thread
  SimThread* joiner = nullptr;
  pthread_t handle{};
  void (*entry)(void*) noexcept = nullptr;
  void* context = nullptr;
};

/// The kernel lock: held by the executing thread while it is inside the kernel.
std::unique_lock<std::mutex> enter();

/// The executing thread (adopting the caller as the main thread on first use).
SimThread* current(std::unique_lock<std::mutex>& lock);

/// Virtual processors the simulated machine has now (1 until provisioned).
int processor_count() noexcept;

/// Grows the machine to `count` processors (never shrinks it); false beyond kMaxProcessors.
bool provision(std::unique_lock<std::mutex>& lock, int count);

/// Makes `thread` ready; it takes its processor at once if that is idle or runs a less urgent
/// thread (which may be the caller: then the caller waits for its turn again).
void make_ready(std::unique_lock<std::mutex>& lock, SimThread* thread);

/// After the caller's band dropped (or its deadline moved later): hands its processor to a more
/// urgent ready thread.
void yield_to_more_urgent(std::unique_lock<std::mutex>& lock, SimThread* self);

/// The caller, scheduled by deadline, takes a job ready since `ready_since` and due at `deadline`
/// (virtual ns; INT64_MAX for none): it competes for its processor as a ready job not yet started,
/// and goes on only if it is the most urgent.
void take_job(std::unique_lock<std::mutex>& lock, SimThread* self, std::int64_t deadline,
              std::int64_t ready_since);

/// A job is offered to `thread`, scheduled by deadline, before it is woken: a thread without a
/// job competes as that job from now on (not yet started); one with a job keeps it. The caller
/// yields if `thread` now outranks it.
void offer_job(std::unique_lock<std::mutex>& lock, SimThread* thread, std::int64_t deadline,
               std::int64_t ready_since);

/// Blocks the caller (its state already set up) until the kernel hands it the processor again.
void block(std::unique_lock<std::mutex>& lock, SimThread* self);

/// Consumes `duration` of virtual processor time on the caller's processor, preemptibly.
void consume(std::unique_lock<std::mutex>& lock, SimThread* self, std::int64_t duration);

/// Registers a new thread (ready); its pthread waits for its first turn in `wait_first_turn`.
void admit(std::unique_lock<std::mutex>& lock, SimThread* thread);
void wait_first_turn(SimThread* self);

/// Ends the calling thread: wakes its joiner and hands the processor on.
void finish(SimThread* self);

/// Waits until `target` has finished.
void join(std::unique_lock<std::mutex>& lock, SimThread* self, SimThread* target);

}  // namespace kairos::kal::sim
