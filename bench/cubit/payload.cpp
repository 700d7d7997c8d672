#include "payload.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cubit {

std::string Payload::name() const {
  switch (kind) {
    case Kind::kOctet:
      return "octet";
    case Kind::kShort:
      return "short";
    case Kind::kLong:
      return "long";
    case Kind::kComposite:
      return "struct";
    case Kind::kSequence:
      return "seq" + std::to_string(length);
  }
  return "?";
}

std::size_t Payload::bytes() const {
  switch (kind) {
    case Kind::kOctet:
      return 1;
    case Kind::kShort:
      return 2;
    case Kind::kLong:
      return 4;
    case Kind::kComposite:
      return sizeof(Composite);
    case Kind::kSequence:
      return 4 * std::size_t{length};
  }
  return 0;
}

namespace {
constexpr std::uint32_t kSequenceLengths[] = {1, 16, 64, 256, 1024};
}

std::vector<Payload> all_payloads() {
  std::vector<Payload> payloads{
      {Kind::kOctet, 1}, {Kind::kShort, 1}, {Kind::kLong, 1}, {Kind::kComposite, 1}};
  for (std::uint32_t length : kSequenceLengths) {
    payloads.push_back({Kind::kSequence, length});
  }
  return payloads;
}

std::vector<Payload> parse_payloads(std::string_view name) {
  if (name == "all") {
    return all_payloads();
  }
  if (name == "octet") {
    return {{Kind::kOctet, 1}};
  }
  if (name == "short") {
    return {{Kind::kShort, 1}};
  }
  if (name == "long") {
    return {{Kind::kLong, 1}};
  }
  if (name == "struct") {
    return {{Kind::kComposite, 1}};
  }
  if (name == "seq") {
    std::vector<Payload> payloads;
    for (std::uint32_t length : kSequenceLengths) {
      payloads.push_back({Kind::kSequence, length});
    }
    return payloads;
  }
  if (name.size() > 3 && name.substr(0, 3) == "seq" && name.size() <= 7) {
    std::uint32_t length = 0;
    for (char c : name.substr(3)) {
      if (c < '0' || c > '9') {
        return {};
      }
      length = length * 10 + static_cast<std::uint32_t>(c - '0');
    }
    if (length >= 1 && length <= kMaxSequence) {
      return {{Kind::kSequence, length}};
    }
  }
  return {};
}

void fill(const Payload& payload, std::uint32_t call, Value& value) {
  value.kind = payload.kind;
  value.length = payload.length;
  // Small odd numbers whose cubes use the whole width of the type (and wrap for octet/short).
  const std::uint32_t base = call * 7u + 3u;
  switch (payload.kind) {
    case Kind::kOctet:
      value.octet = static_cast<std::uint8_t>(base);
      break;
    case Kind::kShort:
      value.shrt = static_cast<std::int16_t>(static_cast<std::int32_t>(base % 2000u) - 1000);
      break;
    case Kind::kLong:
      value.lng = static_cast<std::int32_t>(base % 2000u) - 1000;
      break;
    case Kind::kComposite:
      value.composite.octet = static_cast<std::uint8_t>(base);
      value.composite.shrt = static_cast<std::int16_t>(static_cast<std::int32_t>(base % 60u) - 30);
      value.composite.lng = static_cast<std::int32_t>(base % 2000u) - 1000;
      value.composite.dbl = static_cast<double>(base % 100u) * 0.5 - 25.0;
      break;
    case Kind::kSequence:
      for (std::uint32_t i = 0; i < payload.length; ++i) {
        value.sequence[i] = static_cast<std::int32_t>((base + i * 13u) % 2000u) - 1000;
      }
      break;
  }
}

// Cubes wrap like the fixed-width types of the IDL: computed unsigned, then narrowed.
std::uint8_t cube(std::uint8_t x) {
  const std::uint32_t u = x;
  return static_cast<std::uint8_t>(u * u * u);
}
std::int16_t cube(std::int16_t x) {
  const auto u = static_cast<std::uint32_t>(static_cast<std::int32_t>(x));
  return static_cast<std::int16_t>(static_cast<std::uint16_t>(u * u * u));
}
std::int32_t cube(std::int32_t x) {
  const auto u = static_cast<std::uint32_t>(x);
  return static_cast<std::int32_t>(u * u * u);
}
double cube(double x) {
  return x * x * x;
}

void cube(Value& value) {
  switch (value.kind) {
    case Kind::kOctet:
      value.octet = cube(value.octet);
      break;
    case Kind::kShort:
      value.shrt = cube(value.shrt);
      break;
    case Kind::kLong:
      value.lng = cube(value.lng);
      break;
    case Kind::kComposite:
      value.composite.octet = cube(value.composite.octet);
      value.composite.shrt = cube(value.composite.shrt);
      value.composite.lng = cube(value.composite.lng);
      value.composite.dbl = cube(value.composite.dbl);
      break;
    case Kind::kSequence:
      for (std::uint32_t i = 0; i < value.length && i < kMaxSequence; ++i) {
        value.sequence[i] = cube(value.sequence[i]);
      }
      break;
  }
}

