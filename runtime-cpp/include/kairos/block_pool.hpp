// A pool of fixed-size blocks carved from a memory region at start-up. Acquire and release
// are lock-free (a Treiber stack whose head carries a tag against ABA) and never allocate.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <kairos/kal/error.hpp>
#include <kairos/kal/memory.hpp>

namespace kairos {

class BlockPool {
 public:
  BlockPool() = default;
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  /// Reserves `count` blocks of at least `block_size` bytes (aligned to 64) from a new region.
  kal::Status init(std::size_t block_size, std::uint32_t count) noexcept {
    if (count == 0 || block_size == 0 || count == kEmpty) {
      return kal::Status::kInvalidArgument;
    }
    stride_ = (block_size + kAlignment - 1) / kAlignment * kAlignment;
    if (const kal::Status status = region_.reserve(stride_ * count + count * sizeof(std::uint32_t));
        status != kal::Status::kOk) {
      return status;
    }
    count_ = count;
    next_ =
        reinterpret_cast<std::uint32_t*>(static_cast<std::byte*>(region_.data()) + stride_ * count);
    for (std::uint32_t i = 0; i < count; ++i) {
      next_[i] = i + 1 < count ? i + 1 : kEmpty;
    }
    head_.store(pack(0, 0), std::memory_order_release);
    return kal::Status::kOk;
  }

  /// A free block, or nullptr when the pool is exhausted.
  void* acquire() noexcept {
    std::uint64_t head = head_.load(std::memory_order_acquire);
    for (;;) {
      const std::uint32_t index = index_of(head);
      if (index == kEmpty) {
        return nullptr;
      }
      const std::uint64_t next = pack(next_[index], tag_of(head) + 1);
      if (head_.compare_exchange_weak(head, next, std::memory_order_acq_rel)) {
        return static_cast<std::byte*>(region_.data()) + stride_ * index;
      }
    }
  }

  /// Returns a block obtained from acquire().
  void release(void* block) noexcept {
    const auto offset = static_cast<std::size_t>(static_cast<std::byte*>(block) -
                                                 static_cast<std::byte*>(region_.data()));
    const auto index = static_cast<std::uint32_t>(offset / stride_);
    std::uint64_t head = head_.load(std::memory_order_acquire);
    for (;;) {
      next_[index] = index_of(head);
      if (head_.compare_exchange_weak(head, pack(index, tag_of(head) + 1),
                                      std::memory_order_acq_rel)) {
        return;
      }
    }
  }

  std::size_t block_size() const noexcept { return stride_; }
  std::uint32_t capacity() const noexcept { return count_; }

 private:
  static constexpr std::size_t kAlignment = 64;
  static constexpr std::uint32_t kEmpty = 0xFFFF'FFFFu;

  static constexpr std::uint64_t pack(std::uint32_t index, std::uint32_t tag) noexcept {
    return (static_cast<std::uint64_t>(tag) << 32) | index;
  }
  static constexpr std::uint32_t index_of(std::uint64_t head) noexcept {
    return static_cast<std::uint32_t>(head & 0xFFFF'FFFFu);
  }
  static constexpr std::uint32_t tag_of(std::uint64_t head) noexcept {
    return static_cast<std::uint32_t>(head >> 32);
  }

  kal::MemoryRegion region_;
  std::size_t stride_ = 0;
  std::uint32_t count_ = 0;
  std::uint32_t* next_ = nullptr;
  std::atomic<std::uint64_t> head_{pack(kEmpty, 0)};
};

}  // namespace kairos
