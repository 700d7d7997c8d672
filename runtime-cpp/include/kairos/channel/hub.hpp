// The channel hub of a node: the work of its RMMC channels that is not the methods' own, on
// threads below every real-time lane. Its sender drains the publishers' rings whenever one of
// them sets its event, hands each sample to the node's readers and sends it, encoded, to every
// node that reads the channel; its receiver takes samples that other nodes sent and hands them
// to the node's readers. Between nodes a sample travels as one datagram (a 16-byte header and the
// CDR body of its value) to the reading node's channel endpoint: on the sim platform over the
// simulated network, in virtual time with the link's latency and jitter.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/capacities.hpp>
#include <kairos/channel/channel.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/socket.hpp>
#include <kairos/kal/thread.hpp>

namespace kairos::channel {

/// Channels one node publishes or reads.
inline constexpr std::size_t kMaxChannels = 16;
/// Nodes one node sends channel samples to.
inline constexpr std::size_t kMaxSubscriberNodes = 8;
/// (channel, subscriber node) pairs of one node.
inline constexpr std::size_t kMaxSubscriptions = 32;

/// The header of a sample between nodes: magic, version, flags (bit 0: the body is little
/// endian), the channel's system-wide id and the publish time.
inline constexpr std::size_t kSampleHeaderSize = 16;
inline constexpr std::uint32_t kSampleMagic = 0x4843524b;  // "KRCH" read as little-endian bytes
inline constexpr std::uint8_t kSampleVersion = 1;
/// The largest encoded sample body: what the ORB carries in one message.
inline constexpr std::size_t kMaxSampleBody = capacity::kBody;

/// What the hub did apart from the channels' own counts.
struct HubCounts {
  std::uint64_t sent = 0;           ///< datagrams sent to subscriber nodes
  std::uint64_t send_failures = 0;  ///< datagrams the network refused
  std::uint64_t received = 0;       ///< datagrams received and delivered
  std::uint64_t malformed = 0;      ///< datagrams rejected: bad header, unknown channel, bad body
};

struct HubOptions {
  const char* node = "";  ///< for error reports
  int cpu = -1;           ///< the CPU of its threads (-1: any)
  /// Its threads' band: below every lane (lanes take bands 1 and up).
  kal::PriorityBand band = kal::kLowestBand;
};

/// Writes the header of a sample into `out` (kSampleHeaderSize bytes) in native byte order.
void write_sample_header(std::span<std::byte> out, std::uint16_t channel_id,
                         std::int64_t publish_ns) noexcept;

/// Reads a sample header; false if `in` is shorter than a header or its magic or version is
/// wrong.
bool read_sample_header(std::span<const std::byte> in, std::uint16_t& channel_id,
                        std::int64_t& publish_ns, bool& little_endian) noexcept;

class ChannelHub final : public SampleSink {
 public:
  explicit ChannelHub(const HubOptions& options) noexcept : options_(options) {}
  ChannelHub(const ChannelHub&) = delete;
  ChannelHub& operator=(const ChannelHub&) = delete;
  ~ChannelHub();

  /// Adds a channel of the node (before start). kCapacityExceeded beyond kMaxChannels,
  /// kInvalidArgument for a port without its functions or an id added twice.
  kal::Status add_channel(const ChannelPort& port) noexcept;

  /// The endpoint where other nodes send this node the samples of channels it reads (a udp:
  /// endpoint); call before start. A node that reads no remote channel needs none.
  kal::Status listen(std::string_view endpoint) noexcept;

  /// Sends the samples of channel `channel_id` to the node whose channel endpoint is `endpoint`
  /// too (before start). kInvalidArgument for a malformed endpoint, kCapacityExceeded beyond
  /// kMaxSubscriberNodes nodes or kMaxSubscriptions pairs.
  kal::Status add_subscriber(std::uint16_t channel_id, std::string_view endpoint) noexcept;

  /// Something else the sender does each time it wakes, after draining: a transport that
  /// receives on its own (DDS) hands its samples to the node's readers here, so that every
  /// reader's history has one producer. Set before start.
  using Poll = void (*)(void* context, std::int64_t now_ns) noexcept;
  void set_poll(Poll poll, void* context) noexcept {
    poll_ = poll;
    poll_context_ = context;
  }

  /// The event publishers set: binds them with NodeChannel::attach.
  kal::Event& wake() noexcept { return wake_; }

  /// Opens the sockets to the subscriber nodes and starts the threads.
  kal::Status start() noexcept;
  /// Drains what is still in the publishers' rings, then stops the threads (idempotent).
  void stop() noexcept;

  /// Drains every channel's publishers once, on the calling thread (the sender does this when
  /// woken). Returns the samples drained.
  std::size_t drain_all() noexcept;

  /// Handles one received datagram (the receiver does this for each): delivers it to the
  /// node's readers, or counts it as malformed.
  void handle_datagram(std::span<const std::byte> datagram) noexcept;

  std::span<const ChannelPort> channels() const noexcept { return {ports_.data(), port_count_}; }
  HubCounts counts() const noexcept;

  // SampleSink
  bool has_remote_readers(std::uint16_t channel_id) const noexcept override;
  std::span<std::byte> encode_buffer() noexcept override {
    return std::span(send_buffer_).subspan(kSampleHeaderSize);
  }
  void send(std::uint16_t channel_id, std::int64_t publish_ns, std::size_t size) noexcept override;

 private:
  struct Subscription {
    std::uint16_t channel_id = 0;
    std::uint8_t node = 0;  ///< index into subscribers_
  };

  static void run_sender(void* self) noexcept;
  static void run_receiver(void* self) noexcept;

  HubOptions options_;
  std::array<ChannelPort, kMaxChannels> ports_{};
  std::size_t port_count_ = 0;
  std::array<kal::Endpoint, kMaxSubscriberNodes> subscriber_endpoints_{};
  std::array<kal::Socket, kMaxSubscriberNodes> subscribers_{};
  std::size_t subscriber_count_ = 0;
  std::array<Subscription, kMaxSubscriptions> subscriptions_{};
  std::size_t subscription_count_ = 0;
  kal::Socket inbound_;
  bool listening_ = false;
  kal::Event wake_{kal::ResetMode::kAuto};
  Poll poll_ = nullptr;
  void* poll_context_ = nullptr;
  kal::Thread sender_;
  kal::Thread receiver_;
  std::atomic<bool> stopping_{false};
  bool started_ = false;
  alignas(8) std::array<std::byte, kSampleHeaderSize + kMaxSampleBody> send_buffer_{};
  alignas(8) std::array<std::byte, kSampleHeaderSize + kMaxSampleBody> receive_buffer_{};
  std::atomic<std::uint64_t> sent_{0};
  std::atomic<std::uint64_t> send_failures_{0};
  std::atomic<std::uint64_t> received_{0};
  std::atomic<std::uint64_t> malformed_{0};
};

/// Longest `channel ...` line format_channel writes.
inline constexpr std::size_t kChannelLineCapacity = 512;

/// Writes the `channel ...` line of one channel after the run into `out` (cut to fit, always
/// terminated; returns its length): `channel node=<node> channel=<name> topic=<topic>
/// published=<n> delivered=<n> dropped_late=<n> dropped_overflow=<n>`.
std::size_t format_channel(std::span<char> out, std::string_view node_name, const ChannelSpec& spec,
                           const ChannelCounts& counts) noexcept;

/// Prints the `channel ...` line of every channel of `hub` on stdout.
void print_channels(std::string_view node_name, const ChannelHub& hub) noexcept;

}  // namespace kairos::channel
