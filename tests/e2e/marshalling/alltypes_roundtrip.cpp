// Round trip of every type and every request/reply of examples/alltypes through the generated
// marshalling: encode -> decode -> equal, in both byte orders; every truncation of a valid
// encoding rejected as truncated; lengths beyond their bound, bad enums, bools and exception
// indexes rejected; the generated maximum sizes checked against what encodes.
// Built and run by tests/e2e/test_marshalling.py with g++ and clang++; prints one line per type
// and exits 0 when everything held.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <type_traits>
#include <vector>

#include "alltypes/Exchange.cdr.hpp"
#include "alltypes_values.hpp"
#include "types.cdr.hpp"
#include "types.hpp"

namespace {

namespace cdr = ::kairos::cdr;
namespace ex = ::alltypes::cdr::Exchange;
using alltypes_values::fill;
using alltypes_values::Length;
using alltypes_values::Rng;
using cdr::Status;

int failures = 0;

void fail(std::string_view type, std::string_view what, Status status) {
  ++failures;
  std::printf("FAIL %.*s: %.*s (status: %.*s)\n", static_cast<int>(type.size()), type.data(),
              static_cast<int>(what.size()), what.data(),
              static_cast<int>(cdr::to_string(status).size()), cdr::to_string(status).data());
}

constexpr std::size_t kTrials = 40;
// Room for every value of the model at any start offset, and a guard byte beyond.
constexpr std::size_t kBufferSize = 4096;
alignas(8) std::array<std::byte, kBufferSize> buffer;
alignas(8) std::array<std::byte, kBufferSize> foreign;

/// Round trips of one type. `max_size` is its generated maximum: for a message, of a body
/// (starting at offset 0); for a model type, wherever it starts — checked at each start offset.
template <typename T>
void check_type(std::string_view name, std::size_t max_size, bool is_message) {
  Rng rng(0x5EED0000U + name.size());
  std::size_t largest = 0;
  std::size_t truncations = 0;
  for (std::size_t trial = 0; trial < kTrials; ++trial) {
    const Length length = trial == 0 ? Length::kFull : Length::kRandom;
    T value{};
    fill(value, rng, length);

    std::size_t size = 0;
    Status status = cdr::encode_body(std::span<std::byte>(buffer), value, size);
    if (status != Status::kOk) {
      return fail(name, "encode", status);
    }
    largest = std::max(largest, size);
    if (size > max_size) {
      return fail(name, "encoded size beyond the generated maximum", status);
    }
    if (is_message && length == Length::kFull && size != max_size) {
      std::printf("FAIL %.*s: full value takes %zu bytes, generated maximum %zu\n",
                  static_cast<int>(name.size()), name.data(), size, max_size);
      ++failures;
    }
    const std::span<const std::byte> body(buffer.data(), size);

    T back{};
    status = cdr::decode_body(body, cdr::kNativeLittleEndian, back);
    if (status != Status::kOk || !(back == value)) {
      return fail(name, "decode in the native byte order gives the value back", status);
    }

    // The same value as a peer of the other byte order sends it.
    cdr::Writer swapped(std::span<std::byte>(foreign), !cdr::kNativeLittleEndian);
    encode(swapped, value);
    if (!swapped.ok() || swapped.size() != size) {
      return fail(name, "encode in the foreign byte order", swapped.status());
    }
    T foreign_back{};
    status = cdr::decode_body(swapped.written(), !cdr::kNativeLittleEndian, foreign_back);
    if (status != Status::kOk || !(foreign_back == value)) {
      return fail(name, "decode of the foreign byte order gives the value back", status);
    }

    // Every proper prefix is a truncated body, never anything else.
    for (std::size_t cut = 0; cut < size; ++cut) {
      T partial{};
      status = cdr::decode_body(body.first(cut), cdr::kNativeLittleEndian, partial);
      ++truncations;
      if (status != Status::kTruncated) {
        std::printf("FAIL %.*s: prefix of %zu of %zu bytes: %.*s\n", static_cast<int>(name.size()),
                    name.data(), cut, size, static_cast<int>(cdr::to_string(status).size()),
                    cdr::to_string(status).data());
        ++failures;
        return;
      }
    }
    // One byte more is trailing; one byte less of room is too small.
    buffer[size] = std::byte{0};
    T trailing{};
    status = cdr::decode_body(std::span<const std::byte>(buffer.data(), size + 1),
                              cdr::kNativeLittleEndian, trailing);
    if (status != Status::kTrailingBytes) {
      return fail(name, "a byte beyond the value is trailing", status);
    }
    if (size > 0) {
      std::size_t ignored = 0;
      status = cdr::encode_body(std::span<std::byte>(buffer.data(), size - 1), value, ignored);
      if (status != Status::kBufferTooSmall) {
        return fail(name, "a buffer one byte short is too small", status);
      }
    }

    if (!is_message) {
      // Placed after 0..7 bytes, the value takes at most its maximum, and at some offset exactly
      // that much when it is as large as it can be.
      for (std::size_t offset = 0; offset < 8; ++offset) {
        cdr::Writer writer{std::span<std::byte>(buffer)};
        for (std::size_t i = 0; i < offset; ++i) {
          writer.write(std::uint8_t{0});
        }
        encode(writer, value);
        if (!writer.ok() || writer.size() - offset > max_size) {
          return fail(name, "encoded after an offset beyond the generated maximum",
                      writer.status());
        }
        largest = std::max(largest, writer.size() - offset);
        cdr::Reader reader(writer.written(), cdr::kNativeLittleEndian);
        std::uint8_t skipped = 0;
        for (std::size_t i = 0; i < offset; ++i) {
          reader.read(skipped);
        }
        T shifted{};
        decode(reader, shifted);
        if (reader.finish() != Status::kOk || !(shifted == value)) {
          return fail(name, "decode after an offset gives the value back", reader.status());
        }
      }
    }
  }
  if (largest != max_size) {
    std::printf("FAIL %.*s: largest encoding %zu bytes, generated maximum %zu\n",
                static_cast<int>(name.size()), name.data(), largest, max_size);
    ++failures;
    return;
  }
  std::printf("ok %.*s trials=%zu truncations=%zu max_size=%zu\n", static_cast<int>(name.size()),
              name.data(), kTrials, truncations, max_size);
}

/// Encodes `value`, lets `corrupt` change the bytes, and expects `expected` from decoding them.
template <typename T, typename Corrupt>
void check_rejected(std::string_view what, const T& value, Corrupt corrupt, Status expected) {
  std::size_t size = 0;
  if (cdr::encode_body(std::span<std::byte>(buffer), value, size) != Status::kOk) {
    return fail(what, "encode", Status::kOk);
  }
  corrupt(buffer.data());
  T back{};
  const Status status = cdr::decode_body(std::span<const std::byte>(buffer.data(), size),
                                         cdr::kNativeLittleEndian, back);
  if (status != expected) {
    return fail(what, "rejected with the expected status", status);
  }
  std::printf("ok rejected %.*s: %.*s\n", static_cast<int>(what.size()), what.data(),
              static_cast<int>(cdr::to_string(status).size()), cdr::to_string(status).data());
}

void put_u32(std::byte* at, std::uint32_t value) {
  std::memcpy(at, &value, sizeof value);
}

void check_malformed() {
  ex::NotifyRequest notify{};
  notify.message.assign("hello");  // length at 0, characters at 4..8, color at 12
  notify.color = alltypes::Color::BLUE;
  check_rejected(
      "string length beyond its bound", notify, [](std::byte* body) { put_u32(body, 13); },
      Status::kBoundExceeded);
  check_rejected(
      "enum beyond its literals", notify, [](std::byte* body) { put_u32(body + 12, 3); },
      Status::kInvalidValue);

  ex::PickRequest pick{};
  pick.options.push_back(alltypes::Color::GREEN);
  check_rejected(
      "sequence length beyond its bound", pick, [](std::byte* body) { put_u32(body, 5); },
      Status::kBoundExceeded);
  check_rejected(
      "sequence length beyond the bytes there", pick, [](std::byte* body) { put_u32(body, 4); },
      Status::kTruncated);

  ex::PickReply reply{};
  reply.picked = true;  // result at 0, picked at 4
  check_rejected(
      "bool other than 0 or 1", reply, [](std::byte* body) { body[4] = std::byte{2}; },
      Status::kInvalidValue);

  ex::RoundTripException raised{};
  raised.raised.emplace<2>();  // index only: Unavailable has no fields
  check_rejected(
      "exception index beyond the raises list", raised, [](std::byte* body) { put_u32(body, 3); },
      Status::kInvalidValue);

  alltypes::Everything everything{};
  // Everything.single is the last field: an enum of one literal, so 1 is invalid.
  std::size_t size = 0;
  cdr::encode_body(std::span<std::byte>(buffer), everything, size);
  put_u32(buffer.data() + size - 4, 1);
  alltypes::Everything back{};
  const Status status = cdr::decode_body(std::span<const std::byte>(buffer.data(), size),
                                         cdr::kNativeLittleEndian, back);
  if (status != Status::kInvalidValue) {
    return fail("enum of one literal", "rejected", status);
  }
  std::printf("ok rejected enum of one literal: %.*s\n",
              static_cast<int>(cdr::to_string(status).size()), cdr::to_string(status).data());
}

}  // namespace

int main() {
  alltypes_values::for_each_type(
      []<typename T>(std::string_view name, std::size_t max_size, bool is_message) {
        check_type<T>(name, max_size, is_message);
      });

  static_assert(ex::kOperationCount == 5);
  static_assert(static_cast<std::size_t>(ex::Operation::count) == 4);
  static_assert(ex::kOperations[static_cast<std::size_t>(ex::Operation::notify)].oneway);
  static_assert(ex::kOperations[3].max_reply_size == 0);
  static_assert(ex::kMaxRequestSize == ex::RoundTripRequest::kMaxSize);
  static_assert(ex::kMaxReplySize == ex::RoundTripReply::kMaxSize);

  check_malformed();

  if (failures != 0) {
    std::printf("roundtrip: %d failure(s)\n", failures);
    return 1;
  }
  std::printf("roundtrip: every type and message of alltypes held\n");
  return 0;
}
