#include <kairos/engine.hpp>

#include <algorithm>
#include <cstdio>
#include <optional>

#include <kairos/kal/execution.hpp>
#include <kairos/kal/memory.hpp>

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
// How often the calling thread hands finished activation records to the observer.
constexpr kal::Duration kTracePollInterval = std::chrono::milliseconds{10};

constexpr std::int64_t since(kal::TimePoint epoch, kal::TimePoint t) noexcept {
  return (t - epoch).count();
}

/// Claims the decision on request `sequence`: true for the first claimant only (the lane at
/// completion or the watchdog at the GCT), so every request has one outcome, reported once.
bool claim_decision(std::atomic<std::uint64_t>& decided_through, std::uint64_t sequence) noexcept {
  std::uint64_t decided = decided_through.load(std::memory_order_relaxed);
  do {
    if (decided > sequence) {
      return false;
    }
  } while (
      !decided_through.compare_exchange_weak(decided, sequence + 1, std::memory_order_acq_rel));
  return true;
}

// Phases of an SpM's progress word, 4 * sequence + phase (phase 0: waiting to start).
constexpr std::uint64_t kRunning = 1;
constexpr std::uint64_t kDecided = 2;

// Who holds a lane (Lane::state): its own thread, or a borrower serving a request at once
// (serve_here) while the lane sleeps with nothing ready. kWanted: lent, and the lane's thread is
// waiting to have it back, which the borrower does by handing it over directly (kBusy), so that a
// stream of requests can never keep a lane from its own work.
enum LaneState : std::uint8_t { kLaneBusy = 0, kLaneIdle = 1, kLaneLent = 2, kLaneWanted = 3 };

// next_window_ns of a row that has no release left.
constexpr std::int64_t kNoWindow = INT64_MAX;

constexpr std::uint64_t progress_of(std::uint64_t sequence, std::uint64_t phase) noexcept {
  return 4 * sequence + phase;
}

/// Moves `progress` up to `target`; false when it was there or beyond already.
bool advance(std::atomic<std::uint64_t>& progress, std::uint64_t target) noexcept {
  std::uint64_t seen = progress.load(std::memory_order_acquire);
  while (seen < target) {
    if (progress.compare_exchange_weak(seen, target, std::memory_order_acq_rel)) {
      return true;
    }
  }
  return false;
}
}  // namespace

kal::Status Engine::add_spm(const SpmEntry& entry, void* servant, MethodInvoker invoke,
                            MissHandler on_miss) noexcept {
  if (binding_count_ == kMaxSpms) {
    return kal::Status::kCapacityExceeded;
  }
  if (invoke == nullptr || entry.window_close < entry.window_open ||
      entry.period < kal::Duration::zero() || entry.deadline < entry.window_close ||
      (segment_count_ < kMaxSegments && (entry.segments >> segment_count_) != 0) ||
      entry.core >= options_.cores ||
      shares_across_cores(entry.instance, entry.segments, entry.core)) {
    return kal::Status::kInvalidArgument;
  }
  Binding& binding = bindings_[binding_count_++];
  binding.entry = &entry;
  binding.servant = servant;
  binding.invoke = invoke;
  binding.on_miss = on_miss;
  return kal::Status::kOk;
}

kal::Status Engine::set_release_table(std::span<const ReleaseEntry> table,
                                      kal::Duration hyperperiod) noexcept {
  std::array<SpmEntry, kMaxSpms> rows{};
  for (std::size_t i = 0; i < binding_count_; ++i) {
    rows[i] = *bindings_[i].entry;
  }
  if (table.empty() ||
      !release_table_matches(std::span{rows.data(), binding_count_}, table, hyperperiod)) {
    return kal::Status::kInvalidArgument;
  }
  release_table_ = table;
  hyperperiod_ = hyperperiod;
  return kal::Status::kOk;
}

kal::Status Engine::add_lane_for(std::uint8_t core, kal::PriorityBand band, Criticality criticality,
                                 bool dedicated, std::size_t& lane) noexcept {
  lane = dedicated ? lane_count_ : 0;
  while (lane < lane_count_ && (lanes_[lane].core != core || lanes_[lane].band != band)) {
    ++lane;
  }
  if (lane == lane_count_) {
    if (lane_count_ == kMaxLanes) {
      return kal::Status::kCapacityExceeded;
    }
    std::uint8_t slot = 0;
    for (std::size_t other = 0; other < lane_count_; ++other) {
      slot += static_cast<std::uint8_t>(lanes_[other].core == core && lanes_[other].band == band);
    }
    lanes_[lane].core = core;
    lanes_[lane].band = band;
    lanes_[lane].slot = slot;
    lanes_[lane].engine = this;
    lanes_[lane].discipline = discipline_for(options_.strategy, criticality);
    ++lane_count_;
  }
  return kal::Status::kOk;
}

