// The raw ping-pongs written for the bench, one per transport: the same messages (header +
// memcpy of the payload) over Unix stream and seqpacket sockets, TCP and UDP on loopback, and
// a shared-memory region handed over with futexes. The server cubes; nothing else happens.
#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "process.hpp"
#include "stack.hpp"
#include "wire.hpp"

namespace cubit {
namespace {

using wire::kMaxMessage;
using wire::Op;

/// Every blocking call of a client gives up after this long.
constexpr int kCallTimeoutMs = 5000;
/// A server with no client for this long exits (its parent is gone or stuck).
constexpr int kServerIdleMs = 60'000;

std::string errno_text(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

void set_timeouts(int fd, int timeout_ms) {
  timeval tv{timeout_ms / 1000, (timeout_ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

bool write_all(int fd, const unsigned char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return false;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

/// Splits a byte stream into messages; keeps what a read brought beyond the current one.
class StreamFramer {
 public:
  enum class Result { kMessage, kEnd, kError, kMalformed };
  Result next(int fd, const unsigned char*& message, std::size_t& size) {
    for (;;) {
      const std::size_t available = end_ - begin_;
      if (available >= wire::kHeaderBytes) {
        const std::size_t need = wire::message_size(buffer_ + begin_);
        if (need == 0) {
          return Result::kMalformed;
        }
        if (available >= need) {
          message = buffer_ + begin_;
          size = need;
          begin_ += need;
          return Result::kMessage;
        }
      }
      if (begin_ > 0 && sizeof buffer_ - end_ < kMaxMessage) {
        std::memmove(buffer_, buffer_ + begin_, available);
        begin_ = 0;
        end_ = available;
      }
      const ssize_t n = read(fd, buffer_ + end_, sizeof buffer_ - end_);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n == 0) {
        return Result::kEnd;
      }
      if (n < 0) {
        return Result::kError;
      }
      end_ += static_cast<std::size_t>(n);
    }
  }

 private:
  unsigned char buffer_[64 * 1024];
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

// ---- sockets ---------------------------------------------------------------------------

enum class SocketKind { kUdsStream, kUdsSeqpacket, kTcp, kUdp };

bool is_stream(SocketKind kind) {
  return kind == SocketKind::kUdsStream || kind == SocketKind::kTcp;
}

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  return address;
}

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

void no_delay(int fd) {
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

class SocketConnection final : public Connection {
 public:
  SocketConnection(int fd, SocketKind kind) : fd_(fd), kind_(kind) {}
  ~SocketConnection() override {
    if (kind_ == SocketKind::kUdp) {
      // A datagram server has no end of stream: tell it to leave.
      Value none;
      const std::size_t size = wire::encode(Op::kQuit, none, out_);
      send(fd_, out_, size, MSG_NOSIGNAL);
    }
    close(fd_);
  }

  bool call(const Value& request, Value& reply) override {
    if (!send_message(Op::kCall, request)) {
      return false;
    }
    const unsigned char* message = nullptr;
    std::size_t size = 0;
    if (!receive(message, size)) {
      return false;
    }
    Op op;
    if (!wire::decode(message, size, op, reply) || op != Op::kCall) {
      return fail("malformed reply");
    }
    return true;
  }

  bool send_oneway(const Value& request) override { return send_message(Op::kOneway, request); }

  bool oneway_totals(OnewayTotals& totals) override {
    Value none;
    if (kind_ != SocketKind::kUdp) {
      const unsigned char* message = nullptr;
      std::size_t size = 0;
      if (!send_message(Op::kTotals, none) || !receive(message, size)) {
        return false;
      }
      return wire::decode_totals(message, size, totals.count, totals.digest) ||
             fail("malformed totals");
    }
    // Over UDP the question or its answer may be lost while the burst still fills the
    // server's socket buffer: ask again every 5 ms (the totals are cumulative, so a repeated
    // answer is harmless). Answers left over from an earlier question are drained first.
    while (recv(fd_, in_, sizeof in_, MSG_DONTWAIT) > 0) {
    }
    set_timeouts(fd_, 5);
    bool answered = false;
    for (int attempt = 0; attempt < 1000 && !answered; ++attempt) {
      if (!send_message(Op::kTotals, none)) {
        break;
      }
      const ssize_t n = recv(fd_, in_, sizeof in_, 0);
      answered = n > 0 &&
                 wire::decode_totals(in_, static_cast<std::size_t>(n), totals.count, totals.digest);
    }
    set_timeouts(fd_, 1000);
    return answered || fail("no answer to the totals question over UDP");
  }

 private:
  bool send_message(Op op, const Value& value) {
    const std::size_t size = wire::encode(op, value, out_);
    if (is_stream(kind_)) {
      return write_all(fd_, out_, size) || fail(errno_text("send"));
    }
    for (;;) {
      const ssize_t n = send(fd_, out_, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n < 0 && kind_ == SocketKind::kUdp && errno == ECONNREFUSED) {
        continue;  // an ICMP error about an earlier datagram; this one may still go through
      }
      return n == static_cast<ssize_t>(size) || fail(errno_text("send"));
    }
  }

  bool receive(const unsigned char*& message, std::size_t& size) {
    if (is_stream(kind_)) {
      switch (framer_.next(fd_, message, size)) {
        case StreamFramer::Result::kMessage:
          return true;
        case StreamFramer::Result::kEnd:
          return fail("the server closed the connection");
        case StreamFramer::Result::kMalformed:
          return fail("malformed reply");
        case StreamFramer::Result::kError:
          return fail(errno_text("receive"));
      }
    }
    for (;;) {
      const ssize_t n = recv(fd_, in_, sizeof in_, 0);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n <= 0) {
        return fail(n == 0 ? std::string("the server closed the connection")
                           : errno_text("receive"));
      }
      message = in_;
      size = static_cast<std::size_t>(n);
      return true;
    }
  }

  int fd_;
  SocketKind kind_;
  StreamFramer framer_;
  unsigned char out_[kMaxMessage];
  unsigned char in_[kMaxMessage];
};

int serve_socket(SocketKind kind, const ServeContext& context) {
  const int type = kind == SocketKind::kUdsSeqpacket ? SOCK_SEQPACKET
                   : kind == SocketKind::kUdp        ? SOCK_DGRAM
                                                     : SOCK_STREAM;
  const bool unix_domain = kind == SocketKind::kUdsStream || kind == SocketKind::kUdsSeqpacket;
  const int listener = socket(unix_domain ? AF_UNIX : AF_INET, type | SOCK_CLOEXEC, 0);
  if (listener < 0) {
    std::perror("socket");
    return 1;
  }
  std::string endpoint;
  if (unix_domain) {
    endpoint = context.run_dir + "/" + context.token + ".sock";
    const sockaddr_un address = unix_address(endpoint);
    if (endpoint.size() >= sizeof address.sun_path ||
        bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
      std::perror("bind");
      return 1;
    }
  } else {
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    if (bind(listener, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      std::perror("bind");
      return 1;
    }
    endpoint = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  }
  if (kind != SocketKind::kUdp && listen(listener, 1) != 0) {
    std::perror("listen");
    return 1;
  }
  if (!announce(context, endpoint)) {
    return 1;
  }
  int fd = listener;
  if (kind != SocketKind::kUdp) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, kServerIdleMs) != 1) {
      std::fprintf(stderr, "cubit server: no client came\n");
      return 3;
    }
    fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      std::perror("accept");
      return 1;
    }
    close(listener);
    if (kind == SocketKind::kTcp) {
      no_delay(fd);
    }
  }
  set_timeouts(fd, kServerIdleMs);

  wire::Responder responder;
  if (context.wrong_reply >= 0) {
    responder.inject_wrong_reply(static_cast<std::uint64_t>(context.wrong_reply));
  }
  static unsigned char in[kMaxMessage];
  static unsigned char out[kMaxMessage];
  auto framer = std::make_unique<StreamFramer>();
  sockaddr_in peer{};
  for (;;) {
    const unsigned char* message = in;
    std::size_t size = 0;
    socklen_t peer_length = sizeof peer;
    if (is_stream(kind)) {
      const auto result = framer->next(fd, message, size);
      if (result == StreamFramer::Result::kEnd) {
        return 0;
      }
      if (result != StreamFramer::Result::kMessage) {
        std::fprintf(stderr, "cubit server: %s\n",
                     result == StreamFramer::Result::kMalformed ? "malformed message"
                                                                : std::strerror(errno));
        return result == StreamFramer::Result::kMalformed ? 4 : 3;
      }
    } else {
      const ssize_t n =
          kind == SocketKind::kUdp
              ? recvfrom(fd, in, sizeof in, 0, reinterpret_cast<sockaddr*>(&peer), &peer_length)
              : recv(fd, in, sizeof in, 0);
      if (n < 0 && errno == EINTR) {
        continue;
      }
      if (n == 0 && kind == SocketKind::kUdsSeqpacket) {
        return 0;
      }
      if (n <= 0) {
        std::fprintf(stderr, "cubit server: %s\n",
                     n == 0 ? "empty datagram" : std::strerror(errno));
        return 3;
      }
      size = static_cast<std::size_t>(n);
    }
    std::size_t reply_size = 0;
    switch (responder.handle(message, size, out, reply_size)) {
      case wire::Responder::Outcome::kReply: {
        const bool sent =
            is_stream(kind) ? write_all(fd, out, reply_size)
            : kind == SocketKind::kUdp
                ? sendto(fd, out, reply_size, 0, reinterpret_cast<const sockaddr*>(&peer),
                         peer_length) == static_cast<ssize_t>(reply_size)
                : send(fd, out, reply_size, MSG_NOSIGNAL) == static_cast<ssize_t>(reply_size);
        if (!sent && kind != SocketKind::kUdp) {
          return 0;  // the client left
        }
        break;
      }
      case wire::Responder::Outcome::kNoReply:
        break;
      case wire::Responder::Outcome::kQuit:
        return 0;
      case wire::Responder::Outcome::kMalformed:
        std::fprintf(stderr, "cubit server: malformed message\n");
        return 4;
    }
  }
}

std::unique_ptr<Connection> connect_socket(SocketKind kind, const std::string& endpoint,
                                           std::string& error) {
  const bool unix_domain = kind == SocketKind::kUdsStream || kind == SocketKind::kUdsSeqpacket;
  const int type = kind == SocketKind::kUdsSeqpacket ? SOCK_SEQPACKET
                   : kind == SocketKind::kUdp        ? SOCK_DGRAM
                                                     : SOCK_STREAM;
  const int fd = socket(unix_domain ? AF_UNIX : AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    error = errno_text("socket");
    return nullptr;
  }
  int connected = -1;
  if (unix_domain) {
    const sockaddr_un address = unix_address(endpoint);
    connected = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  } else {
    const auto colon = endpoint.rfind(':');
    const int port = colon == std::string::npos ? 0 : std::atoi(endpoint.c_str() + colon + 1);
    const sockaddr_in address = loopback(static_cast<std::uint16_t>(port));
    connected = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  }
  if (connected != 0) {
    error = errno_text(("connect " + endpoint).c_str());
    close(fd);
    return nullptr;
  }
  if (kind == SocketKind::kTcp) {
    no_delay(fd);
  }
  set_timeouts(fd, kind == SocketKind::kUdp ? 1000 : kCallTimeoutMs);
  return std::make_unique<SocketConnection>(fd, kind);
}

// ---- shared memory ---------------------------------------------------------------------

// Futexes on a MAP_SHARED region: the shared (not PRIVATE) operations, keyed by the page.
void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected, int timeout_ms) {
  timespec timeout{timeout_ms / 1000, (timeout_ms % 1000) * 1'000'000L};
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT, expected, &timeout,
          nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE, 1, nullptr, nullptr, 0);
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

/// How long a waiter polls its word before it sleeps in the kernel (the spin variant): long
/// enough for a reply from a process running on another CPU, short enough not to starve a
/// peer that shares this CPU for long.
constexpr std::int64_t kSpinNs = 10'000;

/// A word one side bumps and the other waits on, with a flag that spares the bumping side the
/// wake-up syscall while the waiter is not asleep. The flag and the word are both seq_cst: the
/// waiter stores the flag then reads the word, the bumper bumps the word then reads the flag,
/// so at least one of them sees the other.
struct alignas(64) Signal {
  std::atomic<std::uint32_t> word{0};
  std::atomic<std::uint32_t> sleeping{0};

