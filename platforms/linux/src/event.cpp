#include <kairos/kal/event.hpp>

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cerrno>
#include <climits>

namespace kairos::kal {

namespace {
constexpr std::uint32_t kClear = 0;
constexpr std::uint32_t kSet = 1;

long futex(std::atomic<std::uint32_t>* word, int op, std::uint32_t value,
           const timespec* timeout) noexcept {
  return syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(word), op, value, timeout, nullptr, 0);
}

/// Consumes a pending signal; true if there was one.
bool try_consume(std::atomic<std::uint32_t>& word) noexcept {
  std::uint32_t expected = kSet;
  return word.compare_exchange_strong(expected, kClear, std::memory_order_acquire,
                                      std::memory_order_relaxed);
}
}  // namespace

static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t),
              "the futex word must be a plain 32-bit integer");

void Event::set() noexcept {
  if (native_.word.exchange(kSet, std::memory_order_release) == kClear) {
    futex(&native_.word, FUTEX_WAKE_PRIVATE, 1, nullptr);
  }
}

void Event::wait() noexcept {
  while (!try_consume(native_.word)) {
    futex(&native_.word, FUTEX_WAIT_PRIVATE, kClear, nullptr);
  }
}

bool Event::wait_until(TimePoint deadline) noexcept {
  while (!try_consume(native_.word)) {
    const auto remaining = deadline - MonotonicClock::now();
    if (remaining <= Duration::zero()) {
      return false;
    }
    const auto ns = remaining.count();
    const timespec relative{static_cast<time_t>(ns / 1'000'000'000),
                            static_cast<long>(ns % 1'000'000'000)};
    futex(&native_.word, FUTEX_WAIT_PRIVATE, kClear, &relative);
  }
  return true;
}

}  // namespace kairos::kal
