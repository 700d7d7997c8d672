// Kernel Adaptation Layer: threads with abstract priority bands.
#pragma once

#include <cstddef>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/native_thread.hpp>

namespace kairos::kal {

/// Abstract priority band: 0 is the least urgent, kHighestBand the most. The platform maps
/// bands onto its own priorities, so models and tables never carry OS priority numbers.
using PriorityBand = int;
inline constexpr PriorityBand kLowestBand = 0;
inline constexpr PriorityBand kHighestBand = 63;

/// Host bands: where lanes of several nodes share a CPU, `kairos run` ranks the bands of all of
/// them in one order (the system as deployed, docs/deploy.md) and gives each process the host band
/// each of its bands runs at on that CPU. Set before the first thread starts; a thread started on
/// `cpu` at `band` then runs at host_band(cpu, band), and so does a ceiling moved there. Bands
/// without a host band, and threads on no CPU of their own, keep their band. Returns false for a
/// CPU or band out of range.
bool map_band(int cpu, PriorityBand band, PriorityBand host) noexcept;

/// The band a thread on `cpu` at `band` runs at: its host band where one was mapped, else `band`.
PriorityBand host_band(int cpu, PriorityBand band) noexcept;

/// How the platform could honour priority bands.
enum class SchedulingMode {
  kRealTime,    ///< strict fixed priorities (SCHED_FIFO on Linux)
  kBestEffort,  ///< priorities could not be set; the OS time-shares threads
  kSimulated,   ///< strict priorities on a simulated processor, in virtual time
};

/// The mode as reports and files name it: "real-time", "best-effort" or "simulated".
constexpr const char* to_string(SchedulingMode mode) noexcept {
  switch (mode) {
    case SchedulingMode::kRealTime:
      return "real-time";
    case SchedulingMode::kBestEffort:
      return "best-effort";
    case SchedulingMode::kSimulated:
      return "simulated";
  }
  return "best-effort";
}

/// Earliest-deadline-first scheduling for a thread that runs one method's jobs (a lane of a
/// preemptive EDF node). On Linux: a SCHED_DEADLINE reservation of `runtime` every `period`, each
/// job due `deadline` after it wakes (the kernel's constant bandwidth server; a thread that uses
/// up its runtime waits for its next period). On a simulated platform: among the threads of its
/// band, the one whose job has the earliest absolute deadline (Thread::set_job_deadline) runs,
/// preempting one whose deadline is later.
struct DeadlineReservation {
  Duration runtime{};  ///< zero: no reservation (fixed priority at the thread's band)
  Duration deadline{};
  Duration period{};
};

/// The reservation of a thread that hands work to deadline-scheduled lanes (the engine's time
/// trigger, the ORB's band readers) on Linux: as SCHED_FIFO it would rank below the whole deadline
/// class and, on a CPU the lanes keep busy, hand nothing on until every lane sleeps. Each time it
/// wakes it is due 1 ms later, earlier than every job but one due within that millisecond, with
/// 100 us to spend in each such millisecond (10% of a processor, which it reserves but hardly
/// uses: its work per wake-up is a few microseconds, a burst a few tens). The period is the
/// deadline: with a shorter deadline than period the kernel would hold a wake-up that comes
/// after the deadline but before the next period until that period begins
/// (dl_check_constrained_dl), and such a thread wakes whenever work comes, not periodically.
/// Not for simulated platforms, where such threads rank above the lanes.
inline constexpr DeadlineReservation kHandoffReservation{
    std::chrono::microseconds{100}, std::chrono::milliseconds{1}, std::chrono::milliseconds{1}};

struct ThreadAttributes {
  const char* name = "kairos";  ///< shown by the OS (truncated to its limit)
  PriorityBand band = kLowestBand;
  /// CPU to pin the thread to, or -1 for any (on a simulated platform: its virtual processor,
  /// -1 meaning processor 0).
  int cpu = -1;
  /// Stack reserved (and, with locked memory, faulted in) at creation; small by default
  /// because method bodies must not recurse deeply or keep large buffers on the stack.
  std::size_t stack_bytes = 256 * 1024;
  /// Ask for a real-time priority (false: time-shared, e.g. to measure the difference).
  bool real_time = true;
  /// Schedule the thread by deadline instead of by its band alone (needs `real_time`).
  DeadlineReservation reservation{};
};

/// A platform thread. Start-up may fail (returns an error); running it costs nothing.
class Thread {
 public:
  using Entry = void (*)(void* context) noexcept;

