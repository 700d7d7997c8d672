// kairos-link-emulator: one network link between two interfaces, emulated in user space.
//
// It does what `tc qdisc ... netem delay L J rate R` does on kernels that have no netem: every
// Ethernet frame that arrives on one interface leaves by the other after serialisation at the
// link's bandwidth and a propagation delay of latency +- jitter, frames kept in order (a frame
// never overtakes the one before it: departure = max(previous departure, ready + delay)). It runs
// in a namespace of its own (the "wire") between two nodes' namespaces, with an AF_PACKET socket
// on its end of each node's veth pair (tools/lan/lan.py builds that; docs/lan.md).
//
// Real-time style: all storage is static and sized at start-up (frame queues, histograms), one
// thread, SCHED_FIFO on a CPU of its own where permitted. It measures what it adds itself: how
// late each frame leaves against its planned departure, printed at the end (p50/p99/max), since
// that error is part of the link it emulates.
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numbers>
#include <string_view>

namespace {

using Nanoseconds = std::int64_t;
constexpr Nanoseconds kMicrosecond = 1'000;
constexpr Nanoseconds kSecond = 1'000'000'000;

// The largest frame taken in: a GSO frame the kernel may hand over whole (64 KiB), behind the
// virtio-net header that carries its checksum and segmentation state to the other side.
constexpr std::size_t kMaxFrame = 65536 + 256;
// struct virtio_net_hdr (linux/virtio_net.h, which C++ cannot include: a member is named
// `class`): flags, gso_type, hdr_len, gso_size, csum_start, csum_offset.
constexpr std::size_t kVirtioHeaderBytes = 10;
// Frames waiting per direction: netem's default limit is 1000 packets; up to 4096 may be asked.
constexpr std::size_t kMaxLimit = 4096;
constexpr std::size_t kDefaultLimit = 1000;
// Bytes waiting per direction: 2 MiB hold 1000 full-size Ethernet frames with room to spare.
constexpr std::size_t kQueueBytes = 2u << 20u;
// Histograms of 100 ns buckets up to 20 ms; anything later counts in the last bucket (the exact
// maximum is kept apart).
constexpr Nanoseconds kBucketNs = 100;
constexpr std::size_t kBuckets = 200'000;
constexpr int kDefaultPriority = 90;  // above every band of a Kairos node (SCHED_FIFO 20..83)

Nanoseconds monotonic_now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * kSecond + ts.tv_nsec;
}

Nanoseconds realtime_now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return ts.tv_sec * kSecond + ts.tv_nsec;
}

double to_us(Nanoseconds ns) noexcept {
  return static_cast<double>(ns) / static_cast<double>(kMicrosecond);
}

// ---- settings ----------------------------------------------------------------------------

enum class Distribution { kUniform, kNormal };

struct Settings {
  const char* interface_a = nullptr;
  const char* interface_b = nullptr;
  Nanoseconds latency_ns = 0;
  Nanoseconds jitter_ns = 0;
  Distribution distribution = Distribution::kUniform;
  std::uint64_t bandwidth_bps = 0;  // 0: no serialisation delay
  std::uint64_t seed = 1;
  int cpu = -1;  // -1: the machine's last CPU
  int priority = kDefaultPriority;
  std::size_t limit = kDefaultLimit;
  Nanoseconds duration_ns = 0;              // 0: until SIGINT or SIGTERM
  Nanoseconds spin_ns = 20 * kMicrosecond;  // wake this early, poll until a departure is due
};

void usage(std::FILE* out) noexcept {
  std::fprintf(
      out,
      "usage: kairos-link-emulator --between <if-a> <if-b> [--latency <time>] [--jitter <time>]\n"
      "         [--distribution uniform|normal] [--bandwidth <rate>] [--seed <n>] [--cpu <n>]\n"
      "         [--priority <1-99>] [--limit <frames>] [--duration <time>] [--spin <time>]\n"
      "  Forwards every frame between the two interfaces after serialisation at <rate>\n"
      "  (e.g. 100Mbps) and latency +- jitter (uniform, or normal with sigma jitter/2 cut at\n"
      "  +-jitter), in order. Times take a unit: ns, us, ms, s. Prints what it measured of its\n"
      "  own lateness when it ends (--duration, SIGINT or SIGTERM).\n");
}

