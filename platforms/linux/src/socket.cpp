#include <kairos/kal/socket.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>

#include "shared_memory.hpp"
#include "tls.hpp"

namespace kairos::kal {

namespace {
/// The sockaddr of an endpoint; false if the address does not parse.
bool address_of(const Endpoint& endpoint, sockaddr_storage& storage, socklen_t& length) {
  std::memset(&storage, 0, sizeof storage);
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    auto* unix_address = reinterpret_cast<sockaddr_un*>(&storage);
    unix_address->sun_family = AF_UNIX;
    // parse_endpoint keeps paths shorter than sun_path, NUL included.
    static_assert(sizeof endpoint.address <= sizeof unix_address->sun_path);
    std::memcpy(unix_address->sun_path, endpoint.address, sizeof endpoint.address);
    length = sizeof(sockaddr_un);
    return true;
  }
  auto* inet = reinterpret_cast<sockaddr_in*>(&storage);
  inet->sin_family = AF_INET;
  inet->sin_port = htons(endpoint.port);
  const char* host =
      std::strcmp(endpoint.address, "localhost") == 0 ? "127.0.0.1" : endpoint.address;
  length = sizeof(sockaddr_in);
  return inet_pton(AF_INET, host, &inet->sin_addr) == 1;
}

/// What a non-blocking recv gives: bytes read, 0 if none yet, -1 on error or when the peer closed
/// the stream.
std::int64_t receive_bytes(int handle, Endpoint::Kind kind, std::span<std::byte> buffer) {
  const ssize_t received = ::recv(handle, buffer.data(), buffer.size(), MSG_DONTWAIT);
  if (received < 0) {
    return errno == EAGAIN ? 0 : -1;
  }
  if (received == 0 && kind != Endpoint::Kind::kUdp && !buffer.empty()) {
    return -1;  // the peer closed the stream
  }
  return received;
}

int open_socket(Endpoint::Kind kind, Transfer transfer) {
  const int domain = kind == Endpoint::Kind::kUnix ? AF_UNIX : AF_INET;
  int type = SOCK_STREAM;
  if (kind == Endpoint::Kind::kUdp) {
    type = SOCK_DGRAM;
  } else if (transfer == Transfer::kMessages) {
    type = SOCK_SEQPACKET;
  }
  return ::socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
}

/// The scheduler tick, which socket timeouts count in: the resolution of the coarse clock, which
/// the kernel advances once per tick (10 ms if it cannot be read, the longest usual tick).
Duration scheduler_tick() {
  timespec resolution{};
  if (::clock_getres(CLOCK_MONOTONIC_COARSE, &resolution) != 0 || resolution.tv_sec != 0 ||
      resolution.tv_nsec <= 0) {
    return std::chrono::milliseconds{10};
  }
  return std::chrono::nanoseconds{resolution.tv_nsec};
}

/// Whole milliseconds from now until `deadline`, rounded up (0 once it has passed).
int milliseconds_until(TimePoint deadline) {
  const auto remaining = deadline - MonotonicClock::now();
  if (remaining <= Duration::zero()) {
    return 0;
  }
  return static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(remaining).count() +
                          1);
}

/// A new non-blocking socket for `endpoint` and its address; a status other than kOk if the
/// address does not parse or no socket can be had.
Status open_for(const Endpoint& endpoint, Transfer transfer, int& handle, sockaddr_storage& address,
                socklen_t& length) {
  if (!address_of(endpoint, address, length)) {
    return Status::kInvalidArgument;
  }
  if (transfer == Transfer::kMessages && endpoint.kind == Endpoint::Kind::kTcp) {
    return Status::kInvalidArgument;  // a TCP stream has no message boundaries
  }
  handle = open_socket(endpoint.kind, transfer);
  return handle < 0 ? Status::kResourceExhausted : Status::kOk;
}

void tune_stream(int handle, Endpoint::Kind kind) {
  if (kind == Endpoint::Kind::kTcp) {
    const int on = 1;
    setsockopt(handle, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
  }
}
}  // namespace

