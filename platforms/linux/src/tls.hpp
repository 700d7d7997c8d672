// What socket.cpp asks of a connection's TLS (tls.cpp): records sealed and opened after the
// handshake.
#pragma once

#include <cstdint>
#include <span>

#include <kairos/kal/socket.hpp>

namespace kairos::kal::tls {

/// Seals `data` (at most one record's worth, 16 KB) as one record and sends it without blocking:
/// the bytes of `data` sent, 0 when the connection is full (nothing sent), -1 when the
/// connection is broken. Safe from several threads at once.
std::int64_t send(TlsChannel& channel, int handle, std::span<const std::byte> data) noexcept;
/// Opens the records that have come and hands their data over, without blocking: bytes given, 0
/// if none yet, -1 once the peer ended the connection or sent what does not open. One thread.
/// With `may_read`, it reads the socket once when the records it holds are not enough; without,
/// it opens only what raw_received gave it.
std::int64_t receive(TlsChannel& channel, int handle, std::span<std::byte> buffer,
                     bool may_read = true) noexcept;
/// Where bytes read from the socket by the caller go (a blocking read), then raw_received.
std::span<std::byte> raw_space(TlsChannel& channel) noexcept;
void raw_received(TlsChannel& channel, std::size_t count) noexcept;
bool holds_input(const TlsChannel& channel) noexcept;
void release(TlsChannel* channel) noexcept;

}  // namespace kairos::kal::tls
