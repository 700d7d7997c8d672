// Linux: the memory of a shared-memory connection (shm:name endpoints) and the message ring that
// carries one direction of it. The memory is shared with the peer process, so nothing read from
// it is trusted: the reader keeps its own position, and every length, position and commit word
// it finds there is checked before it is used (a bad one makes the ring corrupt, never a read
// out of bounds). The reader zeroes what it has read before it gives the space back, so free
// space is all zero: at the reader's position lies either nothing yet (a zero commit word) or
// the record committed for exactly that position; any other word is torn or forged.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include <kairos/kal/socket.hpp>

namespace kairos::kal::shm {

/// Every record starts with a 16-byte header: the commit word (the record's ring position plus
/// one, stored last, with release; zero until then), the payload size and the record kind.
inline constexpr std::size_t kRecordHeader = 16;
inline constexpr std::size_t kRecordAlignment = 16;
constexpr std::size_t record_size(std::size_t payload) noexcept {
  return (kRecordHeader + payload + kRecordAlignment - 1) / kRecordAlignment * kRecordAlignment;
}
/// A ring holds this many of the largest messages at once, so a reader that keeps up never makes
/// a sender fail (a ring that is full fails the send: the sender gives the connection up).
inline constexpr std::size_t kLargestMessagesPerRing = 8;
inline constexpr std::size_t kRingCapacity =
    kLargestMessagesPerRing * record_size(kLargestSharedMemoryMessage);

enum class RecordKind : std::uint32_t { kMessage = 1, kPadding = 2 };

/// The words of one ring that its producers and its consumer share, each on its own cache line.
struct RingControl {
  alignas(64) std::uint64_t head;      ///< end of the space producers have reserved (CAS)
  alignas(64) std::uint64_t tail;      ///< the consumer's position, published for producers
  alignas(64) std::uint32_t sleeping;  ///< 1: the consumer waits on its doorbell, ring it
};

/// The shared memory of one connection: ring 0 carries client -> server, ring 1 server -> client.
struct Layout {
  static constexpr std::size_t kPage = 4096;
  static constexpr std::size_t kControlOffset[2] = {0, 256};
  static constexpr std::size_t kDataOffset[2] = {kPage, kPage + kRingCapacity};
  static constexpr std::size_t kSize = (kPage + 2 * kRingCapacity + kPage - 1) / kPage * kPage;
};
static_assert(sizeof(RingControl) <= 256);

/// What the server sends on the set-up socket beside the memory and the two doorbells
/// (SCM_RIGHTS: memfd, the client -> server doorbell, the server -> client doorbell). The client
/// refuses a connection whose figures differ from its own.
struct SetupMessage {
  static constexpr std::uint32_t kMagic = 0x4d48534b;  // "KSHM"
  static constexpr std::uint32_t kVersion = 1;
  std::uint32_t magic = kMagic;
  std::uint32_t version = kVersion;
  std::uint64_t ring_capacity = kRingCapacity;
  std::uint64_t size = Layout::kSize;
};

/// The set-up socket's address for `name`: the socket file /tmp/kairos-shm-NAME, which the server
/// makes readable and writable by its user alone, so that no process of another user can even
/// connect (an abstract socket has no file and no mode: anyone on the host could).
inline bool setup_address(std::string_view name, sockaddr_un& address, socklen_t& length) noexcept {
  constexpr std::string_view kPrefix = "/tmp/kairos-shm-";
  if (name.empty() || kPrefix.size() + name.size() + 1 > sizeof address.sun_path) {
    return false;
  }
  std::memset(&address, 0, sizeof address);
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, kPrefix.data(), kPrefix.size());
  std::memcpy(address.sun_path + kPrefix.size(), name.data(), name.size());
  length =
      static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + kPrefix.size() + name.size() + 1);
  return true;
}

enum class PushResult : std::uint8_t { kOk, kFull, kTooLarge, kCorrupt };
enum class TakeResult : std::uint8_t { kMessage, kEmpty, kCorrupt };

/// A message found by MessageRing::peek: where its payload lies in the ring and the position
/// after it.
struct RingMessage {
  const std::byte* payload = nullptr;
  std::size_t size = 0;
  std::uint64_t next = 0;
};

/// A multi-producer, single-consumer ring of whole messages over shared memory. Producers
/// reserve space by compare-and-swap on `head`, write their record and publish it by storing its
/// commit word; the consumer takes records in position order. No lock, no allocation.
class MessageRing {
 public:
  MessageRing() = default;
  MessageRing(std::byte* control, std::byte* data) noexcept
      : control_(reinterpret_cast<RingControl*>(control)), data_(data) {}

