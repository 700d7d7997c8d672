// The simulated network's state behind the KAL sockets and poller: the process-wide socket and
// poller tables, the links, and the rules of delivery in virtual time (see network.cpp). Shared
// by the sockets (network.cpp) and the poller (network_poller.cpp); everything here runs under
// the kernel lock, by the one thread that executes.
#pragma once

#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/socket.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#include "kernel.hpp"

namespace kairos::kal::sim_net {

/// What one socket can hold undelivered or unread, like a kernel's socket buffer: a send that
/// does not fit would block (send() returns 0, or takes what fits on a stream).
inline constexpr std::size_t kInboxBytes = 64 * 1024;
/// Messages one inbox holds; one more slot is kept for the end of stream.
inline constexpr std::size_t kInboxMessages = 256;
/// Connections a listener holds before they are accepted; more are refused.
inline constexpr std::size_t kBacklog = 64;
inline constexpr int kMaxSockets = 512;
inline constexpr int kMaxPollers = 64;
inline constexpr std::size_t kPollerCapacity = 160;
inline constexpr std::size_t kPollersPerSocket = 4;

inline constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
/// Readable since always: a socket shut down here, or one closed under its waiter.
inline constexpr std::int64_t kAlready = std::numeric_limits<std::int64_t>::min();

struct Message {
  std::int64_t deliver_at = 0;
  std::uint32_t size = 0;
  bool end = false;  ///< the peer closed or shut down: the end of the stream
};

struct Inbox {
  std::array<std::byte, kInboxBytes> bytes;
  std::array<Message, kInboxMessages> messages;
};

enum class Role : std::uint8_t { kFree, kListener, kConnection, kDatagram };

struct SimSocket {
  Role role = Role::kFree;
  /// A listener's or bound datagram socket's own endpoint; a sending datagram socket's target.
  Endpoint endpoint{};
  bool bound = false;  ///< a datagram socket that listens on `endpoint`
  Transfer transfer = Transfer::kStream;
  sim::LinkModel link{};  ///< a connection's link, both ways
  int peer = -1;          ///< a connection's other end, while it is open
  bool shut = false;      ///< shut down here: reads see the end at once
  bool end_sent = false;
  /// When the peer's end of stream reaches this socket (its sends fail from then), or kNever.
  std::int64_t peer_end_at = kNever;

  std::unique_ptr<Inbox> inbox;
  std::size_t byte_head = 0;
  std::size_t byte_fill = 0;
  std::size_t message_head = 0;
  std::size_t message_count = 0;
  std::size_t read_offset = 0;  ///< bytes of the first message a stream read took already
  std::int64_t last_delivery = 0;
  /// When the last message this socket sent has left it (all its bytes on the wire), for links
  /// of limited bandwidth.
  std::int64_t sending_until = 0;

  // A listener's connections not yet accepted, a FIFO linked through the waiting ends.
  int pending_head = -1;
  int pending_tail = -1;
  std::size_t pending_count = 0;
  // A connection's end waiting in its listener's queue.
  int next_pending = -1;
  std::int64_t accept_at = 0;

  /// The thread blocked in wait_readable on it (one at a time, as the ORB's one reader).
  sim::SimThread* waiter = nullptr;
  std::array<int, kPollersPerSocket> pollers{-1, -1, -1, -1};
};

struct Watch {
  int socket = -1;
  std::uint64_t tag = 0;
};

struct SimPoller {
  bool used = false;
  std::array<Watch, kPollerCapacity> watches{};
  std::size_t count = 0;
  sim::SimThread* waiter = nullptr;
};

struct EndpointLink {
  Endpoint endpoint{};
  sim::LinkModel link{};
};

inline std::array<SimSocket, kMaxSockets> sockets;
inline std::array<SimPoller, kMaxPollers> pollers;
inline sim::LinkModel default_link{};
inline std::array<EndpointLink, sim::kMaxEndpointLinks> endpoint_links{};
inline int endpoint_link_count = 0;
inline std::uint64_t jitter_state = 0;
inline sim::NetworkCounters counters{};

inline const char* host_of(const Endpoint& endpoint) {
  if (endpoint.kind != Endpoint::Kind::kUnix && std::strcmp(endpoint.address, "localhost") == 0) {
    return "127.0.0.1";
  }
  return endpoint.address;
}

/// Whether two endpoints name one place (`localhost` is 127.0.0.1).
inline bool same_place(const Endpoint& a, const Endpoint& b) {
  return a.kind == b.kind && a.port == b.port && std::strcmp(host_of(a), host_of(b)) == 0;
}

inline sim::LinkModel link_to(const Endpoint& endpoint) {
  for (int i = 0; i < endpoint_link_count; ++i) {
    if (same_place(endpoint_links[static_cast<std::size_t>(i)].endpoint, endpoint)) {
      return endpoint_links[static_cast<std::size_t>(i)].link;
    }
  }
  return default_link;
}

inline bool valid(const sim::LinkModel& link) {
  return link.latency >= Duration::zero() && link.jitter >= Duration::zero() &&
         link.bits_per_second >= 0;
}

/// The time `size` bytes take onto a wire of `bits_per_second`, rounded up to whole nanoseconds.
inline std::int64_t serialisation_ns(std::size_t size, std::int64_t bits_per_second) {
  constexpr std::int64_t kNanosecondsPerSecond = 1'000'000'000;
  // At most kInboxBytes per send: size x 8 x 1e9 stays far below 2^63.
  const std::int64_t bit_nanoseconds = static_cast<std::int64_t>(size) * 8 * kNanosecondsPerSecond;
  return (bit_nanoseconds + bits_per_second - 1) / bits_per_second;
}

/// A jitter in [0, jitter] from the seeded generator (splitmix64: small, and the same sequence
/// for the same seed on every machine).
inline std::int64_t draw_jitter(std::int64_t jitter) {
  if (jitter <= 0) {
    return 0;
  }
  jitter_state += 0x9E3779B97F4A7C15ULL;
  std::uint64_t z = jitter_state;
  z = (z ^ (z >> 30U)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27U)) * 0x94D049BB133111EBULL;
  z ^= z >> 31U;
  return static_cast<std::int64_t>(z % (static_cast<std::uint64_t>(jitter) + 1));
}