// "100us" -> 100000; false when the text is not a non-negative number with a time unit.
bool parse_time(std::string_view text, Nanoseconds& out) noexcept {
  char* end = nullptr;
  char copy[64] = {};
  if (text.empty() || text.size() >= sizeof copy) {
    return false;
  }
  std::memcpy(copy, text.data(), text.size());
  const double value = std::strtod(copy, &end);
  if (end == copy || !(value >= 0.0)) {
    return false;
  }
  const std::string_view unit{end};
  double scale = 0.0;
  if (unit == "ns") {
    scale = 1.0;
  } else if (unit == "us") {
    scale = 1e3;
  } else if (unit == "ms") {
    scale = 1e6;
  } else if (unit == "s") {
    scale = 1e9;
  } else {
    return false;
  }
  const double ns = value * scale;
  if (ns > 1e15) {
    return false;
  }
  out = static_cast<Nanoseconds>(std::llround(ns));
  return true;
}

// "100Mbps" -> 100000000; units bps, Kbps, Mbps, Gbps (as the model writes them).
bool parse_rate(std::string_view text, std::uint64_t& out) noexcept {
  char copy[64] = {};
  if (text.empty() || text.size() >= sizeof copy) {
    return false;
  }
  std::memcpy(copy, text.data(), text.size());
  char* end = nullptr;
  const double value = std::strtod(copy, &end);
  if (end == copy || !(value > 0.0)) {
    return false;
  }
  const std::string_view unit{end};
  double scale = 0.0;
  if (unit == "bps") {
    scale = 1.0;
  } else if (unit == "Kbps" || unit == "kbps") {
    scale = 1e3;
  } else if (unit == "Mbps") {
    scale = 1e6;
  } else if (unit == "Gbps") {
    scale = 1e9;
  } else {
    return false;
  }
  const double bps = value * scale;
  if (bps < 1.0 || bps > 1e12) {
    return false;
  }
  out = static_cast<std::uint64_t>(std::llround(bps));
  return true;
}

bool parse_count(std::string_view text, std::uint64_t low, std::uint64_t high,
                 std::uint64_t& out) noexcept {
  if (text.empty() || text.size() > 19) {
    return false;
  }
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (value < low || value > high) {
    return false;
  }
  out = value;
  return true;
}

// Returns 0 when the arguments are good, else the process's exit code (2: usage, 0: --help).
int parse_arguments(int argc, char** argv, Settings& settings) noexcept {
  auto fail = [](const char* what, const char* value) {
    std::fprintf(stderr, "kairos-link-emulator: error: %s '%s'\n", what, value);
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg{argv[i]};
    if (arg == "--help" || arg == "-h") {
      usage(stdout);
      return -1;
    }
    constexpr std::array<std::string_view, 11> kOptions{
        "--between", "--latency",  "--jitter", "--distribution", "--bandwidth", "--seed",
        "--cpu",     "--priority", "--limit",  "--duration",     "--spin"};
    if (std::find(kOptions.begin(), kOptions.end(), arg) == kOptions.end()) {
      std::fprintf(stderr, "kairos-link-emulator: error: unknown option '%s'\n", argv[i]);
      usage(stderr);
      return 2;
    }
    const bool two = arg == "--between";
    if (i + (two ? 2 : 1) >= argc) {
      std::fprintf(stderr, "kairos-link-emulator: error: %s needs %s\n", argv[i],
                   two ? "two interface names" : "a value");
      return 2;
    }
    const char* value = argv[++i];
    std::uint64_t number = 0;
    if (two) {
      settings.interface_a = value;
      settings.interface_b = argv[++i];
    } else if (arg == "--latency") {
      if (!parse_time(value, settings.latency_ns)) {
        return fail("--latency is not a time with a unit (ns, us, ms, s):", value);
      }
    } else if (arg == "--jitter") {
      if (!parse_time(value, settings.jitter_ns)) {
        return fail("--jitter is not a time with a unit (ns, us, ms, s):", value);
      }
    } else if (arg == "--spin") {
      if (!parse_time(value, settings.spin_ns)) {
        return fail("--spin is not a time with a unit (ns, us, ms, s):", value);
      }
    } else if (arg == "--duration") {
      if (!parse_time(value, settings.duration_ns)) {
        return fail("--duration is not a time with a unit (ns, us, ms, s):", value);
      }
    } else if (arg == "--distribution") {
      const std::string_view name{value};
      if (name == "uniform") {
        settings.distribution = Distribution::kUniform;
      } else if (name == "normal") {
        settings.distribution = Distribution::kNormal;
      } else {
        return fail("--distribution is uniform or normal, not", value);
      }
    } else if (arg == "--bandwidth") {
      if (!parse_rate(value, settings.bandwidth_bps)) {
        return fail("--bandwidth is not a rate with a unit (bps, Kbps, Mbps, Gbps):", value);
      }
    } else if (arg == "--seed") {
      if (!parse_count(value, 0, UINT64_MAX / 10, settings.seed)) {
        return fail("--seed is not a number:", value);
      }
    } else if (arg == "--cpu") {
      if (!parse_count(value, 0, CPU_SETSIZE - 1, number)) {
        return fail("--cpu is not a CPU number:", value);
      }
      settings.cpu = static_cast<int>(number);
    } else if (arg == "--priority") {
      if (!parse_count(value, 1, 99, number)) {
        return fail("--priority is a SCHED_FIFO priority 1-99, not", value);
      }
      settings.priority = static_cast<int>(number);
    } else if (arg == "--limit") {
      if (!parse_count(value, 1, kMaxLimit, number)) {
        return fail("--limit is a number of frames from 1 to 4096, not", value);
      }
      settings.limit = static_cast<std::size_t>(number);
    }
  }
  if (settings.interface_a == nullptr) {
    std::fprintf(stderr, "kairos-link-emulator: error: --between <if-a> <if-b> is required\n");
    usage(stderr);
    return 2;
  }
  if (std::string_view{settings.interface_a} == settings.interface_b) {
    std::fprintf(stderr, "kairos-link-emulator: error: --between needs two different interfaces\n");
    return 2;
  }
  if (settings.jitter_ns > settings.latency_ns) {
    std::fprintf(stderr,
                 "kairos-link-emulator: error: --jitter (%.1f us) is larger than --latency "
                 "(%.1f us): a frame cannot leave before it arrived\n",
                 to_us(settings.jitter_ns), to_us(settings.latency_ns));
    return 2;
  }
  return 0;
}

