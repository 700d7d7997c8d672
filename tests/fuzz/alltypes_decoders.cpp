// libFuzzer target over the generated decoders of examples/alltypes: every model type and every
// request, reply and exception of interface Exchange. The first byte of an input picks the
// decoder (its low bits, modulo the number of types) and the sender's byte order (its top bit);
// the rest is the message body. Any input must be decoded or rejected with a status -- never a
// crash, a sanitizer report or a hang. What decodes must also encode again, within the generated
// maximum size, and be a fixed point of decode and encode.
// Built with clang++ -fsanitize=fuzzer,address,undefined by tests/e2e/test_fuzz_decoders.py;
// see tests/fuzz/README.md to run it longer.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "alltypes_values.hpp"

namespace {

namespace cdr = ::kairos::cdr;

alignas(8) std::array<std::byte, 4096> encoded;
alignas(8) std::array<std::byte, 4096> encoded_again;

template <typename T>
void decode_as(std::span<const std::byte> body, bool little_endian, std::size_t max_size) {
  T value{};
  if (cdr::decode_body(body, little_endian, value) != cdr::Status::kOk) {
    return;
  }
  // What decoded encodes again to as many bytes, within the maximum; and those bytes decode and
  // encode to themselves (compared as bytes: a NaN is not equal to itself).
  std::size_t size = 0;
  if (cdr::encode_body(std::span<std::byte>(encoded), value, size) != cdr::Status::kOk ||
      size > max_size || size != body.size()) {
    __builtin_trap();
  }
  T again{};
  std::size_t size_again = 0;
  if (cdr::decode_body(std::span<const std::byte>(encoded.data(), size), cdr::kNativeLittleEndian,
                       again) != cdr::Status::kOk ||
      cdr::encode_body(std::span<std::byte>(encoded_again), again, size_again) !=
          cdr::Status::kOk ||
      size_again != size || std::memcmp(encoded.data(), encoded_again.data(), size) != 0) {
    __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) {
    return 0;
  }
  const std::size_t selected = (data[0] & 0x7FU) % alltypes_values::kTypeCount;
  const bool little_endian = (data[0] & 0x80U) != 0;
  const auto body = std::as_bytes(std::span<const std::uint8_t>(data + 1, size - 1));
  std::size_t index = 0;
  alltypes_values::for_each_type(
      [&]<typename T>(std::string_view /*name*/, std::size_t max_size, bool /*is_message*/) {
        if (index++ == selected) {
          decode_as<T>(body, little_endian, max_size);
        }
      });
  return 0;
}
