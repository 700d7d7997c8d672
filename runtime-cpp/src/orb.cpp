#include <kairos/orb/orb.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <new>

#include <kairos/engine.hpp>
#include <kairos/kal/execution.hpp>

namespace kairos::orb {

namespace {
constexpr std::size_t kFrameCapacity = kHeaderSize + kMaxBody;
/// Receive buffers hold a whole frame plus the start of the next (streams deliver bytes, not
/// frames).
constexpr std::size_t kReceiveCapacity = 2 * kFrameCapacity;
/// How often idle service threads look at `stopping_`: bounds how long stop() takes.
constexpr kal::Duration kIdleWake = std::chrono::milliseconds{20};
/// A connection that has not said hello by then is closed.
constexpr kal::Duration kHelloTimeout = std::chrono::seconds{2};
constexpr std::uint64_t kListenerTag = ~std::uint64_t{0};
/// A band reader's tag for its UDP socket (its connections are tagged by their index).
constexpr std::uint64_t kDatagramTag = kListenerTag - 1;
/// A datagram is read into a frame's capacity and one byte more, so that one too large for a
/// frame shows as such instead of being cut to a size that might look right.
constexpr std::size_t kDatagramCapacity = kFrameCapacity + 1;
/// Datagrams a reader takes per wake-up before it looks at stop() again.
constexpr std::size_t kDatagramsPerWake = 64;

static_assert(kFrameCapacity <= kal::kLargestSharedMemoryMessage);

kal::Transfer transfer_for(const kal::Endpoint& endpoint) noexcept {
  // Unix domain sockets (SOCK_SEQPACKET), shared-memory rings and datagrams keep message
  // boundaries, so replies that lanes of several cores send on one connection never interleave;
  // TCP frames are sent whole by one send(), or the connection is given up (Orb::send_frame).
  return endpoint.kind == kal::Endpoint::Kind::kTcp ? kal::Transfer::kStream
                                                    : kal::Transfer::kMessages;
}

bool is_datagram(const kal::Endpoint& endpoint) noexcept {
  return endpoint.kind == kal::Endpoint::Kind::kUdp;
}

CallStatus status_of(ReplyStatus status) noexcept {
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
  }
  return CallStatus::kMalformed;
}

/// Drops the first `count` bytes of a receive buffer holding `fill` bytes.
void consume(std::byte* buffer, std::size_t& fill, std::size_t count) noexcept {
  std::memmove(buffer, buffer + count, fill - count);
  fill -= count;
}

void report(const char* what, const char* detail) noexcept {
  char line[160];
  std::snprintf(line, sizeof line, "%s: %s", what, detail);
  kal::report(kal::Severity::kWarning, "orb", line);
}
}  // namespace

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
  char peer[kMaxNodeName + 1] = {};
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
};

bool band_endpoint(const kal::Endpoint& node, std::uint8_t band, kal::Endpoint& out) noexcept {
  // A port per band keeps one reader per band at its priority: a band's datagrams queue on a
  // socket of their own, where no other band's can hold them up.
  const unsigned port = unsigned{node.port} + band;
  if (node.kind != kal::Endpoint::Kind::kUdp || port > 65535) {
    return false;
  }
  out = node;
  out.port = static_cast<std::uint16_t>(port);
  return true;
}

// ---------------------------------------------------------------- Call

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

// ---------------------------------------------------------------- configuration

Orb::Orb(OrbOptions options) noexcept : options_(options) {}

Orb::~Orb() {
  stop();
}

kal::Status Orb::listen(std::string_view endpoint) noexcept {
  if (started_ || listening_) {
    return kal::Status::kInvalidArgument;
  }
  if (!kal::parse_endpoint(endpoint, listen_endpoint_)) {
    return kal::Status::kInvalidArgument;
  }
  listening_ = true;
  return kal::Status::kOk;
}

kal::Status Orb::add_object(std::uint16_t object, Dispatch dispatch, void* context) noexcept {
  if (started_ || object >= kMaxObjects || dispatch == nullptr ||
      objects_[object].dispatch != nullptr) {
    return kal::Status::kInvalidArgument;
  }
  objects_[object] = Object{dispatch, context};
  return kal::Status::kOk;
}