// ---- pieces ------------------------------------------------------------------------------

// xoshiro256** seeded by splitmix64: a fast generator whose sequence a seed fixes.
class Random {
 public:
  explicit Random(std::uint64_t seed) noexcept {
    for (auto& word : state_) {
      seed += 0x9e3779b97f4a7c15ULL;
      std::uint64_t z = seed;
      z = (z ^ (z >> 30u)) * 0xbf58476d1ce4e5b9ULL;
      z = (z ^ (z >> 27u)) * 0x94d049bb133111ebULL;
      word = z ^ (z >> 31u);
    }
  }

  // Uniform in [0, 1).
  double unit() noexcept { return static_cast<double>(next() >> 11u) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, unsigned k) noexcept {
    return (x << k) | (x >> (64u - k));
  }
  std::uint64_t next() noexcept {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t t = state_[1] << 17u;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= t;
    state_[3] = rotl(state_[3], 45);
    return result;
  }
  std::array<std::uint64_t, 4> state_{};
};

// One frame's propagation delay: latency + a jitter draw within +-jitter.
class DelayModel {
 public:
  explicit DelayModel(const Settings& settings) noexcept
      : latency_ns_(settings.latency_ns),
        jitter_ns_(settings.jitter_ns),
        distribution_(settings.distribution),
        random_(settings.seed) {}

  Nanoseconds draw() noexcept {
    if (jitter_ns_ == 0) {
      return latency_ns_;
    }
    const double jitter = static_cast<double>(jitter_ns_);
    double offset = 0.0;
    if (distribution_ == Distribution::kUniform) {
      offset = jitter * (2.0 * random_.unit() - 1.0);
    } else {
      // Box-Muller, sigma = jitter / 2, drawn again outside +-jitter (4.6% of draws).
      offset = jitter;
      for (int attempt = 0; attempt < 16 && std::fabs(offset) >= jitter; ++attempt) {
        const double u1 = 1.0 - random_.unit();  // (0, 1]: log is finite
        const double u2 = random_.unit();
        offset =
            0.5 * jitter * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
      }
      offset = std::clamp(offset, -jitter, jitter);
    }
    return std::max<Nanoseconds>(0, latency_ns_ + static_cast<Nanoseconds>(std::llround(offset)));
  }

 private:
  Nanoseconds latency_ns_;
  Nanoseconds jitter_ns_;
  Distribution distribution_;
  Random random_;
};

