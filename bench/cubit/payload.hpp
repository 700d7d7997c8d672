// The payloads of the cubit benchmark and the one operation every stack performs on them: the
// server cubes each value (x*x*x, wrapping like the fixed-width type) and sends it back; the
// client checks every reply against its own cube of what it sent.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cubit {

/// The longest sequence<long> the benchmark sends.
inline constexpr std::uint32_t kMaxSequence = 1024;

enum class Kind : std::uint8_t { kOctet = 0, kShort = 1, kLong = 2, kComposite = 3, kSequence = 4 };
inline constexpr int kKinds = 5;

/// The struct payload, laid out as in C: 16 bytes with natural alignment.
struct Composite {
  std::uint8_t octet;
  std::int16_t shrt;
  std::int32_t lng;
  double dbl;
};
static_assert(sizeof(Composite) == 16);

/// One cell's payload: a kind and, for sequences, the length.
struct Payload {
  Kind kind;
  std::uint32_t length;  // elements of the sequence; 1 for the others

  std::string name() const;
  /// Bytes of the payload itself (what a raw transport copies), headers excluded.
  std::size_t bytes() const;
  /// The small payloads, whose oneway throughput is measured.
  bool small() const { return kind != Kind::kSequence; }
};

/// octet, short, long, struct, then sequence<long> of 1, 16, 64, 256, 1024.
std::vector<Payload> all_payloads();
/// Parses "octet", "short", "long", "struct", "seqN" (N in 1..1024) or "seq" (all sequence
/// lengths); empty result on a bad name.
std::vector<Payload> parse_payloads(std::string_view name);

/// The value carried by one call, for every kind (only the field of `kind` is meaningful).
struct Value {
  Kind kind = Kind::kOctet;
  std::uint32_t length = 1;
  std::uint8_t octet = 0;
  std::int16_t shrt = 0;
  std::int32_t lng = 0;
  Composite composite{};
  std::array<std::int32_t, kMaxSequence> sequence{};
};

/// Fills `value` with the request of call number `call`: values change from call to call, so
/// that a stale or misrouted reply fails the check.
void fill(const Payload& payload, std::uint32_t call, Value& value);

/// The operation of the benchmark: every number cubed in place.
std::uint8_t cube(std::uint8_t x);
std::int16_t cube(std::int16_t x);
std::int32_t cube(std::int32_t x);
double cube(double x);
void cube(Value& value);

/// Whether `reply` is `request` cubed; otherwise a description of the first difference.
std::optional<std::string> check_cubed(const Value& request, const Value& reply);

/// A digest of a value's numbers, summed by the server over the oneway messages it cubed and
/// checked by the client against the same sum over what it sent.
std::uint64_t digest(const Value& value);

/// The payload of `value` alone, copied as it lies in memory (what the raw transports carry
/// after their header, and the body of an ORB message): returns its size (at most
/// 4 * kMaxSequence bytes written to `out`).
std::size_t encode_body(const Value& value, void* out);
/// Reads a body of `kind` with every bound checked: false when `size` does not fit the kind.
bool decode_body(Kind kind, const void* body, std::size_t size, Value& value);
/// Changes every number of `value` by one: a server's deliberately wrong answer.
void perturb(Value& value);

}  // namespace cubit
