// The client side: a call on its calling lane's connection to a peer's band, sent whole and
// answered by request id, within a deadline.
#include <algorithm>
#include <ctime>
#include <new>

#include "orb_internal.hpp"

namespace kairos::orb {

using namespace internal;

std::span<const std::byte> Call::reply_body() const noexcept {
  if (pending_ == nullptr) {
    return {};
  }
  return {pending_->body.get(), pending_->reply.body_size};
}

bool Call::reply_little_endian() const noexcept {
  return pending_ != nullptr && pending_->reply.little_endian;
}

std::uint8_t Call::exception() const noexcept {
  return pending_ == nullptr ? 0 : pending_->reply.exception;
}

kal::TimePoint Call::replied_at() const noexcept {
  return pending_ == nullptr ? kal::TimePoint{} : pending_->replied_at;
}

ClientConnection* Orb::route_for(const Target& target) noexcept {
  const LaneIdentity lane = current_lane();
  for (std::size_t i = 0; i < route_count_; ++i) {
    if (routes_[i]->joins(target.peer, target.band, lane.core, lane.band, lane.slot)) {
      return routes_[i].get();
    }
  }
  return nullptr;
}

bool Orb::connect(ClientConnection& connection) noexcept {
  const kal::Endpoint& endpoint = peers_[connection.peer].endpoint;
  const kal::TimePoint deadline = kal::MonotonicClock::now() + options_.connect_timeout;
  connection.connected = false;
  connection.received = 0;
  auto fail = [&] {
    connection.socket.close();
    connection.retry_at = kal::MonotonicClock::now() + options_.reconnect_interval;
    connect_failures_.add();
    return false;
  };
  if (connection.datagram) {
    // Nothing to set up with the peer: the socket is aimed at its band's port, and whoever
    // listens there takes the datagrams (no hello: there is no connection to name a band for).
    kal::Endpoint band_port;
    if (!band_endpoint(endpoint, connection.band, band_port) ||
        connection.socket.connect(band_port, deadline, kal::Transfer::kMessages) !=
            kal::Status::kOk) {
      return fail();
    }
    connection.connected = true;
    connects_.add();
    return true;
  }
  if (connection.socket.connect(endpoint, deadline, transfer_for(endpoint)) != kal::Status::kOk) {
    return fail();
  }
  if (const char* identity = peers_[connection.peer].identity.data(); identity[0] != '\0') {
    // TLS first: the peer proves it is the node the model puts at this endpoint, this node that it
    // is the caller its hello names.
    const kal::Status secured =
        connection.socket.secure_as_client(*options_.identity, identity, deadline);
    if (secured == kal::Status::kPermissionDenied) {
      char detail[160];
      std::snprintf(detail, sizeof detail,
                    "%s: its certificate does not prove node '%s' of the system's CA (%s)",
                    peers_[connection.peer].name.data(), identity,
                    connection.socket.peer_identity()[0] == '\0'
                        ? "no node named"
                        : connection.socket.peer_identity());
      report("connection refused", detail);
    }
    if (secured != kal::Status::kOk) {
      return fail();
    }
  }
  // Hello: who calls, and the band every request of this connection travels on.
  FrameHeader hello{};
  hello.kind = FrameKind::kHello;
  hello.band = connection.band;
  const std::size_t name_size = std::min(std::strlen(options_.node), kMaxNodeName);
  hello.body_size = static_cast<std::uint32_t>(name_size);
  std::byte* frame = connection.send_buffer.get();
  encode_header(hello, std::span<std::byte, kHeaderSize>(frame, kHeaderSize));
  std::memcpy(frame + kHeaderSize, options_.node, name_size);
  if (send_frame(connection.socket, {frame, kHeaderSize + name_size}) != Sent::kWhole) {
    return fail();
  }
  // The server answers once the connection is its band reader's: only then may requests flow.
  std::byte* buffer = connection.receive_buffer.get();
  while (connection.received < kHeaderSize) {
    if (!connection.socket.wait_readable(deadline)) {
      return fail();
    }
    const std::int64_t got = connection.socket.receive(
        {buffer + connection.received, kHeaderSize - connection.received});
    if (got < 0) {
      return fail();
    }
    connection.received += static_cast<std::size_t>(got);
  }
  FrameHeader answer{};
  if (decode_header({buffer, kHeaderSize}, 0, answer) != HeaderError::kNone ||
      answer.kind != FrameKind::kHello || answer.status != ReplyStatus::kOk) {
    return fail();
  }
  connection.received = 0;
  connection.connected = true;
  connects_.add();
  if (peers_[connection.peer].lost.exchange(false, std::memory_order_relaxed)) {
    say_peer(connection.peer, "back: connected again");
  }
  return true;
}

void Orb::say_peer(std::uint8_t peer, const char* what) const noexcept {
  // The wall-clock time, as an operator compares it with other hosts' logs.
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  tm utc{};
  ::gmtime_r(&now.tv_sec, &utc);
  char detail[200];
  std::snprintf(detail, sizeof detail, "peer: %s at %02d:%02d:%02d.%03ld UTC: %s",
                peers_[peer].name.data(), utc.tm_hour, utc.tm_min, utc.tm_sec,
                now.tv_nsec / 1'000'000L, what);
  // Information, not a warning: at the end of a run its peers end too.
  kal::report(kal::Severity::kInfo, "orb", detail);
}

void Orb::disconnect(ClientConnection& connection) noexcept {
  if (connection.connected) {
    connection.retry_at = kal::MonotonicClock::now() + options_.reconnect_interval;
    // This node closing its own connections (stop) loses no peer.
    if (!stopping_.load(std::memory_order_acquire) &&
        !peers_[connection.peer].lost.exchange(true, std::memory_order_relaxed)) {
      say_peer(connection.peer, "lost: its calls fail (disconnected) until it is back");
    }
  }
  connection.socket.close();
  connection.connected = false;
  connection.received = 0;
  for (CallSlot& pending : connection.pending) {
    if (pending.in_use && !pending.answered) {
      pending.answered = true;
      pending.outcome = CallStatus::kDisconnected;
    }
  }
}

Call Orb::begin(const Target& target) noexcept {
  Call call;
  call.target_ = target;
  ClientConnection* connection = started_ ? route_for(target) : nullptr;
  if (connection == nullptr) {
    call.status_ = CallStatus::kNoRoute;
    failed_.add();
    return call;
  }
  call.connection_ = connection;
  if (!connection->connected &&
      (kal::MonotonicClock::now() < connection->retry_at || !connect(*connection))) {
    call.status_ = CallStatus::kDisconnected;
    failed_.add();
    return call;
  }
  call.request_body_ = {connection->send_buffer.get() + kHeaderSize, kMaxBody};
  call.status_ = CallStatus::kPending;
  return call;
}

CallStatus Orb::transmit(Call& call, std::size_t body_size, kal::TimePoint deadline,
                         bool oneway) noexcept {
  if (call.status_ != CallStatus::kPending || call.pending_ != nullptr) {
    return call.status_;  // begin() could not set it up, or it was sent already
  }
  ClientConnection& connection = *call.connection_;
  auto end = [&](CallStatus status) {
    call.status_ = status;
    if (status == CallStatus::kDeadlineExpired) {
      deadline_expired_.add();
    } else if (status != CallStatus::kOk) {
      failed_.add();
    }
    return status;
  };
  if (!oneway && connection.datagram) {
    return end(CallStatus::kNoRoute);  // UDP carries oneways only: no reply could come back
  }
  if (body_size > kMaxBody) {
    return end(CallStatus::kTooLarge);
  }
  const kal::TimePoint now = kal::MonotonicClock::now();
  if (now >= deadline) {
    return end(CallStatus::kDeadlineExpired);
  }
  if (!connection.connected) {
    return end(CallStatus::kDisconnected);
  }
  CallSlot* pending = nullptr;
  if (!oneway) {
    pending = connection.free_slot();
    if (pending == nullptr) {
      // Collect what has come in meanwhile: it may free a slot. (Only then: a read that finds
      // nothing is a system call on every call's path. Late replies wait for the next read.)
      if (!take_replies(connection)) {
        return end(CallStatus::kDisconnected);
      }
      pending = connection.free_slot();
    }
    if (pending == nullptr) {
      return end(CallStatus::kBusy);
    }
  }
  FrameHeader header{};
  header.kind = oneway ? FrameKind::kOneway : FrameKind::kRequest;
  header.band = call.target_.band;
  header.object = call.target_.object;
  header.operation = call.target_.operation;
  header.request_id = connection.next_request_id++;
  header.body_size = static_cast<std::uint32_t>(body_size);
  header.budget_ns = (deadline - now).count();
  encode_header(header,
                std::span<std::byte, kHeaderSize>(connection.send_buffer.get(), kHeaderSize));
  switch (send_frame(connection.socket, {connection.send_buffer.get(), kHeaderSize + body_size})) {
    case Sent::kWhole:
      break;
    case Sent::kNothing:
      return end(CallStatus::kOverloaded);  // the peer is behind: refused, the connection kept
    case Sent::kBroken:
      disconnect(connection);
      return end(CallStatus::kDisconnected);
  }
  calls_.add();
  if (oneway) {
    return end(CallStatus::kOk);
  }
  pending->await(header.request_id, deadline);
  call.pending_ = pending;
  return CallStatus::kPending;
}

bool Orb::take_replies(ClientConnection& connection, kal::TimePoint wait_until) noexcept {
  if (!connection.connected) {
    return false;
  }
  std::byte* buffer = connection.receive_buffer.get();
  const std::span<std::byte> free{buffer + connection.received,
                                  kReceiveCapacity - connection.received};
  const std::int64_t got = wait_until == kal::TimePoint::min()
                               ? connection.socket.receive(free)
                               : connection.socket.receive_within(free, wait_until);
  if (got < 0) {
    disconnect(connection);
    return false;
  }
  connection.received += static_cast<std::size_t>(got);
  std::size_t taken = 0;  // as the server's reader does: one move of what is left, at the end
  while (connection.received - taken >= kHeaderSize) {
    FrameHeader header{};
    const HeaderError error =
        decode_header({buffer + taken, connection.received - taken}, kMaxBody, header);
    if (error != HeaderError::kNone || header.kind != FrameKind::kReply) {
      malformed_frames_.add();
      report("reply from a peer dropped, connection closed",
             error != HeaderError::kNone ? to_string(error) : "not a reply");
      disconnect(connection);
      return false;
    }
    const std::size_t frame_size = kHeaderSize + header.body_size;
    if (connection.received - taken < frame_size) {
      break;  // the rest of the frame is still on its way
    }
    CallSlot* waiting = nullptr;
    for (CallSlot& pending : connection.pending) {
      if (pending.in_use && !pending.answered && pending.request_id == header.request_id) {
        waiting = &pending;
      }
    }
    if (waiting == nullptr) {
      late_replies_.add();  // its call gave up at its deadline
    } else {
      std::memcpy(waiting->body.get(), buffer + taken + kHeaderSize, header.body_size);
      waiting->reply = header;
      waiting->replied_at = kal::MonotonicClock::now();
      waiting->answered = true;
      waiting->outcome = status_of(header.status);
    }
    taken += frame_size;
  }
  consume(buffer, connection.received, taken);
  return true;
}

void Orb::finish(Call& call) noexcept {
  CallSlot& pending = *call.pending_;
  pending.in_use = false;  // its body stays readable until the slot is used again
  call.status_ = pending.outcome;
  if (call.status_ == CallStatus::kOk || call.status_ == CallStatus::kUserException) {
    replies_.add();
  } else if (call.status_ == CallStatus::kDeadlineExpired) {
    deadline_expired_.add();
  } else {
    failed_.add();
  }
}

CallStatus Orb::send(Call& call, std::size_t body_size, kal::TimePoint deadline,
                     bool oneway) noexcept {
  return transmit(call, body_size, deadline, oneway);
}

CallStatus Orb::poll(Call& call) noexcept {
  if (call.pending_ == nullptr || call.status_ != CallStatus::kPending) {
    return call.status_;
  }
  CallSlot& pending = *call.pending_;
  if (!pending.answered) {
    take_replies(*call.connection_);
  }
  if (!pending.answered && kal::MonotonicClock::now() >= pending.deadline) {
    pending.answered = true;
    pending.outcome = CallStatus::kDeadlineExpired;
  }
  if (pending.answered) {
    finish(call);
  }
  return call.status_;
}

void Orb::abandon(Call& call) noexcept {
  if (call.pending_ != nullptr && call.status_ == CallStatus::kPending) {
    call.pending_->in_use = false;
    call.status_ = CallStatus::kDeadlineExpired;
    deadline_expired_.add();
  }
}

CallStatus Orb::invoke(Call& call, std::size_t body_size, kal::TimePoint deadline) noexcept {
  if (transmit(call, body_size, deadline, false) != CallStatus::kPending) {
    return call.status_;
  }
  ClientConnection& connection = *call.connection_;
  CallSlot& pending = *call.pending_;
  // Wait on read: this lane owns the connection, so it reads its reply itself.
  while (!pending.answered) {
    if (!take_replies(connection, pending.deadline)) {
      if (!pending.answered) {  // disconnect() answers the calls it finds pending
        pending.answered = true;
        pending.outcome = CallStatus::kDisconnected;
      }
      break;
    }
    if (!pending.answered && kal::MonotonicClock::now() >= pending.deadline) {
      pending.answered = true;
      pending.outcome = CallStatus::kDeadlineExpired;
    }
  }
  if (pending.replied_at >= pending.deadline &&
      (pending.outcome == CallStatus::kOk || pending.outcome == CallStatus::kUserException)) {
    // The caller waited on the connection and took the reply after the deadline (its lane did
    // not run in time): to the caller the reply is late, so the call ends as one that got none.
    late_replies_.add();
    pending.outcome = CallStatus::kDeadlineExpired;
  }
  finish(call);
  return call.status_;
}

}  // namespace kairos::orb
