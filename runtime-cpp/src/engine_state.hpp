// The engine's private state: its rows, lanes, queues and counters, and the types they are made
// of. Only the engine's sources include it; the public <kairos/engine.hpp> names these types and
// holds the state behind one pointer, made with the engine.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>

#include <kairos/arrival_budget.hpp>
#include <kairos/engine.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/mutex.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/mpmc_queue.hpp>
#include <kairos/ready_queue.hpp>
#include <kairos/spsc_ring.hpp>

#include "engine_internal.hpp"

namespace kairos {

struct Engine::Activation {
  std::uint16_t spm = 0;  ///< or the SvM row when `service`
  bool service = false;   ///< a service request (never inferred from `request`)
  void* request = nullptr;
  std::uint64_t sequence = 0;
  std::uint64_t arrival = 0;
  kal::TimePoint release{};
  kal::TimePoint dispatched{};
  kal::TimePoint due{};  ///< when it may start: its start window opens (or on arrival)
};

struct Engine::Binding {
  const SpmEntry* entry = nullptr;
  void* servant = nullptr;
  MethodInvoker invoke = nullptr;
  MissHandler on_miss = nullptr;
  std::size_t lane = 0;
  /// Activations finished or given up (sequence + 1 of the latest), published by the lane.
  std::atomic<std::uint64_t> done{0};
  /// How far the activations have come, as 4 * sequence + phase (kWaiting, kRunning,
  /// kDecided); it only grows, and everything below it is decided. The lane moves an
  /// activation to running when it starts it and to decided when its body returns; the
  /// watchdog moves it to decided at its deadline if the lane has not. Whoever decides
  /// reports the miss, if any: each activation has one outcome, reported once.
  std::atomic<std::uint64_t> progress{0};
  /// Published by the time trigger for BCC admission on any thread (admissible()): how many
  /// activations it has released, then where the next one's start window opens (relative to
  /// the epoch; kNoWindow when no release is left). Written in that order, read in reverse.
  std::atomic<std::uint64_t> released{0};
  std::atomic<std::int64_t> next_window_ns{0};
};

struct Engine::ServiceBinding {
  const SvmEntry* entry = nullptr;
  void* servant = nullptr;
  ServiceHandler handler = nullptr;
  MissHandler on_miss = nullptr;
  std::size_t lane = 0;
  /// Requests taken in, numbering them: by the time trigger, or by serve_here when no request
  /// is outstanding (arrived == done).
  std::atomic<std::uint64_t> arrived{0};
  /// Requests finished (count), published by the lane; served in admission order.
  std::atomic<std::uint64_t> done{0};
  /// Count of the latest request whose outcome is decided: by the lane when it completes, or
  /// by the watchdog at its GCT (then missed, and reported there), whichever comes first.
  std::atomic<std::uint64_t> decided{0};
  /// The method's max-rate, with the arrival jitter the analysis counted (admit_arrival).
  ArrivalBudget max_rate;
};

struct Engine::Request {
  std::uint16_t svm = 0;
  void* request = nullptr;
  kal::TimePoint arrival{};
  std::uint64_t sequence = 0;  ///< per SvM, in arrival order (assigned by the trigger)
};

struct Engine::Lane {
  Engine* engine = nullptr;
  std::array<char, 16> name{};  ///< the thread's name, e.g. "kairos-lane3"
  std::uint8_t core = 0;
  kal::PriorityBand band = kal::kLowestBand;
  std::uint8_t slot = 0;  ///< LaneIdentity::slot: its place among the lanes of its (core, band)
  QueueDiscipline discipline = QueueDiscipline::kFifo;
  /// Preemptive EDF: the lane runs one row's jobs on a thread scheduled by deadline, and
  /// starts each only when the Stack Resource Policy admits it (srp_enter).
  bool by_deadline = false;
  /// Its row's relative deadline from a job's arrival (window opening, or a request's
  /// arrival): the row's SRP preemption level, shorter is higher.
  kal::Duration relative_deadline{};
  kal::DeadlineReservation reservation{};
  kal::Event srp_turn;  ///< set when segments held on its core are released
  /// The job it holds (take_job): its absolute deadline and when it became ready, in ns of the
  /// monotonic clock (max: none). Written by the lane's thread, read by srp_exit.
  std::atomic<std::int64_t> job_deadline_ns{std::numeric_limits<std::int64_t>::max()};
  std::atomic<std::int64_t> job_ready_ns{std::numeric_limits<std::int64_t>::max()};
  kal::Thread thread;
  kal::Event wakeup;
  std::atomic<bool> stopping{false};
  SpscRing<Activation, kLaneQueueCapacity> inbox;    ///< from the time-trigger thread
  ReadyQueue<Activation, kLaneQueueCapacity> ready;  ///< owned by the lane's thread
  /// Activations dispatched ahead of their start window, earliest first (lane's thread).
  std::array<Activation, kLaneQueueCapacity> early{};
  std::size_t early_count = 0;
  SpscRing<ActivationRecord, kTraceCapacity> trace;
  /// Who may run this lane's work now (LaneState): the lane's thread, or a thread it is lent to
  /// while it sleeps with nothing ready (serve_here). Only whoever holds it pushes to `trace`.
  std::atomic<std::uint8_t> state{0};
  kal::Event returned;  ///< set when a borrower hands the lane back to its waiting thread
};

struct Engine::State {
  std::array<Binding, kMaxSpms> bindings{};
  std::array<ServiceBinding, kMaxSvms> services{};
  std::array<kal::CeilingMutex, kMaxSegments> segment_locks{};
  /// Preemptive EDF: each segment's SRP ceiling, the shortest relative deadline of its users;
  /// per core, the segments held by started jobs and the lanes waiting for them to be released.
  std::array<kal::Duration, kMaxSegments> srp_ceiling{};
  std::array<std::atomic<std::uint64_t>, kMaxCores> srp_held{};
  std::array<std::atomic<std::uint32_t>, kMaxCores> srp_waiting{};
  std::size_t segment_count = 0;
  std::size_t service_count = 0;
  MpmcQueue<Request, kRequestCapacity> requests;
  kal::Event trigger_wakeup;
  std::atomic<bool> accepting_requests{false};
  /// Set before accepting_requests falls at the end (or when the run cannot start): a request
  /// that finds the engine not accepting is held when this is still false (the run is to come).
  std::atomic<bool> run_over{false};
  ServiceObserver service_observer = nullptr;
  void* service_observer_context = nullptr;
  std::size_t binding_count = 0;
  std::span<const ReleaseEntry> release_table{};
  kal::Duration hyperperiod{};
  std::array<Lane, kMaxLanes> lanes{};
  std::array<int, kMaxCores> core_cpu{};  ///< the CPU of each core (-1: any), set by run_for
  /// Records of activations the time trigger dropped at release (overruns); its own ring, as
  /// each lane has its own.
  SpscRing<ActivationRecord, kTraceCapacity> dropped_trace;
  std::size_t lane_count = 0;
  kal::Thread time_trigger;
  kal::TimePoint epoch{};
  /// The epoch no earlier than this (Engine::start_no_earlier_than): nodes started together agree
  /// on one instant; the default lets a run begin as soon as its threads exist.
  kal::TimePoint earliest_epoch = kal::TimePoint::min();
  kal::Duration dispatch_ahead{};
  kal::TimePoint end{};
  /// Requests are taken in until here: the end plus EngineOptions::serve_after_end.
  kal::TimePoint serve_until{};
  /// After a stop: the time trigger's instant of taking it in, plus serve_after_end (ns of the
  /// monotonic clock; the maximum until a stop).
  std::atomic<kal::TimePoint::rep> stop_serving_at{std::numeric_limits<kal::TimePoint::rep>::max()};
  /// Set by request_stop: the time trigger ends the run the next time it wakes.
  std::atomic<bool> stop_requested{false};
  kal::Event start_gate;
  std::atomic<bool> abandoned{false};
  std::atomic<bool> releases_done{false};

  // Written by the thread that runs each row (its lane, or the thread the lane is lent to).
  std::array<MethodTimings, kMaxSpms> spm_timings{};
  std::array<MethodTimings, kMaxSvms> svm_timings{};

  std::atomic<std::uint64_t> activations{0};
  std::atomic<std::uint64_t> start_window_misses{0};
  std::atomic<std::uint64_t> deadline_misses{0};
  std::atomic<std::uint64_t> overruns{0};
  std::atomic<std::uint64_t> trace_drops{0};
  std::atomic<std::uint64_t> requests_served{0};
  std::atomic<std::uint64_t> requests_refused{0};
  std::atomic<std::uint64_t> requests_over_rate{0};
  std::atomic<std::uint64_t> gct_misses{0};
  std::atomic<std::uint64_t> requests_served_at_once{0};
};

}  // namespace kairos