  Thread() = default;
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;
  ~Thread();

  /// Creates the thread at its band; falls back to best effort (warning once) if the OS
  /// refuses real-time priorities.
  Status start(const ThreadAttributes& attributes, Entry entry, void* context) noexcept;

  /// Waits for the thread to return from its entry function.
  void join() noexcept;

  /// Called by the thread itself (one started with a DeadlineReservation) as it takes a job that
  /// became ready at `ready_since` and is due at `deadline` (both TimePoint::max() while it has
  /// none): it competes for the processor as that job, not yet started. Exact on a simulated
  /// platform, where it decides at once which thread runs: the earliest deadline, a started job
  /// before one not started on a tie, then the job ready first, then the thread started first.
  /// On Linux the kernel sets each job's deadline itself when the thread wakes (wake-up time plus
  /// the reservation's deadline), so this does nothing there.
  void set_job_deadline(TimePoint deadline, TimePoint ready_since) noexcept;

  /// Called by a thread that hands this one a job (ready since `ready_since`, due at `deadline`)
  /// before waking it: a thread without a job competes as that job from now on, so that it wakes
  /// as urgent as the job it is given; one with a job keeps it. Does nothing on Linux, as
  /// set_job_deadline.
  void offer_job_deadline(TimePoint deadline, TimePoint ready_since) noexcept;

  bool joinable() const noexcept { return started_; }

 private:
  static void* run(void* self) noexcept;

  NativeThread native_{};
  Entry entry_ = nullptr;
  void* context_ = nullptr;
  bool started_ = false;
};

/// The mode threads started so far obtained (real time until a start had to fall back; always
/// simulated on a simulated platform).
SchedulingMode scheduling_mode() noexcept;

/// Whether every thread started with a DeadlineReservation so far was given it (false once the
/// OS refused one: that thread runs at its band's fixed priority, and a warning says why).
bool deadline_scheduling_granted() noexcept;

/// Runs `entry(context)` on the calling thread as a real-time thread of `band` pinned to `cpu`
/// (-1: the CPUs it has) would run, then gives the thread back its own scheduling and CPUs. The
/// threads a library starts meanwhile inherit them: Cyclone DDS starts its receive and delivery
/// threads with the scheduling and CPUs of the thread that creates its domain, which thus run at
/// the band the analysis assumes of them, not time-shared with every process of the machine.
/// Where the OS refuses a real-time priority, only the CPUs are taken.
void run_as_band(PriorityBand band, int cpu, void (*entry)(void* context) noexcept,
                 void* context) noexcept;

/// How the threads of this process were scheduled, as a node's summary and timings name it: the
/// scheduling mode, or "deadline-refused" when priorities were enforced but the OS refused a
/// deadline reservation (those lanes ran at their band's fixed priority, not by deadline, so a
/// preemptive EDF node was not scheduled as analysed).
inline const char* scheduling_in_effect() noexcept {
  const SchedulingMode mode = scheduling_mode();
  if (mode == SchedulingMode::kRealTime && !deadline_scheduling_granted()) {
    return "deadline-refused";
  }
  return to_string(mode);
}

/// Whether a thread scheduled by deadline runs on its ThreadAttributes::cpu, so that the deadline
/// threads of one core compete on one processor (partitioned EDF). On Linux only when the kernel's
/// deadline admission control is off (/proc/sys/kernel/sched_rt_runtime_us -1): with it on, the
/// kernel admits a deadline thread only if it may run on every CPU of its root domain, and such
/// threads are left unpinned (global EDF). Always on a simulated platform.
bool deadline_threads_pinned() noexcept;

/// True when this process may run threads on processor `cpu` (ThreadAttributes::cpu): on Linux,
/// when it is in the process's affinity mask; on a simulated platform, when the simulated machine
/// has that virtual processor (only CPU 0 until provision_processors asks for more).
bool cpu_available(int cpu) noexcept;

/// How many processors this process may run threads on: those cpu_available says yes to.
int available_cpu_count() noexcept;

/// Asks for a machine of at least `count` processors. A simulated machine starts with one
/// virtual processor and grows to `count` (it never shrinks; kCapacityExceeded beyond its
/// limit of 8). A real machine has the CPUs it has: kOk, and cpu_available says which of them
/// this process may use. kInvalidArgument when `count` < 1.
Status provision_processors(int count) noexcept;

}  // namespace kairos::kal
