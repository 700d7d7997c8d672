// The TMO engine: a time-trigger thread releases spontaneous methods from the node's release
// table onto per-priority worker lanes (one set per core of the node) and watches every start
// window and deadline.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include <kairos/capacities.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/method_timings.hpp>
#include <kairos/schedule.hpp>
#include <kairos/spsc_ring.hpp>

namespace kairos {

enum class MissKind : std::uint8_t {
  /// could not start inside start-during, so it is not run: seen when its lane comes to it
  /// after the window closed, or by the watchdog at its deadline if it is still waiting then
  kStartWindow,
  kCompletionDeadline,  ///< not finished by finish-by (seen at the deadline, even if still running)
  kOverrun,             ///< released while its lane still held a full queue: dropped
  kGuaranteedCompletion,  ///< a service request completed after its GCT
};

struct EngineOptions {
  /// Dispatching strategy of the node; decides the queue discipline inside each band.
  Strategy strategy = Strategy::kRms;
  /// Single-core nodes: pin every engine thread to this CPU (-1: let the OS place them); run_for
  /// refuses a CPU that kal::cpu_available says this process cannot use, and refuses the option
  /// on a multicore engine or beside `core_cpus` (place cores with `core_cpus` there).
  int cpu = -1;
  /// Occupy the processor for the row's WCET: after an SpM's body, before a service method's
  /// handler (whose reply to a remote caller leaves once the method has computed). For
  /// simulated nodes, whose method bodies take no virtual time of their own.
  bool model_execution_time = false;
  /// Run lanes at real-time priorities where the OS permits (false: time-shared, for
  /// comparison in benchmarks).
  bool real_time = true;
  /// How long before a start window opens the trigger hands the activation to its lane, which
  /// then sleeps until the window opens itself: the start then waits for one timer wake-up,
  /// not two. Negative: the platform's default (200 us on real time, 1 ns on simulated time).
  /// Never less than 1 ns: a lane choosing at the instant a window opens must see its activation.
  kal::Duration dispatch_ahead = kal::Duration{-1};
  /// The node's cores (partitioned scheduling): each row runs on its `core`, in lanes of that
  /// core only. 1 is the engine as it always was. run_for refuses 0 (kInvalidArgument) and more
  /// than Engine::kMaxCores (kCapacityExceeded); add_spm and add_svm refuse a row whose core is
  /// not below it (kInvalidArgument).
  std::uint8_t cores = 1;
  /// The CPU each core runs on (core c on core_cpus[c]), all different. Empty: a single-core
  /// engine uses `cpu`; a multicore one puts core c on the c-th CPU this process may use
  /// (kal::cpu_available), for core 0 (the time trigger's) up to the highest core a row uses:
  /// when there are fewer, run_for says so (kal::report) and returns kUnavailable. Cores above
  /// that run nothing and need no CPU.
  /// run_for refuses (kInvalidArgument) a list whose size is not `cores`, a CPU named twice or a
  /// CPU this process cannot use. On sim, run_for first provisions one virtual processor per
  /// core (kal::provision_processors), so cores 0..cores-1 run on processors 0..cores-1.
  std::span<const int> core_cpus{};
  /// Measure each method's execution time (the CPU time of its thread around the body) into its
  /// MethodTimings, and count the runs longer than the WCET. On Linux that reads the thread's
  /// CPU clock twice a run, a system call each (0.6 us apiece on the reference machine), so it
  /// is off unless asked for (a node's --timings); on a simulated platform it costs nothing and
  /// is on. Response times are measured either way.
  bool measure_execution_time = kal::kSimulatedTime;
  /// How long the engine still takes service requests in after its run ends (the end of its
  /// duration, or a stop), releasing nothing: the calls that activations of other nodes released
  /// before the end may still make, which would otherwise find it gone and fail. Generated nodes
  /// set it from the chains of the analysis that serve a request here (the latest a served call
  /// ends, from its source's release); zero stops taking requests in at the end.
  kal::Duration serve_after_end{};
};

/// Which worker lane the calling thread is: code inside a method body (a generated stub calling a
/// gate) uses it to pick the connection of its own lane, so that no two threads ever share one.
struct LaneIdentity {
  std::uint8_t core = 0;
  kal::PriorityBand band = kal::kLowestBand;
  bool on_lane = false;  ///< false for threads that are not an engine's lane
  /// The CPU the thread is pinned to (-1: wherever the OS puts it). A thread that is not a lane
  /// may run a request on a lane's behalf (Engine::serve_here) only where that lane would run.
  int cpu = -1;
  /// Which of the lanes of its (core, band) it is: 0, except under preemptive EDF, where each
  /// method has a lane of its own, numbered in the order the rows were added (SpMs, then SvMs).
  /// The ORB keeps a connection per calling lane, so lanes of one band never share one.
  std::uint8_t slot = 0;
};

/// The calling thread's lane (set by the engine as each lane starts).
LaneIdentity current_lane() noexcept;
/// Declares the calling thread to be `lane`: for threads that call through the ORB without being
/// an engine's lane (tests, tools, benchmarks), which then stand for that lane.
void set_current_lane(LaneIdentity lane) noexcept;
/// Said by a remote request's handler as it begins to send its reply (ServerRequest::complete):
/// the service method's measured execution ends there. Sending is the ORB's, charged by the
/// analysis as an ORB call per message (a platform file's `orb_call_ns`), not the method's WCET;
/// a TCP send on loopback runs the receiver's network stack on the sending thread, and under a
/// flood made a 50 us method read 74 us. Nothing happens on a thread that serves no request.
void note_reply_sending() noexcept;

struct MissReport {
  const SpmEntry* entry;  ///< the SpM, or nullptr for a service method (see `service`)
  std::uint64_t sequence;
  MissKind kind;
  kal::Duration release;   ///< relative to the epoch
  kal::Duration observed;  ///< when the miss was seen, relative to the epoch
  const SvmEntry* service = nullptr;
};

/// How one activation ended. Every release of an SpM and every served request has exactly one
/// outcome, decided once (by its lane, or by the time trigger's watchdog at the deadline), and
/// reported to the miss handler by whoever decided it. The activation lines a node prints and
/// the counts of its summary are both derived from it.
enum class ActivationOutcome : std::uint8_t {
  kMet,                ///< started inside its start window and finished by its deadline (GCT)
  kDeadlineMissed,     ///< started inside its window; not finished by its deadline (GCT)
  kStartWindowMissed,  ///< could not start inside its start window, so it was not run
  kOverrun,            ///< dropped at release, its lane's queue full; it was not run
};

/// What happened to one activation (times in nanoseconds relative to the epoch).
struct ActivationRecord {
  std::uint16_t spm = 0;  ///< row of the SpM table, or of the SvM table when `service`
  bool service = false;
  ActivationOutcome outcome = ActivationOutcome::kMet;
  /// The activation's number among its SpM's releases, or the request's among its SvM's (from 0)
  std::uint64_t sequence = 0;
  std::int64_t release_ns = 0;  ///< the release time t (for a request: its arrival)
  /// When the time trigger put the activation in its lane's queue: `dispatch_ahead` before its
  /// start window opens, or when a request was admitted.
  std::int64_t dispatch_ns = 0;
  /// When the lane took the activation to run it (before taking its segment locks); for one
  /// that was not run, when it was given up.
  std::int64_t start_ns = 0;
  /// When its body returned (read before its segment locks are released, since releasing a
  /// ceiling lock may hand the processor to a higher band at once); for one that was not run,
  /// when it was given up.
  std::int64_t finish_ns = 0;

