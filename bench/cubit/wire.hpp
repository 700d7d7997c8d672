// The raw transports' message: an 8-byte header and the payload copied as it lies in memory.
// This is the "no marshalling beyond memcpy" floor the other stacks are compared with.
#pragma once

#include <cstddef>
#include <cstdint>

#include "payload.hpp"

namespace cubit::wire {

enum class Op : std::uint8_t { kCall = 0, kOneway = 1, kTotals = 2, kQuit = 3 };

struct Header {
  std::uint32_t tag;    // magic << 16 | op << 8 | kind
  std::uint32_t bytes;  // of the body that follows
};
inline constexpr std::size_t kHeaderBytes = sizeof(Header);
inline constexpr std::size_t kMaxMessage = kHeaderBytes + 4 * std::size_t{kMaxSequence};

/// Writes the message into `out` (at least kMaxMessage bytes); returns its size.
std::size_t encode(Op op, const Value& value, unsigned char* out);
/// A totals answer: body of two uint64 (count, digest).
std::size_t encode_totals(std::uint64_t count, std::uint64_t digest, unsigned char* out);

/// Bytes of the whole message whose header starts `data`, or 0 when the header is malformed.
std::size_t message_size(const unsigned char* data);
/// Checks every bound; false on a malformed message.
bool decode(const unsigned char* data, std::size_t size, Op& op, Value& value);
bool decode_totals(const unsigned char* data, std::size_t size, std::uint64_t& count,
                   std::uint64_t& digest);

/// The server's side of every raw transport: cubes calls and oneways, answers totals.
class Responder {
 public:
  enum class Outcome { kReply, kNoReply, kQuit, kMalformed };
  /// Handles one message; on kReply the answer is in `reply` with `reply_size` bytes.
  Outcome handle(const unsigned char* data, std::size_t size, unsigned char* reply,
                 std::size_t& reply_size);
  /// For the benchmark's own test: the answer to call number `call` is off by one, which the
  /// client must notice.
  void inject_wrong_reply(std::uint64_t call) { wrong_call_ = call; }

 private:
  std::uint64_t calls_ = 0;
  std::uint64_t wrong_call_ = UINT64_MAX;
  Value value_;
  std::uint64_t oneway_count_ = 0;
  std::uint64_t oneway_digest_ = 0;
};

}  // namespace cubit::wire
