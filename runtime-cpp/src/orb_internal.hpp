// What the ORB's sources share behind the API: the state of client calls and connections, server
// connections and band readers, and the small rules every side applies alike.
#pragma once

#include <kairos/orb/orb.hpp>

#include <cstdio>
#include <cstring>
#include <memory>

#include <kairos/engine.hpp>
#include <kairos/kal/execution.hpp>

namespace kairos::orb {

namespace internal {
inline constexpr std::size_t kFrameCapacity = kHeaderSize + kMaxBody;
/// Receive buffers hold a whole frame plus the start of the next (streams deliver bytes, not
/// frames).
inline constexpr std::size_t kReceiveCapacity = 2 * kFrameCapacity;
/// How often idle service threads look at `stopping_`: bounds how long stop() takes.
inline constexpr kal::Duration kIdleWake = std::chrono::milliseconds{20};

/// Frames a band's reader takes from one connection before it turns to the others: a connection
/// that sends a full read's worth (hundreds of small frames) holds the band for this many, not
/// for all of them.
inline constexpr std::size_t kFramesPerTurn = 8;
/// A connection that has not said hello by then is closed.
inline constexpr kal::Duration kHelloTimeout = std::chrono::seconds{2};
/// A connection whose frame is still unfinished this long after its first bytes came is closed:
/// a peer sends each frame in one send(), so only a peer that holds its connection (and a
/// connection slot) on purpose leaves one unfinished.
inline constexpr kal::Duration kPartialFrameTimeout = std::chrono::seconds{1};
/// A node's connection with no request for this long may be closed when a new connection of the
/// same node finds every slot it is given in use: a node opens a connection per route once, so
/// a new one means it reconnected (its old one lingers), or somebody holds its slots under its
/// name.
inline constexpr kal::Duration kIdleBeforeEviction = std::chrono::seconds{2};
/// Requests of one connection refused in a row as beyond their caller's budget before its reader
/// stops reading it until the budget takes one again: a caller whose calls a host bunched now
/// and then sees each refused, as its budget says; a flood costs the reader this many requests
/// and one per budget interval, whatever its rate.
inline constexpr std::uint32_t kRefusalsBeforePause = 8;
/// The longest a connection over its caller's budget goes unread (ServerConnection::
/// paused_until): a budget of one request in ten seconds does not leave a closed connection
/// unnoticed for as long.
inline constexpr kal::Duration kLongestPause = std::chrono::milliseconds{500};
/// A connection's node when the access list names none (ServerConnection::caller).
inline constexpr std::uint8_t kNoCaller = 0xFF;
static_assert(kMaxCallers < kNoCaller);
inline constexpr std::uint64_t kListenerTag = ~std::uint64_t{0};
/// A band reader's tag for its UDP socket (its connections are tagged by their index).
inline constexpr std::uint64_t kDatagramTag = kListenerTag - 1;
/// A datagram is read into a frame's capacity and one byte more, so that one too large for a
/// frame shows as such instead of being cut to a size that might look right.
inline constexpr std::size_t kDatagramCapacity = kFrameCapacity + 1;
/// Datagrams a reader takes per wake-up before it looks at stop() again.
inline constexpr std::size_t kDatagramsPerWake = 64;

static_assert(kFrameCapacity <= kal::kLargestSharedMemoryMessage);

inline kal::Transfer transfer_for(const kal::Endpoint& endpoint) noexcept {
  // Unix domain sockets (SOCK_SEQPACKET), shared-memory rings and datagrams keep message
  // boundaries, so replies that lanes of several cores send on one connection never interleave;
  // TCP frames are sent whole by one send(), or the connection is given up (Orb::send_frame).
  return endpoint.kind == kal::Endpoint::Kind::kTcp ? kal::Transfer::kStream
                                                    : kal::Transfer::kMessages;
}

inline bool is_datagram(const kal::Endpoint& endpoint) noexcept {
  return endpoint.kind == kal::Endpoint::Kind::kUdp;
}

inline CallStatus status_of(ReplyStatus status) noexcept {
  switch (status) {
    case ReplyStatus::kOk:
      return CallStatus::kOk;
    case ReplyStatus::kUserException:
      return CallStatus::kUserException;
    case ReplyStatus::kOverloaded:
      return CallStatus::kOverloaded;
    case ReplyStatus::kUnavailable:
      return CallStatus::kUnavailable;
    case ReplyStatus::kNoSuchTarget:
      return CallStatus::kNoSuchTarget;
    case ReplyStatus::kMalformed:
      return CallStatus::kMalformed;
    case ReplyStatus::kRateExceeded:
      return CallStatus::kRateExceeded;
    case ReplyStatus::kNotPermitted:
      return CallStatus::kNotPermitted;
  }
  return CallStatus::kMalformed;
}

/// Drops the first `count` bytes of a receive buffer holding `fill` bytes.
inline void consume(std::byte* buffer, std::size_t& fill, std::size_t count) noexcept {
  if (count == 0) {
    return;
  }
  std::memmove(buffer, buffer + count, fill - count);
  fill -= count;
}

inline void report(const char* what, const char* detail) noexcept {
  char line[256];  // as long as a line of the log
  std::snprintf(line, sizeof line, "%s: %s", what, detail);
  kal::report(kal::Severity::kWarning, "orb", line);
}
}  // namespace internal

// ---------------------------------------------------------------- state behind the API

struct CallSlot {
  bool in_use = false;
  bool answered = false;
  std::uint32_t request_id = 0;
  kal::TimePoint deadline{};
  kal::TimePoint replied_at{};  ///< when the reply was taken from the connection
  FrameHeader reply{};
  CallStatus outcome = CallStatus::kPending;
  std::unique_ptr<std::byte[]> body;