  /// True when the method ran (it started inside its window).
  constexpr bool ran() const noexcept {
    return outcome == ActivationOutcome::kMet || outcome == ActivationOutcome::kDeadlineMissed;
  }
};

/// Counts of the records the engine produced so far: each is the number of records with that
/// outcome, so they agree with the records by construction (including records the observer
/// never saw because the trace ring was full, counted in `trace_drops`).
struct EngineCounters {
  std::uint64_t activations = 0;  ///< SpM releases, whatever their outcome
  std::uint64_t start_window_misses = 0;
  std::uint64_t deadline_misses = 0;
  std::uint64_t overruns = 0;
  std::uint64_t trace_drops = 0;
  std::uint64_t requests_served = 0;
  std::uint64_t requests_refused = 0;  ///< invalid, outside the run, or the queue was full
  std::uint64_t gct_misses = 0;        ///< served requests that completed after their GCT
  /// Of the served requests, those served at once on the thread that took them in (serve_here).
  std::uint64_t requests_served_at_once = 0;
  /// Runs of any method (SpM or SvM) that took longer than its row's WCET: the sum of the rows'
  /// MethodTimings::wcet_overruns, not an outcome (such a run may still meet its deadline).
  std::uint64_t wcet_overruns = 0;
  /// Whether execution times were measured (EngineOptions::measure_execution_time); without
  /// them `wcet_overruns` is 0 because nothing was compared.
  bool execution_time_measured = false;
  /// Requests refused because they came sooner than their service method's max-rate allows
  /// (admit_arrival): never queued or served, and not in `requests_refused`.
  std::uint64_t requests_over_rate = 0;
};

using MethodInvoker = void (*)(void* servant);
using MissHandler = void (*)(void* servant, const MissReport& miss) noexcept;
using ActivationObserver = void (*)(void* context, const SpmEntry& entry,
                                    const ActivationRecord& record);
/// Runs a service method for one request; `request` is the caller's request object.
using ServiceHandler = void (*)(void* servant, void* request);
using ServiceObserver = void (*)(void* context, const SvmEntry& entry,
                                 const ActivationRecord& record);

class Engine {
 public:
  // What a node may hold (runtime-cpp/capacities.properties; models are checked against it).
  static constexpr std::size_t kMaxSpms = capacity::kSpms;
  /// Lanes per node, one for each (core, band) some row uses: a single-core node has a lane per
  /// band; run_for returns kCapacityExceeded when the rows need more.
  static constexpr std::size_t kMaxLanes = capacity::kLanes;
  static constexpr std::size_t kMaxCores = capacity::kCores;
  static constexpr std::size_t kMaxSvms = capacity::kSvms;
  static constexpr std::size_t kMaxSegments = capacity::kSegments;
  static_assert(kMaxSpms <= 64, "SvmEntry::conflicts holds one bit per SpM row");
  static_assert(kMaxSegments <= 64, "a row's `segments` holds one bit per segment");
  static_assert(kMaxLanes <= 32, "the time trigger marks lanes to wake in 32 bits");
  static_assert(kMaxLanes >= capacity::kBands, "a single-core node has a lane for every band");
  static_assert(kMaxCores >= 1 && kMaxCores <= 8, "a simulated machine has at most 8 processors");
  static_assert(kMaxSpms <= 65536 && kMaxSvms <= 65536, "rows are numbered in 16 bits");

