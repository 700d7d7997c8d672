// Marshalling of the model's IDL types: a CDR-like encoding into caller-provided buffers.
//
// Primitives are aligned to their size relative to the start of the message body (the ORB keeps
// bodies 8-aligned), written in the sender's byte order; the receiver swaps when the flag of the
// message says the sender's order differs from its own ("receiver makes right", as in CORBA
// CDR). Bounded strings and sequences are a uint32 length followed by their elements. Nothing
// here allocates, throws, or reads memory it was not given: every decode is bounds-checked, and
// the first failure of a Writer or Reader sticks, so a chain of calls needs one check at the end.
// The wire format is described in docs/marshalling.md.
#pragma once

#include <array>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>

#include <kairos/bounded.hpp>

namespace kairos::cdr {

/// What an encode or decode came to; everything but kOk is an error.
enum class Status : std::uint8_t {
  kOk,
  kBufferTooSmall,  ///< encode: the value does not fit the buffer
  kTruncated,       ///< decode: the body ended inside a value
  kBoundExceeded,   ///< decode: a string or sequence length beyond its bound
  kInvalidValue,    ///< decode: a bool other than 0/1, an enum or exception index out of range
  kTrailingBytes,   ///< decode: bytes left after the whole body was decoded
};

constexpr std::string_view to_string(Status status) noexcept {
  switch (status) {
    case Status::kOk:
      return "ok";
    case Status::kBufferTooSmall:
      return "buffer too small";
    case Status::kTruncated:
      return "truncated";
    case Status::kBoundExceeded:
      return "bound exceeded";
    case Status::kInvalidValue:
      return "invalid value";
    case Status::kTrailingBytes:
      return "trailing bytes";
  }
  return "unknown status";
}

inline constexpr bool kNativeLittleEndian = std::endian::native == std::endian::little;

/// The types written as one aligned primitive of their size (enums go through uint32).
template <typename T>
concept Primitive =
    std::same_as<T, bool> || std::same_as<T, char> || std::same_as<T, std::int8_t> ||
    std::same_as<T, std::uint8_t> || std::same_as<T, std::int16_t> ||
    std::same_as<T, std::uint16_t> || std::same_as<T, std::int32_t> ||
    std::same_as<T, std::uint32_t> || std::same_as<T, std::int64_t> ||
    std::same_as<T, std::uint64_t> || std::same_as<T, float> || std::same_as<T, double>;

template <typename T>
concept Enumeration = std::is_enum_v<T>;

namespace detail {

/// The unsigned integer of a primitive's size, in which its bytes are swapped.
template <std::size_t Size>
struct BitsOf;
template <>
struct BitsOf<1> {
  using type = std::uint8_t;
};
template <>
struct BitsOf<2> {
  using type = std::uint16_t;
};
template <>
struct BitsOf<4> {
  using type = std::uint32_t;
};
template <>
struct BitsOf<8> {
  using type = std::uint64_t;
};

template <typename U>
constexpr U byteswap(U bits) noexcept {
  if constexpr (sizeof(U) == 1) {
    return bits;
  } else if constexpr (sizeof(U) == 2) {
    return __builtin_bswap16(bits);
  } else if constexpr (sizeof(U) == 4) {
    return __builtin_bswap32(bits);
  } else {
    return __builtin_bswap64(bits);
  }
}

/// Swaps the bytes of a primitive in place (floats as their IEEE bits).
template <Primitive T>
inline void swap_bytes(std::byte* bytes) noexcept {
  using Bits = typename BitsOf<sizeof(T)>::type;
  Bits bits;
  std::memcpy(&bits, bytes, sizeof(Bits));
  bits = byteswap(bits);
  std::memcpy(bytes, &bits, sizeof(Bits));
}

constexpr std::size_t padding(std::size_t position, std::size_t alignment) noexcept {
  return (alignment - position % alignment) % alignment;
}

}  // namespace detail

/// Encodes into a caller-provided buffer, in the native byte order unless told otherwise.
class Writer {
 public:
  explicit Writer(std::span<std::byte> buffer) noexcept : buffer_(buffer) {}