  void raise() {
    word.fetch_add(1, std::memory_order_seq_cst);
    if (sleeping.load(std::memory_order_seq_cst) != 0) {
      futex_wake(word);
    }
  }
  /// Waits until `word` differs from `seen` or `timeout_ms` passes; false on timeout.
  bool wait(std::uint32_t seen, bool spin, int timeout_ms) {
    if (word.load(std::memory_order_acquire) != seen) {
      return true;
    }
    if (spin) {
      const std::int64_t end = now_ns() + kSpinNs;
      for (unsigned i = 1;; ++i) {
        if (word.load(std::memory_order_acquire) != seen) {
          return true;
        }
        cpu_relax();
        if ((i & 63) == 0 && now_ns() >= end) {
          break;
        }
      }
    }
    const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1'000'000;
    for (;;) {
      sleeping.store(1, std::memory_order_seq_cst);
      if (word.load(std::memory_order_seq_cst) == seen) {
        const std::int64_t left_ms = (deadline - now_ns()) / 1'000'000;
        futex_wait(word, seen, static_cast<int>(left_ms < 1 ? 1 : left_ms > 100 ? 100 : left_ms));
      }
      sleeping.store(0, std::memory_order_relaxed);
      if (word.load(std::memory_order_acquire) != seen) {
        return true;
      }
      if (now_ns() >= deadline) {
        return false;
      }
    }
  }
};

struct Mailbox {
  std::uint32_t size = 0;
  alignas(64) unsigned char data[kMaxMessage];
};

/// Oneway messages: a single-producer single-consumer ring; the producer waits when it is full.
constexpr std::uint32_t kRingSlots = 64;
struct Ring {
  alignas(64) std::atomic<std::uint32_t> head{0};  // next slot the client fills
  Signal tail;                                     // word: next slot the server reads
  Mailbox slots[kRingSlots];
};

constexpr std::uint32_t kRegionMagic = 0xCB175A11;

struct Region {
  std::uint32_t magic = 0;
  Signal doorbell;  // raised by the client for a request or a ring entry; the server waits
  Signal answered;  // raised by the server when a reply is in `reply`; the client waits
  alignas(64) std::atomic<std::uint32_t> requests{0};  // requests posted so far
  Mailbox request;
  Mailbox reply;
  Ring ring;
};

class ShmConnection final : public Connection {
 public:
  ShmConnection(Region* region, bool spin) : region_(region), spin_(spin) {}
  ~ShmConnection() override {
    Value none;
    post(Op::kQuit, none);
    munmap(region_, sizeof(Region));
  }