  static constexpr std::size_t kLaneQueueCapacity = 64;
  static constexpr std::size_t kTraceCapacity = 1024;
  static constexpr std::size_t kRequestCapacity = 256;

  explicit Engine(EngineOptions options = {});
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  /// Registers one row of the release table with the servant whose method it runs.
  /// kInvalidArgument when its core is not below EngineOptions::cores, or when it would share
  /// its TMO instance or an ODS segment with a row registered on another core.
  kal::Status add_spm(const SpmEntry& entry, void* servant, MethodInvoker invoke,
                      MissHandler on_miss) noexcept;

  /// Hands the time trigger the node's static release table (every start-window opening of one
  /// `hyperperiod`, in order) to walk instead of deriving releases from each row's AAC. Call after
  /// every add_spm; kInvalidArgument unless the table matches the rows exactly
  /// (release_table_matches). The table must outlive the engine (generated tables are static).
  kal::Status set_release_table(std::span<const ReleaseEntry> table,
                                kal::Duration hyperperiod) noexcept;

  /// Registers ODS segment number `segment_count()` with its ceiling lock. Methods whose
  /// `segments` mask names it hold the lock while they run (immediate priority ceiling).
  kal::Status add_segment(const SegmentEntry& entry) noexcept;
  std::size_t segment_count() const noexcept;

