#include <kairos/kal/thread.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include "priority.hpp"

#include <sched.h>
#include <sys/prctl.h>
#include <atomic>
#include <cerrno>
#include <climits>

#include <cstddef>

namespace kairos::kal {

namespace {
// SCHED_FIFO priorities used for bands 0..63; the top of the range stays free for the
// kernel's own threads and for tools such as cyclictest.
constexpr int kFifoPriorityOfLowestBand = 20;

std::atomic<bool> fell_back_to_best_effort{false};

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
  thread->entry_(thread->context_);
  return nullptr;
}

Status Thread::start(const ThreadAttributes& attributes, Entry entry, void* context) noexcept {
  if (started_ || entry == nullptr) {
    return Status::kInvalidArgument;
  }
  entry_ = entry;
  context_ = context;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  const auto stack_bytes = attributes.stack_bytes < static_cast<std::size_t>(PTHREAD_STACK_MIN)
                               ? static_cast<std::size_t>(PTHREAD_STACK_MIN)
                               : attributes.stack_bytes;
  pthread_attr_setstacksize(&attr, stack_bytes);
  sched_param param{};
  param.sched_priority = fifo_priority(attributes.band);
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
  if (attributes.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(static_cast<std::size_t>(attributes.cpu), &set);
    pthread_setaffinity_np(native_.handle, sizeof(set), &set);
  }
  return Status::kOk;
}

void Thread::join() noexcept {
  if (started_) {
    pthread_join(native_.handle, nullptr);
    started_ = false;
  }
}

SchedulingMode scheduling_mode() noexcept {
  return fell_back_to_best_effort.load() ? SchedulingMode::kBestEffort : SchedulingMode::kRealTime;
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

Status provision_processors(int count) noexcept {
  return count < 1 ? Status::kInvalidArgument : Status::kOk;  // the machine is what it is
}

}  // namespace kairos::kal
