#include "kairos_catch.hpp"

#include <kairos/cdr.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cdr = kairos::cdr;
using cdr::Status;

namespace {

std::uint8_t byte_at(std::span<const std::byte> bytes, std::size_t index) {
  return std::to_integer<std::uint8_t>(bytes[index]);
}

std::span<const std::byte> as_bytes(const std::vector<std::uint8_t>& bytes) {
  return std::as_bytes(std::span<const std::uint8_t>(bytes));
}

}  // namespace

TEST_CASE("cdr aligns each primitive to its size from the start of the body", "[unit][cdr]") {
  alignas(8) std::array<std::byte, 64> buffer{};
  cdr::Writer writer(buffer);
  REQUIRE(writer.write(std::uint8_t{0xAB}) == Status::kOk);
  REQUIRE(writer.write(std::uint16_t{0x0102}) == Status::kOk);  // at 2
  REQUIRE(writer.write(std::uint8_t{0xCD}) == Status::kOk);     // at 4
  REQUIRE(writer.write(std::uint32_t{7}) == Status::kOk);       // at 8
  REQUIRE(writer.write(std::uint8_t{1}) == Status::kOk);        // at 12
  REQUIRE(writer.write(1.5) == Status::kOk);                    // at 16
  REQUIRE(writer.size() == 24);
  const auto bytes = writer.written();
  CHECK(byte_at(bytes, 0) == 0xAB);
  CHECK(byte_at(bytes, 1) == 0);  // padding is zero, so equal values give equal bytes
  CHECK(byte_at(bytes, 4) == 0xCD);
  for (std::size_t pad = 13; pad < 16; ++pad) {
    CHECK(byte_at(bytes, pad) == 0);
  }

  cdr::Reader reader(bytes, cdr::kNativeLittleEndian);
  std::uint8_t a = 0;
  std::uint16_t b = 0;
  std::uint8_t c = 0;
  std::uint32_t d = 0;
  std::uint8_t e = 0;
  double f = 0;
  reader.read(a);
  reader.read(b);
  reader.read(c);
  reader.read(d);
  reader.read(e);
  reader.read(f);
  REQUIRE(reader.finish() == Status::kOk);
  CHECK(a == 0xAB);
  CHECK(b == 0x0102);
  CHECK(c == 0xCD);
  CHECK(d == 7);
  CHECK(e == 1);
  CHECK(f == 1.5);
}

TEST_CASE("cdr reads a body written in the other byte order", "[unit][cdr]") {
  alignas(8) std::array<std::byte, 64> buffer{};
  cdr::Writer foreign(buffer, !cdr::kNativeLittleEndian);
  REQUIRE_FALSE(foreign.little_endian() == cdr::kNativeLittleEndian);
  foreign.write(std::uint32_t{0x01020304});
  foreign.write(std::int16_t{-2});
  foreign.write(-0.25F);
  foreign.write(std::uint64_t{0x0102030405060708});
  const std::array<std::int32_t, 3> values{1, -2, 0x7F000001};
  foreign.write_array(std::span<const std::int32_t>(values));
  REQUIRE(foreign.ok());
  // Big-endian bytes on a little-endian machine, and the other way round.
  CHECK(byte_at(foreign.written(), 0) == (cdr::kNativeLittleEndian ? 0x01 : 0x04));

  SECTION("read in the sender's order") {
    cdr::Reader reader(foreign.written(), !cdr::kNativeLittleEndian);
    std::uint32_t a = 0;
    std::int16_t b = 0;
    float c = 0;
    std::uint64_t d = 0;
    std::array<std::int32_t, 3> read_values{};
    reader.read(a);
    reader.read(b);
    reader.read(c);
    reader.read(d);
    reader.read_array(std::span<std::int32_t>(read_values));
    REQUIRE(reader.finish() == Status::kOk);
    CHECK(a == 0x01020304);
    CHECK(b == -2);
    CHECK(c == -0.25F);
    CHECK(d == 0x0102030405060708);
    CHECK(read_values == values);
  }
  SECTION("read as if native, the bytes come out swapped") {
    cdr::Reader reader(foreign.written(), cdr::kNativeLittleEndian);
    std::uint32_t a = 0;
    reader.read(a);
    CHECK(a == 0x04030201);
  }
}

