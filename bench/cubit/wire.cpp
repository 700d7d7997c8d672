#include "wire.hpp"

#include <cstring>

namespace cubit::wire {

namespace {
constexpr std::uint32_t kMagic = 0xCB17;

std::uint32_t tag_of(Op op, Kind kind) {
  return kMagic << 16 | static_cast<std::uint32_t>(op) << 8 | static_cast<std::uint32_t>(kind);
}

void put_header(unsigned char* out, std::uint32_t tag, std::size_t bytes) {
  const Header header{tag, static_cast<std::uint32_t>(bytes)};
  std::memcpy(out, &header, sizeof header);
}
}  // namespace

std::size_t encode(Op op, const Value& value, unsigned char* out) {
  unsigned char* body = out + kHeaderBytes;
  std::size_t bytes = 0;
  switch (value.kind) {
    case Kind::kOctet:
      bytes = sizeof value.octet;
      std::memcpy(body, &value.octet, bytes);
      break;
    case Kind::kShort:
      bytes = sizeof value.shrt;
      std::memcpy(body, &value.shrt, bytes);
      break;
    case Kind::kLong:
      bytes = sizeof value.lng;
      std::memcpy(body, &value.lng, bytes);
      break;
    case Kind::kComposite:
      bytes = sizeof value.composite;
      std::memcpy(body, &value.composite, bytes);
      break;
    case Kind::kSequence:
      bytes = 4 * std::size_t{value.length};
      std::memcpy(body, value.sequence.data(), bytes);
      break;
  }
  if (op == Op::kTotals || op == Op::kQuit) {
    bytes = 0;
  }
  put_header(out, tag_of(op, value.kind), bytes);
  return kHeaderBytes + bytes;
}

std::size_t encode_totals(std::uint64_t count, std::uint64_t digest, unsigned char* out) {
  put_header(out, tag_of(Op::kTotals, Kind::kOctet), 16);
  std::memcpy(out + kHeaderBytes, &count, 8);
  std::memcpy(out + kHeaderBytes + 8, &digest, 8);
  return kHeaderBytes + 16;
}

std::size_t message_size(const unsigned char* data) {
  Header header;
  std::memcpy(&header, data, sizeof header);
  if (header.tag >> 16 != kMagic || header.bytes > kMaxMessage - kHeaderBytes) {
    return 0;
  }
  return kHeaderBytes + header.bytes;
}

bool decode(const unsigned char* data, std::size_t size, Op& op, Value& value) {
  if (size < kHeaderBytes || message_size(data) != size) {
    return false;
  }
  Header header;
  std::memcpy(&header, data, sizeof header);
  const std::uint32_t op_bits = header.tag >> 8 & 0xFF;
  const std::uint32_t kind_bits = header.tag & 0xFF;
  if (op_bits > static_cast<std::uint32_t>(Op::kQuit) ||
      kind_bits >= static_cast<std::uint32_t>(kKinds)) {
    return false;
  }
  op = static_cast<Op>(op_bits);
  value.kind = static_cast<Kind>(kind_bits);
  value.length = 1;
  if (op == Op::kTotals || op == Op::kQuit) {
    return true;
  }
  const unsigned char* body = data + kHeaderBytes;
  const std::size_t bytes = header.bytes;
  switch (value.kind) {
    case Kind::kOctet:
      if (bytes != sizeof value.octet) {
        return false;
      }
      std::memcpy(&value.octet, body, bytes);
      return true;
    case Kind::kShort:
      if (bytes != sizeof value.shrt) {
        return false;
      }
      std::memcpy(&value.shrt, body, bytes);
      return true;
    case Kind::kLong:
      if (bytes != sizeof value.lng) {
        return false;
      }
      std::memcpy(&value.lng, body, bytes);
      return true;
    case Kind::kComposite:
      if (bytes != sizeof value.composite) {
        return false;
      }
      std::memcpy(&value.composite, body, bytes);
      return true;
    case Kind::kSequence:
      if (bytes == 0 || bytes % 4 != 0 || bytes / 4 > kMaxSequence) {
        return false;
      }
      value.length = static_cast<std::uint32_t>(bytes / 4);
      std::memcpy(value.sequence.data(), body, bytes);
      return true;
  }
  return false;
}

bool decode_totals(const unsigned char* data, std::size_t size, std::uint64_t& count,
                   std::uint64_t& digest) {
  Header header;
  if (size != kHeaderBytes + 16) {
    return false;
  }
  std::memcpy(&header, data, sizeof header);
  if (header.tag != tag_of(Op::kTotals, Kind::kOctet) || header.bytes != 16) {
    return false;
  }
  std::memcpy(&count, data + kHeaderBytes, 8);
  std::memcpy(&digest, data + kHeaderBytes + 8, 8);
  return true;
}

Responder::Outcome Responder::handle(const unsigned char* data, std::size_t size,
                                     unsigned char* reply, std::size_t& reply_size) {
  Op op;
  if (!decode(data, size, op, value_)) {
    return Outcome::kMalformed;
  }
  switch (op) {
    case Op::kCall:
      cube(value_);
      if (calls_++ == wrong_call_) {
        value_.octet = static_cast<std::uint8_t>(value_.octet + 1);
        value_.shrt = static_cast<std::int16_t>(value_.shrt + 1);
        value_.lng += 1;
        value_.composite.lng += 1;
        value_.sequence[0] += 1;
      }
      reply_size = encode(Op::kCall, value_, reply);
      return Outcome::kReply;
    case Op::kOneway:
      cube(value_);
      ++oneway_count_;
      oneway_digest_ += digest(value_);
      return Outcome::kNoReply;
    case Op::kTotals:
      reply_size = encode_totals(oneway_count_, oneway_digest_, reply);
      return Outcome::kReply;
    case Op::kQuit:
      return Outcome::kQuit;
  }
  return Outcome::kMalformed;
}

}  // namespace cubit::wire