kal::Status Orb::serve_band(kal::PriorityBand band) noexcept {
  if (started_ || band < kal::kLowestBand || band > kal::kHighestBand) {
    return kal::Status::kInvalidArgument;
  }
  for (std::size_t i = 0; i < reader_count_; ++i) {
    if (readers_[i]->band == band) {
      return kal::Status::kOk;
    }
  }
  if (reader_count_ == readers_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  auto reader = std::unique_ptr<Reader>(new (std::nothrow) Reader{});
  if (!reader) {
    return kal::Status::kResourceExhausted;
  }
  reader->orb = this;
  reader->band = band;
  // Its wait set exists before its thread waits on it: the acceptor adds connections to it from
  // another thread, and the first must wake the reader at once.
  if (const kal::Status opened = reader->poller.open(); opened != kal::Status::kOk) {
    return opened;
  }
  std::snprintf(reader->name, sizeof reader->name, "kairos-orb-b%d", band);
  readers_[reader_count_++] = std::move(reader);
  return kal::Status::kOk;
}

kal::Status Orb::add_peer(std::string_view endpoint, std::uint8_t& peer) noexcept {
  if (started_) {
    return kal::Status::kInvalidArgument;
  }
  if (peer_count_ == peers_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  kal::Endpoint parsed;
  if (!kal::parse_endpoint(endpoint, parsed)) {
    return kal::Status::kInvalidArgument;
  }
  peers_[peer_count_].endpoint = parsed;
  peer = static_cast<std::uint8_t>(peer_count_++);
  return kal::Status::kOk;
}

kal::Status Orb::add_route(std::uint8_t peer, std::uint8_t band, std::uint8_t core,
                           kal::PriorityBand caller_band, std::uint8_t caller_slot) noexcept {
  if (started_ || peer >= peer_count_ || caller_band < kal::kLowestBand ||
      caller_band > kal::kHighestBand) {
    return kal::Status::kInvalidArgument;
  }
  const kal::Endpoint& endpoint = peers_[peer].endpoint;
  if (kal::Endpoint band_port; is_datagram(endpoint) && !band_endpoint(endpoint, band, band_port)) {
    return kal::Status::kInvalidArgument;  // that band's port would pass 65535
  }
  for (std::size_t i = 0; i < route_count_; ++i) {
    if (routes_[i]->joins(peer, band, core, caller_band, caller_slot)) {
      return kal::Status::kOk;  // already set up
    }
  }
  if (route_count_ == routes_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  auto route = std::unique_ptr<ClientConnection>(new (std::nothrow) ClientConnection{});
  if (!route) {
    return kal::Status::kResourceExhausted;
  }
  route->peer = peer;
  route->datagram = is_datagram(endpoint);
  route->band = band;
  route->core = core;
  route->caller_band = caller_band;
  route->caller_slot = caller_slot;
  routes_[route_count_++] = std::move(route);
  return kal::Status::kOk;
}

kal::Status Orb::start() noexcept {
  if (started_) {
    return kal::Status::kInvalidArgument;
  }
  if (reader_count_ > 0 && !listening_) {
    return kal::Status::kInvalidArgument;  // bands to serve, but nowhere to hear from callers
  }
  // Every buffer now: after start() a call or a request moves bytes only.
  for (std::size_t i = 0; i < route_count_; ++i) {
    ClientConnection& route = *routes_[i];
    route.send_buffer.reset(new (std::nothrow) std::byte[kFrameCapacity]);
    if (!route.send_buffer) {
      return kal::Status::kResourceExhausted;
    }
    if (route.datagram) {
      continue;  // oneways only: nothing comes back
    }
    route.receive_buffer.reset(new (std::nothrow) std::byte[kReceiveCapacity]);
    if (!route.receive_buffer) {
      return kal::Status::kResourceExhausted;
    }
    for (CallSlot& pending : route.pending) {
      pending.body.reset(new (std::nothrow) std::byte[kMaxBody]);
      if (!pending.body) {
        return kal::Status::kResourceExhausted;
      }
    }
  }
  const bool datagrams = listening_ && is_datagram(listen_endpoint_);
  if (listening_) {
    requests_.reset(new (std::nothrow) ServerRequest[kMaxRequests]);
    request_storage_.reset(new (std::nothrow)
                               std::byte[kMaxRequests * (kMaxBody + kFrameCapacity)]);
    if (!requests_ || !request_storage_) {
      return kal::Status::kResourceExhausted;
    }
    for (std::size_t i = 0; i < kMaxRequests; ++i) {
      std::byte* storage = request_storage_.get() + i * (kMaxBody + kFrameCapacity);
      requests_[i].orb_ = this;
      requests_[i].body_ = storage;
      requests_[i].reply_ = storage + kMaxBody;
    }
  }
  if (datagrams) {
    for (std::size_t i = 0; i < reader_count_; ++i) {
      if (const kal::Status status = bind_datagrams(*readers_[i]); status != kal::Status::kOk) {
        for (std::size_t j = 0; j <= i; ++j) {
          readers_[j]->datagrams.socket.close();
        }
        return status;
      }
    }
  } else if (listening_) {
    connections_.reset(new (std::nothrow) ServerConnection[kMaxConnections]);
    if (!connections_) {
      return kal::Status::kResourceExhausted;
    }
    for (std::size_t i = 0; i < kMaxConnections; ++i) {
      connections_[i].receive_buffer.reset(new (std::nothrow) std::byte[kReceiveCapacity]);
      if (!connections_[i].receive_buffer) {
        return kal::Status::kResourceExhausted;
      }
    }
    if (const kal::Status status =
            listener_.listen(listen_endpoint_, transfer_for(listen_endpoint_));
        status != kal::Status::kOk) {
      return status;
    }
  }
  stopping_.store(false);
  started_ = true;
  if (listening_ && !datagrams) {
    kal::ThreadAttributes acceptor{};
    acceptor.name = "kairos-orb-acc";
    acceptor.band = kal::kLowestBand;  // taking connections in is not on any request's path
    acceptor.real_time = options_.real_time;
    acceptor.cpu = options_.cpu;
    if (const kal::Status status = acceptor_.start(acceptor, &Orb::acceptor_main, this);
        status != kal::Status::kOk) {
      stop();
      return status;
    }
  }
  if (listening_) {
    for (std::size_t i = 0; i < reader_count_; ++i) {
      Reader& reader = *readers_[i];
      kal::ThreadAttributes attributes{};
      attributes.name = reader.name;
      attributes.band = reader.band;
      attributes.real_time = options_.real_time;
      attributes.cpu = options_.cpu;
      if (options_.lanes_by_deadline && !kal::kSimulatedTime) {
        attributes.reservation = kal::kHandoffReservation;
      }
      if (const kal::Status status = reader.thread.start(attributes, &Orb::reader_main, &reader);
          status != kal::Status::kOk) {
        stop();
        return status;
      }
    }
  }
  for (std::size_t i = 0; i < route_count_; ++i) {
    connect(*routes_[i]);  // a peer that is not up yet is tried again on first use
  }
  return kal::Status::kOk;
}

bool Orb::connect_all(kal::TimePoint until) noexcept {
  if (!started_) {
    return false;
  }
  for (;;) {
    bool all = true;
    for (std::size_t i = 0; i < route_count_; ++i) {
      ClientConnection& route = *routes_[i];
      all = (route.connected || connect(route)) && all;
    }
    if (all || kal::MonotonicClock::now() >= until) {
      return all;
    }
    kal::sleep_until(std::min(until, kal::MonotonicClock::now() + options_.reconnect_interval));
  }
}

void Orb::stop() noexcept {
  if (!started_) {
    return;
  }
  stopping_.store(true);
  acceptor_.join();
  for (std::size_t i = 0; i < reader_count_; ++i) {
    readers_[i]->thread.join();
    readers_[i]->datagrams.socket.close();
  }
  listener_.close();
  // A Unix domain socket leaves its file behind. A simulated endpoint is no file: its path may
  // be that of a real node running beside the simulation.
  if (listening_ && listen_endpoint_.kind == kal::Endpoint::Kind::kUnix && !kal::kSimulatedTime) {
    std::remove(listen_endpoint_.address);
  }
  if (connections_) {
    for (std::size_t i = 0; i < kMaxConnections; ++i) {
      connections_[i].socket.close();
      connections_[i].state.store(ServerConnection::kFree);
    }
  }
  for (std::size_t i = 0; i < route_count_; ++i) {
    disconnect(*routes_[i]);
  }
  started_ = false;
}

OrbCounters Orb::counters() const noexcept {
  auto read = [](const Counter& counter) { return counter.value.load(std::memory_order_relaxed); };
  OrbCounters counters;
  counters.calls = read(calls_);
  counters.replies = read(replies_);
  counters.deadline_expired = read(deadline_expired_);
  counters.late_replies = read(late_replies_);
  counters.failed = read(failed_);
  counters.connects = read(connects_);
  counters.connect_failures = read(connect_failures_);
  counters.requests = read(requests_received_);
  counters.refused = read(refused_);
  counters.replies_sent = read(replies_sent_);
  counters.replies_dropped = read(replies_dropped_);
  counters.malformed_frames = read(malformed_frames_);
  counters.datagrams_dropped = read(datagrams_dropped_);
  counters.connections_accepted = read(connections_accepted_);
  counters.connections_closed = read(connections_closed_);
  return counters;
}

Orb::Sent Orb::send_frame(kal::Socket& socket, std::span<const std::byte> frame) noexcept {
  // One send() per frame. A frame goes whole; or not at all, when the connection is full (the
  // peer is not keeping up: the stream is intact, the frame is refused); or in part, which
  // leaves a stream out of step, so that connection is given up.
  const std::int64_t sent = socket.send(frame);
  if (sent == static_cast<std::int64_t>(frame.size())) {
    return Sent::kWhole;
  }
  return sent == 0 ? Sent::kNothing : Sent::kBroken;
}

// ---------------------------------------------------------------- client side

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
  return true;
}

void Orb::disconnect(ClientConnection& connection) noexcept {
  if (connection.connected) {
    connection.retry_at = kal::MonotonicClock::now() + options_.reconnect_interval;
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
    auto free_slot = [&connection]() -> CallSlot* {
      for (CallSlot& slot : connection.pending) {
        if (!slot.in_use) {
          return &slot;
        }
      }
      return nullptr;
    };
    pending = free_slot();
    if (pending == nullptr) {
      // Collect what has come in meanwhile: it may free a slot. (Only then: a read that finds
      // nothing is a system call on every call's path. Late replies wait for the next read.)
      if (!take_replies(connection)) {
        return end(CallStatus::kDisconnected);
      }
      pending = free_slot();
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
  pending->in_use = true;
  pending->answered = false;
  pending->request_id = header.request_id;
  pending->deadline = deadline;
  pending->replied_at = kal::TimePoint{};
  pending->outcome = CallStatus::kPending;
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
  while (connection.received >= kHeaderSize) {
    FrameHeader header{};
    const HeaderError error = decode_header({buffer, connection.received}, kMaxBody, header);
    if (error != HeaderError::kNone || header.kind != FrameKind::kReply) {
      malformed_frames_.add();
      report("reply from a peer dropped, connection closed",
             error != HeaderError::kNone ? to_string(error) : "not a reply");
      disconnect(connection);
      return false;
    }
    const std::size_t frame_size = kHeaderSize + header.body_size;
    if (connection.received < frame_size) {
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
      std::memcpy(waiting->body.get(), buffer + kHeaderSize, header.body_size);
      waiting->reply = header;
      waiting->replied_at = kal::MonotonicClock::now();
      waiting->answered = true;
      waiting->outcome = status_of(header.status);
    }
    consume(buffer, connection.received, frame_size);
  }
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

// ---------------------------------------------------------------- server side

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

void Orb::release(ServerConnection& connection) noexcept {
  if (connection.in_flight.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    finish_closing(connection);
  }
}

void Orb::close_connection(ServerConnection& connection) noexcept {
  readers_[connection.reader]->poller.remove(connection.socket);
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
        std::size_t free = kMaxConnections;
        for (std::size_t c = 0; c < kMaxConnections; ++c) {
          if (connections_[c].state.load(std::memory_order_acquire) == ServerConnection::kFree) {
            free = c;
            break;
          }
        }
        kal::Socket refused;
        kal::Socket& into = free < kMaxConnections ? connections_[free].socket : refused;
        if (listener_.accept(into) != kal::Status::kOk) {
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
        connection.peer[0] = '\0';
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
    refuse("cannot watch it");
    return;
  }
  if (send_frame(connection.socket, frame) != Sent::kWhole) {
    connection.socket.shutdown();  // its reader sees it closed, and closes it
  }
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
  while (connection.received >= kHeaderSize) {
    FrameHeader header{};
    const HeaderError error = decode_header({buffer, connection.received}, kMaxBody, header);
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
    if (connection.received < frame_size) {
      break;
    }
    handle_request(connection, header, {buffer + kHeaderSize, header.body_size});
    consume(buffer, connection.received, frame_size);
  }
  return true;
}

kal::Status Orb::bind_datagrams(Reader& reader) noexcept {
  kal::Endpoint port;
  if (!band_endpoint(listen_endpoint_, static_cast<std::uint8_t>(reader.band), port)) {
    return kal::Status::kInvalidArgument;
  }
  ServerConnection& datagrams = reader.datagrams;
  datagrams.receive_buffer.reset(new (std::nothrow) std::byte[kDatagramCapacity]);
  if (!datagrams.receive_buffer) {
    return kal::Status::kResourceExhausted;
  }
  if (const kal::Status status = datagrams.socket.listen(port, kal::Transfer::kMessages);
      status != kal::Status::kOk) {
    return status;
  }
  datagrams.band = static_cast<std::uint8_t>(reader.band);
  datagrams.received = 0;
  datagrams.in_flight.store(0);
  datagrams.state.store(ServerConnection::kServing, std::memory_order_release);
  return reader.poller.add(datagrams.socket, kDatagramTag);
}

void Orb::take_datagrams(Reader& reader) noexcept {
  ServerConnection& datagrams = reader.datagrams;
  std::byte* buffer = datagrams.receive_buffer.get();
  for (std::size_t taken = 0; taken < kDatagramsPerWake; ++taken) {
    // One datagram per receive: it is a frame, whole, or it is dropped. (An empty datagram reads
    // as nothing waiting, and ends this round.)
    const std::int64_t got = datagrams.socket.receive({buffer, kDatagramCapacity});
    if (got <= 0) {
      return;
    }
    const auto size = static_cast<std::size_t>(got);
    FrameHeader header{};
    const HeaderError error = decode_header({buffer, size}, kMaxBody, header);
    const char* why = error != HeaderError::kNone         ? to_string(error)
                      : header.kind != FrameKind::kOneway ? "not a oneway (UDP carries no replies)"
                      : header.band != datagrams.band     ? "band differs from its port's"
                      : size != kHeaderSize + header.body_size
                          ? "its size differs from its header's (cut short, or padded)"
                          : nullptr;
    if (why != nullptr) {
      drop_datagram(reader, why);
      continue;
    }
    handle_request(datagrams, header, {buffer + kHeaderSize, header.body_size});
  }
}

void Orb::drop_datagram(Reader& reader, const char* why) noexcept {
  datagrams_dropped_.add();
  // Anyone can send a datagram: say so at the 1st, 2nd, 4th, 8th... drop, so that a flood of
  // them cannot flood the log (the counter has them all).
  const std::uint64_t dropped = ++reader.datagrams_dropped;
  if ((dropped & (dropped - 1)) == 0) {
    char detail[128];
    std::snprintf(detail, sizeof detail, "on band %d (%llu so far): %s", reader.band,
                  static_cast<unsigned long long>(dropped), why);
    report("datagram dropped", detail);
  }
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