  /// Registers a service method with the servant that serves it; refused as add_spm refuses
  /// SpM rows. run_for refuses (kInvalidArgument) an SvM that conflicts with an SpM on another
  /// core: BCC admission holds within one core.
  kal::Status add_svm(const SvmEntry& entry, void* servant, ServiceHandler handler,
                      MissHandler on_miss) noexcept;

  /// Submits a request for service method row `svm` from any thread, from set-up until the run is
  /// over. The time trigger admits it under the basic concurrency constraint (the rule of
  /// SvmEntry: no unfinished activation of a conflicting SpM opens its start window within the
  /// SvM's admission slot). A request submitted before the run's epoch is held until it and
  /// counts its GCT from it: the nodes of a system start together, and a peer's first call may
  /// reach this node between its connections and its epoch. Refused, counted in
  /// `requests_refused` and never dispatched:
  /// - kInvalidArgument: `svm` is not a registered row, or `request` is null;
  /// - kUnavailable: the run is over (or could not start);
  /// - kResourceExhausted: the request queue is full.
  kal::Status request(std::size_t svm, void* request) noexcept;

  /// Takes a request of service method row `svm` that arrives now against the method's max-rate,
  /// before it is served (serve_here) or submitted (request): the ORB's admission of every remote
  /// request. kOk when the requests taken so far, this one with them, come at most
  /// ceil((w + arrival_jitter) / min_inter_arrival) in any window w, as the analysis counts them
  /// (the generic cell rate algorithm, one atomic word per method: wait-free for one thread, no
  /// lock, no allocation); kRateExceeded otherwise, counted in `requests_over_rate`: such a request
  /// must not be served, so that no caller can load the node beyond what was analysed. Rows
  /// without a max-rate (min_inter_arrival zero) take every request; kInvalidArgument for no row.
  kal::Status admit_arrival(std::size_t svm) noexcept;

  /// Serves a request for service method row `svm` at once, on the calling thread, instead of
  /// handing it to the time trigger and the lane (two thread switches): for the reader of a
  /// remote request's band, which would otherwise wake both. It does so only when that is what
  /// the lane would do now, so the schedule is the one request() gives:
  /// - the calling thread stands where the SvM's lane runs: current_lane() is at the lane's band
  ///   and pinned to its core's CPU (or both unpinned on a single-core node);
  /// - the lane is idle (nothing ready, asleep) and is lent to the caller for the request: the
  ///   lane takes it back before it runs anything else, waiting for the request if it has to;
  /// - no earlier request of this SvM is waiting or running (requests are served in order);
  /// - the request is admissible now under BCC (the same rule the time trigger applies).
  /// True: the row's ServiceHandler ran with `request` before this returned, recorded and counted
  /// as a served request (its GCT judged at completion: nobody else watches it while it runs).
  /// False: not now (or not at all: an invalid row, outside the run); submit it with request(),
  /// which queues it or says why not.
  bool serve_here(std::size_t svm, void* request) noexcept;

  /// Sees every served request's record, on the thread that called run_for.
  void observe_services(ServiceObserver observer, void* context) noexcept;

  /// Runs the node: releases every activation due in [epoch, epoch + duration), lets the
  /// lanes finish them, then stops all threads. `observer` sees every activation record on
  /// the calling thread, while the run is going on. Threads: one lane per (core, band) in use,
  /// pinned to its core's CPU at its band; the time trigger at the top band, pinned to core 0's
  /// CPU. Before it starts a thread it refuses the options and rows that EngineOptions::cores,
  /// EngineOptions::core_cpus and add_svm describe, and kCapacityExceeded when the rows need
  /// more than kMaxLanes lanes.
  kal::Status run_for(kal::Duration duration, ActivationObserver observer,
                      void* observer_context) noexcept;

