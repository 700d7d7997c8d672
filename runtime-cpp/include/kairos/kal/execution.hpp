// Kernel Adaptation Layer: execution time. How long code occupies its processor is real on a
// real platform and modelled on the simulated one; this is the one place where they meet.
#pragma once

#include <kairos/kal/clock.hpp>

namespace kairos::kal {

/// True on platforms whose clock is virtual: there, code takes no time unless it says so.
extern const bool kSimulatedTime;

/// The calling thread occupies its processor for `duration` (preemptible, like any code):
/// spins on a real platform, consumes virtual processor time on the simulated one. Tests and
/// benchmarks use it to give methods a known execution time.
void busy_for(Duration duration) noexcept;

/// The processor time the calling thread has consumed so far: its CPU time on a real platform
/// (CLOCK_THREAD_CPUTIME_ID on Linux), the virtual time it computed in busy_for on the simulated
/// one. The difference of two readings around a method's body is its execution time, without
/// the time it spent preempted or blocked.
Duration thread_cpu_time() noexcept;

}  // namespace kairos::kal