TEST_CASE("cdr bounded strings and sequences are a uint32 length and their elements",
          "[unit][cdr]") {
  alignas(8) std::array<std::byte, 64> buffer{};
  kairos::BoundedString<8> text;
  REQUIRE(text.assign("abc"));
  kairos::BoundedSequence<std::uint16_t, 4> numbers;
  numbers.push_back(5);
  numbers.push_back(6);
  cdr::Writer writer(buffer);
  encode(writer, text);     // 4 + 3
  encode(writer, numbers);  // pad 1, 4, 2 * 2
  REQUIRE(writer.ok());
  REQUIRE(writer.size() == 16);
  CHECK(byte_at(writer.written(), 4) == 'a');

  kairos::BoundedString<8> text_back;
  kairos::BoundedSequence<std::uint16_t, 4> numbers_back;
  cdr::Reader reader(writer.written(), cdr::kNativeLittleEndian);
  decode(reader, text_back);
  decode(reader, numbers_back);
  REQUIRE(reader.finish() == Status::kOk);
  CHECK(text_back == text);
  CHECK(numbers_back == numbers);
}

TEST_CASE("cdr encode fails with kBufferTooSmall, and the failure sticks", "[unit][cdr]") {
  alignas(8) std::array<std::byte, 6> buffer{};
  cdr::Writer writer(buffer);
  REQUIRE(writer.write(std::uint8_t{1}) == Status::kOk);
  REQUIRE(writer.write(std::uint32_t{2}) == Status::kBufferTooSmall);  // would end at 8
  CHECK(writer.size() == 1);
  // A later write that would fit does nothing: the first failure is the status.
  CHECK(writer.write(std::uint8_t{3}) == Status::kBufferTooSmall);
  CHECK(writer.size() == 1);
  CHECK(writer.status() == Status::kBufferTooSmall);
}

TEST_CASE("cdr decode fails with kTruncated, and the failure sticks", "[unit][cdr]") {
  const std::vector<std::uint8_t> bytes{1, 0, 2, 0};
  cdr::Reader reader(as_bytes(bytes), cdr::kNativeLittleEndian);
  std::uint8_t a = 0;
  std::uint16_t b = 0;
  REQUIRE(reader.read(a) == Status::kOk);
  REQUIRE(reader.read(b) == Status::kOk);  // after one byte of padding
  CHECK(reader.remaining() == 0);
  std::uint8_t c = 0x55;
  CHECK(reader.read(c) == Status::kTruncated);
  CHECK(c == 0x55);  // untouched
  CHECK(reader.read(a) == Status::kTruncated);
  CHECK(reader.finish() == Status::kTruncated);
}

TEST_CASE("cdr decode rejects a value that ends past the body", "[unit][cdr]") {
  const std::vector<std::uint8_t> bytes{1, 2, 3, 4, 5, 6, 7};
  cdr::Reader reader(as_bytes(bytes), cdr::kNativeLittleEndian);
  std::uint64_t value = 9;
  CHECK(reader.read(value) == Status::kTruncated);
  CHECK(value == 9);
  CHECK(reader.position() == 0);
}