  /// Ends the run early, at a clean point: the time trigger releases nothing from the instant it
  /// next wakes (on Linux at once for a node with service methods, else at its next release or
  /// watch; on sim at its next wake in simulated time), the activations and requests already in
  /// hand run to completion, and run_for returns as at the end of its duration. Callable from any
  /// thread (not from a signal handler), before the run too (it then ends as soon as it begins);
  /// idempotent.
  void request_stop() noexcept;

  EngineCounters counters() const noexcept;
  /// Whether some of its lanes run by deadline (preemptive EDF: on Linux under SCHED_DEADLINE,
  /// with its time trigger): known once its rows are added.
  bool schedules_by_deadline() const noexcept;

  /// Before run_for: its epoch is no earlier than `earliest`, so that nodes started together
  /// release from one instant (the start barrier of `kairos run`, NodeOptions::start_at). A run
  /// whose threads exist only after it begins at once, as without it (epoch_later_than_asked).
  void start_no_earlier_than(kal::TimePoint earliest) noexcept;
  /// After run_for began: whether the epoch came later than start_no_earlier_than asked.
  bool epoch_later_than_asked() const noexcept;

  /// The instant the run's releases count from (an SpM's first window opens at epoch + its
  /// offset). run_for fixes it before any lane runs, so a method body may read it.
  kal::TimePoint epoch() const noexcept;

  /// The SpM rows registered (add_spm), numbered in the order they were added.
  std::size_t spm_count() const noexcept;
  const SpmEntry& spm(std::size_t row) const noexcept;
  /// The SvM rows registered (add_svm), numbered in the order they were added.
  std::size_t svm_count() const noexcept;
  const SvmEntry& svm(std::size_t row) const noexcept;
  /// What SpM row `row` measured of its runs so far: execution and response times, and the
  /// executions longer than its WCET. Readable from any thread, during the run and after it.
  const MethodTimings& spm_timings(std::size_t row) const noexcept;
  /// The same for SvM row `row` (the response of a request runs from its arrival).
  const MethodTimings& svm_timings(std::size_t row) const noexcept;

 private:
  // The engine's state (rows, lanes, queues, counters) and the types it is made of live in
  // src/engine_state.hpp: nobody outside the engine's sources sees them. The state is made once,
  // with the engine, and never allocated again.
  struct Activation;
  struct Binding;
  struct ServiceBinding;
  struct Request;
  struct Lane;
  struct State;

  static void time_trigger_main(void* self) noexcept;
  static void lane_main(void* lane) noexcept;