namespace {
std::string differs(const char* what, long long expected, long long got) {
  char text[160];
  std::snprintf(text, sizeof text, "%s: expected %lld, got %lld", what, expected, got);
  return text;
}
}  // namespace

std::optional<std::string> check_cubed(const Value& request, const Value& reply) {
  if (reply.kind != request.kind) {
    return differs("kind", static_cast<int>(request.kind), static_cast<int>(reply.kind));
  }
  switch (request.kind) {
    case Kind::kOctet:
      if (reply.octet != cube(request.octet)) {
        return differs("octet", cube(request.octet), reply.octet);
      }
      break;
    case Kind::kShort:
      if (reply.shrt != cube(request.shrt)) {
        return differs("short", cube(request.shrt), reply.shrt);
      }
      break;
    case Kind::kLong:
      if (reply.lng != cube(request.lng)) {
        return differs("long", cube(request.lng), reply.lng);
      }
      break;
    case Kind::kComposite: {
      const Composite& c = request.composite;
      const Composite& r = reply.composite;
      if (r.octet != cube(c.octet)) {
        return differs("struct.octet", cube(c.octet), r.octet);
      }
      if (r.shrt != cube(c.shrt)) {
        return differs("struct.short", cube(c.shrt), r.shrt);
      }
      if (r.lng != cube(c.lng)) {
        return differs("struct.long", cube(c.lng), r.lng);
      }
      // The doubles are small halves: their cubes are exact, so equality is the right check.
      if (r.dbl != cube(c.dbl)) {
        return differs("struct.double (x1000)", static_cast<long long>(cube(c.dbl) * 1000),
                       static_cast<long long>(r.dbl * 1000));
      }
      break;
    }
    case Kind::kSequence:
      if (reply.length != request.length) {
        return differs("sequence length", request.length, reply.length);
      }
      for (std::uint32_t i = 0; i < request.length; ++i) {
        if (reply.sequence[i] != cube(request.sequence[i])) {
          return differs(("sequence[" + std::to_string(i) + "]").c_str(), cube(request.sequence[i]),
                         reply.sequence[i]);
        }
      }
      break;
  }
  return std::nullopt;
}

std::uint64_t digest(const Value& value) {
  auto u = [](auto x) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(x)); };
  switch (value.kind) {
    case Kind::kOctet:
      return value.octet;
    case Kind::kShort:
      return u(value.shrt);
    case Kind::kLong:
      return u(value.lng);
    case Kind::kComposite:
      return value.composite.octet + u(value.composite.shrt) + u(value.composite.lng) +
             u(static_cast<std::int64_t>(value.composite.dbl));
    case Kind::kSequence: {
      std::uint64_t sum = 0;
      for (std::uint32_t i = 0; i < value.length && i < kMaxSequence; ++i) {
        sum += u(value.sequence[i]);
      }
      return sum;
    }
  }
  return 0;
}

std::size_t encode_body(const Value& value, void* out) {
  switch (value.kind) {
    case Kind::kOctet:
      std::memcpy(out, &value.octet, sizeof value.octet);
      return sizeof value.octet;
    case Kind::kShort:
      std::memcpy(out, &value.shrt, sizeof value.shrt);
      return sizeof value.shrt;
    case Kind::kLong:
      std::memcpy(out, &value.lng, sizeof value.lng);
      return sizeof value.lng;
    case Kind::kComposite:
      std::memcpy(out, &value.composite, sizeof value.composite);
      return sizeof value.composite;
    case Kind::kSequence: {
      const std::size_t bytes = 4 * std::size_t{std::min(value.length, kMaxSequence)};
      std::memcpy(out, value.sequence.data(), bytes);
      return bytes;
    }
  }
  return 0;
}

bool decode_body(Kind kind, const void* body, std::size_t size, Value& value) {
  value.kind = kind;
  value.length = 1;
  std::size_t expected = 0;
  void* into = nullptr;
  switch (kind) {
    case Kind::kOctet:
      expected = sizeof value.octet;
      into = &value.octet;
      break;
    case Kind::kShort:
      expected = sizeof value.shrt;
      into = &value.shrt;
      break;
    case Kind::kLong:
      expected = sizeof value.lng;
      into = &value.lng;
      break;
    case Kind::kComposite:
      expected = sizeof value.composite;
      into = &value.composite;
      break;
    case Kind::kSequence:
      if (size == 0 || size % 4 != 0 || size / 4 > kMaxSequence) {
        return false;
      }
      value.length = static_cast<std::uint32_t>(size / 4);
      expected = size;
      into = value.sequence.data();
      break;
  }
  if (into == nullptr || size != expected) {
    return false;
  }
  std::memcpy(into, body, size);
  return true;
}

void perturb(Value& value) {
  value.octet = static_cast<std::uint8_t>(value.octet + 1);
  value.shrt = static_cast<std::int16_t>(value.shrt + 1);
  value.lng += 1;
  value.composite.lng += 1;
  value.sequence[0] += 1;
}

}  // namespace cubit
