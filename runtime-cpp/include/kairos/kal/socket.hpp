// Kernel Adaptation Layer: communication. Stream and datagram sockets on the endpoints a model
// names (uds:/path, tcp:host:port, udp:host:port), non-blocking, with a readiness poller.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>

namespace kairos::kal {

struct Endpoint {
  enum class Kind : std::uint8_t { kUnix, kTcp, kUdp };
  Kind kind = Kind::kTcp;
  char address[108] = {};  ///< host (IPv4 dotted quad) or socket path, NUL-terminated
  std::uint16_t port = 0;
};

/// Parses an endpoint as written in a model; false if malformed.
bool parse_endpoint(std::string_view text, Endpoint& out) noexcept;

/// How a connection carries data. kMessages keeps each send() one message at the receiver, whole
/// and never interleaved with another thread's send on the same socket (SOCK_SEQPACKET for Unix
/// domain sockets; datagrams are messages anyway); a TCP stream cannot, and refuses it.
enum class Transfer : std::uint8_t { kStream, kMessages };

class Socket {
 public:
  Socket() = default;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  /// Binds and (for connections) listens on `endpoint`. kInvalidArgument for a transfer the
  /// endpoint's kind cannot carry.
  Status listen(const Endpoint& endpoint, Transfer transfer = Transfer::kStream) noexcept;
  /// Connects to `endpoint`, waiting at most until `deadline`.
  Status connect(const Endpoint& endpoint, TimePoint deadline,
                 Transfer transfer = Transfer::kStream) noexcept;
  /// Takes one pending connection of a listening stream socket.
  Status accept(Socket& connection) noexcept;

  /// Sends what it can without blocking: bytes sent, 0 if it would block, -1 on error.
  std::int64_t send(std::span<const std::byte> data) noexcept;
  /// Receives what is there without blocking: bytes read, 0 if none yet, -1 on error or when
  /// the peer closed the connection.
  std::int64_t receive(std::span<std::byte> buffer) noexcept;

  /// Waits until the socket has data (or the peer closed it) or `deadline` passes; true if
  /// readable.
  bool wait_readable(TimePoint deadline) noexcept;

  /// Ends both directions of a connection but keeps the handle valid: the peer sees it closed,
  /// and a thread of this process reading it sees it closed too (and then closes it).
  void shutdown() noexcept;
  void close() noexcept;
  bool is_open() const noexcept { return handle_ >= 0; }
  int native_handle() const noexcept { return handle_; }

 private:
  int handle_ = -1;
  Endpoint::Kind kind_ = Endpoint::Kind::kTcp;
  Transfer transfer_ = Transfer::kStream;
};

/// Waits until sockets are readable.
class Poller {
 public:
  Poller() = default;
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  ~Poller();

  Status add(const Socket& socket, std::uint64_t tag) noexcept;
  /// Stops watching `socket` (closing a socket stops it too).
  void remove(const Socket& socket) noexcept;
  /// Fills `ready` with the tags of readable sockets; returns how many (0 on timeout). Waits
  /// until `deadline` even when it watches nothing yet.
  std::size_t wait(TimePoint deadline, std::span<std::uint64_t> ready) noexcept;

 private:
  int handle_ = -1;
};

}  // namespace kairos::kal
