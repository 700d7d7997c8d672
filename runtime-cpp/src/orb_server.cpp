// The server side: each band's reader takes whole requests from its connections and hands them to
// the object's dispatch; a request is answered once, on the connection it came on.
#include <algorithm>
#include <new>

#include "orb_internal.hpp"

namespace kairos::orb {

using namespace internal;

void ServerRequest::complete(ReplyStatus status, std::size_t reply_size,
                             std::uint8_t exception) noexcept {
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
    const std::size_t count = reader.poller.wait(kal::MonotonicClock::now() + kIdleWake, ready);
    for (std::size_t i = 0; i < count; ++i) {
      if (ready[i] == kDatagramTag) {
        take_datagrams(reader);
        continue;
      }
      ServerConnection& connection = connections_[ready[i]];
      if (connection.state.load(std::memory_order_acquire) != ServerConnection::kServing) {
        continue;
      }
      if (!take_requests(connection)) {
        close_connection(connection);
      }
    }
    close_unfinished_frames(reader);
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
  const std::int64_t got = connection.socket.receive(
      {buffer + connection.received, kReceiveCapacity - connection.received});
  if (got < 0) {
    return false;  // the client went away (or a reply could not be sent): close
  }
  connection.received += static_cast<std::size_t>(got);
  // Frames are taken from `taken` on, and what is left moved to the front once: a read of many
  // small frames costs one move, not one per frame.
  std::size_t taken = 0;
  while (connection.received - taken >= kHeaderSize) {
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
  }
  consume(buffer, connection.received, taken);
  if (connection.received == 0) {
    connection.partial_since = kal::TimePoint::min();
  } else if (taken > 0 || connection.partial_since == kal::TimePoint::min()) {
    connection.partial_since = kal::MonotonicClock::now();  // the start of the frame now first
  }
  return true;
}

void Orb::send_error(ServerConnection& connection, const FrameHeader& request,
                     ReplyStatus status) noexcept {
  refused_.add();
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

void Orb::handle_request(ServerConnection& connection, const FrameHeader& header,
                         std::span<const std::byte> body) noexcept {
  requests_received_.add();
  const kal::TimePoint arrival = kal::MonotonicClock::now();
  if (header.object >= kMaxObjects || objects_[header.object].dispatch == nullptr) {
    send_error(connection, header, ReplyStatus::kNoSuchTarget);
    return;
  }
  // The model is the access list: a node may invoke what its gates name, nothing else.
  if (!permitted(connection.anonymous ? nullptr : connection.peer, header.object,
                 header.operation)) {
    not_permitted_.add();
    char detail[128];
    std::snprintf(detail, sizeof detail, "node '%s' may not invoke operation %u of object %u",
                  connection.peer, static_cast<unsigned>(header.operation),
                  static_cast<unsigned>(header.object));
    report("request refused", detail);
    send_error(connection, header, ReplyStatus::kNotPermitted);
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
    refused_.add();
    slot->complete(admitted, 0);
  }
}

}  // namespace kairos::orb
