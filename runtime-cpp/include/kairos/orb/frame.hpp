// The ORB's wire frame: a fixed 32-byte header, then the message body (marshalled by generated
// code, opaque to the ORB). The header says the byte order of itself and of the body, so a
// receiver of the other order swaps instead of guessing. Layout (offsets in bytes):
//
//    0  magic "KRB1"            16  object (u16)
//    4  version (u8)            18  operation (u16)
//    5  flags (u8)              20  band (u8): the server's priority band the frame travels on
//    6  kind (u8)               21  exception (u8): which declared exception a reply carries
//    7  reply status (u8)       22  reserved (u16, zero)
//    8  body size (u32)         24  budget (i64 ns): a request's time left to its deadline
//   12  request id (u32)
//
// decode_header checks every field a receiver relies on; a frame that fails is malformed, and
// the connection that sent it is closed (docs/orb.md#frames).
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>

namespace kairos::orb {

inline constexpr std::size_t kHeaderSize = 32;
inline constexpr std::array<std::byte, 4> kMagic{std::byte{'K'}, std::byte{'R'}, std::byte{'B'},
                                                 std::byte{'1'}};
inline constexpr std::uint8_t kVersion = 1;
inline constexpr std::uint8_t kLittleEndianFlag = 0x01;

enum class FrameKind : std::uint8_t {
  kHello = 0,    ///< first frame of a connection: who calls (body: node name) and on which band
  kRequest = 1,  ///< two-way request: a reply follows
  kOneway = 2,   ///< request without reply
  kReply = 3,
};

/// How a request ended, as the server (or, for the last two, the client itself) saw it.
enum class ReplyStatus : std::uint8_t {
  kOk = 0,             ///< body: the operation's reply
  kUserException = 1,  ///< body: the exception named by `exception` (1-based, per operation)
  kOverloaded = 2,     ///< the server had no room for the request (request slots, engine queue)
  kUnavailable = 3,    ///< the server's engine has ended its run (or could not start it)
  kNoSuchTarget = 4,   ///< unknown object or operation on this server
  kMalformed = 5,      ///< the request's body did not decode
  kRateExceeded = 6,   ///< it came sooner than the service method's max-rate allows: not served
  kNotPermitted = 7,   ///< no gate of the calling node names the operation: not served
};
inline constexpr std::uint8_t kLastReplyStatus = 7;

struct FrameHeader {
  FrameKind kind = FrameKind::kRequest;
  ReplyStatus status = ReplyStatus::kOk;
  std::uint8_t band = 0;
  std::uint8_t exception = 0;
  std::uint16_t object = 0;
  std::uint16_t operation = 0;
  std::uint32_t request_id = 0;
  std::uint32_t body_size = 0;
  std::int64_t budget_ns = 0;
  bool little_endian = std::endian::native == std::endian::little;  ///< byte order of the body
};

enum class HeaderError : std::uint8_t {
  kNone,
  kShort,        ///< fewer than kHeaderSize bytes
  kBadMagic,     ///< not a Kairos frame (or out of step in a stream)
  kBadVersion,   ///< a version this runtime does not speak
  kBadKind,      ///< unknown kind, or a reply status out of range
  kBadReserved,  ///< reserved bits set
  kTooLarge,     ///< body larger than the receiver's frame capacity
};

const char* to_string(HeaderError error) noexcept;

namespace detail {
template <typename T>
constexpr T byteswap(T value) noexcept {
  static_assert(std::is_unsigned_v<T>);
  T swapped = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    swapped = static_cast<T>((swapped << 8) | ((value >> (8 * i)) & 0xff));
  }
  return swapped;
}

template <typename T>
void store(std::byte* at, T value) noexcept {
  std::memcpy(at, &value, sizeof value);  // native order: the flags byte says which
}

template <typename T>
T load(const std::byte* at, bool swap) noexcept {
  T value;
  std::memcpy(&value, at, sizeof value);
  return swap ? byteswap(value) : value;
}
}  // namespace detail

/// Writes `header` (in the native byte order, which it records) into the first kHeaderSize
/// bytes of `out`, which must hold that many.
inline void encode_header(const FrameHeader& header,
                          std::span<std::byte, kHeaderSize> out) noexcept {
  std::byte* at = out.data();
  std::memcpy(at, kMagic.data(), kMagic.size());
  at[4] = std::byte{kVersion};
  at[5] =
      std::byte{std::endian::native == std::endian::little ? kLittleEndianFlag : std::uint8_t{0}};
  at[6] = std::byte{static_cast<std::uint8_t>(header.kind)};
  at[7] = std::byte{static_cast<std::uint8_t>(header.status)};
  detail::store<std::uint32_t>(at + 8, header.body_size);
  detail::store<std::uint32_t>(at + 12, header.request_id);
  detail::store<std::uint16_t>(at + 16, header.object);
  detail::store<std::uint16_t>(at + 18, header.operation);
  at[20] = std::byte{header.band};
  at[21] = std::byte{header.exception};
  detail::store<std::uint16_t>(at + 22, 0);
  detail::store<std::uint64_t>(at + 24, static_cast<std::uint64_t>(header.budget_ns));
}

/// Reads a header from `in` (the first kHeaderSize bytes of a frame); a body larger than
/// `body_capacity` is kTooLarge. Never reads past `in`.
inline HeaderError decode_header(std::span<const std::byte> in, std::size_t body_capacity,
                                 FrameHeader& header) noexcept {
  if (in.size() < kHeaderSize) {
    return HeaderError::kShort;
  }
  const std::byte* at = in.data();
  if (std::memcmp(at, kMagic.data(), kMagic.size()) != 0) {
    return HeaderError::kBadMagic;
  }
  if (at[4] != std::byte{kVersion}) {
    return HeaderError::kBadVersion;
  }
  const auto flags = std::to_integer<std::uint8_t>(at[5]);
  if ((flags & ~kLittleEndianFlag) != 0) {
    return HeaderError::kBadReserved;
  }
  const bool little = (flags & kLittleEndianFlag) != 0;
  const bool swap = little != (std::endian::native == std::endian::little);
  const auto kind = std::to_integer<std::uint8_t>(at[6]);
  const auto status = std::to_integer<std::uint8_t>(at[7]);
  if (kind > static_cast<std::uint8_t>(FrameKind::kReply) || status > kLastReplyStatus) {
    return HeaderError::kBadKind;
  }
  if (detail::load<std::uint16_t>(at + 22, swap) != 0) {
    return HeaderError::kBadReserved;
  }
  const auto body_size = detail::load<std::uint32_t>(at + 8, swap);
  if (body_size > body_capacity) {
    return HeaderError::kTooLarge;
  }
  header.kind = static_cast<FrameKind>(kind);
  header.status = static_cast<ReplyStatus>(status);
  header.body_size = body_size;
  header.request_id = detail::load<std::uint32_t>(at + 12, swap);
  header.object = detail::load<std::uint16_t>(at + 16, swap);
  header.operation = detail::load<std::uint16_t>(at + 18, swap);
  header.band = std::to_integer<std::uint8_t>(at[20]);
  header.exception = std::to_integer<std::uint8_t>(at[21]);
  header.budget_ns = static_cast<std::int64_t>(detail::load<std::uint64_t>(at + 24, swap));
  header.little_endian = little;
  return HeaderError::kNone;
}

}  // namespace kairos::orb
