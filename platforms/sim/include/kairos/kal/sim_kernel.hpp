// The simulation kernel behind platforms/sim: virtual time, virtual processors (one until
// kal::provision_processors asks for more), strict priority preemption between bands on each
// processor, FIFO within a band. A thread runs only on the processor of its affinity
// (ThreadAttributes::cpu; processor 0 without one). Everything here is deterministic: the same
// program gives the same virtual times and the same interleaving on every run.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>

namespace kairos::kal::sim {

namespace detail {
extern std::atomic<std::int64_t> now_ns;
}

/// The most virtual processors a simulated machine can have.
inline constexpr int kMaxProcessors = 8;

/// Virtual nanoseconds since the simulation began.
inline std::int64_t virtual_now_ns() noexcept {
  return detail::now_ns.load(std::memory_order_acquire);
}

/// What the kernel records about the processor, for traces.
enum class TraceKind : std::uint8_t {
  kSwitchIn,  ///< a thread got the processor
  kPreempt,   ///< a thread lost the processor to a more urgent one while still ready
  kBlock,     ///< a thread gave up the processor to wait
  kExit,      ///< a thread ended
};

struct TraceEvent {
  std::int64_t time_ns;
  TraceKind kind;
  /// The thread's name as given at start, copied: the trace outlives the threads (and whatever
  /// held their names).
  std::array<char, 24> thread;
  int processor;  ///< the virtual processor it happened on
};

/// Starts recording processor events (up to `capacity`, preallocated now); clears old ones.
void start_trace(std::size_t capacity);

/// Number of events recorded and dropped so far.
std::size_t trace_size() noexcept;
std::size_t trace_dropped() noexcept;
const TraceEvent& trace_event(std::size_t index) noexcept;

/// Writes the recorded events as CSV (`time_ns,event,thread`, plus `processor` when events of
/// more than processor 0 were recorded) or as a JSON array (with `processor` always).
void write_trace_csv(std::FILE* out);
void write_trace_json(std::FILE* out);

/// How many times threads were preempted since the trace started.
std::size_t preemptions() noexcept;

}  // namespace kairos::kal::sim
