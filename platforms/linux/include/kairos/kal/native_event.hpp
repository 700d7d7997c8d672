// Linux: an event is a futex word (0 = clear, 1 = set).
#pragma once

#include <atomic>
#include <cstdint>

namespace kairos::kal {

struct NativeEvent {
  std::atomic<std::uint32_t> word{0};
  /// Threads in wait_any() on this event: set() must wake them even when the word was set.
  std::atomic<std::uint32_t> multi_waiters{0};
};

}  // namespace kairos::kal
