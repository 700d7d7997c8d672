#include <kairos/kal/thread.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include "priority.hpp"

#include <linux/sched.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>

#include <cstddef>

namespace kairos::kal {

namespace {
// SCHED_FIFO priorities used for bands 0..63; the top of the range stays free for the
// kernel's own threads and for tools such as cyclictest.
constexpr int kFifoPriorityOfLowestBand = 20;

std::atomic<bool> fell_back_to_best_effort{false};
std::atomic<bool> deadline_refused{false};

/// The kernel's `struct sched_attr` as of SCHED_ATTR_SIZE_VER0 (glibc has no wrapper for
/// sched_setattr).
struct SchedAttr {
  std::uint32_t size;
  std::uint32_t sched_policy;
  std::uint64_t sched_flags;
  std::int32_t sched_nice;
  std::uint32_t sched_priority;
  std::uint64_t sched_runtime;
  std::uint64_t sched_deadline;
  std::uint64_t sched_period;
};

/// Lets `thread` run on processor `cpu` only.
void pin(pthread_t thread, int cpu) noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  pthread_setaffinity_np(thread, sizeof(set), &set);
}

/// Puts the calling thread under SCHED_DEADLINE. The kernel refuses a thread whose affinity is
/// narrower than its root domain (EPERM) and a reservation that would exceed the bandwidth it
/// admits (EBUSY): then the thread keeps its band's fixed priority, pinned to its CPU as any
/// other lane, and a warning says why, once.
void apply_deadline_reservation(const NativeThread& native) noexcept {
  SchedAttr attr{};
  attr.size = sizeof(attr);
  attr.sched_policy = SCHED_DEADLINE;
  attr.sched_runtime = native.deadline_runtime_ns;
  attr.sched_deadline = native.deadline_ns;
  attr.sched_period = native.deadline_period_ns;
  if (syscall(SYS_sched_setattr, 0, &attr, 0U) == 0) {
    return;
  }
  const int error = errno;
  if (native.cpu_if_refused >= 0) {
    pin(pthread_self(), native.cpu_if_refused);
  }
  if (!deadline_refused.exchange(true)) {
    char why[200];
    std::snprintf(
        why, sizeof why,
        "SCHED_DEADLINE refused (%s%s); the lanes it refused run at their band's fixed "
        "priority, not by deadline",
        std::strerror(error),
        error == EBUSY ? ": the reservations exceed the bandwidth the kernel admits" : "");
    report(Severity::kWarning, "threads", why);
  }
}

void warn_best_effort_once() noexcept {
  if (!fell_back_to_best_effort.exchange(true)) {
    report(Severity::kWarning, "threads",
           "real-time priorities are not permitted (SCHED_FIFO refused); running best effort "
           "with SCHED_OTHER, so priority bands are not enforced");
  }
}
}  // namespace

int fifo_priority(PriorityBand band) noexcept {
  const int clamped =
      band < kLowestBand ? kLowestBand : (band > kHighestBand ? kHighestBand : band);
  return kFifoPriorityOfLowestBand + clamped;
}

bool real_time_permitted() noexcept {
  rlimit limit{};
  return geteuid() == 0 || (getrlimit(RLIMIT_RTPRIO, &limit) == 0 &&
                            limit.rlim_cur >= static_cast<rlim_t>(fifo_priority(kHighestBand)));
}

Thread::~Thread() {
  join();
}

void* Thread::run(void* self) noexcept {
  // Timer slack defaults to 50 us for SCHED_OTHER threads; a release must not be smeared.
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  auto* thread = static_cast<Thread*>(self);
  if (thread->native_.deadline_runtime_ns > 0) {
    apply_deadline_reservation(thread->native_);
  }
  thread->entry_(thread->context_);
  return nullptr;
}