  bool call(const Value& request, Value& reply) override {
    const std::uint32_t seen = region_->answered.word.load(std::memory_order_acquire);
    post(Op::kCall, request);
    if (!region_->answered.wait(seen, spin_, kCallTimeoutMs)) {
      return fail("no reply within " + std::to_string(kCallTimeoutMs) + " ms");
    }
    Op op;
    if (!wire::decode(region_->reply.data, region_->reply.size, op, reply) || op != Op::kCall) {
      return fail("malformed reply");
    }
    return true;
  }

  bool send_oneway(const Value& request) override {
    Ring& ring = region_->ring;
    const std::uint32_t head = ring.head.load(std::memory_order_relaxed);
    const std::int64_t deadline = now_ns() + std::int64_t{kCallTimeoutMs} * 1'000'000;
    for (;;) {
      const std::uint32_t tail = ring.tail.word.load(std::memory_order_acquire);
      if (head - tail < kRingSlots) {
        break;
      }
      if (now_ns() >= deadline || !ring.tail.wait(tail, spin_, kCallTimeoutMs)) {
        return fail("the oneway ring stayed full");
      }
    }
    Mailbox& slot = ring.slots[head % kRingSlots];
    slot.size = static_cast<std::uint32_t>(wire::encode(Op::kOneway, request, slot.data));
    ring.head.store(head + 1, std::memory_order_release);
    region_->doorbell.raise();
    return true;
  }