// Counts of a quantity in 100 ns buckets; percentiles without sorting or allocating.
class Histogram {
 public:
  void add(Nanoseconds ns) noexcept {
    const Nanoseconds clamped = std::max<Nanoseconds>(0, ns);
    const auto bucket =
        std::min<std::size_t>(static_cast<std::size_t>(clamped / kBucketNs), kBuckets - 1);
    ++counts_[bucket];
    ++samples_;
    sum_ += static_cast<double>(clamped);
    max_ = std::max(max_, clamped);
  }
  std::uint64_t samples() const noexcept { return samples_; }
  Nanoseconds max() const noexcept { return max_; }
  double mean_us() const noexcept {
    return samples_ == 0 ? 0.0 : sum_ / static_cast<double>(samples_) / 1000.0;
  }
  // The upper edge of the bucket holding the q-quantile (the max when that is lower).
  double percentile_us(double q) const noexcept {
    if (samples_ == 0) {
      return 0.0;
    }
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(samples_)));
    std::uint64_t seen = 0;
    for (std::size_t b = 0; b < kBuckets; ++b) {
      seen += counts_[b];
      if (seen >= std::max<std::uint64_t>(rank, 1)) {
        const auto edge = static_cast<Nanoseconds>(b + 1) * kBucketNs;
        return to_us(std::min(edge, max_));
      }
    }
    return to_us(max_);
  }

 private:
  std::array<std::uint32_t, kBuckets> counts_{};
  std::uint64_t samples_ = 0;
  double sum_ = 0.0;
  Nanoseconds max_ = 0;
};

struct Frame {
  std::uint32_t offset;  // into the queue's bytes
  std::uint32_t length;  // virtio-net header + Ethernet frame
  Nanoseconds arrival_ns;
  Nanoseconds departure_ns;
};

// The frames of one direction in arrival order (which is also departure order): a ring of
// descriptors over a ring of bytes, both fixed at compile time.
class FrameQueue {
 public:
  void set_limit(std::size_t limit) noexcept { limit_ = limit; }
  bool empty() const noexcept { return count_ == 0; }
  const Frame& front() const noexcept { return frames_[head_]; }
  const std::uint8_t* bytes_of(const Frame& frame) const noexcept {
    return bytes_.data() + frame.offset;
  }

  // Copies a frame in; false (nothing queued) when the queue is full.
  bool push(const std::uint8_t* data, std::size_t length, Nanoseconds arrival_ns,
            Nanoseconds departure_ns) noexcept {
    if (count_ >= limit_ || length == 0 || length > kMaxFrame) {
      return false;
    }
    std::size_t at = 0;
    if (count_ == 0) {
      at = 0;
    } else {
      const std::size_t oldest = frames_[head_].offset;
      if (write_ >= oldest) {  // [oldest, write) in use: room at the end, or else at the start
        if (bytes_.size() - write_ >= length) {
          at = write_;
        } else if (length < oldest) {
          at = 0;
        } else {
          return false;
        }
      } else if (write_ + length < oldest) {  // wrapped: [write, oldest) is free
        at = write_;
      } else {
        return false;
      }
    }
    std::memcpy(bytes_.data() + at, data, length);
    const std::size_t tail = (head_ + count_) % frames_.size();
    frames_[tail] = Frame{static_cast<std::uint32_t>(at), static_cast<std::uint32_t>(length),
                          arrival_ns, departure_ns};
    ++count_;
    write_ = at + length;
    return true;
  }

  void pop() noexcept {
    head_ = (head_ + 1) % frames_.size();
    if (--count_ == 0) {
      head_ = 0;
      write_ = 0;
    }
  }

 private:
  std::array<Frame, kMaxLimit> frames_{};
  std::array<std::uint8_t, kQueueBytes> bytes_{};
  std::size_t head_ = 0;
  std::size_t count_ = 0;
  std::size_t write_ = 0;
  std::size_t limit_ = kDefaultLimit;
};

// A raw socket on one interface: every frame the interface receives, sent on by the other.
struct Port {
  const char* name = nullptr;
  int fd = -1;
};

