// Segments: immediate priority-ceiling locks on fixed-priority lanes, and under preemptive EDF the
// Stack Resource Policy (Baker, 1991) with preemption levels by relative deadline, on threads the
// platform schedules by their jobs' deadlines.
#include <kairos/engine.hpp>

#include <algorithm>

#include "engine_state.hpp"

namespace kairos {

void Engine::reserve_for_deadline(Lane& lane, kal::Duration wcet,
                                  kal::Duration relative_deadline) noexcept {
  lane.by_deadline = true;
  lane.relative_deadline = relative_deadline;
  // The kernel needs runtime <= deadline <= period. The runtime covers the WCET plus the lane's
  // own work around each job (a quarter more and 50 us): a job that overruns that is throttled
  // until its next period, and misses its deadline rather than taking others' time. The period
  // is the deadline, not the method's period: the kernel throttles a thread with a constrained
  // deadline (deadline < period) that wakes after its deadline but before its next period
  // (dl_check_constrained_dl) until that period begins, so one late start would shift every
  // later job of the lane by as much for the rest of the run. With the period equal to the
  // deadline a job that wakes after the last one's deadline is replenished at once; the lane
  // reserves C/D of a processor instead of C/T.
  const kal::Duration deadline = std::max(relative_deadline, kal::Duration{1});
  const kal::Duration runtime = std::min(deadline, wcet + wcet / 4 + std::chrono::microseconds{50});
  lane.reservation = kal::DeadlineReservation{runtime, deadline, deadline};
}

void Engine::srp_enter(Lane& lane, std::uint64_t segments) noexcept {
  std::atomic<std::uint64_t>& held = state_->srp_held[lane.core];
  std::atomic<std::uint32_t>& waiting = state_->srp_waiting[lane.core];
  const std::uint32_t me = 1U << static_cast<std::uint32_t>(&lane - state_->lanes.data());
  auto admitted = [&](std::uint64_t held_now) {
    for (std::size_t k = 0; k < state_->segment_count; ++k) {
      if ((held_now >> k & 1U) != 0 && state_->srp_ceiling[k] <= lane.relative_deadline) {
        return false;
      }
    }
    return true;
  };
  for (;;) {
    std::uint64_t seen = held.load(std::memory_order_acquire);
    while (admitted(seen)) {
      if (held.compare_exchange_weak(seen, seen | segments, std::memory_order_acq_rel)) {
        return;
      }
    }
    // Blocked: say so, look again (a release between the two would not have woken it), then
    // wait for the next release on this core.
    waiting.fetch_or(me, std::memory_order_acq_rel);
    if (admitted(held.load(std::memory_order_acquire))) {
      waiting.fetch_and(~me, std::memory_order_acq_rel);
      continue;
    }
    lane.srp_turn.wait();
    waiting.fetch_and(~me, std::memory_order_acq_rel);
  }
}

void Engine::srp_exit(const Lane& lane, std::uint64_t segments) noexcept {
  state_->srp_held[lane.core].fetch_and(~segments, std::memory_order_acq_rel);
  // Wakes the waiting lanes most urgent job first (by deadline, then readiness, then lane): the
  // first woken may preempt this lane at once, and must be the one the scheduler would choose
  // from all of them.
  auto job_before = [](const Lane& a, const Lane& b) {
    const std::int64_t a_deadline = a.job_deadline_ns.load(std::memory_order_relaxed);
    const std::int64_t b_deadline = b.job_deadline_ns.load(std::memory_order_relaxed);
    if (a_deadline != b_deadline) {
      return a_deadline < b_deadline;
    }
    return a.job_ready_ns.load(std::memory_order_relaxed) <
           b.job_ready_ns.load(std::memory_order_relaxed);
  };
  std::uint32_t waiting = state_->srp_waiting[lane.core].load(std::memory_order_acquire);
  while (waiting != 0) {
    std::size_t first = state_->lane_count;
    for (std::size_t l = 0; l < state_->lane_count; ++l) {
      if ((waiting >> l & 1U) == 0) {
        continue;
      }
      if (first == state_->lane_count || job_before(state_->lanes[l], state_->lanes[first])) {
        first = l;
      }
    }
    if (first == state_->lane_count) {
      break;
    }
    waiting &= ~(1U << first);
    state_->lanes[first].srp_turn.set();
  }
}

void Engine::take_job(Lane& lane, kal::TimePoint deadline, kal::TimePoint ready) noexcept {
  lane.job_deadline_ns.store(deadline.time_since_epoch().count(), std::memory_order_relaxed);
  lane.job_ready_ns.store(ready.time_since_epoch().count(), std::memory_order_relaxed);
  lane.thread.set_job_deadline(deadline, ready);
}

kal::Status Engine::add_segment(const SegmentEntry& entry) noexcept {
  if (state_->segment_count == kMaxSegments) {
    return kal::Status::kCapacityExceeded;
  }
  const kal::Status status = state_->segment_locks[state_->segment_count].init(entry.ceiling);
  if (status == kal::Status::kOk) {
    ++state_->segment_count;
  }
  return status;
}

kal::Status Engine::move_ceilings_to_host_bands() noexcept {
  // Every user of a segment runs on its TMO's core: the ceiling takes the host band of that
  // core's CPU (the same band where the CPU has no host bands).
  auto core_of = [&](std::size_t segment) -> int {
    for (std::size_t i = 0; i < state_->binding_count; ++i) {
      if ((state_->bindings[i].entry->segments >> segment & 1U) != 0) {
        return state_->bindings[i].entry->core;
      }
    }
    for (std::size_t i = 0; i < state_->service_count; ++i) {
      if ((state_->services[i].entry->segments >> segment & 1U) != 0) {
        return state_->services[i].entry->core;
      }
    }
    return -1;
  };
  for (std::size_t k = 0; k < state_->segment_count; ++k) {
    const int core = core_of(k);
    if (core < 0) {
      continue;
    }
    kal::CeilingMutex& lock = state_->segment_locks[k];
    const kal::PriorityBand host =
        kal::host_band(state_->core_cpu[static_cast<std::size_t>(core)], lock.ceiling());
    if (host != lock.ceiling()) {
      // A ceiling left where it was would refuse the lanes above it: the run must not start.
      if (const kal::Status status = lock.move_ceiling(host); status != kal::Status::kOk) {
        kal::report(kal::Severity::kError, "engine",
                    "a segment's ceiling lock could not take its host band (--band-map)");
        return status;
      }
    }
  }
  return kal::Status::kOk;
}

void Engine::lock_segments(std::uint64_t segments) noexcept {
  // Always in ascending order, so that two methods can never wait for each other.
  for (std::size_t k = 0; k < state_->segment_count; ++k) {
    if ((segments >> k & 1U) != 0) {
      state_->segment_locks[k].lock();
    }
  }
}

void Engine::unlock_segments(std::uint64_t segments) noexcept {
  for (std::size_t k = state_->segment_count; k-- > 0;) {
    if ((segments >> k & 1U) != 0) {
      state_->segment_locks[k].unlock();
    }
  }
}

}  // namespace kairos