kal::Status Engine::assign_lanes() noexcept {
  // Thread-per-priority on each core: one lane for every distinct (core, band), SpMs and SvMs
  // alike. Under preemptive EDF a lane per row of its band instead, each scheduled by its jobs'
  // deadlines.
  srp_ceiling_.fill(kal::Duration::max());
  auto raise_ceilings = [&](std::uint64_t segments, kal::Duration relative_deadline) {
    for (std::size_t k = 0; k < segment_count_; ++k) {
      if ((segments >> k & 1U) != 0) {
        srp_ceiling_[k] = std::min(srp_ceiling_[k], relative_deadline);
      }
    }
  };
  for (std::size_t i = 0; i < binding_count_; ++i) {
    const SpmEntry& entry = *bindings_[i].entry;
    const bool by_deadline = runs_by_deadline(options_.strategy, entry.band);
    if (const auto status =
            add_lane_for(entry.core, entry.band, entry.criticality, by_deadline, bindings_[i].lane);
        status != kal::Status::kOk) {
      return status;
    }
    if (by_deadline) {
      const kal::Duration relative_deadline = entry.deadline - entry.window_open;
      reserve_for_deadline(lanes_[bindings_[i].lane], entry.wcet, relative_deadline);
      raise_ceilings(entry.segments, relative_deadline);
    }
  }
  for (std::size_t i = 0; i < service_count_; ++i) {
    const SvmEntry& entry = *services_[i].entry;
    for (std::size_t k = 0; k < binding_count_; ++k) {
      if ((entry.conflicts >> k & 1U) != 0 && bindings_[k].entry->core != entry.core) {
        return kal::Status::kInvalidArgument;  // BCC admission holds within one core
      }
    }
    const bool by_deadline = runs_by_deadline(options_.strategy, entry.band);
    if (const auto status =
            add_lane_for(entry.core, entry.band, entry.criticality, by_deadline, services_[i].lane);
        status != kal::Status::kOk) {
      return status;
    }
    if (by_deadline) {
      // A request is due its GCT after it arrives.
      reserve_for_deadline(lanes_[services_[i].lane], entry.wcet, entry.gct);
      raise_ceilings(entry.segments, entry.gct);
    }
  }
  return kal::Status::kOk;
}

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
  std::atomic<std::uint64_t>& held = srp_held_[lane.core];
  std::atomic<std::uint32_t>& waiting = srp_waiting_[lane.core];
  const std::uint32_t me = 1U << static_cast<std::uint32_t>(&lane - lanes_.data());
  auto admitted = [&](std::uint64_t held_now) {
    for (std::size_t k = 0; k < segment_count_; ++k) {
      if ((held_now >> k & 1U) != 0 && srp_ceiling_[k] <= lane.relative_deadline) {
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
  srp_held_[lane.core].fetch_and(~segments, std::memory_order_acq_rel);
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
  std::uint32_t waiting = srp_waiting_[lane.core].load(std::memory_order_acquire);
  while (waiting != 0) {
    std::size_t first = lane_count_;
    for (std::size_t l = 0; l < lane_count_; ++l) {
      if ((waiting >> l & 1U) == 0) {
        continue;
      }
      if (first == lane_count_ || job_before(lanes_[l], lanes_[first])) {
        first = l;
      }
    }
    if (first == lane_count_) {
      break;
    }
    waiting &= ~(1U << first);
    lanes_[first].srp_turn.set();
  }
}

void Engine::take_job(Lane& lane, kal::TimePoint deadline, kal::TimePoint ready) noexcept {
  lane.job_deadline_ns.store(deadline.time_since_epoch().count(), std::memory_order_relaxed);
  lane.job_ready_ns.store(ready.time_since_epoch().count(), std::memory_order_relaxed);
  lane.thread.set_job_deadline(deadline, ready);
}

kal::TimePoint Engine::deadline_of(const Activation& activation) const noexcept {
  return activation.service ? activation.release + services_[activation.spm].entry->gct
                            : activation.release + bindings_[activation.spm].entry->deadline;
}

kal::Status Engine::add_segment(const SegmentEntry& entry) noexcept {
  if (segment_count_ == kMaxSegments) {
    return kal::Status::kCapacityExceeded;
  }
  const kal::Status status = segment_locks_[segment_count_].init(entry.ceiling);
  if (status == kal::Status::kOk) {
    ++segment_count_;
  }
  return status;
}

void Engine::lock_segments(std::uint64_t segments) noexcept {
  // Always in ascending order, so that two methods can never wait for each other.
  for (std::size_t k = 0; k < segment_count_; ++k) {
    if ((segments >> k & 1U) != 0) {
      segment_locks_[k].lock();
    }
  }
}

void Engine::unlock_segments(std::uint64_t segments) noexcept {
  for (std::size_t k = segment_count_; k-- > 0;) {
    if ((segments >> k & 1U) != 0) {
      segment_locks_[k].unlock();
    }
  }
}

kal::Status Engine::add_svm(const SvmEntry& entry, void* servant, ServiceHandler handler,
                            MissHandler on_miss) noexcept {
  if (service_count_ == kMaxSvms) {
    return kal::Status::kCapacityExceeded;
  }
  if (handler == nullptr || entry.gct < entry.wcet || entry.wcet <= kal::Duration::zero() ||
      entry.admission_slot <= kal::Duration::zero() || entry.core >= options_.cores ||
      shares_across_cores(entry.instance, entry.segments, entry.core)) {
    return kal::Status::kInvalidArgument;
  }
  ServiceBinding& service = services_[service_count_++];
  service.entry = &entry;
  service.servant = servant;
  service.handler = handler;
  service.on_miss = on_miss;
  return kal::Status::kOk;
}

std::optional<kal::TimePoint> Engine::accepting_now() const noexcept {
  if (!accepting_requests_.load(std::memory_order_acquire)) {
    return std::nullopt;
  }
  // Accepting from just before the epoch: a request may not come before the run begins
  // (it would be served before any release, with a negative arrival time).
  const kal::TimePoint now = kal::MonotonicClock::now();
  if (now < epoch_ || now >= end_) {
    return std::nullopt;
  }
  return now;
}

kal::Status Engine::request(std::size_t svm, void* request) noexcept {
  kal::Status status = kal::Status::kOk;
  const kal::TimePoint now = kal::MonotonicClock::now();
  if (svm >= service_count_ || request == nullptr) {
    status = kal::Status::kInvalidArgument;
  } else if (accepting_requests_.load(std::memory_order_acquire)
                 ? now >= end_
                 : run_over_.load(std::memory_order_acquire)) {
    status = kal::Status::kUnavailable;
  } else if (!requests_.try_push(Request{static_cast<std::uint16_t>(svm), request, now})) {
    // Before the epoch (or before run_for fixed it) the request waits in the queue: the trigger
    // takes requests in from the epoch on, as arrived then.
    status = kal::Status::kResourceExhausted;
  }
  if (status != kal::Status::kOk) {
    requests_refused_.fetch_add(1, std::memory_order_relaxed);
    return status;
  }
  trigger_wakeup_.set();
  return kal::Status::kOk;
}

kal::Status Engine::admit_arrival(std::size_t svm) noexcept {
  if (svm >= service_count_) {
    return kal::Status::kInvalidArgument;
  }
  ServiceBinding& service = services_[svm];
  const std::int64_t interval = service.entry->min_inter_arrival.count();
  if (interval <= 0) {
    return kal::Status::kOk;
  }
  // Virtual scheduling: each request taken moves the theoretical arrival of the next one
  // interval past its own (or past the last, when it came early); a request may come at most
  // arrival_jitter before its theoretical arrival. That admits exactly the streams with at most
  // ceil((w + jitter) / interval) requests in any window w, the ones the analysis counted.
  const std::int64_t tolerance = service.entry->arrival_jitter.count();
  const std::int64_t now = kal::MonotonicClock::now().time_since_epoch().count();
  std::int64_t next = service.next_arrival_ns.load(std::memory_order_acquire);
  while (true) {
    if (next != kNoArrivalYet && now < next - tolerance) {
      requests_over_rate_.fetch_add(1, std::memory_order_relaxed);
      return kal::Status::kRateExceeded;
    }
    const std::int64_t after = (next == kNoArrivalYet ? now : std::max(next, now)) + interval;
    if (service.next_arrival_ns.compare_exchange_weak(next, after, std::memory_order_acq_rel)) {
      return kal::Status::kOk;
    }
  }
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
  kal::lock_memory();  // a refusal is said once, and the node runs on
  releases_done_.store(false);
  dispatch_ahead_ =
      std::max(kMinimumDispatchAhead,
               options_.dispatch_ahead >= kal::Duration::zero()
                   ? options_.dispatch_ahead
                   : (kal::kSimulatedTime ? kMinimumDispatchAhead : kDefaultDispatchAhead));

  kal::Status status = kal::Status::kOk;
  for (std::size_t i = 0; i < lane_count_ && status == kal::Status::kOk; ++i) {
    Lane& lane = lanes_[i];
    std::snprintf(lane.name.data(), lane.name.size(), "kairos-lane%u",
                  static_cast<unsigned>(i & 0xFFU));  // kMaxLanes <= 32
    status = lane.thread.start({lane.name.data(), lane.band, core_cpu_[lane.core], 256 * 1024,
                                options_.real_time, lane.reservation},
                               &Engine::lane_main, &lane);
  }
  if (status == kal::Status::kOk) {
    bool deadline_lanes = false;
    for (std::size_t i = 0; i < lane_count_; ++i) {
      deadline_lanes = deadline_lanes || lanes_[i].by_deadline;
    }
    // On Linux the trigger of deadline lanes must not rank below them (kHandoffReservation); on
    // sim it is the only thread of the highest band and runs first anyway.
    const kal::DeadlineReservation trigger_reservation = deadline_lanes && !kal::kSimulatedTime
                                                             ? kal::kHandoffReservation
                                                             : kal::DeadlineReservation{};
    status = time_trigger_.start({"kairos-trigger", kal::kHighestBand, core_cpu_[0], 256 * 1024,
                                  options_.real_time, trigger_reservation},
                                 &Engine::time_trigger_main, this);
  }
  if (status == kal::Status::kOk) {
    // Every thread exists before the epoch is fixed: creating them never delays a release.
    epoch_ = kal::MonotonicClock::now() + kStartupLead;
    end_ = epoch_ + duration;
    accepting_requests_.store(true, std::memory_order_release);
  } else {
    run_over_.store(true, std::memory_order_release);
    abandoned_.store(true, std::memory_order_release);
  }
  start_gate_.set();

  if (status == kal::Status::kOk) {
    while (!releases_done_.load(std::memory_order_acquire)) {
      kal::sleep_until(kal::MonotonicClock::now() + kTracePollInterval);
      drain_traces(observer, observer_context);
    }
  }
  time_trigger_.join();
  for (std::size_t i = 0; i < lane_count_; ++i) {
    lanes_[i].stopping.store(true, std::memory_order_release);
    lanes_[i].wakeup.set();
    lanes_[i].thread.join();
  }
  drain_traces(observer, observer_context);
  return status;
}

void Engine::time_trigger_main(void* self) noexcept {
  static_cast<Engine*>(self)->release_all();
}

void Engine::release_all() noexcept {
  start_gate_.wait();
  if (abandoned_.load(std::memory_order_acquire)) {
    releases_done_.store(true, std::memory_order_release);
    return;
  }
  std::array<kal::TimePoint, kMaxSpms> next_release{};
  std::array<std::uint64_t, kMaxSpms> sequence{};
  std::array<bool, kMaxSpms> active{};
  // The deadline watchdog. Activations watch_next[i] .. sequence[i] - 1 of SpM i are dispatched
  // and their deadlines still to come; the oldest was released at watch_release[i]. Several can
  // be pending: an activation is dispatched ahead of its window, maybe before the deadline of
  // the one before it. Bit k of watch_skip[i] marks activation watch_next[i] + k as dropped by
  // an overrun, which is reported as such and has no deadline left to keep.
  std::array<std::uint64_t, kMaxSpms> watch_next{};
  std::array<kal::TimePoint, kMaxSpms> watch_release{};
  std::array<std::uint64_t, kMaxSpms> watch_skip{};
  std::uint64_t arrivals = 0;
  constexpr kal::TimePoint kNever = kal::TimePoint::max();
  // Lanes to wake, fired just before the trigger sleeps: on a shared CPU the more urgent
  // trigger would otherwise delay the lane by whatever bookkeeping followed the wake-up.
  std::uint32_t lanes_to_wake = 0;
  // The GCT watchdog: requests taken in (waiting or admitted) and when each must be complete.
  struct GctWatch {
    std::uint16_t svm;
    std::uint64_t sequence;
    kal::TimePoint arrival;
  };
  std::array<GctWatch, 2 * kRequestCapacity> gct_watches{};
  std::size_t gct_watch_count = 0;
  // Requests waiting for admission, in arrival order.
  std::array<Request, kRequestCapacity> pending{};
  std::size_t pending_count = 0;

  auto still_due = [&](std::size_t i) {
    const SpmEntry& entry = *bindings_[i].entry;
    const bool within_aac =
        entry.last_release == kForever || next_release[i] - epoch_ <= entry.last_release;
    return within_aac && next_release[i] < end_;
  };
  for (std::size_t i = 0; i < binding_count_; ++i) {
    next_release[i] = epoch_ + bindings_[i].entry->first_release;
    active[i] = still_due(i);
    watch_release[i] = next_release[i];
    publish_release_state(i, 0,
                          active[i] ? next_release[i] + bindings_[i].entry->window_open : kNever);
  }

  // With a static release table the trigger walks it, cycle after cycle: `cursor` is the entry
  // of the next release, `cycle_start` the start of its hyperperiod. Each row's next release
  // is still tracked (BCC admission needs it); an entry is due when it is that release.
  std::size_t cursor = 0;
  kal::TimePoint cycle_start = epoch_;
  const bool tabulated = !release_table_.empty();
  auto opening = [&](std::size_t i) { return next_release[i] + bindings_[i].entry->window_open; };
  auto entry_release = [&](const ReleaseEntry& entry) {
    return cycle_start + entry.open - bindings_[entry.spm].entry->window_open;
  };
  // Moves the cursor to the next release of any active row; false when none is left.
  auto seek_table = [&]() {
    kal::TimePoint earliest = kNever;
    for (std::size_t i = 0; i < binding_count_; ++i) {
      if (active[i]) {
        earliest = std::min(earliest, opening(i));
      }
    }
    if (earliest == kNever) {
      return false;
    }
    if (earliest - cycle_start >= 2 * hyperperiod_) {
      // A first release far ahead: skip the hyperperiods before it instead of walking them.
      cycle_start += ((earliest - cycle_start) / hyperperiod_ - 1) * hyperperiod_;
      cursor = 0;
    }
    // The validated table holds every release within the next two hyperperiods.
    for (std::size_t scanned = 0; scanned <= 3 * release_table_.size(); ++scanned) {
      const ReleaseEntry& entry = release_table_[cursor];
      if (active[entry.spm] && entry_release(entry) == next_release[entry.spm]) {
        return true;
      }
      if (++cursor == release_table_.size()) {
        cursor = 0;
        cycle_start += hyperperiod_;
      }
    }
    kal::report(kal::Severity::kError, "engine", "release table out of step with the SpM rows");
    return false;
  };

  for (;;) {
    // Wake at the next start-window opening or the next deadline to watch, whichever is first.
    kal::TimePoint wake = kNever;
    if (tabulated) {
      if (seek_table()) {
        wake = opening(release_table_[cursor].spm) - dispatch_ahead_;
      }
    } else {
      for (std::size_t i = 0; i < binding_count_; ++i) {
        if (active[i]) {
          wake = std::min(wake, opening(i) - dispatch_ahead_);
        }
      }
    }
    for (std::size_t i = 0; i < binding_count_; ++i) {
      if (watch_next[i] < sequence[i]) {
        wake = std::min(wake, watch_release[i] + bindings_[i].entry->deadline);
      }
    }
    for (std::size_t w = 0; w < gct_watch_count; ++w) {
      wake = std::min(wake, gct_watches[w].arrival + services_[gct_watches[w].svm].entry->gct);
    }
    if (service_count_ != 0 && kal::MonotonicClock::now() < epoch_) {
      wake = std::min(wake, epoch_);  // requests held before the epoch are taken in at it
    }
    for (std::size_t l = 0; l < lane_count_; ++l) {
      if ((lanes_to_wake >> l & 1U) != 0) {
        lanes_[l].wakeup.set();
      }
    }
    lanes_to_wake = 0;
    const bool releasing = wake != kNever;
    if (!releasing) {
      // No more releases: stop taking requests once the run is over, and stop when every
      // admitted-or-waiting request has been handed on.
      if (service_count_ == 0 || kal::MonotonicClock::now() >= end_) {
        run_over_.store(true, std::memory_order_release);
        accepting_requests_.store(false, std::memory_order_release);
        Request late{};
        while (pending_count < pending.size() && requests_.try_pop(late)) {
          pending[pending_count++] = late;
        }
      }
      if (!accepting_requests_.load(std::memory_order_acquire) && pending_count == 0 &&
          gct_watch_count == 0) {
        break;
      }
    }
    if (service_count_ == 0) {
      kal::sleep_until(wake);
    } else {
      // Service requests and completions of conflicting SpMs wake the trigger early.
      trigger_wakeup_.wait_until(releasing ? wake
                                           : kal::MonotonicClock::now() + kTracePollInterval);
    }
    const kal::TimePoint now = kal::MonotonicClock::now();

    // Deadlines first: an activation still running at its deadline has missed it, and nobody
    // else may notice (its lane is busy running it).
    for (std::size_t i = 0; i < binding_count_; ++i) {
      Binding& binding = bindings_[i];
      while (watch_next[i] < sequence[i] && watch_release[i] + binding.entry->deadline <= now) {
        if ((watch_skip[i] & 1U) == 0) {
          watch_deadline(binding, watch_next[i], watch_release[i], now);
        }
        watch_skip[i] >>= 1U;
        ++watch_next[i];
        watch_release[i] += binding.entry->period;
      }
    }

    std::size_t watching = 0;
    for (std::size_t w = 0; w < gct_watch_count; ++w) {
      const GctWatch& watch = gct_watches[w];
      ServiceBinding& service = services_[watch.svm];
      if (service.done.load(std::memory_order_acquire) > watch.sequence) {
        continue;  // served
      }
      if (watch.arrival + service.entry->gct <= now) {
        if (claim_decision(service.decided, watch.sequence)) {
          report_gct_miss(service, watch.sequence, watch.arrival, now);  // queued or running
        }
        continue;
      }
      gct_watches[watching++] = watch;
    }
    gct_watch_count = watching;

    // Admission of service requests (BCC), after the deadlines and before new releases.
    Request arrived{};
    while (now >= epoch_ && pending_count < pending.size() &&
           gct_watch_count < gct_watches.size() && requests_.try_pop(arrived)) {
      // Numbered and watched from arrival: the GCT counts from when the client asked, or from
      // the epoch for a request held until it.
      arrived.arrival = std::max(arrived.arrival, epoch_);
      ServiceBinding& service = services_[arrived.svm];
      arrived.sequence = service.arrived.fetch_add(1, std::memory_order_acq_rel);
      gct_watches[gct_watch_count++] = GctWatch{arrived.svm, arrived.sequence, arrived.arrival};
      pending[pending_count++] = arrived;
    }
    std::size_t kept = 0;
    for (std::size_t p = 0; p < pending_count; ++p) {
      const Request& waiting = pending[p];
      ServiceBinding& service = services_[waiting.svm];
      if (!admissible(service, now)) {
        pending[kept++] = waiting;
        continue;
      }
      Lane& lane = lanes_[service.lane];
      Activation activation{};
      activation.spm = waiting.svm;
      activation.service = true;
      activation.request = waiting.request;
      activation.arrival = arrivals++;
      activation.release = waiting.arrival;
      activation.dispatched = now;
      activation.due = now;
      activation.sequence = waiting.sequence;
      if (lane.inbox.try_push(activation)) {
        if (lane.by_deadline) {
          lane.thread.offer_job_deadline(deadline_of(activation), activation.due);
        }
        lanes_to_wake |= 1U << service.lane;
      } else {
        pending[kept++] = waiting;
      }
    }
    pending_count = kept;

    // Releases whose start window opens within the dispatch-ahead from now, in table order.
    auto release = [&](std::size_t i) {
      Binding& binding = bindings_[i];
      Lane& lane = lanes_[binding.lane];
      Activation activation{};
      activation.spm = static_cast<std::uint16_t>(i);
      activation.sequence = sequence[i];
      activation.arrival = arrivals++;
      activation.release = next_release[i];
      activation.dispatched = kal::MonotonicClock::now();
      activation.due = next_release[i] + binding.entry->window_open;
      if (lane.inbox.try_push(activation)) {
        if (lane.by_deadline) {
          lane.thread.offer_job_deadline(deadline_of(activation), activation.due);
        }
        lanes_to_wake |= 1U << binding.lane;
      } else {
        // Dropped, and recorded as such here: it never reaches its lane.
        ActivationRecord dropped{};
        dropped.spm = activation.spm;
        dropped.outcome = ActivationOutcome::kOverrun;
        dropped.sequence = activation.sequence;
        dropped.release_ns = since(epoch_, activation.release);
        dropped.dispatch_ns = since(epoch_, activation.dispatched);
        dropped.start_ns = dropped.dispatch_ns;
        dropped.finish_ns = dropped.dispatch_ns;
        record(dropped_trace_, dropped);
        report_miss(binding, sequence[i], MissKind::kOverrun, next_release[i], now);
        // It never runs: its deadline is not watched. (The mask holds 64 pending deadlines;
        // an overrun further ahead, after a dispatch lead of some 63 periods, is also reported
        // at its deadline.)
        if (const std::uint64_t behind = sequence[i] - watch_next[i]; behind < 64) {
          watch_skip[i] |= std::uint64_t{1} << behind;
        }
      }
      ++sequence[i];
      if (binding.entry->period == kal::Duration::zero()) {
        active[i] = false;
      } else {
        next_release[i] += binding.entry->period;
        active[i] = still_due(i);
      }
      publish_release_state(i, sequence[i], active[i] ? opening(i) : kNever);
    };
    if (tabulated) {
      while (seek_table() && opening(release_table_[cursor].spm) - dispatch_ahead_ <= now) {
        release(release_table_[cursor].spm);
      }
    } else {
      for (std::size_t i = 0; i < binding_count_; ++i) {
        if (active[i] && opening(i) - dispatch_ahead_ <= now) {
          release(i);
        }
      }
    }
  }
  releases_done_.store(true, std::memory_order_release);
}

void Engine::publish_release_state(std::size_t spm, std::uint64_t released,
                                   kal::TimePoint next_window) noexcept {
  Binding& binding = bindings_[spm];
  binding.released.store(released, std::memory_order_release);
  binding.next_window_ns.store(
      next_window == kal::TimePoint::max() ? kNoWindow : since(epoch_, next_window),
      std::memory_order_release);
}

bool Engine::admissible(const ServiceBinding& service, kal::TimePoint now) const noexcept {
  // BCC, the rule kairos check analyses (SvmEntry): for every conflicting SpM, the earliest
  // start-window opening among its activations not yet finished is at least the slot from now.
  // The time trigger publishes a release's count before the next window, and this reads them
  // the other way round: a window it sees is never older than the count beside it.
  const std::uint64_t conflicts = service.entry->conflicts;
  const std::int64_t latest_opening = since(epoch_, now + service.entry->admission_slot);
  for (std::size_t i = 0; i < binding_count_; ++i) {
    if ((conflicts >> i & 1U) == 0) {
      continue;
    }
    const Binding& binding = bindings_[i];
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
  if (svm >= service_count_ || request == nullptr) {
    return false;
  }
  ServiceBinding& service = services_[svm];
  Lane& lane = lanes_[service.lane];
  const LaneIdentity caller = current_lane();
  const int lane_cpu = core_cpu_[lane.core];
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
  requests_served_at_once_.fetch_add(1, std::memory_order_relaxed);
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

void Engine::serve_request(Lane& lane, const Activation& activation) noexcept {
  ServiceBinding& service = services_[activation.spm];
  ActivationRecord result{};
  result.spm = activation.spm;
  result.service = true;
  result.sequence = activation.sequence;
  result.release_ns = since(epoch_, activation.release);
  result.dispatch_ns = since(epoch_, activation.dispatched);
  if (lane.by_deadline) {
    srp_enter(lane, service.entry->segments);  // started once admitted under SRP
  }
  result.start_ns = since(epoch_, kal::MonotonicClock::now());
  if (!lane.by_deadline) {
    lock_segments(service.entry->segments);
  }
  const kal::Duration computed_before = cpu_time_if_measured();
  // The modelled computation comes before the handler, not after it as for an SpM: the handler
  // of a remote request sends its reply, which must leave once the method has computed.
  if (options_.model_execution_time) {
    kal::busy_for(service.entry->wcet);
  }
  service.handler(service.servant, activation.request);
  // Decided here unless the watchdog found the request past its GCT first; the clock is read
  // after the claim, as for SpMs, and before the locks go.
  const bool decided_here = claim_decision(service.decided, activation.sequence);
  const kal::TimePoint finish = kal::MonotonicClock::now();
  const kal::Duration executed = cpu_time_if_measured() - computed_before;
  if (lane.by_deadline) {
    srp_exit(lane, service.entry->segments);
  } else {
    unlock_segments(service.entry->segments);
  }
  // Whoever serves a row holds its lane, so one thread at a time writes its timings.
  record_timings(svm_timings_[activation.spm], executed, finish - activation.release,
                 service.entry->wcet);
  service.done.store(activation.sequence + 1, std::memory_order_release);
  result.finish_ns = since(epoch_, finish);
  const bool met = decided_here && finish <= activation.release + service.entry->gct;
  result.outcome = met ? ActivationOutcome::kMet : ActivationOutcome::kDeadlineMissed;
  if (decided_here && !met) {
    report_gct_miss(service, activation.sequence, activation.release, finish);
  }
  record(lane.trace, result);
}

void Engine::report_gct_miss(ServiceBinding& service, std::uint64_t sequence,
                             kal::TimePoint arrival, kal::TimePoint observed) noexcept {
  if (service.on_miss != nullptr) {
    const MissReport report{nullptr,          sequence,          MissKind::kGuaranteedCompletion,
                            arrival - epoch_, observed - epoch_, service.entry};
    service.on_miss(service.servant, report);
  }
}

ReadyKey Engine::key_of(const Lane& lane, const Activation& activation) const noexcept {
  // SpMs are due at their deadline, service requests at their GCT from arrival.
  std::int64_t due = 0;
  kal::Duration wcet{};
  std::uint8_t importance = 0;
  if (activation.service) {
    const SvmEntry& service = *services_[activation.spm].entry;
    due = since(epoch_, activation.release + service.gct);
    wcet = service.wcet + service.reply_wait;
    importance = service.importance;
  } else {
    const SpmEntry& entry = *bindings_[activation.spm].entry;
    due = since(epoch_, activation.release + entry.deadline);
    wcet = entry.wcet + entry.reply_wait;
    importance = entry.importance;
  }
  switch (lane.discipline) {
    case QueueDiscipline::kFifo:
      return ReadyKey{0, 0, activation.arrival};
    case QueueDiscipline::kDeadline:
      return ReadyKey{due, 0, activation.arrival};
    case QueueDiscipline::kLaxity:
      // Laxity at any common instant orders like (deadline - remaining work); a waiting
      // activation has all of its WCET still to do, and its replies to wait for, as the analysis
      // counts them.
      return ReadyKey{due - wcet.count(), 0, activation.arrival};
    case QueueDiscipline::kLaxityThenImportance:
      return ReadyKey{due - wcet.count(), -static_cast<std::int64_t>(importance),
                      activation.arrival};
  }
  return ReadyKey{0, 0, activation.arrival};
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

void Engine::lane_main(void* lane_pointer) noexcept {
  Lane& lane = *static_cast<Lane*>(lane_pointer);
  this_lane =
      LaneIdentity{lane.core, lane.band, true, lane.engine->core_cpu_[lane.core], lane.slot};
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
  Binding& binding = bindings_[activation.spm];
  const SpmEntry& entry = *binding.entry;

  ActivationRecord result{};
  result.spm = activation.spm;
  result.sequence = activation.sequence;
  result.release_ns = since(epoch_, activation.release);
  result.dispatch_ns = since(epoch_, activation.dispatched);

  if (lane.by_deadline) {
    // Under SRP a job starts only when admitted, holding its segments from then on.
    srp_enter(lane, entry.segments);
  }
  const kal::TimePoint start = kal::MonotonicClock::now();
  result.start_ns = since(epoch_, start);
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
    if (service_count_ > 0) {
      trigger_wakeup_.set();  // BCC admission looks at unfinished activations
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
  record_timings(spm_timings_[activation.spm], executed, finish - activation.release, entry.wcet);
  binding.done.store(activation.sequence + 1, std::memory_order_release);
  result.finish_ns = since(epoch_, finish);
  const bool met = decided_here && finish <= activation.release + entry.deadline;
  result.outcome = met ? ActivationOutcome::kMet : ActivationOutcome::kDeadlineMissed;
  if (decided_here && !met) {
    report_miss(binding, activation.sequence, MissKind::kCompletionDeadline, activation.release,
                finish);
  }
  if (service_count_ > 0) {
    trigger_wakeup_.set();  // a request may have been waiting for this SpM to finish
  }
  record(lane.trace, result);
}

void Engine::record(SpscRing<ActivationRecord, kTraceCapacity>& trace,
                    const ActivationRecord& result) noexcept {
  // Counted from the record itself: the summary and the records agree by construction.
  if (result.service) {
    requests_served_.fetch_add(1, std::memory_order_relaxed);
    if (result.outcome == ActivationOutcome::kDeadlineMissed) {
      gct_misses_.fetch_add(1, std::memory_order_relaxed);
    }
  } else {
    activations_.fetch_add(1, std::memory_order_relaxed);
    switch (result.outcome) {
      case ActivationOutcome::kMet:
        break;
      case ActivationOutcome::kDeadlineMissed:
        deadline_misses_.fetch_add(1, std::memory_order_relaxed);
        break;
      case ActivationOutcome::kStartWindowMissed:
        start_window_misses_.fetch_add(1, std::memory_order_relaxed);
        break;
      case ActivationOutcome::kOverrun:
        overruns_.fetch_add(1, std::memory_order_relaxed);
        break;
    }
  }
  if (!trace.try_push(result)) {
    trace_drops_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Engine::watch_deadline(Binding& binding, std::uint64_t sequence, kal::TimePoint release,
                            kal::TimePoint now) noexcept {
  // Still running at its deadline: missed. Still waiting: its start window, which closes no
  // later than the deadline, is missed, and the lane will not run it.
  const std::uint64_t decided = progress_of(sequence, kDecided);
  std::uint64_t seen = binding.progress.load(std::memory_order_acquire);
  while (seen < decided) {
    if (binding.progress.compare_exchange_weak(seen, decided, std::memory_order_acq_rel)) {
      report_miss(binding, sequence,
                  seen == progress_of(sequence, kRunning) ? MissKind::kCompletionDeadline
                                                          : MissKind::kStartWindow,
                  release, now);
      return;
    }
  }
}

void Engine::report_miss(Binding& binding, std::uint64_t sequence, MissKind kind,
                         kal::TimePoint release, kal::TimePoint observed) noexcept {
  if (binding.on_miss != nullptr) {
    const MissReport report{binding.entry, sequence, kind, release - epoch_, observed - epoch_};
    binding.on_miss(binding.servant, report);
  }
}

void Engine::drain_traces(ActivationObserver observer, void* context) noexcept {
  ActivationRecord result{};
  while (dropped_trace_.try_pop(result)) {
    if (observer != nullptr) {
      observer(context, *bindings_[result.spm].entry, result);
    }
  }
  for (std::size_t i = 0; i < lane_count_; ++i) {
    while (lanes_[i].trace.try_pop(result)) {
      if (result.service) {
        if (service_observer_ != nullptr) {
          service_observer_(service_observer_context_, *services_[result.spm].entry, result);
        }
      } else if (observer != nullptr) {
        observer(context, *bindings_[result.spm].entry, result);
      }
    }
  }
}

EngineCounters Engine::counters() const noexcept {
  std::uint64_t wcet_overruns = 0;
  for (std::size_t row = 0; row < binding_count_; ++row) {
    wcet_overruns += spm_timings_[row].wcet_overruns.load(std::memory_order_relaxed);
  }
  for (std::size_t row = 0; row < service_count_; ++row) {
    wcet_overruns += svm_timings_[row].wcet_overruns.load(std::memory_order_relaxed);
  }
  return EngineCounters{activations_.load(),
                        start_window_misses_.load(),
                        deadline_misses_.load(),
                        overruns_.load(),
                        trace_drops_.load(),
                        requests_served_.load(),
                        requests_refused_.load(),
                        gct_misses_.load(),
                        requests_served_at_once_.load(),
                        wcet_overruns,
                        options_.measure_execution_time,
                        requests_over_rate_.load()};
}

}  // namespace kairos