bool open_port(const char* name, Port& port) noexcept {
  port.name = name;
  const unsigned index = if_nametoindex(name);
  if (index == 0) {
    std::fprintf(stderr, "kairos-link-emulator: error: no interface '%s' here: %s\n", name,
                 std::strerror(errno));
    return false;
  }
  // Protocol 0 receives nothing until bound, so no frame of another interface slips in first.
  port.fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (port.fd < 0) {
    std::fprintf(stderr, "kairos-link-emulator: error: AF_PACKET socket refused: %s%s\n",
                 std::strerror(errno), errno == EPERM ? " (needs CAP_NET_RAW)" : "");
    return false;
  }
  const int one = 1;
  // The virtio-net header carries a frame's offload state (a checksum left to the device, a
  // segmentation size) from one veth to the other, as a bridge would pass it on.
  if (setsockopt(port.fd, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one) != 0 ||
      setsockopt(port.fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) != 0 ||
      setsockopt(port.fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one) != 0) {
    std::fprintf(stderr, "kairos-link-emulator: error: packet socket options on '%s': %s\n", name,
                 std::strerror(errno));
    return false;
  }
  // Best effort: straight to the device, and room for bursts while a departure is waited for.
  (void)setsockopt(port.fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof one);
  const int buffer = 4 << 20;
  if (setsockopt(port.fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer) != 0) {
    (void)setsockopt(port.fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer);
  }
  sockaddr_ll address{};
  address.sll_family = AF_PACKET;
  address.sll_protocol = htons(ETH_P_ALL);
  address.sll_ifindex = static_cast<int>(index);
  if (bind(port.fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    std::fprintf(stderr, "kairos-link-emulator: error: bind to '%s': %s\n", name,
                 std::strerror(errno));
    return false;
  }
  // Frames for the far node's address arrive here too: the interface must take them all.
  packet_mreq membership{};
  membership.mr_ifindex = static_cast<int>(index);
  membership.mr_type = PACKET_MR_PROMISC;
  if (setsockopt(port.fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &membership, sizeof membership) != 0) {
    std::fprintf(stderr, "kairos-link-emulator: error: promiscuous mode on '%s': %s\n", name,
                 std::strerror(errno));
    return false;
  }
  return true;
}

// One direction of the link: frames in from one port, out by the other.
struct Direction {
  Port* from = nullptr;
  Port* to = nullptr;
  FrameQueue queue;
  Nanoseconds transmitter_free_ns = 0;
  Nanoseconds last_departure_ns = 0;
  std::uint64_t frames = 0;
  std::uint64_t bytes = 0;
  std::uint64_t dropped_full = 0;
  std::uint64_t dropped_send = 0;
  Histogram delay;  // arrival -> leaving, as applied
};

// What the emulator adds to the link: lateness of each departure, and how long frames waited
// in the socket before the emulator picked them up (the planned departure counts from arrival).
struct Measurements {
  Histogram lateness;
  Histogram pickup;
};

// Static storage: queues and histograms are sized once and never allocated per frame.
Direction a_to_b;
Direction b_to_a;
Measurements measured;
std::array<std::uint8_t, kMaxFrame> receive_buffer;

Nanoseconds serialisation_ns(std::size_t wire_bytes, std::uint64_t bandwidth_bps) noexcept {
  if (bandwidth_bps == 0) {
    return 0;
  }
  // At most kMaxFrame * 8e9 (5.3e14): no overflow in 64 bits.
  const std::uint64_t bit_ns = static_cast<std::uint64_t>(wire_bytes) * 8u * 1'000'000'000u;
  return static_cast<Nanoseconds>((bit_ns + bandwidth_bps - 1) / bandwidth_bps);
}

// Takes every frame waiting on `direction.from` into its queue. False on a socket error.
bool receive_all(Direction& direction, DelayModel& delays, std::uint64_t bandwidth_bps) noexcept {
  for (int taken = 0; taken < 256; ++taken) {  // bounded: departures are not starved by a flood
    sockaddr_ll source{};
    iovec vector{receive_buffer.data(), receive_buffer.size()};
    alignas(cmsghdr) std::array<char, 128> control{};
    msghdr message{};
    message.msg_name = &source;
    message.msg_namelen = sizeof source;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    message.msg_control = control.data();
    message.msg_controllen = control.size();
    const ssize_t received = recvmsg(direction.from->fd, &message, MSG_DONTWAIT);
    if (received < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) {
        return true;
      }
      std::fprintf(stderr, "kairos-link-emulator: error: receive on '%s': %s\n",
                   direction.from->name, std::strerror(errno));
      return false;
    }
    const Nanoseconds now_ns = monotonic_now();
    const Nanoseconds now_real_ns = realtime_now();
    const auto length = static_cast<std::size_t>(received);
    if (source.sll_pkttype == PACKET_OUTGOING || length <= kVirtioHeaderBytes ||
        (message.msg_flags & MSG_TRUNC) != 0) {
      continue;
    }
    // The kernel stamped the frame as it arrived; the link's delay counts from then.
    Nanoseconds pickup_ns = 0;
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
        timespec stamp{};
        std::memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
        pickup_ns = now_real_ns - (stamp.tv_sec * kSecond + stamp.tv_nsec);
      }
    }
    if (pickup_ns < 0 || pickup_ns > kSecond) {  // the wall clock was stepped: trust now
      pickup_ns = 0;
    }
    measured.pickup.add(pickup_ns);
    const Nanoseconds arrival_ns = now_ns - pickup_ns;
    const std::size_t wire_bytes = length - kVirtioHeaderBytes;
    // Serialisation first (one transmitter per direction), then propagation; a frame never
    // leaves before the one ahead of it.
    const Nanoseconds sent_ns = std::max(arrival_ns, direction.transmitter_free_ns) +
                                serialisation_ns(wire_bytes, bandwidth_bps);
    const Nanoseconds departure_ns = std::max(direction.last_departure_ns, sent_ns + delays.draw());
    if (!direction.queue.push(receive_buffer.data(), length, arrival_ns, departure_ns)) {
      ++direction.dropped_full;
      continue;
    }
    direction.transmitter_free_ns = sent_ns;
    direction.last_departure_ns = departure_ns;
  }
  return true;
}

