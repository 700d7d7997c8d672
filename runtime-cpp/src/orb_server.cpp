// The server side: each band's reader takes whole requests from its connections and hands them to
// the object's dispatch; a request is answered once, on the connection it came on.
#include <algorithm>
#include <new>

#include "orb_internal.hpp"

namespace kairos::orb {

using namespace internal;

void ServerRequest::complete(ReplyStatus status, std::size_t reply_size,
                             std::uint8_t exception) noexcept {
  note_reply_sending();  // the service method's measured execution ends here
  Orb& orb = *orb_;
  ServerConnection& connection = *connection_;
  if (!oneway()) {
    FrameHeader reply{};
    reply.kind = FrameKind::kReply;
    reply.status = status;
    reply.band = header_.band;
    reply.object = header_.object;
    reply.operation = header_.operation;
    reply.request_id = header_.request_id;
    const bool has_body = status == ReplyStatus::kOk || status == ReplyStatus::kUserException;
    const std::size_t size = has_body ? std::min(reply_size, kMaxBody) : 0;
    reply.body_size = static_cast<std::uint32_t>(size);
    reply.exception = status == ReplyStatus::kUserException ? exception : 0;
    encode_header(reply, std::span<std::byte, kHeaderSize>(reply_, kHeaderSize));
    const Orb::Sent sent =
        connection.state.load(std::memory_order_acquire) == ServerConnection::kServing
            ? orb.send_frame(connection.socket, {reply_, kHeaderSize + size})
            : Orb::Sent::kNothing;
    if (sent == Orb::Sent::kWhole) {
      orb.replies_sent_.add();
    } else {
      // Not sent: the caller is not reading (its deadline passes) or the connection is closing.
      orb.replies_dropped_.add();
      if (sent == Orb::Sent::kBroken) {
        connection.socket.shutdown();  // its reader sees it closed, and closes it
      }
    }
  }
  busy_.store(false, std::memory_order_release);
  orb.release(connection);
}

void Orb::reader_main(void* reader) noexcept {
  auto* self = static_cast<Reader*>(reader);
  // Where this reader stands, so that the engine may let it serve a request of its band at once
  // on a lane that runs at the same band on the same CPU (Engine::serve_here).
  set_current_lane(LaneIdentity{0, self->band, false, self->orb->options_.cpu});
  self->orb->serve(*self);
}

void Orb::serve(Reader& reader) noexcept {
  std::array<std::uint64_t, 16> ready{};
  while (!stopping_.load(std::memory_order_acquire)) {
    // A reader with frames left on a connection only looks for others that have some too.
    const kal::TimePoint now = kal::MonotonicClock::now();
    const std::size_t count = reader.poller.wait(
        reader.backlogged ? now : std::min(now + kIdleWake, reader.first_resume), ready);
    if (reader.paused > 0 && kal::MonotonicClock::now() >= reader.first_resume) {
      resume_paused(reader);
    }
    for (std::size_t i = 0; i < count; ++i) {
      if (ready[i] == kDatagramTag) {
        take_datagrams(reader);
        continue;
      }
      take_turn(connections_[ready[i]]);
    }
    if (reader.backlogged) {
      take_backlog(reader);
    }
    close_unfinished_frames(reader);
  }
}

void Orb::take_turn(ServerConnection& connection) noexcept {
  if (connection.state.load(std::memory_order_acquire) == ServerConnection::kServing &&
      !take_requests(connection)) {
    close_connection(connection);
  }
}

void Orb::pause(ServerConnection& connection) noexcept {
  Reader& reader = *readers_[connection.reader];
  connection.paused_until =
      std::min(connection.paused_until, kal::MonotonicClock::now() + kLongestPause);
  reader.poller.remove(connection.socket);
  ++reader.paused;
  reader.first_resume = std::min(reader.first_resume, connection.paused_until);
}

void Orb::resume_paused(Reader& reader) noexcept {
  const kal::TimePoint now = kal::MonotonicClock::now();
  reader.first_resume = kal::TimePoint::max();
  for (std::size_t c = 0; c < kMaxConnections && reader.paused > 0; ++c) {
    ServerConnection& connection = connections_[c];
    if (connection.paused_until == kal::TimePoint::min() ||
        readers_[connection.reader].get() != &reader) {
      continue;
    }
    if (connection.paused_until > now) {
      reader.first_resume = std::min(reader.first_resume, connection.paused_until);
      continue;
    }
    connection.paused_until = kal::TimePoint::min();
    --reader.paused;
    const std::size_t index = static_cast<std::size_t>(&connection - connections_.get());
    if (reader.poller.add(connection.socket, index) != kal::Status::kOk) {
      close_connection(connection);
      continue;
    }
    // Its frames left in the buffer first, at its next turn among the others'.
    connection.backlog = true;
    reader.backlogged = true;
  }
}

void Orb::take_backlog(Reader& reader) noexcept {
  // Round robin: every connection with frames left gets a turn, in slot order, before any gets
  // another; connections the poller names again get theirs there.
  reader.backlogged = false;
  for (std::size_t c = 0; c < kMaxConnections; ++c) {
    ServerConnection& connection = connections_[c];
    if (connection.backlog && readers_[connection.reader].get() == &reader) {
      take_turn(connection);
      reader.backlogged = reader.backlogged || connection.backlog;
    }
  }
}

void Orb::close_unfinished_frames(Reader& reader) noexcept {
  if (!connections_) {
    return;  // udp: has no connections
  }
  const kal::TimePoint now = kal::MonotonicClock::now();
  for (std::size_t c = 0; c < kMaxConnections; ++c) {
    ServerConnection& connection = connections_[c];
    if (readers_[connection.reader].get() != &reader ||
        connection.state.load(std::memory_order_acquire) != ServerConnection::kServing ||
        connection.partial_since == kal::TimePoint::min() ||
        now - connection.partial_since <= kPartialFrameTimeout) {
      continue;
    }
    char detail[96];
    std::snprintf(detail, sizeof detail, "from node '%s': a frame left unfinished for 1 s",
                  connection.peer);
    report("connection closed", detail);
    connection.partial_since = kal::TimePoint::min();
    close_connection(connection);
  }
}

bool Orb::take_requests(ServerConnection& connection) noexcept {
  std::byte* buffer = connection.receive_buffer.get();
  if (!connection.backlog || connection.socket.holds_input()) {
    // Every whole frame read before is taken: what is left of the last read (at most a frame's
    // beginning) moves to the front once, and the socket is read again. (A TLS connection may
    // hold records it read whole and could not hand over for want of room: those first.)
    consume(buffer, connection.received, connection.taken);
    connection.taken = 0;
    const std::int64_t got = connection.socket.receive(
        {buffer + connection.received, kReceiveCapacity - connection.received});
    if (got < 0) {
      return false;  // the client went away (or a reply could not be sent): close
    }
    connection.received += static_cast<std::size_t>(got);
  }
  connection.backlog = false;
  std::size_t& taken = connection.taken;
  std::size_t frames = 0;
  for (; connection.received - taken >= kHeaderSize; ++frames) {
    if (frames == kFramesPerTurn) {
      connection.backlog = true;  // the rest at its next turn, after the other connections'
      readers_[connection.reader]->backlogged = true;
      break;
    }
    FrameHeader header{};
    const HeaderError error =
        decode_header({buffer + taken, connection.received - taken}, kMaxBody, header);
    const bool request = header.kind == FrameKind::kRequest || header.kind == FrameKind::kOneway;
    if (error != HeaderError::kNone || !request || header.band != connection.band) {
      malformed_frames_.add();
      char detail[96];
      std::snprintf(detail, sizeof detail, "from node '%s': %s", connection.peer,
                    error != HeaderError::kNone ? to_string(error)
                    : !request                  ? "not a request"
                                                : "band differs from the connection's");
      report("connection closed", detail);
      return false;
    }
    const std::size_t frame_size = kHeaderSize + header.body_size;
    if (connection.received - taken < frame_size) {
      break;
    }
    handle_request(connection, header, {buffer + taken + kHeaderSize, header.body_size});
    taken += frame_size;
    if (connection.paused_until != kal::TimePoint::min()) {
      // Beyond its caller's budget: the rest waits in the buffer and the socket, unread, until
      // the budget would take a request again.
      connection.backlog = false;  // resume_paused gives it back
      connection.partial_since = kal::TimePoint::min();
      pause(connection);
      return true;
    }
  }
  if (connection.socket.holds_input()) {
    connection.backlog = true;  // the poller does not see what TLS has read already
    readers_[connection.reader]->backlogged = true;
  }
  if (connection.backlog || connection.received == taken) {
    connection.partial_since = kal::TimePoint::min();  // nothing unfinished: frames to take
  } else if (frames > 0 || connection.partial_since == kal::TimePoint::min()) {
    connection.partial_since = kal::MonotonicClock::now();  // the start of the frame now first
  }
  return true;
}

void Orb::count_refused(const ServerConnection& connection) noexcept {
  refused_.add();
  if (connection.caller != kNoCaller) {
    callers_[connection.caller].refused.add();
  }
}

void Orb::send_error(ServerConnection& connection, const FrameHeader& request,
                     ReplyStatus status) noexcept {
  count_refused(connection);
  if (request.kind == FrameKind::kOneway) {
    return;
  }
  FrameHeader reply{};
  reply.kind = FrameKind::kReply;
  reply.status = status;
  reply.band = request.band;
  reply.object = request.object;
  reply.operation = request.operation;
  reply.request_id = request.request_id;
  std::array<std::byte, kHeaderSize> frame{};
  encode_header(reply, frame);
  if (send_frame(connection.socket, frame) == Sent::kWhole) {
    replies_sent_.add();
  } else {
    replies_dropped_.add();
  }
}

bool Orb::admit_caller(ServerConnection& connection, const FrameHeader& request,
                       kal::TimePoint arrival) noexcept {
  if (!callers_limited_) {
    return true;
  }
  // A udp: datagram names no caller (there is no hello): it may invoke what some node may.
  const char* caller = connection.anonymous ? nullptr : connection.peer;
  PermitEntry* permit = find_permit([&](const PermitEntry& entry) {
    return entry.object == request.object && entry.operation == request.operation &&
           (caller == nullptr || std::strcmp(entry.caller.data(), caller) == 0);
  });
  char detail[160];
  // The model is the access list: a node may invoke what its gates name, nothing else.
  if (permit == nullptr) {
    not_permitted_.add();
    if (connection.caller != kNoCaller) {
      callers_[connection.caller].not_permitted.add();
    }
    std::snprintf(detail, sizeof detail, "node '%s' may not invoke operation %u of object %u",
                  connection.peer, static_cast<unsigned>(request.operation),
                  static_cast<unsigned>(request.object));
    report("request refused", detail);
    send_error(connection, request, ReplyStatus::kNotPermitted);
    return false;
  }
  // And at the rate its gates call: one caller's flood takes nothing from the others' share of
  // the method's max-rate.
  if (caller != nullptr && !permit->budget.take(arrival.time_since_epoch().count())) {
    over_budget_.add();
    callers_[permit->caller_index].over_budget.add();
    if (++connection.over_budget_in_a_row >= kRefusalsBeforePause) {
      connection.paused_until = kal::TimePoint{kal::Duration{permit->budget.admits_from()}};
    }
    std::snprintf(detail, sizeof detail,
                  "node '%s' called operation %u of object %u sooner than its gates' rate allows",
                  connection.peer, static_cast<unsigned>(request.operation),
                  static_cast<unsigned>(request.object));
    report("request refused", detail);
    send_error(connection, request, ReplyStatus::kRateExceeded);
    return false;
  }
  connection.over_budget_in_a_row = 0;
  return true;
}

void Orb::handle_request(ServerConnection& connection, const FrameHeader& header,
                         std::span<const std::byte> body) noexcept {
  requests_received_.add();
  const kal::TimePoint arrival = kal::MonotonicClock::now();
  if (connection.caller != kNoCaller) {
    callers_[connection.caller].requests.add();
    connection.last_request_ns.store(arrival.time_since_epoch().count(), std::memory_order_relaxed);
  }
  if (header.object >= kMaxObjects || objects_[header.object].dispatch == nullptr) {
    send_error(connection, header, ReplyStatus::kNoSuchTarget);
    return;
  }
  if (!admit_caller(connection, header, arrival)) {
    return;
  }
  ServerRequest* slot = nullptr;
  for (std::size_t i = 0; i < kMaxRequests; ++i) {
    bool idle = false;
    if (requests_[i].busy_.compare_exchange_strong(idle, true, std::memory_order_acquire)) {
      slot = &requests_[i];
      break;
    }
  }
  if (slot == nullptr) {
    send_error(connection, header, ReplyStatus::kOverloaded);
    return;
  }
  std::memcpy(slot->body_, body.data(), body.size());
  slot->header_ = header;
  slot->arrival_ = arrival;
  slot->connection_ = &connection;
  connection.in_flight.fetch_add(1, std::memory_order_acq_rel);
  const Object& object = objects_[header.object];
  const ReplyStatus admitted = object.dispatch(object.context, *slot);
  if (admitted != ReplyStatus::kOk) {
    count_refused(connection);
    slot->complete(admitted, 0);
  }
}

}  // namespace kairos::orb