  /// Writes in the given order: the ORB always writes native order, so this is for tests and
  /// tools that must produce a foreign peer's bytes.
  Writer(std::span<std::byte> buffer, bool little_endian) noexcept
      : buffer_(buffer), swap_(little_endian != kNativeLittleEndian) {}

  Status status() const noexcept { return status_; }
  bool ok() const noexcept { return status_ == Status::kOk; }
  /// Bytes written so far (padding included).
  std::size_t size() const noexcept { return position_; }
  std::span<const std::byte> written() const noexcept { return buffer_.first(position_); }
  bool little_endian() const noexcept { return kNativeLittleEndian != swap_; }

  /// Records a failure; the first one sticks.
  Status fail(Status status) noexcept {
    if (status_ == Status::kOk) {
      status_ = status;
    }
    return status_;
  }

  template <Primitive T>
  Status write(T value) noexcept {
    std::byte* at = reserve(sizeof(T), sizeof(T));
    if (at != nullptr) {
      std::memcpy(at, &value, sizeof(T));
      if (swap_) {
        detail::swap_bytes<T>(at);
      }
    }
    return status_;
  }

  /// Writes consecutive primitives: aligned once, copied at once.
  template <Primitive T>
  Status write_array(std::span<const T> values) noexcept {
    if (values.empty()) {
      return status_;
    }
    std::byte* at = reserve(sizeof(T), values.size_bytes());
    if (at != nullptr) {
      std::memcpy(at, values.data(), values.size_bytes());
      if (swap_ && sizeof(T) > 1) {
        for (std::size_t i = 0; i < values.size(); ++i) {
          detail::swap_bytes<T>(at + i * sizeof(T));
        }
      }
    }
    return status_;
  }

  /// The uint32 length that precedes a string's characters or a sequence's elements.
  Status write_length(std::size_t length) noexcept {
    if (length > UINT32_MAX) {
      return fail(Status::kBoundExceeded);
    }
    return write(static_cast<std::uint32_t>(length));
  }

 private:
  /// Pads to `alignment` with zeros and makes room for `size` bytes; null (and failed) if the
  /// buffer is too small or an earlier write failed.
  std::byte* reserve(std::size_t alignment, std::size_t size) noexcept {
    if (status_ != Status::kOk) {
      return nullptr;
    }
    const std::size_t pad = detail::padding(position_, alignment);
    const std::size_t room = buffer_.size() - position_;
    if (pad > room || size > room - pad) {
      fail(Status::kBufferTooSmall);
      return nullptr;
    }
    std::memset(buffer_.data() + position_, 0, pad);
    std::byte* at = buffer_.data() + position_ + pad;
    position_ += pad + size;
    return at;
  }

  std::span<std::byte> buffer_;
  std::size_t position_ = 0;
  Status status_ = Status::kOk;
  bool swap_ = false;
};

/// Decodes a received body; every read is checked against the bytes that are there.
class Reader {
 public:
  /// `little_endian`: the byte order of the sender, from the message's flag.
  Reader(std::span<const std::byte> body, bool little_endian) noexcept
      : body_(body), swap_(little_endian != kNativeLittleEndian) {}

  Status status() const noexcept { return status_; }
  bool ok() const noexcept { return status_ == Status::kOk; }
  std::size_t position() const noexcept { return position_; }
  std::size_t remaining() const noexcept { return body_.size() - position_; }

  /// Records a failure; the first one sticks.
  Status fail(Status status) noexcept {
    if (status_ == Status::kOk) {
      status_ = status;
    }
    return status_;
  }

  /// A decoder of a whole body ends here: bytes left over make the body malformed.
  Status finish() noexcept {
    if (status_ == Status::kOk && position_ != body_.size()) {
      fail(Status::kTrailingBytes);
    }
    return status_;
  }