/// When a message of `size` bytes that `from` sends now over `link` arrives, before it is held
/// back behind earlier deliveries: once it has left (after what `from` sent before it, and its own
/// serialisation), plus the latency and a jitter.
inline std::int64_t arrival(SimSocket& from, const sim::LinkModel& link, std::size_t size,
                            std::int64_t now) {
  std::int64_t leaves = now;
  if (link.bits_per_second > 0) {
    leaves = std::max(now, from.sending_until) + serialisation_ns(size, link.bits_per_second);
    from.sending_until = leaves;
  }
  return leaves + link.latency.count() + draw_jitter(link.jitter.count());
}

inline SimSocket& at(int handle) {
  return sockets[static_cast<std::size_t>(handle)];
}

/// A free socket (the lowest, so that handles are the same on every run), or -1.
inline int allocate(Role role, bool with_inbox) {
  for (int h = 0; h < kMaxSockets; ++h) {
    SimSocket& s = at(h);
    if (s.role != Role::kFree) {
      continue;
    }
    if (with_inbox) {
      s.inbox.reset(new (std::nothrow) Inbox);
      if (!s.inbox) {
        return -1;
      }
    }
    s.role = role;
    return h;
  }
  return -1;
}

/// When `s` is (or becomes) readable: at once for an end seen here, at its first delivery, at
/// its first pending connection's arrival; kNever if nothing is on its way.
inline std::int64_t readable_at(const SimSocket& s) {
  switch (s.role) {
    case Role::kFree:
      return kAlready;
    case Role::kListener:
      return s.pending_head < 0 ? kNever : at(s.pending_head).accept_at;
    case Role::kConnection:
    case Role::kDatagram:
      if (s.shut) {
        return kAlready;
      }
      return s.message_count == 0 ? kNever : s.inbox->messages[s.message_head].deliver_at;
  }
  return kNever;
}

/// Makes a thread blocked on a socket's readiness see that it changed: at once if it is
/// readable now, else by waking at `when` if that is sooner than its wake-up.
inline void wake_for(std::unique_lock<std::mutex>& lock, sim::SimThread*& registered,
                     std::int64_t when) {
  sim::SimThread* waiter = registered;
  if (waiter == nullptr || waiter->state != sim::State::kBlocked) {
    return;
  }
  if (when <= sim::virtual_now_ns()) {
    registered = nullptr;
    sim::make_ready(lock, waiter);  // may hand the processor to it at once, as Event::set does
  } else if (waiter->wake_at < 0 || when < waiter->wake_at) {
    waiter->wake_at = when;
  }
}

/// After socket `handle` got something to read at `when`: its waiter and every poller watching
/// it learn of it. make_ready may run other threads before it returns, so each registration is
/// read afresh.
inline void notify(std::unique_lock<std::mutex>& lock, int handle, std::int64_t when) {
  if (when == kNever) {
    return;
  }
  wake_for(lock, at(handle).waiter, when);
  for (std::size_t i = 0; i < kPollersPerSocket; ++i) {
    const int poller = at(handle).pollers[i];
    if (poller >= 0) {
      wake_for(lock, pollers[static_cast<std::size_t>(poller)].waiter, when);
    }
  }
}