  /// The time trigger's own state for a run (src/time_trigger.hpp), and its steps.
  struct Trigger;
  void release_all() noexcept;
  /// When the trigger must wake next: a start window opening (less the dispatch lead), a
  /// deadline or a GCT to judge; TimePoint::max() when nothing is left to release or watch.
  kal::TimePoint next_wake(Trigger& trigger) noexcept;
  void wake_lanes(Trigger& trigger) noexcept;
  /// Before the run's first wake (`first`): wakes the trigger and every lane once per
  /// kWarmUpTick for the kWarmUp before it, so that no CPU of the node comes to its first release
  /// from a long idle.
  void warm_up(kal::TimePoint first) noexcept;
  /// With no release left: whether requests are still to be taken in or handed on.
  bool still_serving(Trigger& trigger) noexcept;
  void pass_watches(Trigger& trigger, kal::TimePoint now) noexcept;
  void admit_requests(Trigger& trigger, kal::TimePoint now) noexcept;
  void dispatch_release(Trigger& trigger, std::size_t spm, std::uint64_t sequence,
                        kal::TimePoint release, kal::TimePoint now) noexcept;
  void publish_release_state(std::size_t spm, std::uint64_t released,
                             kal::TimePoint next_window) noexcept;
  bool admissible(const ServiceBinding& service, kal::TimePoint now) const noexcept;
  /// Now, if the engine takes requests now (accepting, and inside the run [epoch, end)); empty
  /// otherwise.
  std::optional<kal::TimePoint> accepting_now() const noexcept;
  /// Whether requests are still taken in at `now`: before the end (plus serve_after_end) and
  /// before a stop (plus the same).
  bool serving_at(kal::TimePoint now) const noexcept;
  static void reclaim(Lane& lane) noexcept;
  static void give_back(Lane& lane) noexcept;
  void serve_request(Lane& lane, const Activation& activation) noexcept;
  /// The calling thread's CPU time where execution times are measured, else zero (no clock read).
  kal::Duration cpu_time_if_measured() const noexcept {
    return options_.measure_execution_time ? kal::thread_cpu_time() : kal::Duration{};
  }
  void record_timings(MethodTimings& timings, kal::Duration executed, kal::Duration response,
                      kal::Duration wcet) const noexcept {
    if (options_.measure_execution_time) {
      timings.record(executed, response, wcet);
    } else {
      timings.record_response(response);
    }
  }
  void report_gct_miss(ServiceBinding& service, std::uint64_t sequence, kal::TimePoint arrival,
                       kal::TimePoint observed) noexcept;
  void lock_segments(std::uint64_t segments) noexcept;
  void unlock_segments(std::uint64_t segments) noexcept;
  /// The lane of (core, band), created if need be; `dedicated` always creates one (a row's own
  /// lane under preemptive EDF).
  kal::Status add_lane_for(std::uint8_t core, kal::PriorityBand band, Criticality criticality,
                           bool dedicated, std::size_t& lane) noexcept;
  /// Preemptive EDF: gives the lane's row a thread scheduled by deadline and its SRP level.
  void reserve_for_deadline(Lane& lane, kal::Duration wcet,
                            kal::Duration relative_deadline) noexcept;
  /// The Stack Resource Policy (Baker, 1991) with preemption levels by relative deadline: waits
  /// until the lane's level is above the ceiling of every segment held on its core, then holds
  /// `segments` (atomically with that check, so no two jobs ever hold one segment). Replaces the
  /// ceiling locks: a job admitted this way never waits for a segment while it runs.
  void srp_enter(Lane& lane, std::uint64_t segments) noexcept;
  void srp_exit(const Lane& lane, std::uint64_t segments) noexcept;
  /// Preemptive EDF: the lane's thread takes a job ready since `ready` and due at `deadline`
  /// (both max: none) and competes for its core as that job.
  static void take_job(Lane& lane, kal::TimePoint deadline, kal::TimePoint ready) noexcept;
  /// The absolute deadline of an activation: release + deadline, or arrival + GCT.
  kal::TimePoint deadline_of(const Activation& activation) const noexcept;
  bool shares_across_cores(std::string_view instance, std::uint64_t segments,
                           std::uint8_t core) const noexcept;
  kal::Status place_cores() noexcept;
  /// Each segment's ceiling at the host band of its core's CPU (kal::map_band).
  kal::Status move_ceilings_to_host_bands() noexcept;
  void serve(Lane& lane) noexcept;
  ReadyKey key_of(const Lane& lane, const Activation& activation) const noexcept;
  void execute(Lane& lane, const Activation& activation) noexcept;
  void record(SpscRing<ActivationRecord, kTraceCapacity>& trace,
              const ActivationRecord& record) noexcept;
  void watch_deadline(Binding& binding, std::uint64_t sequence, kal::TimePoint release,
                      kal::TimePoint now) noexcept;
  void report_miss(Binding& binding, std::uint64_t sequence, MissKind kind, kal::TimePoint release,
                   kal::TimePoint observed) noexcept;
  void drain_traces(ActivationObserver observer, void* context) noexcept;
  kal::Status assign_lanes() noexcept;

  EngineOptions options_;
  std::unique_ptr<State> state_;
};

}  // namespace kairos
