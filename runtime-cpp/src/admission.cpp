// Service requests: taken from any thread against their method's max-rate, queued for the time
// trigger, admitted under the basic concurrency constraint, or served at once on the thread that
// received them while their lane sleeps.
#include <kairos/engine.hpp>

#include <algorithm>
#include <optional>

#include "engine_internal.hpp"
#include "engine_state.hpp"
#include "time_trigger.hpp"

namespace kairos {

using namespace engine_internal;

std::optional<kal::TimePoint> Engine::accepting_now() const noexcept {
  if (!state_->accepting_requests.load(std::memory_order_acquire)) {
    return std::nullopt;
  }
  // Accepting from just before the epoch: a request may not come before the run begins
  // (it would be served before any release, with a negative arrival time).
  const kal::TimePoint now = kal::MonotonicClock::now();
  if (now < state_->epoch || !serving_at(now)) {
    return std::nullopt;
  }
  return now;
}

bool Engine::serving_at(kal::TimePoint now) const noexcept {
  return now < state_->serve_until &&
         now.time_since_epoch().count() < state_->stop_serving_at.load(std::memory_order_relaxed);
}

kal::Status Engine::request(std::size_t svm, void* request) noexcept {
  kal::Status status = kal::Status::kOk;
  const kal::TimePoint now = kal::MonotonicClock::now();
  if (svm >= state_->service_count || request == nullptr) {
    status = kal::Status::kInvalidArgument;
  } else if (state_->accepting_requests.load(std::memory_order_acquire)
                 ? !serving_at(now)
                 : state_->run_over.load(std::memory_order_acquire)) {
    status = kal::Status::kUnavailable;
  } else if (!state_->requests.try_push(Request{static_cast<std::uint16_t>(svm), request, now})) {
    // Before the epoch (or before run_for fixed it) the request waits in the queue: the trigger
    // takes requests in from the epoch on, as arrived then.
    status = kal::Status::kResourceExhausted;
  }
  if (status != kal::Status::kOk) {
    state_->requests_refused.fetch_add(1, std::memory_order_relaxed);
    return status;
  }
  state_->trigger_wakeup.set();
  return kal::Status::kOk;
}

kal::Status Engine::admit_arrival(std::size_t svm) noexcept {
  if (svm >= state_->service_count) {
    return kal::Status::kInvalidArgument;
  }
  // The budget admits exactly the streams with at most ceil((w + jitter) / interval) requests in
  // any window w, the ones the analysis counted.
  if (!state_->services[svm].max_rate.take(kal::MonotonicClock::now().time_since_epoch().count())) {
    state_->requests_over_rate.fetch_add(1, std::memory_order_relaxed);
    return kal::Status::kRateExceeded;
  }
  return kal::Status::kOk;
}

bool Engine::admissible(const ServiceBinding& service, kal::TimePoint now) const noexcept {
  // BCC, the rule kairos check analyses (SvmEntry): for every conflicting SpM, the earliest
  // start-window opening among its activations not yet finished is at least the slot from now.
  // The time trigger publishes a release's count before the next window, and this reads them
  // the other way round: a window it sees is never older than the count beside it.
  const std::uint64_t conflicts = service.entry->conflicts;
  const std::int64_t latest_opening = since(state_->epoch, now + service.entry->admission_slot);
  for (std::size_t i = 0; i < state_->binding_count; ++i) {
    if ((conflicts >> i & 1U) == 0) {
      continue;
    }
    const Binding& binding = state_->bindings[i];
    const SpmEntry& spm = *binding.entry;
    const std::int64_t next_window = binding.next_window_ns.load(std::memory_order_acquire);
    const std::uint64_t released = binding.released.load(std::memory_order_acquire);
    const std::uint64_t done = binding.done.load(std::memory_order_acquire);
    // Dispatched (maybe ahead of its window) and not finished: activation `done` is the oldest.
    const std::int64_t earliest_unfinished =
        done < released
            ? (spm.first_release + spm.period * static_cast<std::int64_t>(done) + spm.window_open)
                  .count()
            : next_window;
    if (earliest_unfinished < latest_opening) {
      return false;
    }
  }
  return true;
}

bool Engine::serve_here(std::size_t svm, void* request) noexcept {
  if (svm >= state_->service_count || request == nullptr) {
    return false;
  }
  ServiceBinding& service = state_->services[svm];
  Lane& lane = state_->lanes[service.lane];
  const LaneIdentity caller = current_lane();
  const int lane_cpu = state_->core_cpu[lane.core];
  // Under preemptive EDF only the lane's own thread carries the request's deadline.
  if (lane.by_deadline || caller.on_lane || caller.band != lane.band || caller.cpu != lane_cpu ||
      (lane_cpu < 0 && options_.cores > 1)) {
    return false;
  }
  const std::optional<kal::TimePoint> accepted = accepting_now();
  if (!accepted) {
    return false;
  }
  const kal::TimePoint now = *accepted;
  std::uint8_t idle = kLaneIdle;
  if (!lane.state.compare_exchange_strong(idle, kLaneLent, std::memory_order_acq_rel)) {
    return false;
  }
  // In order: only when every earlier request of this SvM is done does this one take the next
  // number (the time trigger numbers with fetch_add, so it cannot take the same one).
  std::uint64_t sequence = service.done.load(std::memory_order_acquire);
  if (!admissible(service, now) ||
      !service.arrived.compare_exchange_strong(sequence, sequence + 1, std::memory_order_acq_rel)) {
    give_back(lane);
    return false;
  }
  Activation activation{};
  activation.spm = static_cast<std::uint16_t>(svm);
  activation.service = true;
  activation.request = request;
  activation.sequence = sequence;
  activation.release = now;
  activation.dispatched = now;
  activation.due = now;
  // For the request's own length this thread is the lane: a gate the method calls goes out on
  // the lane's connection, which the sleeping lane is not using.
  set_current_lane(LaneIdentity{lane.core, lane.band, true, lane_cpu, lane.slot});
  serve_request(lane, activation);
  set_current_lane(caller);
  give_back(lane);
  state_->requests_served_at_once.fetch_add(1, std::memory_order_relaxed);
  return true;
}

void Engine::give_back(Lane& lane) noexcept {
  std::uint8_t lent = kLaneLent;
  if (!lane.state.compare_exchange_strong(lent, kLaneIdle, std::memory_order_acq_rel)) {
    // kWanted: the lane's thread woke while it was lent and waits for it; hand it over.
    lane.state.store(kLaneBusy, std::memory_order_release);
    lane.returned.set();
  }
}

void Engine::reclaim(Lane& lane) noexcept {
  for (;;) {
    std::uint8_t seen = kLaneIdle;
    if (lane.state.compare_exchange_strong(seen, kLaneBusy, std::memory_order_acq_rel)) {
      return;
    }
    if (seen == kLaneLent &&
        !lane.state.compare_exchange_strong(seen, kLaneWanted, std::memory_order_acq_rel)) {
      continue;  // given back meanwhile: take it as idle
    }
    while (lane.state.load(std::memory_order_acquire) != kLaneBusy) {
      lane.returned.wait();
    }
    return;
  }
}

bool Engine::still_serving(Trigger& trigger) noexcept {
  // No more releases: stop taking requests once the run is over (and the calls of activations
  // released before its end have been served: serve_after_end), and stop when every
  // admitted-or-waiting request has been handed on.
  if (state_->service_count == 0 || !serving_at(kal::MonotonicClock::now())) {
    state_->run_over.store(true, std::memory_order_release);
    state_->accepting_requests.store(false, std::memory_order_release);
    Request late{};
    while (trigger.pending_count < trigger.pending.size() && state_->requests.try_pop(late)) {
      trigger.pending[trigger.pending_count++] = late;
    }
  }
  return state_->accepting_requests.load(std::memory_order_acquire) || trigger.pending_count != 0 ||
         !trigger.gcts.empty();
}

void Engine::admit_requests(Trigger& trigger, kal::TimePoint now) noexcept {
  // Taken in: numbered and watched from arrival, the GCT counting from when the client asked, or
  // from the epoch for a request held until it.
  Request arrived{};
  while (now >= state_->epoch && trigger.pending_count < trigger.pending.size() &&
         !trigger.gcts.full() && state_->requests.try_pop(arrived)) {
    arrived.arrival = std::max(arrived.arrival, state_->epoch);
    ServiceBinding& service = state_->services[arrived.svm];
    arrived.sequence = service.arrived.fetch_add(1, std::memory_order_acq_rel);
    trigger.gcts.watch({arrived.svm, arrived.sequence, arrived.arrival});
    trigger.pending[trigger.pending_count++] = arrived;
  }
  // Admitted, in arrival order, each when BCC allows it and its lane has room.
  std::size_t kept = 0;
  for (std::size_t p = 0; p < trigger.pending_count; ++p) {
    const Request& waiting = trigger.pending[p];
    ServiceBinding& service = state_->services[waiting.svm];
    if (!admissible(service, now)) {
      trigger.pending[kept++] = waiting;
      continue;
    }
    Lane& lane = state_->lanes[service.lane];
    Activation activation{};
    activation.spm = waiting.svm;
    activation.service = true;
    activation.request = waiting.request;
    activation.arrival = trigger.arrivals++;
    activation.release = waiting.arrival;
    activation.dispatched = now;
    activation.due = now;
    activation.sequence = waiting.sequence;
    if (lane.inbox.try_push(activation)) {
      if (lane.by_deadline) {
        lane.thread.offer_job_deadline(deadline_of(activation), activation.due);
      }
      trigger.lanes_to_wake |= 1U << service.lane;
    } else {
      trigger.pending[kept++] = waiting;
    }
  }
  trigger.pending_count = kept;
}

}  // namespace kairos
