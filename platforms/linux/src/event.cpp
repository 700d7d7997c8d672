#include <kairos/kal/event.hpp>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>

#include <kairos/kal/error.hpp>

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449  // Linux 5.16+, the same number on every architecture
#endif

namespace kairos::kal {

namespace {
constexpr std::uint32_t kClear = 0;
constexpr std::uint32_t kSet = 1;

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value,
           const timespec* timeout) noexcept {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

/// Takes the signal of an auto-reset event, or observes a manual-reset one; true if set.
bool try_take(std::atomic<std::uint32_t>& word, ResetMode mode) noexcept {
  if (mode == ResetMode::kManual) {
    return word.load(std::memory_order_acquire) == kSet;
  }
  std::uint32_t expected = kSet;
  return word.compare_exchange_strong(expected, kClear, std::memory_order_acquire,
                                      std::memory_order_relaxed);
}

// futex_waitv(2) structures (linux/futex.h of newer kernels; spelled out for older headers).
struct FutexWaitv {
  std::uint64_t val;
  std::uint64_t uaddr;
  std::uint32_t flags;
  std::uint32_t reserved;
};
constexpr std::uint32_t kFutex32 = 2;         // FUTEX2_SIZE_U32
constexpr std::uint32_t kFutexPrivate = 128;  // FUTEX2_PRIVATE
}  // namespace

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "the futex word must be a plain 32-bit integer");

void Event::set() noexcept {
  if (native_.word.exchange(kSet, std::memory_order_release) == kClear) {
    futex(&native_.word, FUTEX_WAKE_PRIVATE, mode_ == ResetMode::kManual ? INT_MAX : 1, nullptr);
  }
  // Waiters in wait_any sleep on every event of their set: wake them too.
  if (native_.multi_waiters.load(std::memory_order_acquire) > 0) {
    futex(&native_.word, FUTEX_WAKE_PRIVATE, INT_MAX, nullptr);
  }
}

void Event::reset() noexcept {
  native_.word.store(kClear, std::memory_order_release);
}

void Event::wait() noexcept {
  while (!try_take(native_.word, mode_)) {
    futex(&native_.word, FUTEX_WAIT_PRIVATE, kClear, nullptr);
  }
}

bool Event::wait_until(TimePoint deadline) noexcept {
  // An absolute CLOCK_MONOTONIC timeout (FUTEX_WAIT_BITSET): no drift from recomputing a
  // relative one, so a lane waiting for a start window wakes as precisely as clock_nanosleep.
  const auto ns = to_nanoseconds(deadline);
  const timespec absolute{static_cast<time_t>(ns / 1'000'000'000),
                          static_cast<long>(ns % 1'000'000'000)};
  while (!try_take(native_.word, mode_)) {
    if (deadline <= MonotonicClock::now()) {
      return false;
    }
    syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&native_.word), FUTEX_WAIT_BITSET_PRIVATE,
            kClear, deadline == TimePoint::max() ? nullptr : &absolute, nullptr,
            FUTEX_BITSET_MATCH_ANY);
  }
  return true;
}

int wait_any(std::span<Event* const> events, TimePoint deadline) noexcept {
  if (events.empty() || events.size() > kMaxWaitAny) {
    return -1;
  }
  for (Event* event : events) {
    event->native_.multi_waiters.fetch_add(1, std::memory_order_acq_rel);
  }
  int woken = -1;
  for (;;) {
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (try_take(events[i]->native_.word, events[i]->mode_)) {
        woken = static_cast<int>(i);
        break;
      }
    }
    if (woken >= 0 || deadline <= MonotonicClock::now()) {
      break;
    }
    FutexWaitv waiters[kMaxWaitAny]{};
    for (std::size_t i = 0; i < events.size(); ++i) {
      waiters[i] = FutexWaitv{kClear, reinterpret_cast<std::uintptr_t>(&events[i]->native_.word),
                              kFutex32 | kFutexPrivate, 0};
    }
    // futex_waitv takes an absolute CLOCK_MONOTONIC timeout.
    const auto ns = to_nanoseconds(deadline);
    const timespec absolute{static_cast<time_t>(ns / 1'000'000'000),
                            static_cast<long>(ns % 1'000'000'000)};
    const long rc = syscall(SYS_futex_waitv, waiters, events.size(), 0,
                            deadline == TimePoint::max() ? nullptr : &absolute, CLOCK_MONOTONIC);
    if (rc < 0 && errno == ENOSYS) {
      // Kernels before 5.16: poll in short naps rather than fail.
      sleep_until(std::min(deadline, MonotonicClock::now() + std::chrono::microseconds{100}));
    }
  }
  for (Event* event : events) {
    event->native_.multi_waiters.fetch_sub(1, std::memory_order_acq_rel);
  }
  return woken;
}

}  // namespace kairos::kal