// Sends every frame of `direction` whose departure is due at `now_ns`.
void send_due(Direction& direction, Nanoseconds now_ns) noexcept {
  while (!direction.queue.empty() && direction.queue.front().departure_ns <= now_ns) {
    const Frame& frame = direction.queue.front();
    const Nanoseconds leaving_ns = monotonic_now();
    measured.lateness.add(leaving_ns - frame.departure_ns);
    const ssize_t sent =
        send(direction.to->fd, direction.queue.bytes_of(frame), frame.length, MSG_DONTWAIT);
    if (sent == static_cast<ssize_t>(frame.length)) {
      ++direction.frames;
      direction.bytes += frame.length - kVirtioHeaderBytes;
      direction.delay.add(leaving_ns - frame.arrival_ns);
    } else {
      ++direction.dropped_send;
    }
    direction.queue.pop();
  }
}

void print_direction(const Direction& direction) noexcept {
  std::printf(
      "link-direction from=%s to=%s frames=%llu bytes=%llu dropped_queue_full=%llu "
      "dropped_send=%llu delay_mean_us=%.1f delay_p50_us=%.1f delay_p99_us=%.1f "
      "delay_max_us=%.1f\n",
      direction.from->name, direction.to->name, static_cast<unsigned long long>(direction.frames),
      static_cast<unsigned long long>(direction.bytes),
      static_cast<unsigned long long>(direction.dropped_full),
      static_cast<unsigned long long>(direction.dropped_send), direction.delay.mean_us(),
      direction.delay.percentile_us(0.5), direction.delay.percentile_us(0.99),
      to_us(direction.delay.max()));
}