  /// Reads one primitive; a bool must be 0 or 1. `value` is untouched on failure.
  template <Primitive T>
  Status read(T& value) noexcept {
    const std::byte* at = take(sizeof(T), sizeof(T));
    if (at == nullptr) {
      return status_;
    }
    if constexpr (std::same_as<T, bool>) {
      const auto raw = std::to_integer<std::uint8_t>(*at);
      if (raw > 1) {
        return fail(Status::kInvalidValue);
      }
      value = raw == 1;
    } else {
      std::array<std::byte, sizeof(T)> bytes;
      std::memcpy(bytes.data(), at, sizeof(T));
      if (swap_) {
        detail::swap_bytes<T>(bytes.data());
      }
      std::memcpy(&value, bytes.data(), sizeof(T));
    }
    return status_;
  }

  /// Reads consecutive primitives: aligned once, bounds-checked once, copied at once.
  template <Primitive T>
  Status read_array(std::span<T> values) noexcept {
    if (values.empty()) {
      return status_;
    }
    const std::byte* at = take(sizeof(T), values.size_bytes());
    if (at == nullptr) {
      return status_;
    }
    if constexpr (std::same_as<T, bool>) {
      for (std::size_t i = 0; i < values.size(); ++i) {
        const auto raw = std::to_integer<std::uint8_t>(at[i]);
        if (raw > 1) {
          return fail(Status::kInvalidValue);
        }
        values[i] = raw == 1;
      }
    } else {
      std::memcpy(values.data(), at, values.size_bytes());
      if (swap_ && sizeof(T) > 1) {
        auto* bytes = reinterpret_cast<std::byte*>(values.data());
        for (std::size_t i = 0; i < values.size(); ++i) {
          detail::swap_bytes<T>(bytes + i * sizeof(T));
        }
      }
    }
    return status_;
  }

  /// Reads a string's or sequence's uint32 length and checks it against `bound` before any
  /// element is touched.
  Status read_length(std::size_t bound, std::size_t& length) noexcept {
    std::uint32_t raw = 0;
    if (read(raw) != Status::kOk) {
      return status_;
    }
    if (raw > bound) {
      return fail(Status::kBoundExceeded);
    }
    length = raw;
    return status_;
  }

 private:
  const std::byte* take(std::size_t alignment, std::size_t size) noexcept {
    if (status_ != Status::kOk) {
      return nullptr;
    }
    const std::size_t pad = detail::padding(position_, alignment);
    const std::size_t left = body_.size() - position_;
    if (pad > left || size > left - pad) {
      fail(Status::kTruncated);
      return nullptr;
    }
    const std::byte* at = body_.data() + position_ + pad;
    position_ += pad + size;
    return at;
  }

