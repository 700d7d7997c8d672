// The KAL sockets and poller on a simulated network in virtual time (sim_network.hpp).
//
// A socket handle is an index into one process-wide table. A listening socket is the registry
// entry of its endpoint; connect() pairs a new socket with a listener at once (or is refused at
// once when nobody listens) and the listener sees the connection one link latency later. Each
// socket has an inbox: the messages its peer sent, each stamped with the virtual time it is
// delivered, in delivery order. Nothing moves at delivery: a message is there once virtual time
// has reached its stamp. A thread waiting for a socket sets its kernel timed wait to the first
// delivery it waits for (or to its deadline if sooner), so the kernel wakes it at that instant
// exactly; a send that makes an earlier delivery lowers that wake-up, and one delivered at once
// (zero latency, a shutdown seen locally) readies the waiter as an event would.
//
// Everything here runs under the kernel lock, by the one thread that executes.
#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/socket.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <new>

#include "kernel.hpp"

namespace kairos::kal {

namespace {

/// What one socket can hold undelivered or unread, like a kernel's socket buffer: a send that
/// does not fit would block (send() returns 0, or takes what fits on a stream).
constexpr std::size_t kInboxBytes = 64 * 1024;
/// Messages one inbox holds; one more slot is kept for the end of stream.
constexpr std::size_t kInboxMessages = 256;
/// Connections a listener holds before they are accepted; more are refused.
constexpr std::size_t kBacklog = 64;
constexpr int kMaxSockets = 512;
constexpr int kMaxPollers = 64;
constexpr std::size_t kPollerCapacity = 160;
constexpr std::size_t kPollersPerSocket = 4;

constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();
/// Readable since always: a socket shut down here, or one closed under its waiter.
constexpr std::int64_t kAlready = std::numeric_limits<std::int64_t>::min();

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

std::array<SimSocket, kMaxSockets> sockets;
std::array<SimPoller, kMaxPollers> pollers;
sim::LinkModel default_link{};
std::array<EndpointLink, sim::kMaxEndpointLinks> endpoint_links{};
int endpoint_link_count = 0;
std::uint64_t jitter_state = 0;
sim::NetworkCounters counters{};

const char* host_of(const Endpoint& endpoint) {
  if (endpoint.kind != Endpoint::Kind::kUnix && std::strcmp(endpoint.address, "localhost") == 0) {
    return "127.0.0.1";
  }
  return endpoint.address;
}

/// Whether two endpoints name one place (`localhost` is 127.0.0.1).
bool same_place(const Endpoint& a, const Endpoint& b) {
  return a.kind == b.kind && a.port == b.port && std::strcmp(host_of(a), host_of(b)) == 0;
}

sim::LinkModel link_to(const Endpoint& endpoint) {
  for (int i = 0; i < endpoint_link_count; ++i) {
    if (same_place(endpoint_links[static_cast<std::size_t>(i)].endpoint, endpoint)) {
      return endpoint_links[static_cast<std::size_t>(i)].link;
    }
  }
  return default_link;
}

bool valid(const sim::LinkModel& link) {
  return link.latency >= Duration::zero() && link.jitter >= Duration::zero() &&
         link.bits_per_second >= 0;
}

/// The time `size` bytes take onto a wire of `bits_per_second`, rounded up to whole nanoseconds.
std::int64_t serialisation_ns(std::size_t size, std::int64_t bits_per_second) {
  constexpr std::int64_t kNanosecondsPerSecond = 1'000'000'000;
  // At most kInboxBytes per send: size x 8 x 1e9 stays far below 2^63.
  const std::int64_t bit_nanoseconds = static_cast<std::int64_t>(size) * 8 * kNanosecondsPerSecond;
  return (bit_nanoseconds + bits_per_second - 1) / bits_per_second;
}

/// A jitter in [0, jitter] from the seeded generator (splitmix64: small, and the same sequence
/// for the same seed on every machine).
std::int64_t draw_jitter(std::int64_t jitter) {
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
std::int64_t arrival(SimSocket& from, const sim::LinkModel& link, std::size_t size,
                     std::int64_t now) {
  std::int64_t leaves = now;
  if (link.bits_per_second > 0) {
    leaves = std::max(now, from.sending_until) + serialisation_ns(size, link.bits_per_second);
    from.sending_until = leaves;
  }
  return leaves + link.latency.count() + draw_jitter(link.jitter.count());
}

SimSocket& at(int handle) {
  return sockets[static_cast<std::size_t>(handle)];
}

/// A free socket (the lowest, so that handles are the same on every run), or -1.
int allocate(Role role, bool with_inbox) {
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
std::int64_t readable_at(const SimSocket& s) {
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
void wake_for(std::unique_lock<std::mutex>& lock, sim::SimThread*& registered, std::int64_t when) {
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
void notify(std::unique_lock<std::mutex>& lock, int handle, std::int64_t when) {
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
void copy_in(SimSocket& to, const std::byte* data, std::size_t size) {
  const std::size_t tail = (to.byte_head + to.byte_fill) % kInboxBytes;
  const std::size_t first = std::min(size, kInboxBytes - tail);
  std::memcpy(to.inbox->bytes.data() + tail, data, first);
  std::memcpy(to.inbox->bytes.data(), data + first, size - first);
  to.byte_fill += size;
}

/// Copies `size` bytes out of the inbox ring at its head and drops them.
void copy_out(SimSocket& from, std::byte* data, std::size_t size) {
  const std::size_t first = std::min(size, kInboxBytes - from.byte_head);
  if (data != nullptr) {
    std::memcpy(data, from.inbox->bytes.data() + from.byte_head, first);
    std::memcpy(data + first, from.inbox->bytes.data(), size - first);
  }
  from.byte_head = (from.byte_head + size) % kInboxBytes;
  from.byte_fill -= size;
}

void pop_message(SimSocket& s) {
  s.message_head = (s.message_head + 1) % kInboxMessages;
  --s.message_count;
  s.read_offset = 0;
}

/// Queues a message for `to`, delivered at `deliver_at` or after the one before it, whichever
/// is later; returns its delivery time.
std::int64_t enqueue(SimSocket& to, const std::byte* data, std::size_t size, bool end,
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
int send_end(SimSocket& from, std::int64_t& when) {
  if (from.end_sent || from.peer < 0) {
    return -1;
  }
  from.end_sent = true;
  SimSocket& to = at(from.peer);
  when = enqueue(to, nullptr, 0, true, sim::virtual_now_ns() + from.link.latency.count());
  to.peer_end_at = when;
  return from.peer;
}

void unwatch(int poller, int handle) {
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
void release(std::unique_lock<std::mutex>& lock, int handle) {
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
int bound_at(const Endpoint& endpoint) {
  for (int h = 0; h < kMaxSockets; ++h) {
    const SimSocket& s = at(h);
    if (((s.role == Role::kDatagram && s.bound) || s.role == Role::kListener) &&
        same_place(s.endpoint, endpoint)) {
      return h;
    }
  }
  return -1;
}

std::int64_t nanoseconds_of(TimePoint deadline) {
  return deadline == TimePoint::max() ? kNever : to_nanoseconds(deadline);
}
}  // namespace

// ---------------------------------------------------------------- configuration

namespace sim {

Status set_network(const LinkModel& link, std::uint64_t seed) noexcept {
  if (!valid(link)) {
    return Status::kInvalidArgument;
  }
  auto lock = enter();
  default_link = link;
  endpoint_link_count = 0;
  jitter_state = seed;
  counters = NetworkCounters{};
  return Status::kOk;
}

Status set_endpoint_link(std::string_view endpoint, const LinkModel& link) noexcept {
  Endpoint parsed;
  if (!parse_endpoint(endpoint, parsed) || !valid(link)) {
    return Status::kInvalidArgument;
  }
  auto lock = enter();
  for (int i = 0; i < endpoint_link_count; ++i) {
    EndpointLink& known = endpoint_links[static_cast<std::size_t>(i)];
    if (same_place(known.endpoint, parsed)) {
      known.link = link;
      return Status::kOk;
    }
  }
  if (endpoint_link_count == kMaxEndpointLinks) {
    return Status::kCapacityExceeded;
  }
  endpoint_links[static_cast<std::size_t>(endpoint_link_count++)] = EndpointLink{parsed, link};
  return Status::kOk;
}

NetworkCounters network_counters() noexcept {
  auto lock = enter();
  return counters;
}

}  // namespace sim

// ---------------------------------------------------------------- sockets

Socket::~Socket() {
  close();
}

void Socket::close() noexcept {
  if (handle_ < 0) {
    return;
  }
  auto lock = sim::enter();
  sim::current(lock);
  const int handle = handle_;
  handle_ = -1;
  release(lock, handle);
}

Status Socket::listen(const Endpoint& endpoint, Transfer transfer) noexcept {
  close();
  if (transfer == Transfer::kMessages && endpoint.kind == Endpoint::Kind::kTcp) {
    return Status::kInvalidArgument;  // a TCP stream has no message boundaries
  }
  auto lock = sim::enter();
  if (bound_at(endpoint) >= 0) {
    return Status::kPlatformError;  // in use: one listener per endpoint
  }
  const bool datagram = endpoint.kind == Endpoint::Kind::kUdp;
  const int handle = allocate(datagram ? Role::kDatagram : Role::kListener, datagram);
  if (handle < 0) {
    return Status::kResourceExhausted;
  }
  SimSocket& s = at(handle);
  s.endpoint = endpoint;
  s.bound = datagram;
  s.transfer = datagram ? Transfer::kMessages : transfer;
  handle_ = handle;
  kind_ = endpoint.kind;
  transfer_ = transfer;
  return Status::kOk;
}

Status Socket::connect(const Endpoint& endpoint, TimePoint /*deadline*/,
                       Transfer transfer) noexcept {
  // Connecting takes no virtual time: the caller learns at once whether anyone listens, and the
  // listener sees the connection one latency later (before anything sent on it).
  close();
  if (transfer == Transfer::kMessages && endpoint.kind == Endpoint::Kind::kTcp) {
    return Status::kInvalidArgument;
  }
  auto lock = sim::enter();
  sim::current(lock);
  if (endpoint.kind == Endpoint::Kind::kUdp) {
    // A datagram socket aimed at the endpoint: its datagrams go to whoever listens there then.
    const int handle = allocate(Role::kDatagram, false);
    if (handle < 0) {
      return Status::kResourceExhausted;
    }
    at(handle).endpoint = endpoint;
    at(handle).transfer = Transfer::kMessages;
    handle_ = handle;
    kind_ = endpoint.kind;
    transfer_ = transfer;
    return Status::kOk;
  }
  const int listener = bound_at(endpoint);
  if (listener < 0 || at(listener).transfer != transfer || at(listener).pending_count == kBacklog) {
    ++counters.refused_connects;  // ECONNREFUSED, at once
    return Status::kPlatformError;
  }
  const int client = allocate(Role::kConnection, true);
  if (client < 0) {
    return Status::kResourceExhausted;
  }
  const int server = allocate(Role::kConnection, true);
  if (server < 0) {
    at(client) = SimSocket{};
    return Status::kResourceExhausted;
  }
  const sim::LinkModel link = link_to(endpoint);
  SimSocket& near = at(client);
  SimSocket& far = at(server);
  near.peer = server;
  far.peer = client;
  near.link = far.link = link;
  near.transfer = far.transfer = transfer;
  near.last_delivery = far.last_delivery = sim::virtual_now_ns();
  far.accept_at = sim::virtual_now_ns() + link.latency.count();
  SimSocket& owner = at(listener);
  if (owner.pending_tail >= 0) {
    at(owner.pending_tail).next_pending = server;
  } else {
    owner.pending_head = server;
  }
  owner.pending_tail = server;
  ++owner.pending_count;
  handle_ = client;
  kind_ = endpoint.kind;
  transfer_ = transfer;
  notify(lock, listener, far.accept_at);
  return Status::kOk;
}

Status Socket::accept(Socket& connection) noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (handle_ < 0 || at(handle_).role != Role::kListener) {
    return Status::kPlatformError;
  }
  SimSocket& listener = at(handle_);
  const int server = listener.pending_head;
  if (server < 0 || at(server).accept_at > sim::virtual_now_ns()) {
    return Status::kResourceExhausted;  // EAGAIN: none has arrived yet
  }
  listener.pending_head = at(server).next_pending;
  if (listener.pending_head < 0) {
    listener.pending_tail = -1;
  }
  --listener.pending_count;
  at(server).next_pending = -1;
  if (connection.handle_ >= 0) {
    const int old = connection.handle_;
    connection.handle_ = -1;
    release(lock, old);
  }
  connection.handle_ = server;
  connection.kind_ = kind_;
  connection.transfer_ = transfer_;
  return Status::kOk;
}

std::int64_t Socket::send(std::span<const std::byte> data) noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (handle_ < 0) {
    return -1;
  }
  SimSocket& s = at(handle_);
  const std::int64_t now = sim::virtual_now_ns();
  if (s.shut || s.role == Role::kListener || s.role == Role::kFree) {
    return -1;
  }
  if (s.role == Role::kDatagram) {
    if (s.bound || data.size() > kInboxBytes) {
      return -1;  // a listening datagram socket has no one to send to; EMSGSIZE
    }
    const int receiver = bound_at(s.endpoint);
    if (receiver < 0 || at(receiver).role != Role::kDatagram) {
      ++counters.dropped;  // nobody listens: a datagram is lost without a word
      return static_cast<std::int64_t>(data.size());
    }
    SimSocket& to = at(receiver);
    if (kInboxBytes - to.byte_fill < data.size() || to.message_count + 1 >= kInboxMessages) {
      ++counters.dropped;  // its buffer is full: lost, as UDP loses it
      return static_cast<std::int64_t>(data.size());
    }
    const std::int64_t delivery = enqueue(to, data.data(), data.size(), false,
                                          arrival(s, link_to(s.endpoint), data.size(), now));
    ++counters.messages;
    counters.bytes += data.size();
    notify(lock, receiver, delivery);
    return static_cast<std::int64_t>(data.size());
  }
  if (s.peer_end_at != kNever) {
    if (now >= s.peer_end_at) {
      return -1;  // the peer's end has reached us: EPIPE
    }
    ++counters.dropped;  // it closed, and does not know yet: the bytes go nowhere
    return static_cast<std::int64_t>(data.size());
  }
  if (s.peer < 0) {
    return -1;
  }
  SimSocket& to = at(s.peer);
  if (to.message_count + 1 >= kInboxMessages) {
    return 0;  // would block
  }
  std::size_t size = data.size();
  const std::size_t room = kInboxBytes - to.byte_fill;
  if (s.transfer == Transfer::kMessages) {
    if (size > kInboxBytes) {
      return -1;  // EMSGSIZE: a message never fits
    }
    if (size > room) {
      return 0;
    }
  } else {
    size = std::min(size, room);  // a stream takes what fits
    if (size == 0 && !data.empty()) {
      return 0;
    }
  }
  const std::int64_t delivery =
      enqueue(to, data.data(), size, false, arrival(s, s.link, size, now));
  ++counters.messages;
  counters.bytes += size;
  notify(lock, s.peer, delivery);
  return static_cast<std::int64_t>(size);
}

std::int64_t Socket::receive(std::span<std::byte> buffer) noexcept {
  auto lock = sim::enter();
  if (handle_ < 0) {
    return -1;
  }
  SimSocket& s = at(handle_);
  if (s.role == Role::kListener || s.role == Role::kFree || s.shut) {
    return -1;
  }
  if (!s.inbox) {
    return 0;  // a sending datagram socket hears nothing
  }
  const std::int64_t now = sim::virtual_now_ns();
  if (s.transfer == Transfer::kMessages) {
    // One message per receive, cut to the buffer (the rest is lost, as with SOCK_SEQPACKET).
    if (s.message_count == 0 || s.inbox->messages[s.message_head].deliver_at > now) {
      return 0;
    }
    const Message message = s.inbox->messages[s.message_head];
    if (message.end) {
      return -1;
    }
    const std::size_t size = std::min<std::size_t>(message.size, buffer.size());
    copy_out(s, buffer.data(), size);
    copy_out(s, nullptr, message.size - size);
    pop_message(s);
    return static_cast<std::int64_t>(size);
  }
  // A stream: whatever has been delivered, across sends, as far as the buffer goes.
  std::size_t copied = 0;
  while (copied < buffer.size() && s.message_count > 0 &&
         s.inbox->messages[s.message_head].deliver_at <= now) {
    const Message& message = s.inbox->messages[s.message_head];
    if (message.end) {
      if (copied == 0) {
        return -1;
      }
      break;
    }
    const std::size_t take = std::min(message.size - s.read_offset, buffer.size() - copied);
    copy_out(s, buffer.data() + copied, take);
    copied += take;
    s.read_offset += take;
    if (s.read_offset == message.size) {
      pop_message(s);
    }
  }
  return static_cast<std::int64_t>(copied);
}

void Socket::shutdown() noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (handle_ < 0 || at(handle_).role != Role::kConnection) {
    return;
  }
  SimSocket& s = at(handle_);
  s.shut = true;
  std::int64_t end_at = 0;
  const int peer = send_end(s, end_at);
  const int self = handle_;
  if (peer >= 0) {
    notify(lock, peer, end_at);
  }
  notify(lock, self, sim::virtual_now_ns());  // a thread of this process reading it sees it
}

std::int64_t Socket::receive_within(std::span<std::byte> buffer, TimePoint deadline) noexcept {
  // Virtual time charges no system calls: wait, then read.
  if (!wait_readable(deadline)) {
    return 0;
  }
  return receive(buffer);
}

bool Socket::wait_readable(TimePoint deadline) noexcept {
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  const std::int64_t until = nanoseconds_of(deadline);
  for (;;) {
    const std::int64_t now = sim::virtual_now_ns();
    const std::int64_t ready = handle_ < 0 ? kNever : readable_at(at(handle_));
    if (ready <= now) {
      return true;
    }
    if (until <= now) {
      return false;
    }
    const std::int64_t wake = std::min(ready, until);
    self->wake_at = wake == kNever ? -1 : wake;
    const int handle = handle_;
    if (handle >= 0) {
      at(handle).waiter = self;
    }
    sim::block(lock, self);
    if (handle >= 0 && at(handle).waiter == self) {
      at(handle).waiter = nullptr;
    }
  }
}

// ---------------------------------------------------------------- poller

Poller::~Poller() {
  if (handle_ < 0) {
    return;
  }
  auto lock = sim::enter();
  SimPoller& p = pollers[static_cast<std::size_t>(handle_)];
  while (p.count > 0) {
    unwatch(handle_, p.watches[0].socket);
  }
  p = SimPoller{};
}

namespace {
/// A free poller slot, taken; -1 if none.
int take_poller() {
  for (int p = 0; p < kMaxPollers; ++p) {
    if (!pollers[static_cast<std::size_t>(p)].used) {
      pollers[static_cast<std::size_t>(p)].used = true;
      return p;
    }
  }
  return -1;
}
}  // namespace

Status Poller::open() noexcept {
  auto lock = sim::enter();
  if (handle_ < 0) {
    handle_ = take_poller();
    if (handle_ < 0) {
      return Status::kResourceExhausted;
    }
  }
  return Status::kOk;
}

Status Poller::add(const Socket& socket, std::uint64_t tag) noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (handle_ < 0) {
    handle_ = take_poller();
    if (handle_ < 0) {
      return Status::kResourceExhausted;
    }
  }
  const int handle = socket.native_handle();
  if (handle < 0) {
    return Status::kPlatformError;
  }
  SimPoller& p = pollers[static_cast<std::size_t>(handle_)];
  SimSocket& s = at(handle);
  if (std::find(s.pollers.begin(), s.pollers.end(), handle_) != s.pollers.end()) {
    return Status::kPlatformError;  // EEXIST
  }
  const auto slot = std::find(s.pollers.begin(), s.pollers.end(), -1);
  if (slot == s.pollers.end() || p.count == kPollerCapacity) {
    return Status::kCapacityExceeded;
  }
  *slot = handle_;
  p.watches[p.count++] = Watch{handle, tag};
  // A socket readable already wakes a wait in progress, as epoll_ctl does.
  notify(lock, handle, readable_at(s));
  return Status::kOk;
}

void Poller::remove(const Socket& socket) noexcept {
  if (handle_ < 0 || !socket.is_open()) {
    return;
  }
  auto lock = sim::enter();
  unwatch(handle_, socket.native_handle());
}

std::size_t Poller::wait(TimePoint deadline, std::span<std::uint64_t> ready) noexcept {
  if (ready.empty()) {
    sleep_until(deadline);  // nowhere to say what is ready: wait as long as asked, never spin
    return 0;
  }
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  if (handle_ < 0) {
    // Nothing watched yet, but a socket added while this waits must end the wait (as an ORB
    // reader's first connection does), so the poller exists from now on.
    handle_ = take_poller();
    if (handle_ < 0) {
      lock.unlock();
      sleep_until(deadline);
      return 0;
    }
  }
  SimPoller& p = pollers[static_cast<std::size_t>(handle_)];
  const std::int64_t until = nanoseconds_of(deadline);
  for (;;) {
    const std::int64_t now = sim::virtual_now_ns();
    std::size_t count = 0;
    std::int64_t next = kNever;
    for (std::size_t i = 0; i < p.count; ++i) {
      const std::int64_t when = readable_at(at(p.watches[i].socket));
      if (when <= now) {
        if (count < ready.size()) {
          ready[count++] = p.watches[i].tag;
        }
      } else {
        next = std::min(next, when);
      }
    }
    if (count > 0) {
      return count;
    }
    if (until <= now) {
      return 0;
    }
    const std::int64_t wake = std::min(next, until);
    self->wake_at = wake == kNever ? -1 : wake;
    p.waiter = self;
    sim::block(lock, self);
    if (p.waiter == self) {
      p.waiter = nullptr;
    }
  }
}

}  // namespace kairos::kal