  bool oneway_totals(OnewayTotals& totals) override {
    const std::uint32_t seen = region_->answered.word.load(std::memory_order_acquire);
    Value none;
    post(Op::kTotals, none);
    if (!region_->answered.wait(seen, spin_, kCallTimeoutMs)) {
      return fail("no totals within " + std::to_string(kCallTimeoutMs) + " ms");
    }
    if (!wire::decode_totals(region_->reply.data, region_->reply.size, totals.count,
                             totals.digest)) {
      return fail("malformed totals");
    }
    return true;
  }

 private:
  void post(Op op, const Value& value) {
    region_->request.size =
        static_cast<std::uint32_t>(wire::encode(op, value, region_->request.data));
    region_->requests.fetch_add(1, std::memory_order_release);
    region_->doorbell.raise();
  }

  Region* region_;
  bool spin_;
};

std::string shm_name(const std::string& token) {
  return "/kairos-cubit-" + token;
}

Region* map_region(int fd) {
  void* memory = mmap(nullptr, sizeof(Region), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return memory == MAP_FAILED ? nullptr : static_cast<Region*>(memory);
}

int serve_shm(bool spin, const ServeContext& context) {
  const std::string name = shm_name(context.token);
  const int fd = shm_open(name.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    std::perror("shm_open");
    return 1;
  }
  Region* region = nullptr;
  if (ftruncate(fd, sizeof(Region)) != 0 || (region = map_region(fd)) == nullptr) {
    std::perror("shared memory");
    shm_unlink(name.c_str());
    return 1;
  }
  close(fd);
  new (region) Region();
  region->magic = kRegionMagic;
  if (!announce(context, name)) {
    shm_unlink(name.c_str());
    return 1;
  }

  wire::Responder responder;
  if (context.wrong_reply >= 0) {
    responder.inject_wrong_reply(static_cast<std::uint64_t>(context.wrong_reply));
  }
  Ring& ring = region->ring;
  std::uint32_t handled = 0;
  unsigned char unused[kMaxMessage];
  auto drain_ring = [&]() -> bool {
    std::uint32_t tail = ring.tail.word.load(std::memory_order_relaxed);
    while (tail != ring.head.load(std::memory_order_acquire)) {
      const Mailbox& slot = ring.slots[tail % kRingSlots];
      std::size_t reply_size = 0;
      if (slot.size > kMaxMessage || responder.handle(slot.data, slot.size, unused, reply_size) !=
                                         wire::Responder::Outcome::kNoReply) {
        return false;
      }
      ++tail;
      ring.tail.raise();
    }
    return true;
  };
  std::int64_t idle_since = now_ns();
  int status = 0;
  for (bool running = true; running;) {
    // Read the doorbell first: anything posted after this read changes it, so the wait below
    // cannot miss it.
    const std::uint32_t seen = region->doorbell.word.load(std::memory_order_seq_cst);
    if (!drain_ring()) {
      std::fprintf(stderr, "cubit server: malformed oneway message\n");
      status = 4;
      break;
    }
    if (region->requests.load(std::memory_order_acquire) != handled) {
      ++handled;
      // Oneways posted before this request are in the ring already: handle them first.
      if (!drain_ring()) {
        status = 4;
        break;
      }
      std::size_t reply_size = 0;
      const std::uint32_t size = region->request.size;
      switch (size > kMaxMessage
                  ? wire::Responder::Outcome::kMalformed
                  : responder.handle(region->request.data, size, region->reply.data, reply_size)) {
        case wire::Responder::Outcome::kReply:
          region->reply.size = static_cast<std::uint32_t>(reply_size);
          region->answered.raise();
          break;
        case wire::Responder::Outcome::kNoReply:
          break;
        case wire::Responder::Outcome::kQuit:
          running = false;
          break;
        case wire::Responder::Outcome::kMalformed:
          std::fprintf(stderr, "cubit server: malformed request\n");
          status = 4;
          running = false;
          break;
      }
      idle_since = now_ns();
      continue;
    }
    if (!region->doorbell.wait(seen, spin, 100)) {
      if (now_ns() - idle_since > std::int64_t{kServerIdleMs} * 1'000'000 || getppid() == 1) {
        std::fprintf(stderr, "cubit server: no client for %d ms\n", kServerIdleMs);
        status = 3;
        break;
      }
    } else {
      idle_since = now_ns();
    }
  }
  shm_unlink(name.c_str());
  munmap(region, sizeof(Region));
  return status;
}

std::unique_ptr<Connection> connect_shm(bool spin, const std::string& endpoint,
                                        std::string& error) {
  const int fd = shm_open(endpoint.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    error = errno_text(("shm_open " + endpoint).c_str());
    return nullptr;
  }
  struct stat info {};
  Region* region = nullptr;
  if (fstat(fd, &info) == 0 && static_cast<std::size_t>(info.st_size) == sizeof(Region)) {
    region = map_region(fd);
  }
  close(fd);
  // Both sides have it mapped now: the name is no longer needed.
  shm_unlink(endpoint.c_str());
  if (region == nullptr || region->magic != kRegionMagic) {
    error = "shared memory region " + endpoint + " is not a cubit region";
    if (region != nullptr) {
      munmap(region, sizeof(Region));
    }
    return nullptr;
  }
  return std::make_unique<ShmConnection>(region, spin);
}

// ---- the stack -------------------------------------------------------------------------

class RawStack final : public Stack {
 public:
  std::string name() const override { return "raw"; }
  std::vector<Transport> transports() const override {
    return {{"uds-stream", Family::kUds}, {"uds-seqpacket", Family::kUds},
            {"tcp", Family::kTcp},        {"udp", Family::kUdp},
            {"shm-futex", Family::kShm},  {"shm-spin", Family::kShm}};
  }

  int serve(const Transport& transport, const ServeContext& context) override {
    if (transport.family == Family::kShm) {
      return serve_shm(transport.name == "shm-spin", context);
    }
    return serve_socket(socket_kind(transport), context);
  }

  std::unique_ptr<Connection> connect(const Transport& transport, const std::string& endpoint,
                                      std::string& error) override {
    if (transport.family == Family::kShm) {
      return connect_shm(transport.name == "shm-spin", endpoint, error);
    }
    return connect_socket(socket_kind(transport), endpoint, error);
  }

 private:
  static SocketKind socket_kind(const Transport& transport) {
    return transport.name == "uds-stream"      ? SocketKind::kUdsStream
           : transport.name == "uds-seqpacket" ? SocketKind::kUdsSeqpacket
           : transport.name == "tcp"           ? SocketKind::kTcp
                                               : SocketKind::kUdp;
  }
};

}  // namespace

std::unique_ptr<Stack> make_raw_stack() {
  return std::make_unique<RawStack>();
}

}  // namespace cubit
