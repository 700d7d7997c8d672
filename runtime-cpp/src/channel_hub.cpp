#include <kairos/channel/hub.hpp>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

#include <kairos/kal/global_time.hpp>

namespace kairos::channel {

namespace {
/// How often the receiver looks up from its socket to see whether the hub is stopping (a bound
/// datagram socket cannot be woken by a shutdown on every platform).
constexpr kal::Duration kReceiverPoll = std::chrono::milliseconds{20};
/// How long the sender sleeps when no publisher wakes it (it drains then anyway).
constexpr kal::Duration kSenderPoll = std::chrono::milliseconds{100};

constexpr bool kLittleEndian = std::endian::native == std::endian::little;

std::int64_t global_ns() noexcept {
  return kal::to_nanoseconds(kal::global_now());
}
}  // namespace

void write_sample_header(std::span<std::byte> out, std::uint16_t channel_id,
                         std::int64_t publish_ns) noexcept {
  const std::uint32_t magic = kSampleMagic;
  const std::uint8_t version = kSampleVersion;
  const std::uint8_t flags = kLittleEndian ? 1 : 0;
  std::memcpy(out.data(), &magic, 4);
  std::memcpy(out.data() + 4, &version, 1);
  std::memcpy(out.data() + 5, &flags, 1);
  std::memcpy(out.data() + 6, &channel_id, 2);
  std::memcpy(out.data() + 8, &publish_ns, 8);
}

bool read_sample_header(std::span<const std::byte> in, std::uint16_t& channel_id,
                        std::int64_t& publish_ns, bool& little_endian) noexcept {
  if (in.size() < kSampleHeaderSize) {
    return false;
  }
  const bool little = (std::to_integer<std::uint8_t>(in[5]) & 1) != 0;
  // The header is in the sender's byte order, as its flag says; magic and version are read
  // after the flag so a foreign order is recognised, not rejected.
  std::array<std::byte, kSampleHeaderSize> header{};
  std::copy_n(in.begin(), kSampleHeaderSize, header.begin());
  if (little != kLittleEndian) {
    std::reverse(header.begin(), header.begin() + 4);
    std::reverse(header.begin() + 6, header.begin() + 8);
    std::reverse(header.begin() + 8, header.begin() + 16);
  }
  std::uint32_t magic = 0;
  std::memcpy(&magic, header.data(), 4);
  if (magic != kSampleMagic || std::to_integer<std::uint8_t>(header[4]) != kSampleVersion) {
    return false;
  }
  std::memcpy(&channel_id, header.data() + 6, 2);
  std::memcpy(&publish_ns, header.data() + 8, 8);
  little_endian = little;
  return true;
}

ChannelHub::~ChannelHub() {
  stop();
}

kal::Status ChannelHub::add_channel(const ChannelPort& port) noexcept {
  if (port.spec == nullptr || port.counters == nullptr || port.drain == nullptr ||
      port.receive == nullptr || started_) {
    return kal::Status::kInvalidArgument;
  }
  for (std::size_t c = 0; c < port_count_; ++c) {
    if (ports_[c].spec->id == port.spec->id) {
      return kal::Status::kInvalidArgument;
    }
  }
  if (port_count_ == ports_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  ports_[port_count_++] = port;
  return kal::Status::kOk;
}

kal::Status ChannelHub::listen(std::string_view endpoint) noexcept {
  kal::Endpoint parsed;
  if (started_ || listening_ || !kal::parse_endpoint(endpoint, parsed) ||
      parsed.kind != kal::Endpoint::Kind::kUdp) {
    return kal::Status::kInvalidArgument;
  }
  const kal::Status status = inbound_.listen(parsed, kal::Transfer::kMessages);
  listening_ = status == kal::Status::kOk;
  return status;
}

kal::Status ChannelHub::add_subscriber(std::uint16_t channel_id,
                                       std::string_view endpoint) noexcept {
  kal::Endpoint parsed;
  if (started_ || !kal::parse_endpoint(endpoint, parsed) ||
      parsed.kind != kal::Endpoint::Kind::kUdp) {
    return kal::Status::kInvalidArgument;
  }
  std::size_t node = 0;
  while (node < subscriber_count_ &&
         !(std::strcmp(subscriber_endpoints_[node].address, parsed.address) == 0 &&
           subscriber_endpoints_[node].port == parsed.port)) {
    ++node;
  }
  if (node == subscriber_count_) {
    if (subscriber_count_ == subscriber_endpoints_.size()) {
      return kal::Status::kCapacityExceeded;
    }
    subscriber_endpoints_[subscriber_count_++] = parsed;
  }
  if (subscription_count_ == subscriptions_.size()) {
    return kal::Status::kCapacityExceeded;
  }
  subscriptions_[subscription_count_++] = {channel_id, static_cast<std::uint8_t>(node)};
  return kal::Status::kOk;
}

kal::Status ChannelHub::start() noexcept {
  if (started_) {
    return kal::Status::kOk;
  }
  for (std::size_t n = 0; n < subscriber_count_; ++n) {
    // A datagram socket connects at once: a subscriber that is not up yet loses what is sent
    // before it is, as a best-effort network would.
    const kal::Status status = subscribers_[n].connect(
        subscriber_endpoints_[n], kal::MonotonicClock::now(), kal::Transfer::kMessages);
    if (status != kal::Status::kOk) {
      kal::report(kal::Severity::kError, options_.node, "channels: cannot reach a subscriber node");
      return status;
    }
  }
  stopping_.store(false, std::memory_order_relaxed);
  const kal::ThreadAttributes sender{
      .name = "kairos-chan-tx", .band = options_.band, .cpu = options_.cpu};
  kal::Status status = sender_.start(sender, &run_sender, this);
  if (status != kal::Status::kOk) {
    return status;
  }
  if (listening_) {
    const kal::ThreadAttributes receiver{
        .name = "kairos-chan-rx", .band = options_.band, .cpu = options_.cpu};
    status = receiver_.start(receiver, &run_receiver, this);
    if (status != kal::Status::kOk) {
      stopping_.store(true, std::memory_order_release);
      wake_.set();
      sender_.join();
      return status;
    }
  }
  started_ = true;
  return kal::Status::kOk;
}

void ChannelHub::stop() noexcept {
  if (!started_) {
    return;
  }
  stopping_.store(true, std::memory_order_release);
  wake_.set();
  sender_.join();
  if (receiver_.joinable()) {
    receiver_.join();
  }
  started_ = false;
}

std::size_t ChannelHub::drain_all() noexcept {
  std::size_t drained = 0;
  const std::int64_t now = global_ns();
  for (std::size_t c = 0; c < port_count_; ++c) {
    drained += ports_[c].drain(ports_[c].channel, *this, now);
  }
  return drained;
}

void ChannelHub::run_sender(void* self) noexcept {
  auto& hub = *static_cast<ChannelHub*>(self);
  for (;;) {
    hub.wake_.wait_until(kal::MonotonicClock::now() + kSenderPoll);
    const bool stopping = hub.stopping_.load(std::memory_order_acquire);
    hub.drain_all();
    if (hub.poll_ != nullptr) {
      hub.poll_(hub.poll_context_, global_ns());
    }
    if (stopping) {
      return;
    }
  }
}

void ChannelHub::run_receiver(void* self) noexcept {
  auto& hub = *static_cast<ChannelHub*>(self);
  while (!hub.stopping_.load(std::memory_order_acquire)) {
    if (!hub.inbound_.wait_readable(kal::MonotonicClock::now() + kReceiverPoll)) {
      continue;
    }
    // Bounded: at most a ring's worth of datagrams per wake-up, then look at stopping_ again.
    for (int taken = 0; taken < 64; ++taken) {
      const std::int64_t size = hub.inbound_.receive(hub.receive_buffer_);
      if (size <= 0) {
        break;
      }
      hub.handle_datagram(std::span(hub.receive_buffer_).first(static_cast<std::size_t>(size)));
    }
  }
}

void ChannelHub::handle_datagram(std::span<const std::byte> datagram) noexcept {
  std::uint16_t channel_id = 0;
  std::int64_t publish_ns = 0;
  bool little_endian = true;
  if (!read_sample_header(datagram, channel_id, publish_ns, little_endian)) {
    malformed_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  for (std::size_t c = 0; c < port_count_; ++c) {
    if (ports_[c].spec->id == channel_id) {
      if (ports_[c].receive(ports_[c].channel, datagram.subspan(kSampleHeaderSize), little_endian,
                            publish_ns, global_ns())) {
        received_.fetch_add(1, std::memory_order_relaxed);
      } else {
        malformed_.fetch_add(1, std::memory_order_relaxed);
      }
      return;
    }
  }
  malformed_.fetch_add(1, std::memory_order_relaxed);
}

bool ChannelHub::has_remote_readers(std::uint16_t channel_id) const noexcept {
  for (std::size_t s = 0; s < subscription_count_; ++s) {
    if (subscriptions_[s].channel_id == channel_id) {
      return true;
    }
  }
  return false;
}

void ChannelHub::send(std::uint16_t channel_id, std::int64_t publish_ns,
                      std::size_t size) noexcept {
  write_sample_header(send_buffer_, channel_id, publish_ns);
  const auto datagram = std::span<const std::byte>(send_buffer_).first(kSampleHeaderSize + size);
  for (std::size_t s = 0; s < subscription_count_; ++s) {
    if (subscriptions_[s].channel_id != channel_id) {
      continue;
    }
    kal::Socket& socket = subscribers_[subscriptions_[s].node];
    if (socket.is_open() && socket.send(datagram) == static_cast<std::int64_t>(datagram.size())) {
      sent_.fetch_add(1, std::memory_order_relaxed);
    } else {
      send_failures_.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

HubCounts ChannelHub::counts() const noexcept {
  return {sent_.load(std::memory_order_relaxed), send_failures_.load(std::memory_order_relaxed),
          received_.load(std::memory_order_relaxed), malformed_.load(std::memory_order_relaxed)};
}

std::size_t format_channel(std::span<char> out, std::string_view node_name, const ChannelSpec& spec,
                           const ChannelCounts& counts) noexcept {
  if (out.empty()) {
    return 0;
  }
  auto micros = [](std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; };
  char bound[32] = "none";
  if (spec.delivery_bound.count() >= 0) {
    std::snprintf(bound, sizeof bound, "%.1f",
                  micros(static_cast<std::uint64_t>(spec.delivery_bound.count())));
  }
  const int length = std::snprintf(
      out.data(), out.size(),
      "channel node=%.*s channel=%.*s topic=%.*s published=%llu delivered=%llu "
      "dropped_late=%llu dropped_overflow=%llu delivery_p50_us=%.1f delivery_p99_us=%.1f "
      "delivery_max_us=%.1f analysed_bound_us=%s\n",
      static_cast<int>(node_name.size()), node_name.data(), static_cast<int>(spec.name.size()),
      spec.name.data(), static_cast<int>(spec.topic.size()), spec.topic.data(),
      static_cast<unsigned long long>(counts.published),
      static_cast<unsigned long long>(counts.delivered),
      static_cast<unsigned long long>(counts.dropped_late),
      static_cast<unsigned long long>(counts.dropped_overflow), micros(counts.delivery_p50_ns),
      micros(counts.delivery_p99_ns), micros(counts.delivery_max_ns), bound);
  return length < 0 ? 0 : std::min(static_cast<std::size_t>(length), out.size() - 1);
}

void print_channels(std::string_view node_name, const ChannelHub& hub) noexcept {
  for (const ChannelPort& port : hub.channels()) {
    std::array<char, kChannelLineCapacity> line{};
    std::fwrite(line.data(), 1,
                format_channel(line, node_name, *port.spec, counts_of(*port.counters)), stdout);
  }
  std::fflush(stdout);
}

}  // namespace kairos::channel