/// Copies `size` bytes into the inbox ring at its tail.
inline void copy_in(SimSocket& to, const std::byte* data, std::size_t size) {
  if (size == 0) {
    return;  // an end of stream carries no bytes (and no buffer)
  }
  const std::size_t tail = (to.byte_head + to.byte_fill) % kInboxBytes;
  const std::size_t first = std::min(size, kInboxBytes - tail);
  std::memcpy(to.inbox->bytes.data() + tail, data, first);
  std::memcpy(to.inbox->bytes.data(), data + first, size - first);
  to.byte_fill += size;
}

/// Copies `size` bytes out of the inbox ring at its head and drops them.
inline void copy_out(SimSocket& from, std::byte* data, std::size_t size) {
  const std::size_t first = std::min(size, kInboxBytes - from.byte_head);
  if (data != nullptr) {
    std::memcpy(data, from.inbox->bytes.data() + from.byte_head, first);
    std::memcpy(data + first, from.inbox->bytes.data(), size - first);
  }
  from.byte_head = (from.byte_head + size) % kInboxBytes;
  from.byte_fill -= size;
}

inline void pop_message(SimSocket& s) {
  s.message_head = (s.message_head + 1) % kInboxMessages;
  --s.message_count;
  s.read_offset = 0;
}

/// Queues a message for `to`, delivered at `deliver_at` or after the one before it, whichever
/// is later; returns its delivery time.
inline std::int64_t enqueue(SimSocket& to, const std::byte* data, std::size_t size, bool end,
                            std::int64_t deliver_at) {
  const std::int64_t delivery = std::max(to.last_delivery, deliver_at);
  copy_in(to, data, size);
  to.inbox->messages[(to.message_head + to.message_count) % kInboxMessages] =
      Message{delivery, static_cast<std::uint32_t>(size), end};
  ++to.message_count;
  to.last_delivery = delivery;
  return delivery;
}

/// Sends `from`'s end of stream to its peer (once): the peer reads the end one latency later,
/// and its own sends fail from then. Returns the peer to notify and when, or -1.
inline int send_end(SimSocket& from, std::int64_t& when) {
  if (from.end_sent || from.peer < 0) {
    return -1;
  }
  from.end_sent = true;
  SimSocket& to = at(from.peer);
  when = enqueue(to, nullptr, 0, true, sim::virtual_now_ns() + from.link.latency.count());
  to.peer_end_at = when;
  return from.peer;
}

inline void unwatch(int poller, int handle) {
  SimPoller& p = pollers[static_cast<std::size_t>(poller)];
  for (std::size_t i = 0; i < p.count; ++i) {
    if (p.watches[i].socket == handle) {
      // Keep the order: tags come out of wait() in the order they were added.
      std::copy(p.watches.begin() + static_cast<std::ptrdiff_t>(i + 1),
                p.watches.begin() + static_cast<std::ptrdiff_t>(p.count),
                p.watches.begin() + static_cast<std::ptrdiff_t>(i));
      --p.count;
      break;
    }
  }
  for (int& member : at(handle).pollers) {
    if (member == poller) {
      member = -1;
    }
  }
}

/// Closes socket `handle`: it leaves its pollers and the registry, its peer reads the end one
/// latency later, a listener's unaccepted connections are closed too.
inline void release(std::unique_lock<std::mutex>& lock, int handle) {
  SimSocket& s = at(handle);
  for (const int poller : s.pollers) {
    if (poller >= 0) {
      unwatch(poller, handle);
    }
  }
  std::int64_t end_at = 0;
  const int peer = s.role == Role::kConnection ? send_end(s, end_at) : -1;
  if (s.peer >= 0) {
    at(s.peer).peer = -1;
  }
  int pending = s.role == Role::kListener ? s.pending_head : -1;
  sim::SimThread* waiter = s.waiter;
  s = SimSocket{};  // free, and its inbox with it
  // Other threads may run from here on (notify), with this socket already gone.
  if (peer >= 0) {
    notify(lock, peer, end_at);
  }
  while (pending >= 0) {
    const int next = at(pending).next_pending;
    release(lock, pending);
    pending = next;
  }
  wake_for(lock, waiter, sim::virtual_now_ns());
}

/// The datagram socket listening on `endpoint`, or -1.
inline int bound_at(const Endpoint& endpoint) {
  for (int h = 0; h < kMaxSockets; ++h) {
    const SimSocket& s = at(h);
    if (((s.role == Role::kDatagram && s.bound) || s.role == Role::kListener) &&
        same_place(s.endpoint, endpoint)) {
      return h;
    }
  }
  return -1;
}

inline std::int64_t nanoseconds_of(TimePoint deadline) {
  return deadline == TimePoint::max() ? kNever : to_nanoseconds(deadline);
}

}  // namespace kairos::kal::sim_net