// SCHED_FIFO on its own CPU, memory locked, timer slack 1 ns: each where permitted, and said.
void become_real_time(const Settings& settings, char* scheduling, std::size_t size,
                      int& cpu) noexcept {
  prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
  cpu = settings.cpu >= 0 ? settings.cpu : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN)) - 1;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  if (cpu < 0 || sched_setaffinity(0, sizeof set, &set) != 0) {
    cpu = -1;
  }
  sched_param parameters{};
  parameters.sched_priority = settings.priority;
  if (sched_setscheduler(0, SCHED_FIFO, &parameters) == 0) {
    std::snprintf(scheduling, size, "fifo:%d", settings.priority);
  } else {
    std::snprintf(scheduling, size, "other(SCHED_FIFO refused: %s)", std::strerror(errno));
  }
  (void)mlockall(MCL_CURRENT | MCL_FUTURE);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  if (const int code = parse_arguments(argc, argv, settings); code != 0) {
    return code < 0 ? 0 : code;
  }
  Port port_a;
  Port port_b;
  if (!open_port(settings.interface_a, port_a) || !open_port(settings.interface_b, port_b)) {
    return 1;
  }
  a_to_b.from = &port_a;
  a_to_b.to = &port_b;
  b_to_a.from = &port_b;
  b_to_a.to = &port_a;
  a_to_b.queue.set_limit(settings.limit);
  b_to_a.queue.set_limit(settings.limit);
  // One generator for both directions, as netem has one per qdisc (and frames interleave).
  DelayModel delays{settings};

  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigprocmask(SIG_BLOCK, &stop_signals, nullptr);
  const int signals = signalfd(-1, &stop_signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (signals < 0) {
    std::fprintf(stderr, "kairos-link-emulator: error: signalfd: %s\n", std::strerror(errno));
    return 1;
  }

  std::array<char, 96> scheduling{};
  int cpu = -1;
  become_real_time(settings, scheduling.data(), scheduling.size(), cpu);
  std::printf(
      "link mode=emulator a=%s b=%s latency_us=%.1f jitter_us=%.1f distribution=%s "
      "bandwidth_bps=%llu limit=%zu seed=%llu scheduling=%s cpu=%d spin_us=%.1f\n",
      settings.interface_a, settings.interface_b, to_us(settings.latency_ns),
      to_us(settings.jitter_ns),
      settings.distribution == Distribution::kUniform ? "uniform" : "normal",
      static_cast<unsigned long long>(settings.bandwidth_bps), settings.limit,
      static_cast<unsigned long long>(settings.seed), scheduling.data(), cpu,
      to_us(settings.spin_ns));
  std::printf("link-ready\n");
  std::fflush(stdout);

  const Nanoseconds started_ns = monotonic_now();
  const Nanoseconds end_ns =
      settings.duration_ns > 0 ? started_ns + settings.duration_ns : INT64_MAX;
  std::array<pollfd, 3> watched{
      {{port_a.fd, POLLIN, 0}, {port_b.fd, POLLIN, 0}, {signals, POLLIN, 0}}};
  int status = 0;
  for (;;) {
    Nanoseconds now_ns = monotonic_now();
    send_due(a_to_b, now_ns);
    send_due(b_to_a, now_ns);
    if (now_ns >= end_ns) {
      break;
    }
    Nanoseconds next_ns = end_ns;
    for (const Direction* direction : {&a_to_b, &b_to_a}) {
      if (!direction->queue.empty()) {
        next_ns = std::min(next_ns, direction->queue.front().departure_ns);
      }
    }
    // Sleep until the next departure (less the spin margin), or until a frame arrives; with
    // nothing queued and no --duration, until a frame or a signal.
    const Nanoseconds wait_ns = std::max<Nanoseconds>(0, next_ns - now_ns - settings.spin_ns);
    const timespec timeout{static_cast<time_t>(wait_ns / kSecond),
                           static_cast<long>(wait_ns % kSecond)};
    const int ready =
        ppoll(watched.data(), watched.size(), next_ns == INT64_MAX ? nullptr : &timeout, nullptr);
    if (ready < 0 && errno != EINTR) {
      std::fprintf(stderr, "kairos-link-emulator: error: ppoll: %s\n", std::strerror(errno));
      status = 1;
      break;
    }
    if (ready > 0 && (watched[2].revents & POLLIN) != 0) {
      break;
    }
    if ((ready > 0 && watched[0].revents != 0 &&
         !receive_all(a_to_b, delays, settings.bandwidth_bps)) ||
        (ready > 0 && watched[1].revents != 0 &&
         !receive_all(b_to_a, delays, settings.bandwidth_bps))) {
      status = 1;
      break;
    }
  }

  print_direction(a_to_b);
  print_direction(b_to_a);
  std::printf(
      "link-lateness frames=%llu p50_us=%.1f p99_us=%.1f max_us=%.1f mean_us=%.1f "
      "pickup_p50_us=%.1f pickup_p99_us=%.1f pickup_max_us=%.1f run_s=%.1f\n",
      static_cast<unsigned long long>(measured.lateness.samples()),
      measured.lateness.percentile_us(0.5), measured.lateness.percentile_us(0.99),
      to_us(measured.lateness.max()), measured.lateness.mean_us(),
      measured.pickup.percentile_us(0.5), measured.pickup.percentile_us(0.99),
      to_us(measured.pickup.max()),
      static_cast<double>(monotonic_now() - started_ns) / static_cast<double>(kSecond));
  std::fflush(stdout);
  close(port_a.fd);
  close(port_b.fd);
  close(signals);
  return status;
}
