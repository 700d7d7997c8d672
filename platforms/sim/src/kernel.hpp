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
  int band = -1;  ///< the adopted main thread sits below every band
  State state = State::kReady;
  std::uint64_t ready_order = 0;  ///< FIFO position within a band
  std::condition_variable turn;
  std::int64_t wake_at = -1;  ///< virtual time of a timed wait, or -1
  bool timed_out = false;
  NativeEvent* waiting_on = nullptr;
  NativeEvent* woken_by = nullptr;  ///< which event's set() readied this thread
  SimThread* joiner = nullptr;
  pthread_t handle{};
  void (*entry)(void*) noexcept = nullptr;
  void* context = nullptr;
};

/// The kernel lock: held by the running thread while it is inside the kernel.
std::unique_lock<std::mutex> enter();

/// The running thread (adopting the caller as the main thread on first use).
SimThread* current(std::unique_lock<std::mutex>& lock);

/// Makes `thread` ready; preempts the caller if `thread` is more urgent.
void make_ready(std::unique_lock<std::mutex>& lock, SimThread* thread);

/// After the caller's band dropped: hands the processor to a more urgent ready thread.
void yield_to_more_urgent(std::unique_lock<std::mutex>& lock, SimThread* self);

/// Blocks the caller (its state already set up) until the kernel hands it the processor again.
void block(std::unique_lock<std::mutex>& lock, SimThread* self);

/// Consumes `duration` of virtual processor time on the caller, preemptibly.
void consume(std::unique_lock<std::mutex>& lock, SimThread* self, std::int64_t duration);

/// Registers a new thread (ready); its pthread waits for its first turn in `wait_first_turn`.
void admit(std::unique_lock<std::mutex>& lock, SimThread* thread);
void wait_first_turn(SimThread* self);

/// Ends the calling thread: wakes its joiner and hands the processor on.
void finish(SimThread* self);

/// Waits until `target` has finished.
void join(std::unique_lock<std::mutex>& lock, SimThread* self, SimThread* target);

}  // namespace kairos::kal::sim
