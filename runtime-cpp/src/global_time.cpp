#include <kairos/kal/global_time.hpp>

#include <atomic>

namespace kairos::kal {

namespace {
std::atomic<std::int64_t> offset_ns{0};
}

void set_global_offset(Duration offset) noexcept {
  offset_ns.store(offset.count(), std::memory_order_release);
}

Duration global_offset() noexcept {
  return Duration{offset_ns.load(std::memory_order_acquire)};
}

}  // namespace kairos::kal
