#include <kairos/engine.hpp>

#include <algorithm>

#include <kairos/kal/memory.hpp>

namespace kairos {

namespace {
// The first release comes this long after every thread exists, so that waking them for the
// first time never makes it late.
constexpr kal::Duration kStartupLead = std::chrono::milliseconds{10};
// How often the calling thread hands finished activation records to the observer.
constexpr kal::Duration kTracePollInterval = std::chrono::milliseconds{10};

constexpr std::int64_t since(kal::TimePoint epoch, kal::TimePoint t) noexcept {
  return (t - epoch).count();
}
}  // namespace

kal::Status Engine::add_spm(const SpmEntry& entry, void* servant, MethodInvoker invoke,
                            MissHandler on_miss) noexcept {
  if (binding_count_ == kMaxSpms) {
    return kal::Status::kCapacityExceeded;
  }
  if (invoke == nullptr || entry.window_close < entry.window_open ||
      entry.period < kal::Duration::zero()) {
    return kal::Status::kInvalidArgument;
  }
  bindings_[binding_count_++] = Binding{&entry, servant, invoke, on_miss, 0};
  return kal::Status::kOk;
}

kal::Status Engine::assign_lanes() noexcept {
  // Thread-per-priority: one lane for every distinct band, most urgent first.
  for (std::size_t i = 0; i < binding_count_; ++i) {
    const kal::PriorityBand band = bindings_[i].entry->band;
    std::size_t lane = 0;
    while (lane < lane_count_ && lanes_[lane].band != band) {
      ++lane;
    }
    if (lane == lane_count_) {
      if (lane_count_ == kMaxLanes) {
        return kal::Status::kCapacityExceeded;
      }
      lanes_[lane_count_].band = band;
      lanes_[lane_count_].engine = this;
      ++lane_count_;
    }
    bindings_[i].lane = lane;
  }
  return kal::Status::kOk;
}

kal::Status Engine::run_for(kal::Duration duration, ActivationObserver observer,
                            void* observer_context) noexcept {
  if (duration <= kal::Duration::zero()) {
    return kal::Status::kInvalidArgument;
  }
  if (const kal::Status status = assign_lanes(); status != kal::Status::kOk) {
    return status;
  }
  if (kal::lock_memory() != kal::Status::kOk) {
    kal::report(kal::Severity::kWarning, "memory",
                "mlockall refused; page faults may delay methods");
  }

  releases_done_.store(false);

  static constexpr const char* kLaneNames[kMaxLanes] = {
      "kairos-lane0",  "kairos-lane1",  "kairos-lane2",  "kairos-lane3",
      "kairos-lane4",  "kairos-lane5",  "kairos-lane6",  "kairos-lane7",
      "kairos-lane8",  "kairos-lane9",  "kairos-lane10", "kairos-lane11",
      "kairos-lane12", "kairos-lane13", "kairos-lane14", "kairos-lane15"};
  kal::Status status = kal::Status::kOk;
  for (std::size_t i = 0; i < lane_count_ && status == kal::Status::kOk; ++i) {
    status =
        lanes_[i].thread.start({kLaneNames[i], lanes_[i].band, -1}, &Engine::lane_main, &lanes_[i]);
  }
  if (status == kal::Status::kOk) {
    status = time_trigger_.start({"kairos-trigger", kal::kHighestBand, -1},
                                 &Engine::time_trigger_main, this);
  }
  if (status == kal::Status::kOk) {
    // Every thread exists before the epoch is fixed: creating them never delays a release.
    epoch_ = kal::MonotonicClock::now() + kStartupLead;
    end_ = epoch_ + duration;
    start_gate_.set();
  } else {
    abandoned_.store(true, std::memory_order_release);
    start_gate_.set();
  }

  if (status == kal::Status::kOk) {
    while (!releases_done_.load(std::memory_order_acquire)) {
      kal::sleep_until(kal::MonotonicClock::now() + kTracePollInterval);
      drain_traces(observer, observer_context);
    }
  }
  for (std::size_t i = 0; i < lane_count_; ++i) {
    lanes_[i].stopping.store(true, std::memory_order_release);
    lanes_[i].wakeup.set();
    lanes_[i].thread.join();
  }
  time_trigger_.join();
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

  auto still_due = [&](std::size_t i) {
    const SpmEntry& entry = *bindings_[i].entry;
    const bool within_aac =
        entry.last_release == kForever || next_release[i] - epoch_ <= entry.last_release;
    return within_aac && next_release[i] < end_;
  };
  for (std::size_t i = 0; i < binding_count_; ++i) {
    next_release[i] = epoch_ + bindings_[i].entry->first_release;
    active[i] = still_due(i);
  }

  for (;;) {
    // The next wake-up is the earliest start-window opening among the pending releases.
    kal::TimePoint wake = kal::TimePoint::max();
    for (std::size_t i = 0; i < binding_count_; ++i) {
      if (active[i]) {
        wake = std::min(wake, next_release[i] + bindings_[i].entry->window_open);
      }
    }
    if (wake == kal::TimePoint::max()) {
      break;
    }
    kal::sleep_until(wake);
    const kal::TimePoint now = kal::MonotonicClock::now();

    for (std::size_t i = 0; i < binding_count_; ++i) {
      const Binding& binding = bindings_[i];
      if (!active[i] || next_release[i] + binding.entry->window_open > now) {
        continue;
      }
      Lane& lane = lanes_[binding.lane];
      const Activation activation{static_cast<std::uint16_t>(i), sequence[i], next_release[i]};
      if (lane.queue.try_push(activation)) {
        lane.wakeup.set();
      } else {
        miss(binding, sequence[i], MissKind::kOverrun, next_release[i], now);
      }
      ++sequence[i];
      if (binding.entry->period == kal::Duration::zero()) {
        active[i] = false;
      } else {
        next_release[i] += binding.entry->period;
        active[i] = still_due(i);
      }
    }
  }
  releases_done_.store(true, std::memory_order_release);
}

void Engine::lane_main(void* lane_pointer) noexcept {
  Lane& lane = *static_cast<Lane*>(lane_pointer);
  Activation activation{};
  for (;;) {
    lane.wakeup.wait();
    while (lane.queue.try_pop(activation)) {
      lane.engine->execute(lane, activation);
    }
    if (lane.stopping.load(std::memory_order_acquire) && lane.queue.empty()) {
      return;
    }
  }
}

void Engine::execute(Lane& lane, const Activation& activation) noexcept {
  const Binding& binding = bindings_[activation.spm];
  const SpmEntry& entry = *binding.entry;
  activations_.fetch_add(1, std::memory_order_relaxed);

  ActivationRecord result{};
  result.spm = activation.spm;
  result.sequence = activation.sequence;
  result.release_ns = since(epoch_, activation.release);

  const kal::TimePoint start = kal::MonotonicClock::now();
  result.start_ns = since(epoch_, start);
  if (start > activation.release + entry.window_close) {
    // A method that cannot start inside its window is not started late: the TMO model
    // treats the activation as failed and hands it to the deadline handler.
    miss(binding, activation.sequence, MissKind::kStartWindow, activation.release, start);
    result.finish_ns = result.start_ns;
    record(lane, result);
    return;
  }
  result.started = true;
  binding.invoke(binding.servant);
  const kal::TimePoint finish = kal::MonotonicClock::now();
  result.finish_ns = since(epoch_, finish);
  result.deadline_met = finish <= activation.release + entry.deadline;
  if (!result.deadline_met) {
    miss(binding, activation.sequence, MissKind::kCompletionDeadline, activation.release, finish);
  }
  record(lane, result);
}

void Engine::record(Lane& lane, const ActivationRecord& result) noexcept {
  if (!lane.trace.try_push(result)) {
    trace_drops_.fetch_add(1, std::memory_order_relaxed);
  }
}

void Engine::miss(const Binding& binding, std::uint64_t sequence, MissKind kind,
                  kal::TimePoint release, kal::TimePoint observed) noexcept {
  switch (kind) {
    case MissKind::kStartWindow:
      start_window_misses_.fetch_add(1, std::memory_order_relaxed);
      break;
    case MissKind::kCompletionDeadline:
      deadline_misses_.fetch_add(1, std::memory_order_relaxed);
      break;
    case MissKind::kOverrun:
      overruns_.fetch_add(1, std::memory_order_relaxed);
      break;
  }
  if (binding.on_miss != nullptr) {
    const MissReport report{binding.entry, sequence, kind, release - epoch_, observed - epoch_};
    binding.on_miss(binding.servant, report);
  }
}

void Engine::drain_traces(ActivationObserver observer, void* context) noexcept {
  ActivationRecord result{};
  for (std::size_t i = 0; i < lane_count_; ++i) {
    while (lanes_[i].trace.try_pop(result)) {
      if (observer != nullptr) {
        observer(context, *bindings_[result.spm].entry, result);
      }
    }
  }
}

EngineCounters Engine::counters() const noexcept {
  return EngineCounters{activations_.load(), start_window_misses_.load(), deadline_misses_.load(),
                        overruns_.load(), trace_drops_.load()};
}

}  // namespace kairos