  std::span<const std::byte> body_;
  std::size_t position_ = 0;
  Status status_ = Status::kOk;
  bool swap_ = false;
};

// The encode/decode overloads of everything that is not a declared type. Generated code calls
// `encode(writer, x)` unqualified: the Writer/Reader argument brings this namespace in by
// argument-dependent lookup, the value brings the namespace of its declared type.

template <Primitive T>
Status encode(Writer& writer, T value) noexcept {
  return writer.write(value);
}

template <Primitive T>
Status decode(Reader& reader, T& value) noexcept {
  return reader.read(value);
}

template <std::size_t N>
Status encode(Writer& writer, const BoundedString<N>& value) noexcept {
  writer.write_length(value.size());
  const std::string_view text = value.view();
  return writer.write_array(std::span<const char>(text.data(), text.size()));
}

template <std::size_t N>
Status decode(Reader& reader, BoundedString<N>& value) noexcept {
  std::size_t length = 0;
  if (reader.read_length(N, length) != Status::kOk) {
    return reader.status();
  }
  if (reader.remaining() < length) {
    return reader.fail(Status::kTruncated);
  }
  value.resize(length);
  return reader.read_array(std::span<char>(value.data(), length));
}

template <typename T, std::size_t N>
Status encode(Writer& writer, const std::array<T, N>& values) noexcept;
template <typename T, std::size_t N>
Status decode(Reader& reader, std::array<T, N>& values) noexcept;
template <typename T, std::size_t N>
Status encode(Writer& writer, const BoundedSequence<T, N>& values) noexcept;
template <typename T, std::size_t N>
Status decode(Reader& reader, BoundedSequence<T, N>& values) noexcept;

template <typename T, std::size_t N>
Status encode(Writer& writer, const std::array<T, N>& values) noexcept {
  if constexpr (Primitive<T>) {
    return writer.write_array(std::span<const T>(values));
  } else {
    for (const T& value : values) {
      if (encode(writer, value) != Status::kOk) {
        break;
      }
    }
    return writer.status();
  }
}

template <typename T, std::size_t N>
Status decode(Reader& reader, std::array<T, N>& values) noexcept {
  if constexpr (Primitive<T>) {
    return reader.read_array(std::span<T>(values));
  } else {
    for (T& value : values) {
      if (decode(reader, value) != Status::kOk) {
        break;
      }
    }
    return reader.status();
  }
}

template <typename T, std::size_t N>
Status encode(Writer& writer, const BoundedSequence<T, N>& values) noexcept {
  writer.write_length(values.size());
  if constexpr (Primitive<T>) {
    return writer.write_array(std::span<const T>(values.begin(), values.size()));
  } else {
    for (const T& value : values) {
      if (encode(writer, value) != Status::kOk) {
        break;
      }
    }
    return writer.status();
  }
}

template <typename T, std::size_t N>
Status decode(Reader& reader, BoundedSequence<T, N>& values) noexcept {
  std::size_t length = 0;
  if (reader.read_length(N, length) != Status::kOk) {
    return reader.status();
  }
  if constexpr (Primitive<T>) {
    // A length beyond the bytes that are left is a truncated body, found before the sequence
    // grows (other elements may take no bytes at all: an empty struct).
    if (reader.remaining() / sizeof(T) < length) {
      return reader.fail(Status::kTruncated);
    }
    values.resize(length);
    return reader.read_array(std::span<T>(values.begin(), length));
  } else {
    values.resize(length);
    for (T& value : values) {
      if (decode(reader, value) != Status::kOk) {
        break;
      }
    }
    return reader.status();
  }
}

/// An enumeration travels as the uint32 of its literal's position.
template <Enumeration E>
Status encode_enum(Writer& writer, E value) noexcept {
  return writer.write(static_cast<std::uint32_t>(value));
}

/// Decodes an enumeration of `count` literals; a number beyond them is invalid.
template <Enumeration E>
Status decode_enum(Reader& reader, E& value, std::uint32_t count) noexcept {
  std::uint32_t raw = 0;
  if (reader.read(raw) != Status::kOk) {
    return reader.status();
  }
  if (raw >= count) {
    return reader.fail(Status::kInvalidValue);
  }
  value = static_cast<E>(raw);
  return reader.status();
}

/// Encodes a whole message body at the start of `buffer`; `size` is what was written.
template <typename T>
Status encode_body(std::span<std::byte> buffer, const T& value, std::size_t& size) noexcept {
  Writer writer(buffer);
  encode(writer, value);
  size = writer.size();
  return writer.status();
}

/// Decodes a whole message body: every byte must belong to the value.
template <typename T>
Status decode_body(std::span<const std::byte> body, bool little_endian, T& value) noexcept {
  Reader reader(body, little_endian);
  decode(reader, value);
  return reader.finish();
}

/// What the generated operation table says of each operation of an interface.
struct OperationInfo {
  std::string_view name;
  bool oneway;
  std::size_t max_request_size;
  std::size_t max_reply_size;      ///< 0 for a oneway operation: it has no reply
  std::size_t max_exception_size;  ///< 0 for an operation that raises nothing
};

}  // namespace kairos::cdr
