// The time trigger: one thread at the node's top band that releases every SpM activation from the
// release cursor onto its lane ahead of its start window, watches deadlines and GCTs, and admits
// service requests under the basic concurrency constraint, in that order each time it wakes.
#include "time_trigger.hpp"

#include <algorithm>

#include <kairos/kal/clock.hpp>

#include "engine_internal.hpp"

namespace kairos {

using namespace engine_internal;

void Engine::time_trigger_main(void* self) noexcept {
  static_cast<Engine*>(self)->release_all();
}

void Engine::release_all() noexcept {
  state_->start_gate.wait();
  if (state_->abandoned.load(std::memory_order_acquire)) {
    state_->releases_done.store(true, std::memory_order_release);
    return;
  }
  Trigger trigger{*this};
  // Asked before the run: none of it.
  trigger.take_stop(*state_, kal::MonotonicClock::now(), options_.serve_after_end);
  for (std::size_t i = 0; i < state_->binding_count; ++i) {
    publish_release_state(i, 0, trigger.cursor.next_opening(i));
  }
  warm_up(next_wake(trigger));
  for (;;) {
    const kal::TimePoint wake = next_wake(trigger);
    wake_lanes(trigger);
    const bool releasing = wake != kNever;
    if (!releasing && !still_serving(trigger)) {
      break;
    }
    if (state_->service_count == 0) {
      kal::sleep_until(wake);
    } else {
      // Service requests and completions of conflicting SpMs wake the trigger early.
      state_->trigger_wakeup.wait_until(
          releasing ? wake : kal::MonotonicClock::now() + kTracePollInterval);
    }
    const kal::TimePoint now = kal::MonotonicClock::now();
    const bool was_stopping = trigger.stopping;
    trigger.take_stop(*state_, now, options_.serve_after_end);
    if (trigger.stopping && !was_stopping) {
      // Nothing is released from here on: a request waiting for BCC admission must not wait for
      // a conflicting SpM's next window, which will never come (it would keep the run going).
      for (std::size_t i = 0; i < state_->binding_count; ++i) {
        publish_release_state(i, trigger.cursor.released(i), trigger.cursor.next_opening(i));
      }
    }
    // Deadlines first: an activation still running at its deadline has missed it, and nobody
    // else may notice (its lane is busy running it). Then requests, then new releases.
    pass_watches(trigger, now);
    admit_requests(trigger, now);
    trigger.cursor.release_through(
        now + state_->dispatch_ahead,
        [&](std::size_t spm, std::uint64_t sequence, kal::TimePoint release) {
          dispatch_release(trigger, spm, sequence, release, now);
        });
  }
  state_->releases_done.store(true, std::memory_order_release);
}

void Engine::warm_up(kal::TimePoint first) noexcept {
  // Nodes started together wait seconds for their common epoch (set-up, meeting the peers), and
  // a virtual machine's host deschedules a vCPU idle that long: its first wake-up came 1.0-1.5 ms
  // late on a busy host (a wake-up after a period of the model's, 50-400 us), and so did every
  // node's first activation. Woken every millisecond for the last 20 ms, each CPU of the node
  // comes to the first release from an idle as short as a period's.
  if (kal::kSimulatedTime || first == kNever) {
    return;
  }
  for (kal::TimePoint tick = std::max(kal::MonotonicClock::now(), first - kWarmUp) + kWarmUpTick;
       tick + kWarmUpTick <= first && !state_->stop_requested.load(std::memory_order_acquire);
       tick += kWarmUpTick) {
    kal::sleep_until(tick);
    for (std::size_t l = 0; l < state_->lane_count; ++l) {
      state_->lanes[l].wakeup.set();  // it finds nothing to do, and sleeps again
    }
  }
}

kal::TimePoint Engine::next_wake(Trigger& trigger) noexcept {
  // The next start-window opening (less the dispatch lead), deadline or GCT to watch.
  kal::TimePoint wake = kNever;
  if (const kal::TimePoint opening = trigger.cursor.earliest_opening(); opening != kNever) {
    wake = opening - state_->dispatch_ahead;
  }
  wake = std::min({wake, trigger.deadlines.next_deadline(trigger.cursor), trigger.gcts.next_gct()});
  if (state_->service_count != 0 && kal::MonotonicClock::now() < state_->epoch) {
    wake = std::min(wake, state_->epoch);  // requests held before the epoch are taken in at it
  }
  return wake;
}

void Engine::wake_lanes(Trigger& trigger) noexcept {
  for (std::size_t l = 0; l < state_->lane_count; ++l) {
    if ((trigger.lanes_to_wake >> l & 1U) != 0) {
      state_->lanes[l].wakeup.set();
    }
  }
  trigger.lanes_to_wake = 0;
}

void Engine::dispatch_release(Trigger& trigger, std::size_t spm, std::uint64_t sequence,
                              kal::TimePoint release, kal::TimePoint now) noexcept {
  Binding& binding = state_->bindings[spm];
  Lane& lane = state_->lanes[binding.lane];
  Activation activation{};
  activation.spm = static_cast<std::uint16_t>(spm);
  activation.sequence = sequence;
  activation.arrival = trigger.arrivals++;
  activation.release = release;
  activation.dispatched = kal::MonotonicClock::now();
  activation.due = release + binding.entry->window_open;
  if (lane.inbox.try_push(activation)) {
    if (lane.by_deadline) {
      lane.thread.offer_job_deadline(deadline_of(activation), activation.due);
    }
    trigger.lanes_to_wake |= 1U << binding.lane;
  } else {
    // Dropped, and recorded as such here: it never reaches its lane, and its deadline is not
    // watched.
    ActivationRecord dropped{};
    dropped.spm = activation.spm;
    dropped.outcome = ActivationOutcome::kOverrun;
    dropped.sequence = sequence;
    dropped.release_ns = since(state_->epoch, release);
    dropped.dispatch_ns = since(state_->epoch, activation.dispatched);
    dropped.start_ns = dropped.dispatch_ns;
    dropped.finish_ns = dropped.dispatch_ns;
    record(state_->dropped_trace, dropped);
    report_miss(binding, sequence, MissKind::kOverrun, release, now);
    trigger.deadlines.dropped(spm, sequence);
  }
  publish_release_state(spm, trigger.cursor.released(spm), trigger.cursor.next_opening(spm));
}

void Engine::publish_release_state(std::size_t spm, std::uint64_t released,
                                   kal::TimePoint next_window) noexcept {
  Binding& binding = state_->bindings[spm];
  binding.released.store(released, std::memory_order_release);
  binding.next_window_ns.store(
      next_window == kNever ? kNoWindow : since(state_->epoch, next_window),
      std::memory_order_release);
}

}  // namespace kairos
