// Kernel Adaptation Layer: communication. Stream and datagram sockets on the endpoints a model
// names (uds:/path, tcp:host:port, udp:host:port), shared-memory connections between processes
// of one host (shm:name), non-blocking, with a readiness poller.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/capacities.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>

namespace kairos::kal {

class TlsIdentity;
/// A connection's TLS state once its handshake is under way (the platform's).
struct TlsChannel;

struct Endpoint {
  enum class Kind : std::uint8_t { kUnix, kTcp, kUdp, kShm };
  Kind kind = Kind::kTcp;
  /// host (IPv4 dotted quad), socket path or shared-memory name, NUL-terminated
  char address[108] = {};
  std::uint16_t port = 0;
};

/// The longest shm: name (letters, digits, '_' and '-').
inline constexpr std::size_t kMaxSharedMemoryName = 64;
/// The largest message a shm: connection carries: the ORB's largest frame (its 32-byte header
/// and the largest body of capacities.properties).
inline constexpr std::size_t kLargestSharedMemoryMessage = 32 + capacity::kBody;

/// Parses an endpoint as written in a model; false if malformed.
bool parse_endpoint(std::string_view text, Endpoint& out) noexcept;

/// Removes the file a closed listener on `endpoint` leaves behind: a uds: socket's, or a shm:
/// set-up socket's; nothing for other endpoints, and nothing on a simulated network.
void remove_endpoint_file(const Endpoint& endpoint) noexcept;

/// How a connection carries data. kMessages keeps each send() one message at the receiver, whole
/// and never interleaved with another thread's send on the same socket (SOCK_SEQPACKET for Unix
/// domain sockets; datagrams are messages anyway; shared memory carries nothing else); a TCP
/// stream cannot, and refuses it, and shared memory refuses kStream.
enum class Transfer : std::uint8_t { kStream, kMessages };

/// Who besides a listener's own user (and root) may connect to the Unix socket it listens on
/// (uds:, and shm:'s set-up socket): the members of one group, which the deployment names (a
/// node's --socket-group) when nodes of one host run as users of their own, or no one.
struct LocalPeers {
  /// The group's id: the socket file is then the group's, mode 0660, and a peer is let in when
  /// the kernel says it is a member (its primary or a supplementary group). -1: the listener's
  /// user alone, mode 0600.
  std::int64_t group = -1;
};

/// What a shm: connection holds of its own, apart from the memory it shares with the peer: the
/// reader's position and doorbell state live here, where the peer cannot change them.
struct SharedMemoryLink {
  std::byte* mapping = nullptr;  ///< both rings (the peer maps the same memory)
  int lifeline = -1;             ///< the set-up socket: readable once the peer is gone or shut down
  int peer_doorbell = -1;        ///< the eventfd the peer's reader waits on
  bool server = false;           ///< the server reads ring 0 (client -> server) and writes ring 1
  std::uint64_t read_position = 0;
  bool armed = false;     ///< this reader set its `sleeping` word: senders ring the doorbell
  bool bell_set = false;  ///< the doorbell may hold a count that must be drained
  bool peer_gone = false;
  std::uint8_t empty_reads = 0;  ///< receives in a row that found nothing
  std::atomic<bool> shut_down{false};
};

/// A connection (or listening endpoint) of any kind. A shm: connection is two rings in memory
/// shared with the peer and an eventfd doorbell each way, set up over a Unix domain socket that
/// stays open to tell either side when the other is gone (docs/orb.md, "Transports"); its
/// native_handle() is the doorbell this side reads, and it must be removed from every Poller
/// before it is closed (the peer holds the same doorbell, so closing ours does not unwatch it).
class Socket {
 public:
  Socket() = default;
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket();

  /// Binds and (for connections) listens on `endpoint`. kInvalidArgument for a transfer the
  /// endpoint's kind cannot carry; kPermissionDenied for a group of `peers` this process may not
  /// give its socket file to. `peers` applies to Unix sockets only.
  Status listen(const Endpoint& endpoint, Transfer transfer = Transfer::kStream,
                LocalPeers peers = {}) noexcept;
  /// Connects to `endpoint`, waiting at most until `deadline`.
  Status connect(const Endpoint& endpoint, TimePoint deadline,
                 Transfer transfer = Transfer::kStream) noexcept;
  /// Takes one pending connection of a listening stream socket. On a Unix socket (uds:, and the
  /// set-up socket of shm:) a peer that runs as another user than this process (root aside), and
  /// is no member of the listen's LocalPeers group, is refused, kPermissionDenied, and its
  /// connection closed: a check of the kernel's word on the peer beside the socket file's mode.
  Status accept(Socket& connection) noexcept;

