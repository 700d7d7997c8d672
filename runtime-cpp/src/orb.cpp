// The ORB: its configuration (endpoint, objects, bands, peers and routes), start and stop, and
// its counters.
#include <algorithm>
#include <new>

#include "orb_internal.hpp"

namespace kairos::orb {

using namespace internal;

Orb::Orb(OrbOptions options) noexcept : options_(options) {}

Orb::~Orb() {
  stop();
}

bool Orb::can_authenticate(const kal::Endpoint& endpoint) const noexcept {
  return endpoint.kind == kal::Endpoint::Kind::kTcp && options_.identity != nullptr &&
         options_.identity->loaded();
}

kal::Status Orb::listen(std::string_view endpoint, bool authenticate) noexcept {
  if (started_ || listening_) {
    return kal::Status::kInvalidArgument;
  }
  if (!kal::parse_endpoint(endpoint, listen_endpoint_) ||
      (authenticate && !can_authenticate(listen_endpoint_))) {
    return kal::Status::kInvalidArgument;
  }
  listening_ = true;
  authenticate_ = authenticate;
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

kal::Status Orb::permit_only(std::span<const CallerPermit> permits) noexcept {
  if (started_) {
    return kal::Status::kInvalidArgument;
  }
  if (permits.size() > permits_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  for (const CallerPermit& permit : permits) {
    if (permit.caller.empty() || permit.caller.size() > kMaxNodeName) {
      return kal::Status::kInvalidArgument;
    }
  }
  permit_count_ = 0;
  caller_count_ = 0;
  std::array<std::uint32_t, kMaxCallers> routes{};  // the connections each caller says it opens
  for (const CallerPermit& permit : permits) {
    PermitEntry& entry = permits_[permit_count_++];
    std::memcpy(entry.caller.data(), permit.caller.data(), permit.caller.size());
    entry.caller[permit.caller.size()] = '\0';
    std::uint8_t index = caller_index(entry.caller.data());
    if (index == kNoCaller) {
      if (caller_count_ == callers_.size()) {
        return kal::Status::kCapacityExceeded;
      }
      index = static_cast<std::uint8_t>(caller_count_++);
      callers_[index].name = entry.caller;
    }
    routes[index] = std::max<std::uint32_t>(routes[index], permit.connections);
    entry.caller_index = index;
    entry.object = permit.object;
    entry.operation = permit.operation;
    entry.budget.reset(permit.min_interval.count(), permit.tolerance.count());
  }
  // Every caller has slots of its own: its routes and one for a reconnection; those that say no
  // number share what is left evenly. Connections not yet greeted have kGreetingSlots besides.
  std::size_t reserved = kGreetingSlots;
  std::size_t unnumbered = 0;
  for (std::size_t c = 0; c < caller_count_; ++c) {
    reserved += routes[c] > 0 ? routes[c] + 1U : 0U;
    unnumbered += routes[c] == 0 ? 1U : 0U;
  }
  const std::size_t left = kMaxConnections > reserved ? kMaxConnections - reserved : 0;
  for (std::size_t c = 0; c < caller_count_; ++c) {
    callers_[c].connection_slots =
        routes[c] > 0 ? routes[c] + 1
                      : static_cast<std::uint32_t>(std::max<std::size_t>(1, left / unnumbered));
  }
  callers_limited_ = true;
  return kal::Status::kOk;
}

std::uint8_t Orb::caller_index(const char* caller) const noexcept {
  for (std::size_t c = 0; c < caller_count_; ++c) {
    if (std::strcmp(callers_[c].name.data(), caller) == 0) {
      return static_cast<std::uint8_t>(c);
    }
  }
  return kNoCaller;
}

bool Orb::known_caller(const char* caller) noexcept {
  return !callers_limited_ || caller_index(caller) != kNoCaller;
}

kal::Status Orb::add_peer(std::string_view endpoint, std::uint8_t& peer,
                          std::string_view authenticated_as) noexcept {
  if (started_) {
    return kal::Status::kInvalidArgument;
  }
  if (peer_count_ == peers_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  kal::Endpoint parsed;
  if (!kal::parse_endpoint(endpoint, parsed) || authenticated_as.size() > kMaxNodeName ||
      (!authenticated_as.empty() && !can_authenticate(parsed))) {
    return kal::Status::kInvalidArgument;
  }
  peers_[peer_count_].endpoint = parsed;
  std::memcpy(peers_[peer_count_].identity.data(), authenticated_as.data(),
              authenticated_as.size());
  const std::size_t name_size = std::min(endpoint.size(), peers_[peer_count_].name.size() - 1);
  std::memcpy(peers_[peer_count_].name.data(), endpoint.data(), name_size);
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
    if (const kal::Status status = listener_.listen(
            listen_endpoint_, transfer_for(listen_endpoint_), options_.local_peers);
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
  // A Unix domain socket, and a shared-memory endpoint's set-up socket, leave a file behind.
  if (listening_) {
    kal::remove_endpoint_file(listen_endpoint_);
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
  counters.connections_of_other_users = read(connections_of_other_users_);
  counters.not_permitted = read(not_permitted_);
  counters.unknown_callers = read(unknown_callers_);
  counters.over_budget = read(over_budget_);
  counters.connections_refused = read(connections_refused_);
  counters.connections_evicted = read(connections_evicted_);
  counters.unauthenticated = read(unauthenticated_);
  return counters;
}

std::size_t Orb::caller_counters(std::span<CallerCounters> out) const noexcept {
  auto read = [](const Counter& counter) { return counter.value.load(std::memory_order_relaxed); };
  for (std::size_t c = 0; c < caller_count_ && c < out.size(); ++c) {
    const Caller& caller = callers_[c];
    CallerCounters& counts = out[c];
    counts.caller = caller.name.data();
    counts.requests = read(caller.requests);
    counts.refused = read(caller.refused);
    counts.not_permitted = read(caller.not_permitted);
    counts.over_budget = read(caller.over_budget);
    counts.connections = caller.connections.load(std::memory_order_relaxed);
    counts.connection_slots = caller.connection_slots;
    counts.connections_refused = read(caller.connections_refused);
    counts.connections_evicted = read(caller.connections_evicted);
  }
  return caller_count_;
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

}  // namespace kairos::orb
