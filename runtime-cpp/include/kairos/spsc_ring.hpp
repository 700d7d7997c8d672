// Bounded single-producer single-consumer ring: wait-free, no allocation, no locks.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>

namespace kairos {

template <typename T, std::size_t Capacity>
class SpscRing {
  static_assert(Capacity >= 2 && (Capacity & (Capacity - 1)) == 0,
                "capacity must be a power of two");

 public:
  /// Producer side; false when full (the caller decides what a full ring means).
  bool try_push(const T& value) noexcept {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) == Capacity) {
      return false;
    }
    slots_[tail & (Capacity - 1)] = value;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }

  /// Consumer side; false when empty.
  bool try_pop(T& out) noexcept {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) {
      return false;
    }
    out = slots_[head & (Capacity - 1)];
    head_.store(head + 1, std::memory_order_release);
    return true;
  }

  /// Consumer side: the oldest value, left in the ring (nullptr when empty); `drop_front`
  /// removes it.
  const T* front() const noexcept {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) {
      return nullptr;
    }
    return &slots_[head & (Capacity - 1)];
  }

  /// Consumer side: removes the value `front` returned.
  void drop_front() noexcept {
    head_.store(head_.load(std::memory_order_relaxed) + 1, std::memory_order_release);
  }

  bool empty() const noexcept {
    return head_.load(std::memory_order_acquire) == tail_.load(std::memory_order_acquire);
  }

  static constexpr std::size_t capacity() noexcept { return Capacity; }

 private:
  // Producer and consumer indices on separate cache lines: no false sharing between lanes.
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
  std::array<T, Capacity> slots_{};
};

}  // namespace kairos