  /// Taken by a request sent with `id`, to be answered by `deadline`.
  void await(std::uint32_t id, kal::TimePoint by) noexcept {
    in_use = true;
    answered = false;
    request_id = id;
    deadline = by;
    replied_at = kal::TimePoint{};
    outcome = CallStatus::kPending;
  }
};

struct ClientConnection {
  std::uint8_t peer = 0;
  bool datagram = false;  ///< to a udp: peer: oneways only, each one datagram
  std::uint8_t band = 0;
  std::uint8_t core = 0;
  kal::PriorityBand caller_band = kal::kLowestBand;
  std::uint8_t caller_slot = 0;  ///< LaneIdentity::slot of the calling lane
  kal::Socket socket;
  bool connected = false;
  kal::TimePoint retry_at{};
  std::uint32_t next_request_id = 1;
  std::unique_ptr<std::byte[]> send_buffer;
  std::unique_ptr<std::byte[]> receive_buffer;
  std::size_t received = 0;
  std::array<CallSlot, kMaxPendingCalls> pending{};

  /// A slot no call holds, or nullptr.
  CallSlot* free_slot() noexcept {
    for (CallSlot& slot : pending) {
      if (!slot.in_use) {
        return &slot;
      }
    }
    return nullptr;
  }

  /// Whether this is the route from lane (`from_core`, `from_band`, `from_slot`) to band
  /// `to_band` of peer `to_peer`.
  bool joins(std::uint8_t to_peer, std::uint8_t to_band, std::uint8_t from_core,
             kal::PriorityBand from_band, std::uint8_t from_slot) const noexcept {
    return peer == to_peer && band == to_band && core == from_core && caller_band == from_band &&
           caller_slot == from_slot;
  }
};

struct ServerConnection {
  enum State : std::uint8_t { kFree, kGreeting, kServing, kClosing, kClosed };
  std::atomic<std::uint8_t> state{kFree};
  /// Requests of this connection handed on and not yet answered: the socket stays open (though
  /// perhaps shut down) until the last is answered, so a lane never sends on a reused handle.
  std::atomic<std::uint32_t> in_flight{0};
  kal::Socket socket;
  std::uint8_t band = 0;
  std::size_t reader = 0;
  kal::TimePoint accepted_at{};
  std::unique_ptr<std::byte[]> receive_buffer;
  std::size_t received = 0;
  /// Where the frames not yet taken begin in the receive buffer (those before are dispatched).
  std::size_t taken = 0;
  /// Its last turn ended with kFramesPerTurn frames taken, and whole ones may be left: its reader
  /// comes back to it before it sleeps, and reads the socket again once they are taken.
  bool backlog = false;
  /// When the unfinished frame in the receive buffer began to arrive (min(): none is).
  kal::TimePoint partial_since = kal::TimePoint::min();
  /// Its requests refused in a row as beyond their caller's budget.
  std::uint32_t over_budget_in_a_row = 0;
  /// Set when kRefusalsBeforePause requests of it in a row came beyond their caller's budget, to
  /// when the budget takes one again: until then (at most kLongestPause) its reader neither reads
  /// its socket nor takes its frames, so that the kernel holds a flood back at the sender instead
  /// of the reader refusing each request at its band's priority. min(): not paused; otherwise
  /// out of its reader's poller (Orb::pause) until then.
  kal::TimePoint paused_until = kal::TimePoint::min();
  char peer[kMaxNodeName + 1] = {};
  /// Its node in the access list (Orb::callers_), or kNoCaller.
  std::uint8_t caller = internal::kNoCaller;
  /// Whether it is counted in its node's Caller::connections: whoever clears it (closing, or
  /// the acceptor closing it for a new connection of that node) gives the count back, once.
  std::atomic<bool> counted{false};
  /// When its last request came, or its hello (nanoseconds of the monotonic clock).
  std::atomic<std::int64_t> last_request_ns{0};
  /// A reader's udp: socket: its datagrams come with no hello, and name no caller.
  bool anonymous = false;
};

struct Orb::Reader {
  Orb* orb = nullptr;
  kal::PriorityBand band = kal::kLowestBand;
  kal::Thread thread;
  kal::Poller poller;
  char name[16] = {};
  /// Listening on udp:, the band's UDP socket: a connection that is always serving, whose
  /// requests are oneways, never answered.
  ServerConnection datagrams;
  std::uint64_t datagrams_dropped = 0;  ///< by this reader (it alone counts them here)
  /// Whether a connection of this reader ended its last turn with frames left (backlog).
  bool backlogged = false;
  /// Connections of this reader paused over their caller's budget, and the first to resume.
  std::size_t paused = 0;
  kal::TimePoint first_resume = kal::TimePoint::max();
};

}  // namespace kairos::orb