  /// Any thread: appends `message` whole, or nothing.
  PushResult push(std::span<const std::byte> message) const noexcept {
    if (message.size() > kLargestSharedMemoryMessage) {
      return PushResult::kTooLarge;
    }
    const std::uint64_t size = record_size(message.size());
    std::atomic_ref<std::uint64_t> head(control_->head);
    std::atomic_ref<std::uint64_t> tail(control_->tail);
    // The CAS fails only when another producer reserved meanwhile; a bound keeps a peer that
    // keeps rewriting `head` from holding a sender here.
    constexpr int kAttempts = 1000;
    bool inconsistent = false;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      // The consumer's position first: read after it, `head` is never behind it.
      const std::uint64_t consumed = tail.load(std::memory_order_acquire);
      std::uint64_t position = head.load(std::memory_order_relaxed);
      if (position - consumed > kRingCapacity || position % kRecordAlignment != 0) {
        // More than a ring apart. A producer preempted between the two loads sees a tail that
        // the consumer has since left behind while other producers filled the ring again: look
        // again. Only a peer that keeps the words so makes the ring corrupt. Every reservation
        // is a whole number of records: a head between two (a peer's forgery) would put a
        // record header across the ring's end.
        inconsistent = true;
        continue;
      }
      inconsistent = false;
      const std::uint64_t offset = position % kRingCapacity;
      const std::uint64_t padding = offset + size > kRingCapacity ? kRingCapacity - offset : 0;
      if (position + padding + size - consumed > kRingCapacity) {
        return PushResult::kFull;
      }
      if (!head.compare_exchange_weak(position, position + padding + size,
                                      std::memory_order_relaxed)) {
        continue;
      }
      if (padding > 0) {
        commit(position, padding - kRecordHeader, RecordKind::kPadding);
        position += padding;
      }
      std::memcpy(data_ + position % kRingCapacity + kRecordHeader, message.data(), message.size());
      commit(position, message.size(), RecordKind::kMessage);
      return PushResult::kOk;
    }
    return inconsistent ? PushResult::kCorrupt : PushResult::kFull;
  }

  /// Consumer: the message at `position` (skipping padding), if one is committed there.
  TakeResult peek(std::uint64_t position, RingMessage& message) const noexcept {
    for (int record = 0; record < 2; ++record) {  // at most one padding, then a message
      const std::uint64_t offset = position % kRingCapacity;
      std::byte* header = data_ + offset;
      const std::uint64_t stamp = word64(header).load(std::memory_order_acquire);
      if (stamp == 0) {  // nothing committed here yet
        return plausible(position) ? TakeResult::kEmpty : TakeResult::kCorrupt;
      }
      if (stamp != position + 1) {
        return TakeResult::kCorrupt;  // free space is zero: this word is torn or forged
      }
      // Read once into locals: the peer may change the memory while we look at it.
      const std::uint64_t size = word32(header + 8).load(std::memory_order_relaxed);
      const std::uint32_t kind = word32(header + 12).load(std::memory_order_relaxed);
      const std::uint64_t end = position + record_size(size);
      const std::uint64_t reserved =
          std::atomic_ref<std::uint64_t>(control_->head).load(std::memory_order_acquire);
      if (offset + record_size(size) > kRingCapacity || end - position > reserved - position) {
        return TakeResult::kCorrupt;  // beyond the ring's end, or beyond what was reserved
      }
      if (kind == static_cast<std::uint32_t>(RecordKind::kPadding)) {
        if (offset + record_size(size) != kRingCapacity || record > 0) {
          return TakeResult::kCorrupt;  // padding only ever fills the end of the ring
        }
        position = end;
        continue;
      }
      if (kind != static_cast<std::uint32_t>(RecordKind::kMessage) ||
          size > kLargestSharedMemoryMessage) {
        return TakeResult::kCorrupt;
      }
      message = RingMessage{header + kRecordHeader, static_cast<std::size_t>(size), end};
      return TakeResult::kMessage;
    }
    return TakeResult::kCorrupt;
  }

  /// Consumer: whether there is something to look at at `position` (a cheap look for spinning):
  /// a committed record, or a word that peek() will find corrupt.
  bool ready(std::uint64_t position) const noexcept {
    return word64(data_ + position % kRingCapacity).load(std::memory_order_acquire) != 0;
  }

  /// Consumer: zeroes the records from `position` to `next` (a message and the padding before
  /// it, as peek() found them) and gives their space back to the producers.
  void consume(std::uint64_t position, std::uint64_t next) const noexcept {
    while (position < next) {
      const std::uint64_t offset = position % kRingCapacity;
      const std::uint64_t length = std::min(next - position, kRingCapacity - offset);
      std::memset(data_ + offset, 0, length);
      position += length;
    }
    std::atomic_ref<std::uint64_t>(control_->tail).store(next, std::memory_order_release);
  }

  std::atomic_ref<std::uint32_t> sleeping() const noexcept {
    return std::atomic_ref<std::uint32_t>(control_->sleeping);
  }

 private:
  static std::atomic_ref<std::uint64_t> word64(std::byte* at) noexcept {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(at));
  }
  static std::atomic_ref<std::uint32_t> word32(std::byte* at) noexcept {
    return std::atomic_ref<std::uint32_t>(*reinterpret_cast<std::uint32_t*>(at));
  }

  void commit(std::uint64_t position, std::uint64_t size, RecordKind kind) const noexcept {
    std::byte* header = data_ + position % kRingCapacity;
    word32(header + 8).store(static_cast<std::uint32_t>(size), std::memory_order_relaxed);
    word32(header + 12).store(static_cast<std::uint32_t>(kind), std::memory_order_relaxed);
    word64(header).store(position + 1, std::memory_order_release);
  }

  /// Whether the producers' reservation is consistent with the consumer at `position`: never
  /// behind it, never more than a ring ahead.
  bool plausible(std::uint64_t position) const noexcept {
    const std::uint64_t reserved =
        std::atomic_ref<std::uint64_t>(control_->head).load(std::memory_order_relaxed);
    return reserved - position <= kRingCapacity;
  }

  RingControl* control_ = nullptr;
  std::byte* data_ = nullptr;
};

static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free &&
                  std::atomic_ref<std::uint32_t>::is_always_lock_free,
              "shared-memory rings need lock-free atomics: a lock would not be shared");

}  // namespace kairos::kal::shm