  /// Sends what it can without blocking: bytes sent, 0 if it would block, -1 on error.
  std::int64_t send(std::span<const std::byte> data) noexcept;
  /// Receives what is there without blocking: bytes read, 0 if none yet, -1 on error or when
  /// the peer closed the connection.
  std::int64_t receive(std::span<std::byte> buffer) noexcept;

  /// Waits until the socket has data (or the peer closed it) or `deadline` passes; true if
  /// readable.
  bool wait_readable(TimePoint deadline) noexcept;

  /// Waits for data until `deadline` and receives what is there: bytes read, 0 if the deadline
  /// passed with nothing, -1 on error or when the peer closed the connection. Meant for a
  /// connection that one thread waits on for its replies: where the platform can, a reply that
  /// comes well before the deadline costs one system call instead of a wait and a read.
  std::int64_t receive_within(std::span<std::byte> buffer, TimePoint deadline) noexcept;

  /// TLS 1.3 on a connected tcp: socket, as the client: the handshake with `identity`, by
  /// `deadline`, with a server whose certificate, of the same CA, names node `peer`. From then on
  /// send() and receive() carry TLS records; each send() is one record. kPermissionDenied when
  /// the server proves another name or no certificate of the CA, kUnavailable when the deadline
  /// passed, kInvalidArgument for another kind of socket. It allocates (at connection, not per
  /// call).
  Status secure_as_client(const TlsIdentity& identity, const char* peer,
                          TimePoint deadline) noexcept;
  /// TLS 1.3 on an accepted tcp: connection, as the server, a step at a time without blocking:
  /// kOk once the client has proved a certificate of the CA, kUnavailable while its handshake
  /// waits for the client (call again when the socket is readable), kPermissionDenied when the
  /// client proved none, another status when the handshake failed.
  Status secure_as_server(const TlsIdentity& identity) noexcept;
  /// The node name the peer's certificate proved ("" before the handshake, or without TLS).
  const char* peer_identity() const noexcept;
  /// Whether the connection runs TLS (its handshake done).
  bool secured() const noexcept;
  /// Whether data taken from the kernel waits here for receive(): TLS reads whole records, so a
  /// thread that sleeps until the socket is readable must receive again first.
  bool holds_input() const noexcept;

  /// Ends both directions of a connection but keeps the handle valid: the peer sees it closed,
  /// and a thread of this process reading it sees it closed too (and then closes it).
  void shutdown() noexcept;
  void close() noexcept;
  bool is_open() const noexcept { return handle_ >= 0; }
  int native_handle() const noexcept { return handle_; }

 private:
  friend class Poller;
  bool shared_memory() const noexcept { return link_.mapping != nullptr; }
  /// receive_within's wait and read of the bytes on the connection, below TLS (Linux).
  std::int64_t receive_raw_within(std::span<std::byte> buffer, TimePoint deadline) noexcept;

  int handle_ = -1;
  Endpoint::Kind kind_ = Endpoint::Kind::kTcp;
  Transfer transfer_ = Transfer::kStream;
  LocalPeers local_peers_{};  ///< a Unix listener's, for accept's check of each peer
  SharedMemoryLink link_{};
  /// receive_within's blocking receive: the handle was switched to blocking mode (every other
  /// operation asks for non-blocking behaviour per call) and the receive timeout last set.
  bool blocking_receive_ = false;
  Duration receive_timeout_{};
  /// The connection's TLS (nullptr without): its own, freed by close().
  TlsChannel* tls_ = nullptr;
};

/// Waits until sockets are readable.
class Poller {
 public:
  Poller() = default;
  Poller(const Poller&) = delete;
  Poller& operator=(const Poller&) = delete;
  ~Poller();

  /// Makes the set of watched sockets now, before any is added (add() makes it otherwise), so
  /// that a socket another thread adds later ends a wait already under way. Without it a thread
  /// that waits on an empty poller sleeps out its deadline: an ORB reader did so for up to 20 ms
  /// after its first connection came, holding the node's first request back (3.2 ms measured).
  /// Idempotent; kResourceExhausted when the OS has no more.
  Status open() noexcept;
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