TEST_CASE("cdr decode checks a length against its bound before the elements", "[unit][cdr]") {
  // Length 5 for a sequence of at most 4, and no elements at all: the bound is what fails.
  alignas(8) std::array<std::byte, 8> buffer{};
  cdr::Writer writer(buffer);
  writer.write(std::uint32_t{5});
  kairos::BoundedSequence<std::uint64_t, 4> numbers;
  cdr::Reader reader(writer.written(), cdr::kNativeLittleEndian);
  CHECK(decode(reader, numbers) == Status::kBoundExceeded);
  CHECK(numbers.size() == 0);

  kairos::BoundedString<4> text;
  cdr::Reader text_reader(writer.written(), cdr::kNativeLittleEndian);
  CHECK(decode(text_reader, text) == Status::kBoundExceeded);

  // Within the bound, but more elements than bytes: truncated, before the sequence grows.
  writer = cdr::Writer(buffer);
  writer.write(std::uint32_t{3});
  kairos::BoundedSequence<std::uint64_t, 4> within;
  cdr::Reader short_reader(writer.written(), cdr::kNativeLittleEndian);
  CHECK(decode(short_reader, within) == Status::kTruncated);
  CHECK(within.size() == 0);
}

TEST_CASE("cdr decode rejects a bool other than 0 or 1 and an enum out of range", "[unit][cdr]") {
  const std::vector<std::uint8_t> two{2};
  cdr::Reader reader(as_bytes(two), cdr::kNativeLittleEndian);
  bool flag = false;
  CHECK(reader.read(flag) == Status::kInvalidValue);

  std::array<bool, 2> flags{};
  const std::vector<std::uint8_t> one_bad{1, 7};
  cdr::Reader array_reader(as_bytes(one_bad), cdr::kNativeLittleEndian);
  CHECK(decode(array_reader, flags) == Status::kInvalidValue);

  enum class Mode : std::uint32_t { kCruise, kCombat };
  alignas(8) std::array<std::byte, 8> buffer{};
  cdr::Writer writer(buffer);
  writer.write(std::uint32_t{1});
  writer.write(std::uint32_t{2});
  cdr::Reader enum_reader(writer.written(), cdr::kNativeLittleEndian);
  Mode mode = Mode::kCruise;
  CHECK(cdr::decode_enum(enum_reader, mode, 2) == Status::kOk);
  CHECK(mode == Mode::kCombat);
  CHECK(cdr::decode_enum(enum_reader, mode, 2) == Status::kInvalidValue);
  CHECK(mode == Mode::kCombat);
}

TEST_CASE("cdr decode of a whole body rejects trailing bytes", "[unit][cdr]") {
  const std::vector<std::uint8_t> bytes{0, 0, 0, 0, 9};
  std::uint32_t value = 0;
  CHECK(cdr::decode_body(as_bytes(bytes), cdr::kNativeLittleEndian, value) ==
        Status::kTrailingBytes);
  const std::vector<std::uint8_t> exact{0, 0, 0, 0};
  CHECK(cdr::decode_body(as_bytes(exact), cdr::kNativeLittleEndian, value) == Status::kOk);
}

TEST_CASE("cdr names every status", "[unit][cdr]") {
  CHECK(cdr::to_string(Status::kOk) == "ok");
  CHECK(cdr::to_string(Status::kBufferTooSmall) == "buffer too small");
  CHECK(cdr::to_string(Status::kTruncated) == "truncated");
  CHECK(cdr::to_string(Status::kBoundExceeded) == "bound exceeded");
  CHECK(cdr::to_string(Status::kInvalidValue) == "invalid value");
  CHECK(cdr::to_string(Status::kTrailingBytes) == "trailing bytes");
}

TEST_CASE("bounded containers resize within their capacity only", "[unit][bounded]") {
  kairos::BoundedSequence<int, 3> values;
  values.push_back(4);
  REQUIRE(values.resize(3));
  CHECK(values[0] == 4);
  CHECK(values[2] == 0);
  REQUIRE_FALSE(values.resize(4));
  CHECK(values.size() == 3);
  kairos::BoundedString<2> text;
  REQUIRE(text.resize(2));
  CHECK(text.view() == std::string_view("\0\0", 2));
  REQUIRE_FALSE(text.resize(3));
}
