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

#include "network_internal.hpp"

#include <cstdio>

#include <kairos/kal/tls.hpp>

namespace kairos::kal {

using namespace sim_net;

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

void remove_endpoint_file(const Endpoint& /*endpoint*/) noexcept {
  // A simulated endpoint is no file: its path may be that of a real node beside the simulation.
}

Status Socket::listen(const Endpoint& endpoint, Transfer transfer, LocalPeers /*peers*/) noexcept {
  // A simulated endpoint has no file to guard, and every process of a simulation is one user's.
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

// ---------------------------------------------------------------- TLS

// A simulated network carries nobody to keep out: its connections are never secured, and an
// identity does not load (a model's sim nodes need none).
TlsIdentity::~TlsIdentity() = default;

Status TlsIdentity::load(const char* /*directory*/, const char* node) noexcept {
  std::snprintf(error_, sizeof error_, "node %s runs on sim, whose connections carry no TLS", node);
  return Status::kUnavailable;
}

Status Socket::secure_as_client(const TlsIdentity& /*identity*/, const char* /*peer*/,
                                TimePoint /*deadline*/) noexcept {
  return Status::kInvalidArgument;
}

Status Socket::secure_as_server(const TlsIdentity& /*identity*/) noexcept {
  return Status::kInvalidArgument;
}

const char* Socket::peer_identity() const noexcept {
  return "";
}

bool Socket::secured() const noexcept {
  return false;
}

bool Socket::holds_input() const noexcept {
  return false;
}

}  // namespace kairos::kal
