// Datagrams: a band's UDP socket is a connection that always serves, whose requests are oneways,
// each a whole frame, never answered.
#include <algorithm>
#include <new>

#include "orb_internal.hpp"

namespace kairos::orb {

using namespace internal;

bool band_endpoint(const kal::Endpoint& node, std::uint8_t band, kal::Endpoint& out) noexcept {
  // A port per band keeps one reader per band at its priority: a band's datagrams queue on a
  // socket of their own, where no other band's can hold them up.
  const unsigned port = unsigned{node.port} + band;
  if (node.kind != kal::Endpoint::Kind::kUdp || port > 65535) {
    return false;
  }
  out = node;
  out.port = static_cast<std::uint16_t>(port);
  return true;
}

kal::Status Orb::bind_datagrams(Reader& reader) noexcept {
  kal::Endpoint port;
  if (!band_endpoint(listen_endpoint_, static_cast<std::uint8_t>(reader.band), port)) {
    return kal::Status::kInvalidArgument;
  }
  ServerConnection& datagrams = reader.datagrams;
  datagrams.receive_buffer.reset(new (std::nothrow) std::byte[kDatagramCapacity]);
  if (!datagrams.receive_buffer) {
    return kal::Status::kResourceExhausted;
  }
  if (const kal::Status status = datagrams.socket.listen(port, kal::Transfer::kMessages);
      status != kal::Status::kOk) {
    return status;
  }
  datagrams.band = static_cast<std::uint8_t>(reader.band);
  datagrams.received = 0;
  datagrams.in_flight.store(0);
  datagrams.anonymous = true;
  datagrams.state.store(ServerConnection::kServing, std::memory_order_release);
  return reader.poller.add(datagrams.socket, kDatagramTag);
}

void Orb::take_datagrams(Reader& reader) noexcept {
  ServerConnection& datagrams = reader.datagrams;
  std::byte* buffer = datagrams.receive_buffer.get();
  for (std::size_t taken = 0; taken < kDatagramsPerWake; ++taken) {
    // One datagram per receive: it is a frame, whole, or it is dropped. (An empty datagram reads
    // as nothing waiting, and ends this round.)
    const std::int64_t got = datagrams.socket.receive({buffer, kDatagramCapacity});
    if (got <= 0) {
      return;
    }
    const auto size = static_cast<std::size_t>(got);
    FrameHeader header{};
    const HeaderError error = decode_header({buffer, size}, kMaxBody, header);
    const char* why = error != HeaderError::kNone         ? to_string(error)
                      : header.kind != FrameKind::kOneway ? "not a oneway (UDP carries no replies)"
                      : header.band != datagrams.band     ? "band differs from its port's"
                      : size != kHeaderSize + header.body_size
                          ? "its size differs from its header's (cut short, or padded)"
                          : nullptr;
    if (why != nullptr) {
      drop_datagram(reader, why);
      continue;
    }
    handle_request(datagrams, header, {buffer + kHeaderSize, header.body_size});
  }
}

void Orb::drop_datagram(Reader& reader, const char* why) noexcept {
  datagrams_dropped_.add();
  // Anyone can send a datagram: say so at the 1st, 2nd, 4th, 8th... drop, so that a flood of
  // them cannot flood the log (the counter has them all).
  const std::uint64_t dropped = ++reader.datagrams_dropped;
  if ((dropped & (dropped - 1)) == 0) {
    char detail[128];
    std::snprintf(detail, sizeof detail, "on band %d (%llu so far): %s", reader.band,
                  static_cast<unsigned long long>(dropped), why);
    report("datagram dropped", detail);
  }
}

}  // namespace kairos::orb
