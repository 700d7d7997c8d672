// A bounded priority queue of ready activations: a binary heap over preallocated storage.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

namespace kairos {

/// Ordering key of a ready activation: smaller runs first. `primary` and `secondary` come from
/// the band's queue discipline; `arrival` keeps equal keys in FIFO order.
struct ReadyKey {
  std::int64_t primary = 0;
  std::int64_t secondary = 0;
  std::uint64_t arrival = 0;

  friend constexpr bool operator<(const ReadyKey& a, const ReadyKey& b) noexcept {
    if (a.primary != b.primary) {
      return a.primary < b.primary;
    }
    if (a.secondary != b.secondary) {
      return a.secondary < b.secondary;
    }
    return a.arrival < b.arrival;
  }
};

template <typename T, std::size_t Capacity>
class ReadyQueue {
 public:
  bool push(const ReadyKey& key, const T& value) noexcept {
    if (size_ == Capacity) {
      return false;
    }
    std::size_t hole = size_++;
    while (hole > 0) {
      const std::size_t parent = (hole - 1) / 2;
      if (!(key < slots_[parent].key)) {
        break;
      }
      slots_[hole] = slots_[parent];
      hole = parent;
    }
    slots_[hole] = Slot{key, value};
    return true;
  }

  bool pop(T& out) noexcept {
    if (size_ == 0) {
      return false;
    }
    out = slots_[0].value;
    const Slot last = slots_[--size_];
    std::size_t hole = 0;
    for (;;) {
      std::size_t child = 2 * hole + 1;
      if (child >= size_) {
        break;
      }
      if (child + 1 < size_ && slots_[child + 1].key < slots_[child].key) {
        ++child;
      }
      if (!(slots_[child].key < last.key)) {
        break;
      }
      slots_[hole] = slots_[child];
      hole = child;
    }
    slots_[hole] = last;
    return true;
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

 private:
  struct Slot {
    ReadyKey key;
    T value;
  };
  std::array<Slot, Capacity> slots_{};
  std::size_t size_ = 0;
};

}  // namespace kairos