Status Thread::start(const ThreadAttributes& attributes, Entry entry, void* context) noexcept {
  if (started_ || entry == nullptr) {
    return Status::kInvalidArgument;
  }
  entry_ = entry;
  context_ = context;
  const DeadlineReservation& reservation = attributes.reservation;
  const bool by_deadline = attributes.real_time && reservation.runtime > Duration::zero();
  native_.deadline_runtime_ns =
      by_deadline ? static_cast<std::uint64_t>(reservation.runtime.count()) : 0;
  native_.deadline_ns = static_cast<std::uint64_t>(reservation.deadline.count());
  native_.deadline_period_ns = static_cast<std::uint64_t>(reservation.period.count());
  native_.cpu_if_refused = attributes.cpu;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  const auto stack_bytes = attributes.stack_bytes < static_cast<std::size_t>(PTHREAD_STACK_MIN)
                               ? static_cast<std::size_t>(PTHREAD_STACK_MIN)
                               : attributes.stack_bytes;
  pthread_attr_setstacksize(&attr, stack_bytes);
  sched_param param{};
  param.sched_priority = fifo_priority(host_band(attributes.cpu, attributes.band));
  if (attributes.real_time) {
    pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
    pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
    pthread_attr_setschedparam(&attr, &param);
  }

  int rc = pthread_create(&native_.handle, &attr, &Thread::run, this);
  if (rc == EPERM) {
    warn_best_effort_once();
    pthread_attr_destroy(&attr);
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stack_bytes);
    rc = pthread_create(&native_.handle, &attr, &Thread::run, this);
  }
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    return rc == EAGAIN ? Status::kResourceExhausted : Status::kPlatformError;
  }
  started_ = true;
  pthread_setname_np(native_.handle, attributes.name);
  // With admission control on, the kernel admits SCHED_DEADLINE only for threads that may run on
  // every CPU of their root domain, so a thread scheduled by deadline is pinned only when it is
  // off: partitioned EDF (docs/architecture.md#preemptive-edf).
  if (attributes.cpu >= 0 && (!by_deadline || deadline_threads_pinned())) {
    pin(native_.handle, attributes.cpu);
  }
  return Status::kOk;
}

void Thread::join() noexcept {
  if (started_) {
    pthread_join(native_.handle, nullptr);
    started_ = false;
  }
}

void Thread::set_job_deadline(TimePoint /*deadline*/, TimePoint /*ready_since*/) noexcept {
  // The kernel's constant bandwidth server gives each job the deadline wake-up + deadline.
}

void Thread::offer_job_deadline(TimePoint /*deadline*/, TimePoint /*ready_since*/) noexcept {}

SchedulingMode scheduling_mode() noexcept {
  return fell_back_to_best_effort.load() ? SchedulingMode::kBestEffort : SchedulingMode::kRealTime;
}

void run_as_band(PriorityBand band, int cpu, void (*entry)(void* context) noexcept,
                 void* context) noexcept {
  int own_policy = SCHED_OTHER;
  sched_param own_param{};
  const bool scheduled = pthread_getschedparam(pthread_self(), &own_policy, &own_param) == 0;
  cpu_set_t own_cpus{};
  const bool pinned = cpu >= 0 && cpu < CPU_SETSIZE &&
                      pthread_getaffinity_np(pthread_self(), sizeof own_cpus, &own_cpus) == 0;
  if (pinned) {
    pin(pthread_self(), cpu);
  }
  sched_param param{};
  param.sched_priority = fifo_priority(host_band(cpu, band));
  const bool raised = scheduled && pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
  entry(context);
  if (raised) {
    pthread_setschedparam(pthread_self(), own_policy, &own_param);
  }
  if (pinned) {
    pthread_setaffinity_np(pthread_self(), sizeof own_cpus, &own_cpus);
  }
}

bool deadline_scheduling_granted() noexcept {
  return !deadline_refused.load();
}

bool deadline_threads_pinned() noexcept {
  std::FILE* file = std::fopen("/proc/sys/kernel/sched_rt_runtime_us", "r");
  if (file == nullptr) {
    return false;  // unknown: as with admission control on
  }
  long runtime_us = 0;
  const bool read = std::fscanf(file, "%ld", &runtime_us) == 1;
  std::fclose(file);
  return read && runtime_us < 0;
}

bool cpu_available(int cpu) noexcept {
  if (cpu < 0 || cpu >= CPU_SETSIZE) {
    return false;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 &&
         CPU_ISSET(static_cast<std::size_t>(cpu), &set);
}

int available_cpu_count() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 0;
}

Status provision_processors(int count) noexcept {
  return count < 1 ? Status::kInvalidArgument : Status::kOk;  // the machine is what it is
}

}  // namespace kairos::kal
