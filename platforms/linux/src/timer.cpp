#include <kairos/kal/timer.hpp>

#include <sys/timerfd.h>
#include <unistd.h>
#include <cerrno>

namespace kairos::kal {

namespace {
timespec to_timespec(std::int64_t ns) noexcept {
  return timespec{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}
}  // namespace

Timer::~Timer() {
  if (native_.fd >= 0) {
    ::close(native_.fd);
  }
}

Status Timer::arm(TimePoint first, Duration period) noexcept {
  if (period < Duration::zero()) {
    return Status::kInvalidArgument;
  }
  if (native_.fd < 0) {
    native_.fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
    if (native_.fd < 0) {
      return Status::kResourceExhausted;
    }
  }
  itimerspec spec{};
  spec.it_value = to_timespec(to_nanoseconds(first));
  if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) {
    spec.it_value.tv_nsec = 1;  // zero would disarm
  }
  spec.it_interval = to_timespec(period.count());
  if (timerfd_settime(native_.fd, TFD_TIMER_ABSTIME, &spec, nullptr) != 0) {
    return Status::kPlatformError;
  }
  native_.armed = true;
  return Status::kOk;
}

void Timer::disarm() noexcept {
  if (native_.fd >= 0) {
    const itimerspec stop{};
    timerfd_settime(native_.fd, 0, &stop, nullptr);
  }
  native_.armed = false;
}

std::uint64_t Timer::wait() noexcept {
  if (!native_.armed) {
    return 0;
  }
  std::uint64_t expirations = 0;
  while (::read(native_.fd, &expirations, sizeof expirations) < 0) {
    if (errno != EINTR) {
      return 0;
    }
  }
  return expirations;
}

}  // namespace kairos::kal
