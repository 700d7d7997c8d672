#include <kairos/engine.hpp>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>

#include <kairos/kal/execution.hpp>
#include <kairos/kal/memory.hpp>

#include "engine_internal.hpp"
#include "engine_state.hpp"

namespace kairos {

namespace {
// The first release comes this long after every thread exists, so that waking them for the
// first time never makes it late.
constexpr kal::Duration kStartupLead = std::chrono::milliseconds{10};
// An activation reaches its lane before its start window opens, never at the same instant: a
// lane choosing at that instant (for good, in a non-preemptive band) must see it. On simulated
// time the trigger's zero-time run at that instant could otherwise come after the choice.
constexpr kal::Duration kMinimumDispatchAhead{1};
constexpr kal::Duration kDefaultDispatchAhead = std::chrono::microseconds{200};
/// While a thread runs a service request's handler (serve_request), whether execution times are
/// measured, and its CPU time when the reply began to leave (note_reply_sending; max(): not yet).
thread_local bool measuring_request = false;
thread_local kal::Duration reply_sending_cpu = kal::Duration::max();
}  // namespace

using namespace engine_internal;

// The state is made here, with the engine, before any row is added: nothing is allocated later.
Engine::Engine(EngineOptions options) : options_(options), state_(std::make_unique<State>()) {}

Engine::~Engine() = default;

std::size_t Engine::segment_count() const noexcept {
  return state_->segment_count;
}

void Engine::observe_services(ServiceObserver observer, void* context) noexcept {
  state_->service_observer = observer;
  state_->service_observer_context = context;
}

void Engine::start_no_earlier_than(kal::TimePoint earliest) noexcept {
  state_->earliest_epoch = earliest;
}

bool Engine::epoch_later_than_asked() const noexcept {
  return state_->earliest_epoch != kal::TimePoint::min() && state_->epoch > state_->earliest_epoch;
}

kal::TimePoint Engine::epoch() const noexcept {
  return state_->epoch;
}

std::size_t Engine::spm_count() const noexcept {
  return state_->binding_count;
}

const SpmEntry& Engine::spm(std::size_t row) const noexcept {
  return *state_->bindings[row].entry;
}

std::size_t Engine::svm_count() const noexcept {
  return state_->service_count;
}

const SvmEntry& Engine::svm(std::size_t row) const noexcept {
  return *state_->services[row].entry;
}

const MethodTimings& Engine::spm_timings(std::size_t row) const noexcept {
  return state_->spm_timings[row];
}

const MethodTimings& Engine::svm_timings(std::size_t row) const noexcept {
  return state_->svm_timings[row];
}

kal::Status Engine::add_spm(const SpmEntry& entry, void* servant, MethodInvoker invoke,
                            MissHandler on_miss) noexcept {
  if (state_->binding_count == kMaxSpms) {
    return kal::Status::kCapacityExceeded;
  }
  if (invoke == nullptr || entry.window_close < entry.window_open ||
      entry.period < kal::Duration::zero() || entry.deadline < entry.window_close ||
      (state_->segment_count < kMaxSegments && (entry.segments >> state_->segment_count) != 0) ||
      entry.core >= options_.cores ||
      shares_across_cores(entry.instance, entry.segments, entry.core)) {
    return kal::Status::kInvalidArgument;
  }
  Binding& binding = state_->bindings[state_->binding_count++];
  binding.entry = &entry;
  binding.servant = servant;
  binding.invoke = invoke;
  binding.on_miss = on_miss;
  return kal::Status::kOk;
}

kal::Status Engine::set_release_table(std::span<const ReleaseEntry> table,
                                      kal::Duration hyperperiod) noexcept {
  std::array<SpmEntry, kMaxSpms> rows{};
  for (std::size_t i = 0; i < state_->binding_count; ++i) {
    rows[i] = *state_->bindings[i].entry;
  }
  if (table.empty() ||
      !release_table_matches(std::span{rows.data(), state_->binding_count}, table, hyperperiod)) {
    return kal::Status::kInvalidArgument;
  }
  state_->release_table = table;
  state_->hyperperiod = hyperperiod;
  return kal::Status::kOk;
}

kal::Status Engine::add_lane_for(std::uint8_t core, kal::PriorityBand band, Criticality criticality,
                                 bool dedicated, std::size_t& lane) noexcept {
  lane = dedicated ? state_->lane_count : 0;
  while (lane < state_->lane_count &&
         (state_->lanes[lane].core != core || state_->lanes[lane].band != band)) {
    ++lane;
  }
  if (lane == state_->lane_count) {
    if (state_->lane_count == kMaxLanes) {
      return kal::Status::kCapacityExceeded;
    }
    std::uint8_t slot = 0;
    for (std::size_t other = 0; other < state_->lane_count; ++other) {
      slot += static_cast<std::uint8_t>(state_->lanes[other].core == core &&
                                        state_->lanes[other].band == band);
    }
    state_->lanes[lane].core = core;
    state_->lanes[lane].band = band;
    state_->lanes[lane].slot = slot;
    state_->lanes[lane].engine = this;
    state_->lanes[lane].discipline = discipline_for(options_.strategy, criticality);
    ++state_->lane_count;
  }
  return kal::Status::kOk;
}

kal::Status Engine::assign_lanes() noexcept {
  // Thread-per-priority on each core: one lane for every distinct (core, band), SpMs and SvMs
  // alike. Under preemptive EDF a lane per row of its band instead, each scheduled by its jobs'
  // deadlines.
  state_->srp_ceiling.fill(kal::Duration::max());
  auto raise_ceilings = [&](std::uint64_t segments, kal::Duration relative_deadline) {
    for (std::size_t k = 0; k < state_->segment_count; ++k) {
      if ((segments >> k & 1U) != 0) {
        state_->srp_ceiling[k] = std::min(state_->srp_ceiling[k], relative_deadline);
      }
    }
  };
  for (std::size_t i = 0; i < state_->binding_count; ++i) {
    const SpmEntry& entry = *state_->bindings[i].entry;
    const bool by_deadline = runs_by_deadline(options_.strategy, entry.band);
    if (const auto status = add_lane_for(entry.core, entry.band, entry.criticality, by_deadline,
                                         state_->bindings[i].lane);
        status != kal::Status::kOk) {
      return status;
    }
    if (by_deadline) {
      const kal::Duration relative_deadline = entry.deadline - entry.window_open;
      reserve_for_deadline(state_->lanes[state_->bindings[i].lane], entry.wcet, relative_deadline);
      raise_ceilings(entry.segments, relative_deadline);
    }
  }
  for (std::size_t i = 0; i < state_->service_count; ++i) {
    const SvmEntry& entry = *state_->services[i].entry;
    for (std::size_t k = 0; k < state_->binding_count; ++k) {
      if ((entry.conflicts >> k & 1U) != 0 && state_->bindings[k].entry->core != entry.core) {
        return kal::Status::kInvalidArgument;  // BCC admission holds within one core
      }
    }
    const bool by_deadline = runs_by_deadline(options_.strategy, entry.band);
    if (const auto status = add_lane_for(entry.core, entry.band, entry.criticality, by_deadline,
                                         state_->services[i].lane);
        status != kal::Status::kOk) {
      return status;
    }
    if (by_deadline) {
      // A request is due its GCT after it arrives.
      reserve_for_deadline(state_->lanes[state_->services[i].lane], entry.wcet, entry.gct);
      raise_ceilings(entry.segments, entry.gct);
    }
  }
  return kal::Status::kOk;
}

kal::TimePoint Engine::deadline_of(const Activation& activation) const noexcept {
  return activation.service ? activation.release + state_->services[activation.spm].entry->gct
                            : activation.release + state_->bindings[activation.spm].entry->deadline;
}

kal::Status Engine::add_svm(const SvmEntry& entry, void* servant, ServiceHandler handler,
                            MissHandler on_miss) noexcept {
  if (state_->service_count == kMaxSvms) {
    return kal::Status::kCapacityExceeded;
  }
  if (handler == nullptr || entry.gct < entry.wcet || entry.wcet <= kal::Duration::zero() ||
      entry.admission_slot <= kal::Duration::zero() || entry.core >= options_.cores ||
      shares_across_cores(entry.instance, entry.segments, entry.core)) {
    return kal::Status::kInvalidArgument;
  }
  ServiceBinding& service = state_->services[state_->service_count++];
  service.entry = &entry;
  service.servant = servant;
  service.handler = handler;
  service.on_miss = on_miss;
  service.max_rate.reset(entry.min_inter_arrival.count(), entry.arrival_jitter.count());
  return kal::Status::kOk;
}

kal::Status Engine::run_for(kal::Duration duration, ActivationObserver observer,
                            void* observer_context) noexcept {
  if (duration <= kal::Duration::zero()) {
    return kal::Status::kInvalidArgument;
  }
  // The rows first, then the machine: a node the engine cannot hold is refused alike everywhere.
  if (const kal::Status status = assign_lanes(); status != kal::Status::kOk) {
    return status;
  }
  if (const kal::Status status = place_cores(); status != kal::Status::kOk) {
    return status;
  }
  if (const kal::Status status = move_ceilings_to_host_bands(); status != kal::Status::kOk) {
    return status;
  }
  kal::lock_memory();  // a refusal is said once, and the node runs on
  state_->releases_done.store(false);
  state_->dispatch_ahead =
      std::max(kMinimumDispatchAhead,
               options_.dispatch_ahead >= kal::Duration::zero()
                   ? options_.dispatch_ahead
                   : (kal::kSimulatedTime ? kMinimumDispatchAhead : kDefaultDispatchAhead));

  kal::Status status = kal::Status::kOk;
  for (std::size_t i = 0; i < state_->lane_count && status == kal::Status::kOk; ++i) {
    Lane& lane = state_->lanes[i];
    std::snprintf(lane.name.data(), lane.name.size(), "kairos-lane%u",
                  static_cast<unsigned>(i & 0xFFU));  // kMaxLanes <= 32
    status = lane.thread.start({lane.name.data(), lane.band, state_->core_cpu[lane.core],
                                256 * 1024, options_.real_time, lane.reservation},
                               &Engine::lane_main, &lane);
  }
  if (status == kal::Status::kOk) {
    bool deadline_lanes = false;
    for (std::size_t i = 0; i < state_->lane_count; ++i) {
      deadline_lanes = deadline_lanes || state_->lanes[i].by_deadline;
    }
    // On Linux the trigger of deadline lanes must not rank below them (kHandoffReservation); on
    // sim it is the only thread of the highest band and runs first anyway.
    const kal::DeadlineReservation trigger_reservation = deadline_lanes && !kal::kSimulatedTime
                                                             ? kal::kHandoffReservation
                                                             : kal::DeadlineReservation{};
    status = state_->time_trigger.start({"kairos-trigger", kal::kHighestBand, state_->core_cpu[0],
                                         256 * 1024, options_.real_time, trigger_reservation},
                                        &Engine::time_trigger_main, this);
  }
  if (status == kal::Status::kOk) {
    // Every thread exists before the epoch is fixed: creating them never delays a release.
    state_->epoch = std::max(kal::MonotonicClock::now() + kStartupLead, state_->earliest_epoch);
    state_->end = state_->epoch + duration;
    state_->serve_until = state_->end + std::max(kal::Duration::zero(), options_.serve_after_end);
    state_->stop_serving_at.store(std::numeric_limits<kal::TimePoint::rep>::max(),
                                  std::memory_order_relaxed);
    state_->accepting_requests.store(true, std::memory_order_release);
  } else {
    state_->run_over.store(true, std::memory_order_release);
    state_->abandoned.store(true, std::memory_order_release);
  }
  state_->start_gate.set();

  if (status == kal::Status::kOk) {
    while (!state_->releases_done.load(std::memory_order_acquire)) {
      kal::sleep_until(kal::MonotonicClock::now() + kTracePollInterval);
      drain_traces(observer, observer_context);
    }
  }
  state_->time_trigger.join();
  for (std::size_t i = 0; i < state_->lane_count; ++i) {
    state_->lanes[i].stopping.store(true, std::memory_order_release);
    state_->lanes[i].wakeup.set();
    state_->lanes[i].thread.join();
  }
  drain_traces(observer, observer_context);
  return status;
}

void Engine::request_stop() noexcept {
  state_->stop_requested.store(true, std::memory_order_release);
  if (!kal::kSimulatedTime) {
    // A trigger waiting for requests takes the stop in at once. On sim the caller may be a
    // thread the simulated kernel does not schedule (a node's signal watcher), which must not
    // enter it; there the trigger takes the stop in when it next wakes, in simulated time.
    state_->trigger_wakeup.set();
  }
}

void Engine::serve_request(Lane& lane, const Activation& activation) noexcept {
  ServiceBinding& service = state_->services[activation.spm];
  ActivationRecord result{};
  result.spm = activation.spm;
  result.service = true;
  result.sequence = activation.sequence;
  result.release_ns = since(state_->epoch, activation.release);
  result.dispatch_ns = since(state_->epoch, activation.dispatched);
  if (lane.by_deadline) {
    srp_enter(lane, service.entry->segments);  // started once admitted under SRP
  }
  result.start_ns = since(state_->epoch, kal::MonotonicClock::now());
  if (!lane.by_deadline) {
    lock_segments(service.entry->segments);
  }
  const kal::Duration computed_before = cpu_time_if_measured();
  // The modelled computation comes before the handler, not after it as for an SpM: the handler
  // of a remote request sends its reply, which must leave once the method has computed.
  if (options_.model_execution_time) {
    kal::busy_for(service.entry->wcet);
  }
  measuring_request = options_.measure_execution_time;
  reply_sending_cpu = kal::Duration::max();
  service.handler(service.servant, activation.request);
  measuring_request = false;
  // Decided here unless the watchdog found the request past its GCT first; the clock is read
  // after the claim, as for SpMs, and before the locks go. The method's execution ends where its
  // reply began to leave (note_reply_sending), a handler that sends none at its return.
  const bool decided_here = claim_decision(service.decided, activation.sequence);
  const kal::TimePoint finish = kal::MonotonicClock::now();
  const kal::Duration executed =
      std::min(cpu_time_if_measured(), reply_sending_cpu) - computed_before;
  if (lane.by_deadline) {
    srp_exit(lane, service.entry->segments);
  } else {
    unlock_segments(service.entry->segments);
  }
  // Whoever serves a row holds its lane, so one thread at a time writes its timings.
  record_timings(state_->svm_timings[activation.spm], executed, finish - activation.release,
                 service.entry->wcet);
  service.done.store(activation.sequence + 1, std::memory_order_release);
  result.finish_ns = since(state_->epoch, finish);
  const bool met = decided_here && finish <= activation.release + service.entry->gct;
  result.outcome = met ? ActivationOutcome::kMet : ActivationOutcome::kDeadlineMissed;
  if (decided_here && !met) {
    report_gct_miss(service, activation.sequence, activation.release, finish);
  }
  record(lane.trace, result);
}

ReadyKey Engine::key_of(const Lane& lane, const Activation& activation) const noexcept {
  // SpMs are due at their deadline, service requests at their GCT from arrival; both have their
  // WCET and the replies they wait for still to do.
  if (activation.service) {
    const SvmEntry& service = *state_->services[activation.spm].entry;
    return ready_key(lane.discipline, since(state_->epoch, activation.release + service.gct),
                     service.wcet + service.reply_wait, service.importance, activation.arrival);
  }
  const SpmEntry& entry = *state_->bindings[activation.spm].entry;
  return ready_key(lane.discipline, since(state_->epoch, activation.release + entry.deadline),
                   entry.wcet + entry.reply_wait, entry.importance, activation.arrival);
}

namespace {
thread_local LaneIdentity this_lane{};
}  // namespace

LaneIdentity current_lane() noexcept {
  return this_lane;
}

void set_current_lane(LaneIdentity lane) noexcept {
  this_lane = lane;
}

void note_reply_sending() noexcept {
  if (measuring_request && reply_sending_cpu == kal::Duration::max()) {
    reply_sending_cpu = kal::thread_cpu_time();
  }
}

void Engine::lane_main(void* lane_pointer) noexcept {
  Lane& lane = *static_cast<Lane*>(lane_pointer);
  this_lane =
      LaneIdentity{lane.core, lane.band, true, lane.engine->state_->core_cpu[lane.core], lane.slot};
  lane.engine->serve(lane);
}

void Engine::serve(Lane& lane) noexcept {
  Activation activation{};
  for (;;) {
    // Take in every arrival there is room for before choosing: the discipline decides among
    // all due ones. One without room stays in the inbox, so a backlog ends in overruns at
    // release, where they are recorded, and nothing is dropped here.
    const kal::TimePoint now = kal::MonotonicClock::now();
    while (const Activation* arrived = lane.inbox.front()) {
      if (arrived->due > now) {
        if (lane.early_count == lane.early.size()) {
          break;
        }
        // Dispatched ahead: keep it, earliest first, until its start window opens.
        std::size_t at = lane.early_count++;
        while (at > 0 && lane.early[at - 1].due > arrived->due) {
          lane.early[at] = lane.early[at - 1];
          --at;
        }
        lane.early[at] = *arrived;
      } else if (!lane.ready.push(key_of(lane, *arrived), *arrived)) {
        break;  // full
      }
      lane.inbox.drop_front();
    }
    std::size_t promoted = 0;
    while (promoted < lane.early_count && lane.early[promoted].due <= now &&
           lane.ready.push(key_of(lane, lane.early[promoted]), lane.early[promoted])) {
      ++promoted;
    }
    if (promoted > 0) {
      for (std::size_t k = promoted; k < lane.early_count; ++k) {
        lane.early[k - promoted] = lane.early[k];
      }
      lane.early_count -= promoted;
    }
    if (lane.ready.pop(activation)) {
      if (lane.by_deadline) {
        take_job(lane, deadline_of(activation), activation.due);
      }
      if (activation.service) {
        serve_request(lane, activation);
      } else {
        execute(lane, activation);
      }
      continue;
    }
    const bool waiting_for_window = lane.early_count > 0;
    if (!waiting_for_window && lane.stopping.load(std::memory_order_acquire) &&
        lane.inbox.empty()) {
      return;  // held by its own thread: nobody borrows it any more
    }
    // Asleep with nothing ready: a request of one of its service methods may be served at
    // once on its reader's thread meanwhile (serve_here). Taken back before anything runs.
    lane.state.store(kLaneIdle, std::memory_order_release);
    if (waiting_for_window) {
      // Sleep until the next start window opens (or something more arrives), due by that
      // activation's deadline when it wakes.
      if (lane.by_deadline) {
        take_job(lane, deadline_of(lane.early[0]), lane.early[0].due);
      }
      lane.wakeup.wait_until(lane.early[0].due);
    } else {
      if (lane.by_deadline) {
        take_job(lane, kal::TimePoint::max(), kal::TimePoint::max());  // no job: the least urgent
      }
      lane.wakeup.wait();
    }
    reclaim(lane);
  }
}

void Engine::execute(Lane& lane, const Activation& activation) noexcept {
  Binding& binding = state_->bindings[activation.spm];
  const SpmEntry& entry = *binding.entry;

  ActivationRecord result{};
  result.spm = activation.spm;
  result.sequence = activation.sequence;
  result.release_ns = since(state_->epoch, activation.release);
  result.dispatch_ns = since(state_->epoch, activation.dispatched);

  if (lane.by_deadline) {
    // Under SRP a job starts only when admitted, holding its segments from then on.
    srp_enter(lane, entry.segments);
  }
  const kal::TimePoint start = kal::MonotonicClock::now();
  result.start_ns = since(state_->epoch, start);
  if (start > activation.release + entry.window_close ||
      !advance(binding.progress, progress_of(activation.sequence, kRunning))) {
    // A method that cannot start inside its window is not started late: the TMO model treats
    // the activation as failed and hands it to the deadline handler. The watchdog may have
    // done so already, at the deadline, finding it still waiting.
    if (advance(binding.progress, progress_of(activation.sequence, kDecided))) {
      report_miss(binding, activation.sequence, MissKind::kStartWindow, activation.release, start);
    }
    binding.done.store(activation.sequence + 1, std::memory_order_release);
    if (lane.by_deadline) {
      srp_exit(lane, entry.segments);
    }
    result.outcome = ActivationOutcome::kStartWindowMissed;
    if (state_->service_count > 0) {
      state_->trigger_wakeup.set();  // BCC admission looks at unfinished activations
    }
    result.finish_ns = result.start_ns;
    record(lane.trace, result);
    return;
  }
  if (!lane.by_deadline) {
    lock_segments(entry.segments);
  }
  const kal::Duration computed_before = cpu_time_if_measured();
  binding.invoke(binding.servant);
  if (options_.model_execution_time) {
    kal::busy_for(entry.wcet);
  }
  // The body has returned. Decided here unless the watchdog, at the deadline, found it still
  // running; the clock is read after that, so a finish the watchdog judged late is late here
  // too. Both happen before the locks go: releasing a ceiling lock may hand the processor to a
  // higher band at once, and its run is no part of this method's.
  std::uint64_t running = progress_of(activation.sequence, kRunning);
  const bool decided_here = binding.progress.compare_exchange_strong(
      running, progress_of(activation.sequence, kDecided), std::memory_order_acq_rel);
  const kal::TimePoint finish = kal::MonotonicClock::now();
  const kal::Duration executed = cpu_time_if_measured() - computed_before;
  if (lane.by_deadline) {
    srp_exit(lane, entry.segments);
  } else {
    unlock_segments(entry.segments);
  }
  // Only this row's lane runs it, so one thread writes its timings.
  record_timings(state_->spm_timings[activation.spm], executed, finish - activation.release,
                 entry.wcet);
  binding.done.store(activation.sequence + 1, std::memory_order_release);
  result.finish_ns = since(state_->epoch, finish);
  const bool met = decided_here && finish <= activation.release + entry.deadline;
  result.outcome = met ? ActivationOutcome::kMet : ActivationOutcome::kDeadlineMissed;
  if (decided_here && !met) {
    report_miss(binding, activation.sequence, MissKind::kCompletionDeadline, activation.release,
                finish);
  }
  if (state_->service_count > 0) {
    state_->trigger_wakeup.set();  // a request may have been waiting for this SpM to finish
  }
  record(lane.trace, result);
}

void Engine::record(SpscRing<ActivationRecord, kTraceCapacity>& trace,
                    const ActivationRecord& result) noexcept {
  // Counted from the record itself: the summary, each method's timings and the records agree by
  // construction. The lane and the time trigger may both record a row's outcomes: atomic adds.
  if (result.service) {
    state_->requests_served.fetch_add(1, std::memory_order_relaxed);
    if (result.outcome == ActivationOutcome::kDeadlineMissed) {
      state_->gct_misses.fetch_add(1, std::memory_order_relaxed);
      state_->svm_timings[result.spm].deadline_misses.fetch_add(1, std::memory_order_relaxed);
    }
  } else {
    state_->activations.fetch_add(1, std::memory_order_relaxed);
    MethodTimings& method = state_->spm_timings[result.spm];
    switch (result.outcome) {
      case ActivationOutcome::kMet:
        break;
      case ActivationOutcome::kDeadlineMissed:
        state_->deadline_misses.fetch_add(1, std::memory_order_relaxed);
        method.deadline_misses.fetch_add(1, std::memory_order_relaxed);
        break;
      case ActivationOutcome::kStartWindowMissed:
        state_->start_window_misses.fetch_add(1, std::memory_order_relaxed);
        method.start_window_misses.fetch_add(1, std::memory_order_relaxed);
        break;
      case ActivationOutcome::kOverrun:
        state_->overruns.fetch_add(1, std::memory_order_relaxed);
        method.overruns.fetch_add(1, std::memory_order_relaxed);
        break;
    }
  }
  if (!trace.try_push(result)) {
    state_->trace_drops.fetch_add(1, std::memory_order_relaxed);
  }
}

void Engine::drain_traces(ActivationObserver observer, void* context) noexcept {
  ActivationRecord result{};
  while (state_->dropped_trace.try_pop(result)) {
    if (observer != nullptr) {
      observer(context, *state_->bindings[result.spm].entry, result);
    }
  }
  for (std::size_t i = 0; i < state_->lane_count; ++i) {
    while (state_->lanes[i].trace.try_pop(result)) {
      if (result.service) {
        if (state_->service_observer != nullptr) {
          state_->service_observer(state_->service_observer_context,
                                   *state_->services[result.spm].entry, result);
        }
      } else if (observer != nullptr) {
        observer(context, *state_->bindings[result.spm].entry, result);
      }
    }
  }
}

bool Engine::schedules_by_deadline() const noexcept {
  // From the rows: their lanes are made when the run begins (assign_lanes).
  for (std::size_t i = 0; i < state_->binding_count; ++i) {
    if (runs_by_deadline(options_.strategy, state_->bindings[i].entry->band)) {
      return true;
    }
  }
  for (std::size_t i = 0; i < state_->service_count; ++i) {
    if (runs_by_deadline(options_.strategy, state_->services[i].entry->band)) {
      return true;
    }
  }
  return false;
}

EngineCounters Engine::counters() const noexcept {
  std::uint64_t wcet_overruns = 0;
  for (std::size_t row = 0; row < state_->binding_count; ++row) {
    wcet_overruns += state_->spm_timings[row].wcet_overruns.load(std::memory_order_relaxed);
  }
  for (std::size_t row = 0; row < state_->service_count; ++row) {
    wcet_overruns += state_->svm_timings[row].wcet_overruns.load(std::memory_order_relaxed);
  }
  return EngineCounters{state_->activations.load(),
                        state_->start_window_misses.load(),
                        state_->deadline_misses.load(),
                        state_->overruns.load(),
                        state_->trace_drops.load(),
                        state_->requests_served.load(),
                        state_->requests_refused.load(),
                        state_->gct_misses.load(),
                        state_->requests_served_at_once.load(),
                        wcet_overruns,
                        options_.measure_execution_time,
                        state_->requests_over_rate.load()};
}

}  // namespace kairos