bool someone_listens(const sockaddr_storage& address, socklen_t length,
                     Transfer transfer) noexcept {
  const int probe = open_socket(Endpoint::Kind::kUnix, transfer);
  if (probe < 0) {
    return false;
  }
  const bool accepted =
      ::connect(probe, reinterpret_cast<const sockaddr*>(&address), length) == 0 ||
      errno == EINPROGRESS || errno == EAGAIN;
  ::close(probe);
  return accepted;
}

void remove_endpoint_file(const Endpoint& endpoint) noexcept {
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    ::unlink(endpoint.address);
  } else if (endpoint.kind == Endpoint::Kind::kShm) {
    shm::remove_setup_file(endpoint);
  }
}

Socket::~Socket() {
  close();
}

void Socket::close() noexcept {
  tls::release(tls_);
  tls_ = nullptr;
  blocking_receive_ = false;
  receive_timeout_ = Duration::zero();
  if (shared_memory()) {
    shm::close(handle_, link_);
    return;
  }
  if (handle_ >= 0) {
    ::close(handle_);
    handle_ = -1;
  }
}

Status Socket::listen(const Endpoint& endpoint, Transfer transfer, LocalPeers peers) noexcept {
  close();
  local_peers_ = peers;
  if (endpoint.kind == Endpoint::Kind::kShm) {
    if (transfer != Transfer::kMessages) {
      return Status::kInvalidArgument;  // a ring carries whole messages only
    }
    kind_ = endpoint.kind;
    transfer_ = transfer;
    return shm::listen(endpoint, peers, handle_);
  }
  sockaddr_storage address{};
  socklen_t length = 0;
  if (const Status status = open_for(endpoint, transfer, handle_, address, length);
      status != Status::kOk) {
    return status;
  }
  kind_ = endpoint.kind;
  transfer_ = transfer;
  if (endpoint.kind == Endpoint::Kind::kTcp) {
    // Rebinding a port an earlier run left in TIME_WAIT. Not for UDP, where it would let a second
    // socket bind a port already taken (and share its datagrams) instead of failing.
    const int on = 1;
    setsockopt(handle_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  }
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    // A socket file is left behind by a run that ended; one a process still listens on is not
    // ours to take over (its node would serve nothing more, silently).
    if (someone_listens(address, length, transfer)) {
      close();
      return Status::kAddressInUse;
    }
    ::unlink(endpoint.address);
  }
  if (::bind(handle_, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    const Status status = errno == EACCES       ? Status::kPermissionDenied
                          : errno == EADDRINUSE ? Status::kAddressInUse
                                                : Status::kPlatformError;
    close();
    return status;
  }
  // The socket file for this node's user (and the group) alone, before anyone can connect
  // (listen below); each connection's peer is checked on accept too.
  if (endpoint.kind == Endpoint::Kind::kUnix) {
    if (const Status guarded = shm::guard_socket_file(endpoint.address, peers);
        guarded != Status::kOk) {
      close();
      ::unlink(endpoint.address);
      return guarded;
    }
  }
  if (endpoint.kind != Endpoint::Kind::kUdp && ::listen(handle_, 64) != 0) {
    close();
    return Status::kPlatformError;
  }
  return Status::kOk;
}

Status Socket::connect(const Endpoint& endpoint, TimePoint deadline, Transfer transfer) noexcept {
  close();
  if (endpoint.kind == Endpoint::Kind::kShm) {
    if (transfer != Transfer::kMessages) {
      return Status::kInvalidArgument;
    }
    kind_ = endpoint.kind;
    transfer_ = transfer;
    return shm::connect(endpoint, deadline, handle_, link_);
  }
  sockaddr_storage address{};
  socklen_t length = 0;
  if (const Status status = open_for(endpoint, transfer, handle_, address, length);
      status != Status::kOk) {
    return status;
  }
  kind_ = endpoint.kind;
  transfer_ = transfer;
  if (::connect(handle_, reinterpret_cast<sockaddr*>(&address), length) == 0) {
    tune_stream(handle_, kind_);
    return Status::kOk;
  }
  if (errno != EINPROGRESS && errno != EAGAIN) {
    close();
    return Status::kPlatformError;
  }
  pollfd waiting{handle_, POLLOUT, 0};
  const int timeout_ms = milliseconds_until(deadline);
  int error = 0;
  socklen_t error_length = sizeof error;
  if (::poll(&waiting, 1, timeout_ms) != 1 ||
      getsockopt(handle_, SOL_SOCKET, SO_ERROR, &error, &error_length) != 0 || error != 0) {
    close();
    return Status::kPlatformError;
  }
  tune_stream(handle_, kind_);
  return Status::kOk;
}

Status Socket::accept(Socket& connection) noexcept {
  if (kind_ == Endpoint::Kind::kShm) {
    connection.close();
    connection.kind_ = kind_;
    connection.transfer_ = transfer_;
    return shm::accept(handle_, local_peers_, connection.handle_, connection.link_);
  }
  const int handle = ::accept4(handle_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (handle < 0) {
    return errno == EAGAIN ? Status::kResourceExhausted : Status::kPlatformError;
  }
  if (kind_ == Endpoint::Kind::kUnix && !shm::peer_is_trusted(handle, local_peers_)) {
    ::close(handle);
    return Status::kPermissionDenied;
  }
  connection.close();
  connection.handle_ = handle;
  connection.kind_ = kind_;
  connection.transfer_ = transfer_;
  tune_stream(handle, kind_);
  return Status::kOk;
}

std::int64_t Socket::send(std::span<const std::byte> data) noexcept {
  if (shared_memory()) {
    return shm::send(link_, data);
  }
  if (tls_ != nullptr) {
    return tls::send(*tls_, handle_, data);
  }
  const ssize_t sent = ::send(handle_, data.data(), data.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  if (sent < 0) {
    return errno == EAGAIN ? 0 : -1;
  }
  return sent;
}

std::int64_t Socket::receive(std::span<std::byte> buffer) noexcept {
  if (shared_memory()) {
    return shm::receive(handle_, link_, buffer);
  }
  if (tls_ != nullptr) {
    return tls::receive(*tls_, handle_, buffer);
  }
  return receive_bytes(handle_, kind_, buffer);
}

void Socket::shutdown() noexcept {
  if (shared_memory()) {
    shm::shutdown(link_);
    return;
  }
  if (handle_ >= 0) {
    ::shutdown(handle_, SHUT_RDWR);
  }
}

std::int64_t Socket::receive_within(std::span<std::byte> buffer, TimePoint deadline) noexcept {
  if (tls_ != nullptr) {
    // What the channel holds opened first; then the same blocking read as without TLS, into the
    // channel's buffer, until a whole record is there.
    for (;;) {
      if (const std::int64_t got = tls::receive(*tls_, handle_, buffer, false); got != 0) {
        return got;
      }
      const std::span<std::byte> space = tls::raw_space(*tls_);
      const std::int64_t got = receive_raw_within(space, deadline);
      if (got <= 0) {
        return got;
      }
      tls::raw_received(*tls_, static_cast<std::size_t>(got));
    }
  }
  return receive_raw_within(buffer, deadline);
}

std::int64_t Socket::receive_raw_within(std::span<std::byte> buffer, TimePoint deadline) noexcept {
  if (!shared_memory() && kind_ != Endpoint::Kind::kUdp && !buffer.empty()) {
    // A blocking recv under SO_RCVTIMEO wakes with the data in one system call, where ppoll and
    // recv take two. SO_RCVTIMEO counts scheduler ticks, rounded up, so it only covers the wait
    // up to a guard of one tick and a millisecond before the deadline; the last stretch is
    // waited with ppoll, whose timer keeps the deadline to the nanosecond. The timeout is set
    // again only when the one in force would reach into the guard, so calls with similar
    // budgets set it once.
    static const Duration tick_guard = scheduler_tick() + std::chrono::milliseconds{1};
    for (;;) {
      const Duration blocking_for = deadline - MonotonicClock::now() - tick_guard;
      if (blocking_for < std::chrono::milliseconds{1}) {
        break;
      }
      if (!blocking_receive_) {
        const int flags = ::fcntl(handle_, F_GETFL);
        if (flags < 0 || ::fcntl(handle_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
          break;
        }
        blocking_receive_ = true;
      }
      if (receive_timeout_ == Duration::zero() || receive_timeout_ > blocking_for) {
        const auto timeout = std::chrono::duration_cast<std::chrono::microseconds>(blocking_for);
        const timeval value{static_cast<time_t>(timeout.count() / 1'000'000),
                            static_cast<suseconds_t>(timeout.count() % 1'000'000)};
        if (::setsockopt(handle_, SOL_SOCKET, SO_RCVTIMEO, &value, sizeof value) != 0) {
          break;
        }
        receive_timeout_ = timeout;
      }
      const ssize_t received = ::recv(handle_, buffer.data(), buffer.size(), 0);
      if (received > 0) {
        return received;
      }
      if (received == 0) {
        return -1;  // the peer closed the stream
      }
      if (errno != EAGAIN && errno != EINTR) {
        return -1;
      }
    }
  }
  if (!wait_readable(deadline)) {
    return 0;
  }
  // Below TLS: the bytes themselves, for the channel to open.
  return tls_ != nullptr ? receive_bytes(handle_, kind_, buffer) : receive(buffer);
}

bool Socket::wait_readable(TimePoint deadline) noexcept {
  if (shared_memory()) {
    return shm::wait_readable(handle_, link_, deadline);
  }
  if (holds_input()) {
    return true;
  }
  pollfd waiting{handle_, POLLIN, 0};
  for (;;) {
    // ppoll, not poll: a call's deadline is kept to the nanosecond, not rounded to milliseconds.
    const auto remaining = deadline - MonotonicClock::now();
    const std::int64_t nanoseconds = remaining.count() > 0 ? remaining.count() : 0;
    const timespec timeout{static_cast<time_t>(nanoseconds / 1'000'000'000),
                           static_cast<long>(nanoseconds % 1'000'000'000)};
    const int ready = ::ppoll(&waiting, 1, &timeout, nullptr);
    if (ready > 0) {
      return true;
    }
    if (ready == 0 || errno != EINTR) {
      return false;
    }
  }
}

Poller::~Poller() {
  if (handle_ >= 0) {
    ::close(handle_);
  }
}

Status Poller::open() noexcept {
  if (handle_ < 0) {
    handle_ = epoll_create1(EPOLL_CLOEXEC);
    if (handle_ < 0) {
      return Status::kResourceExhausted;
    }
  }
  return Status::kOk;
}

Status Poller::add(const Socket& socket, std::uint64_t tag) noexcept {
  if (const Status opened = open(); opened != Status::kOk) {
    return opened;
  }
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = tag;
  if (epoll_ctl(handle_, EPOLL_CTL_ADD, socket.native_handle(), &event) != 0) {
    return Status::kPlatformError;
  }
  // A shm: connection is readable when its doorbell rings or its set-up socket shows the peer
  // gone: both wake the watcher with the same tag, and receive() tells which.
  if (socket.shared_memory() &&
      epoll_ctl(handle_, EPOLL_CTL_ADD, socket.link_.lifeline, &event) != 0) {
    epoll_ctl(handle_, EPOLL_CTL_DEL, socket.native_handle(), nullptr);
    return Status::kPlatformError;
  }
  return Status::kOk;
}

void Poller::remove(const Socket& socket) noexcept {
  if (handle_ >= 0 && socket.is_open()) {
    epoll_ctl(handle_, EPOLL_CTL_DEL, socket.native_handle(), nullptr);
    if (socket.shared_memory()) {
      epoll_ctl(handle_, EPOLL_CTL_DEL, socket.link_.lifeline, nullptr);
    }
  }
}

std::size_t Poller::wait(TimePoint deadline, std::span<std::uint64_t> ready) noexcept {
  if (handle_ < 0 || ready.empty()) {
    sleep_until(deadline);  // nothing to watch yet: wait as long as asked, never spin
    return 0;
  }
  constexpr std::size_t kBatch = 64;
  epoll_event events[kBatch];
  const int timeout_ms = milliseconds_until(deadline);
  const int wanted = static_cast<int>(ready.size() < kBatch ? ready.size() : kBatch);
  int count = epoll_wait(handle_, events, wanted, timeout_ms);
  if (count < 0) {
    count = 0;
  }
  for (int i = 0; i < count; ++i) {
    ready[static_cast<std::size_t>(i)] = events[i].data.u64;
  }
  return static_cast<std::size_t>(count);
}

}  // namespace kairos::kal
