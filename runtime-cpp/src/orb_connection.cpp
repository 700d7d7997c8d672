// Server connections: accepted, greeted (a hello names the peer and the band), served, closed; a
// connection's socket stays open until its last request is answered.
#include <algorithm>
#include <new>

#include "orb_internal.hpp"

namespace kairos::orb {

using namespace internal;

void Orb::release(ServerConnection& connection) noexcept {
  if (connection.in_flight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finish_closing(connection);
  }
}

void Orb::close_connection(ServerConnection& connection) noexcept {
  readers_[connection.reader]->poller.remove(connection.socket);
  uncount(connection);
  connections_closed_.add();
  connection.state.store(ServerConnection::kClosing, std::memory_order_release);
  if (connection.in_flight.load(std::memory_order_acquire) == 0) {
    finish_closing(connection);
  }
}

void Orb::finish_closing(ServerConnection& connection) noexcept {
  // The reader (closing) and the lane answering the last request in flight may both get here:
  // whoever moves the connection from closing to closed closes its socket and frees the slot.
  std::uint8_t closing = ServerConnection::kClosing;
  if (connection.state.compare_exchange_strong(closing, ServerConnection::kClosed)) {
    connection.socket.close();
    connection.state.store(ServerConnection::kFree, std::memory_order_release);
  }
}

void Orb::acceptor_main(void* self) noexcept {
  static_cast<Orb*>(self)->accept_connections();
}

void Orb::accept_connections() noexcept {
  kal::Poller poller;
  if (poller.add(listener_, kListenerTag) != kal::Status::kOk) {
    kal::report(kal::Severity::kError, "orb", "cannot watch the listening socket");
    return;
  }
  std::array<std::uint64_t, 16> ready{};
  while (!stopping_.load(std::memory_order_acquire)) {
    const kal::TimePoint now = kal::MonotonicClock::now();
    const std::size_t count = poller.wait(now + kIdleWake, ready);
    for (std::size_t i = 0; i < count; ++i) {
      if (ready[i] != kListenerTag) {
        ServerConnection& connection = connections_[ready[i]];
        if (connection.state.load() == ServerConnection::kGreeting) {
          greet(connection, poller);
        }
        continue;
      }
      for (;;) {  // take every pending connection in
        make_greeting_room(poller);
        std::size_t free = kMaxConnections;
        for (std::size_t c = 0; c < kMaxConnections; ++c) {
          if (connections_[c].state.load(std::memory_order_acquire) == ServerConnection::kFree) {
            free = c;
            break;
          }
        }
        kal::Socket refused;
        kal::Socket& into = free < kMaxConnections ? connections_[free].socket : refused;
        const kal::Status accepted = listener_.accept(into);
        if (accepted == kal::Status::kPermissionDenied) {
          connections_of_other_users_.add();
          report("connection refused",
                 options_.local_peers.group < 0
                     ? "its process runs as another user than this node"
                     : "its process runs as another user than this node, outside its socket group");
          continue;
        }
        if (accepted != kal::Status::kOk) {
          break;
        }
        if (free == kMaxConnections) {
          report("connection refused", "every connection slot is in use");
          continue;  // `refused` closes it
        }
        ServerConnection& connection = connections_[free];
        connection.state.store(ServerConnection::kGreeting);
        connection.accepted_at = kal::MonotonicClock::now();
        connection.received = 0;
        connection.taken = 0;
        connection.backlog = false;
        connection.partial_since = kal::TimePoint::min();
        connection.peer[0] = '\0';
        connection.caller = kNoCaller;
        connection.over_budget_in_a_row = 0;
        connection.paused_until = kal::TimePoint::min();
        connections_accepted_.add();
        if (poller.add(connection.socket, free) != kal::Status::kOk) {
          connection.socket.close();
          connection.state.store(ServerConnection::kFree);
        }
      }
    }
    // A connection that never says hello must not hold its slot for ever.
    for (std::size_t c = 0; c < kMaxConnections; ++c) {
      ServerConnection& connection = connections_[c];
      if (connection.state.load() == ServerConnection::kGreeting &&
          kal::MonotonicClock::now() - connection.accepted_at > kHelloTimeout) {
        report("connection closed", "no hello in time");
        drop_greeting(connection, poller);
      }
    }
  }
}

void Orb::make_greeting_room(kal::Poller& acceptor) noexcept {
  std::size_t greeting = 0;
  ServerConnection* longest = nullptr;
  for (std::size_t c = 0; c < kMaxConnections; ++c) {
    ServerConnection& connection = connections_[c];
    if (connection.state.load(std::memory_order_acquire) == ServerConnection::kGreeting) {
      ++greeting;
      if (longest == nullptr || connection.accepted_at < longest->accepted_at) {
        longest = &connection;
      }
    }
  }
  if (greeting >= kGreetingSlots && longest != nullptr) {
    connections_evicted_.add();
    report("connection closed", "no hello yet, and a newer connection wants its slot");
    drop_greeting(*longest, acceptor);
  }
}

bool Orb::make_room_for(std::uint8_t index) noexcept {
  const std::int64_t now = kal::MonotonicClock::now().time_since_epoch().count();
  ServerConnection* idlest = nullptr;
  std::int64_t idlest_since = now - kIdleBeforeEviction.count();
  for (std::size_t c = 0; c < kMaxConnections; ++c) {
    ServerConnection& connection = connections_[c];
    const std::int64_t since = connection.last_request_ns.load(std::memory_order_relaxed);
    if (connection.caller == index && connection.counted.load(std::memory_order_acquire) &&
        since <= idlest_since) {
      idlest = &connection;
      idlest_since = since;
    }
  }
  // Closed by its reader: the acceptor only shuts it down, and gives its slot's count back at
  // once so that the new connection may take it.
  if (idlest == nullptr || !uncount(*idlest)) {
    return false;
  }
  idlest->socket.shutdown();
  return true;
}

bool Orb::uncount(ServerConnection& connection) noexcept {
  if (!connection.counted.exchange(false, std::memory_order_acq_rel)) {
    return false;
  }
  callers_[connection.caller].connections.fetch_sub(1, std::memory_order_acq_rel);
  return true;
}

void Orb::drop_greeting(ServerConnection& connection, kal::Poller& acceptor) noexcept {
  // Not yet any reader's: the acceptor alone holds it, so it closes and frees it at once.
  acceptor.remove(connection.socket);
  connection.socket.close();
  connections_closed_.add();
  connection.state.store(ServerConnection::kFree, std::memory_order_release);
}

void Orb::greet(ServerConnection& connection, kal::Poller& acceptor) noexcept {
  auto refuse = [&](const char* why) {
    if (why != nullptr) {
      malformed_frames_.add();
      report("connection closed", why);
    }
    drop_greeting(connection, acceptor);
  };
  if (authenticate_ && !connection.socket.secured()) {
    // The handshake, a flight at a time as the client's come: here, at the acceptor's priority,
    // not on any band's reader (a handshake costs a millisecond of signing and verifying).
    const kal::Status secured = connection.socket.secure_as_server(*options_.identity);
    if (secured == kal::Status::kUnavailable) {
      return;
    }
    if (secured != kal::Status::kOk) {
      unauthenticated_.add();
      report("connection refused",
             secured == kal::Status::kPermissionDenied
                 ? "its TLS handshake proved no node of the system's CA"
                 : "no TLS 1.3 handshake completed (tcp: connections here are authenticated)");
      drop_greeting(connection, acceptor);
      return;
    }
  }
  std::byte* buffer = connection.receive_buffer.get();
  const std::int64_t got = connection.socket.receive(
      {buffer + connection.received, kReceiveCapacity - connection.received});
  if (got < 0) {
    refuse(nullptr);  // gone before it said hello
    return;
  }
  connection.received += static_cast<std::size_t>(got);
  if (connection.received < kHeaderSize) {
    return;
  }
  FrameHeader hello{};
  const HeaderError error = decode_header({buffer, connection.received}, kMaxNodeName, hello);
  std::size_t reader = reader_count_;
  for (std::size_t i = 0; i < reader_count_; ++i) {
    if (readers_[i]->band == hello.band) {
      reader = i;
    }
  }
  if (error != HeaderError::kNone || hello.kind != FrameKind::kHello || reader == reader_count_) {
    refuse(error != HeaderError::kNone       ? to_string(error)
           : hello.kind != FrameKind::kHello ? "first frame is not a hello"
                                             : "hello names a band no object of this node serves");
    return;
  }
  if (connection.received < kHeaderSize + hello.body_size) {
    return;
  }
  if (connection.received > kHeaderSize + hello.body_size) {
    refuse("data before the hello was answered");  // the client waits for the answer first
    return;
  }
  std::memcpy(connection.peer, buffer + kHeaderSize, hello.body_size);
  connection.peer[hello.body_size] = '\0';
  if (authenticate_ && std::strcmp(connection.peer, connection.socket.peer_identity()) != 0) {
    unauthenticated_.add();
    char detail[128];
    std::snprintf(detail, sizeof detail, "its hello names node '%s', its certificate node '%s'",
                  connection.peer, connection.socket.peer_identity());
    report("connection refused", detail);
    drop_greeting(connection, acceptor);
    return;
  }
  // A node the model's access list does not know may invoke nothing here: it gets no
  // connection, and holds no slot of the model's own nodes.
  if (!known_caller(connection.peer)) {
    unknown_callers_.add();
    char detail[96];
    std::snprintf(detail, sizeof detail, "node '%s' calls nothing here in the model",
                  connection.peer);
    report("connection refused", detail);
    drop_greeting(connection, acceptor);
    return;
  }
  // Each node of the model has connection slots of its own: whoever holds all of one node's
  // (under its name) takes none of another's.
  const std::uint8_t node = callers_limited_ ? caller_index(connection.peer) : kNoCaller;
  if (node != kNoCaller) {
    Caller& caller = callers_[node];
    bool room = caller.connections.load(std::memory_order_acquire) < caller.connection_slots;
    if (!room && make_room_for(node)) {
      caller.connections_evicted.add();
      connections_evicted_.add();
      char detail[112];
      std::snprintf(detail, sizeof detail,
                    "of node '%s', idle for 2 s: a new connection of it wants its slot",
                    connection.peer);
      report("connection closed", detail);
      room = true;
    }
    if (!room) {
      caller.connections_refused.add();
      connections_refused_.add();
      char detail[112];
      std::snprintf(detail, sizeof detail, "node '%s' holds every connection slot it is given",
                    connection.peer);
      report("connection refused", detail);
      drop_greeting(connection, acceptor);
      return;
    }
    caller.connections.fetch_add(1, std::memory_order_acq_rel);
  }
  connection.caller = node;
  connection.counted.store(node != kNoCaller, std::memory_order_release);
  connection.last_request_ns.store(kal::MonotonicClock::now().time_since_epoch().count(),
                                   std::memory_order_relaxed);
  connection.received = 0;
  connection.band = hello.band;
  connection.reader = reader;
  connection.in_flight.store(0);
  // Poller::add is the hand-over: from here on the band's reader owns the receive side.
  acceptor.remove(connection.socket);
  connection.state.store(ServerConnection::kServing, std::memory_order_release);
  Reader& band_reader = *readers_[reader];
  const std::size_t index = static_cast<std::size_t>(&connection - connections_.get());
  FrameHeader answer{};
  answer.kind = FrameKind::kHello;
  answer.band = hello.band;
  std::array<std::byte, kHeaderSize> frame{};
  encode_header(answer, frame);
  if (band_reader.poller.add(connection.socket, index) != kal::Status::kOk) {
    connection.state.store(ServerConnection::kGreeting);
    uncount(connection);
    refuse("cannot watch it");
    return;
  }
  if (send_frame(connection.socket, frame) != Sent::kWhole) {
    connection.socket.shutdown();  // its reader sees it closed, and closes it
  }
}

}  // namespace kairos::orb
