// Linux: shared-memory connections. The server, on accepting a set-up connection on a Unix socket
// (a file of its user's alone), creates a sealed memfd holding two message rings and two eventfd
// doorbells, and passes them with SCM_RIGHTS; from then on bytes move through the rings without a
// system call, and a doorbell is rung only when its reader said it is going to sleep (as a futex
// handoff does). The set-up socket stays open: it becomes readable when the peer dies or shuts the
// connection down, which is how either side learns that the other is gone.
#include "shared_memory.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <kairos/kal/shared_memory_ring.hpp>

namespace kairos::kal::shm {

namespace {
/// How long a reader that expects a message soon spins before it sleeps on its doorbell: a
/// sleeping reader costs its sender a system call and itself a wake-up of several microseconds.
/// Measured with bench/cubit (kairos over shm, 2 vCPUs): 0, 5 and 10 us rarely catch a reply
/// (the server's path is longer), 20 us catches most and 40 us gains nothing more; bounded so
/// that a reader sharing a CPU with its sender wastes little.
constexpr Duration kSpinBudget = std::chrono::microseconds{20};
constexpr int kDoorbells = 2;

void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

MessageRing ring_of(const SharedMemoryLink& link, bool reading) noexcept {
  // The client writes ring 0 and reads ring 1; the server the other way round.
  const std::size_t index = (link.server == reading) ? 0 : 1;
  return MessageRing(link.mapping + Layout::kControlOffset[index],
                     link.mapping + Layout::kDataOffset[index]);
}

void ring_doorbell(int doorbell) noexcept {
  const std::uint64_t one = 1;
  // A full counter (never, in practice) or a gone peer: the bell is rung either way.
  [[maybe_unused]] const ssize_t written = ::write(doorbell, &one, sizeof one);
}

void drain(int doorbell) noexcept {
  std::uint64_t count = 0;
  [[maybe_unused]] const ssize_t got = ::read(doorbell, &count, sizeof count);
}

/// The reader stops asking for doorbells (it is awake and looking at the ring).
void disarm(SharedMemoryLink& link, const MessageRing& ring) noexcept {
  if (!link.armed) {
    return;
  }
  if (ring.sleeping().exchange(0, std::memory_order_acq_rel) == 0) {
    link.bell_set = true;  // a sender took the flag first, and rang
  }
  link.armed = false;
}

/// The reader asks to be rung for the next message, with its doorbell drained. False if a
/// message is in the ring already (then the caller takes it rather than sleep).
bool arm(int handle, SharedMemoryLink& link, const MessageRing& ring) noexcept {
  if (link.armed) {
    if (ring.sleeping().load(std::memory_order_acquire) != 0) {
      return !ring.ready(link.read_position);
    }
    link.armed = false;  // a sender took the flag, and rang
    link.bell_set = true;
  }
  if (link.bell_set) {
    drain(handle);
    link.bell_set = false;
  }
  ring.sleeping().store(1, std::memory_order_relaxed);
  link.armed = true;
  // Pairs with the sender's fence between its commit and its look at `sleeping`: either the
  // sender sees the flag and rings, or this look sees its message.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (!ring.ready(link.read_position)) {
    return true;
  }
  disarm(link, ring);
  return false;
}

/// A message stays in the ring after a receive: its doorbell must stay readable, so that a
/// level-triggered watcher (the Poller) comes back for it.
void keep_ready(int handle, SharedMemoryLink& link, const MessageRing& ring) noexcept {
  if (link.armed) {
    if (ring.sleeping().load(std::memory_order_acquire) != 0) {
      return;  // committed after this reader armed: its sender sees the flag and rings
    }
    link.armed = false;
    link.bell_set = true;
    return;
  }
  if (!link.bell_set) {
    ring_doorbell(handle);
    link.bell_set = true;
  }
}

/// Whether the set-up socket still shows the peer there (nothing is ever sent on it after the
/// set-up: readable means closed).
bool peer_alive(const SharedMemoryLink& link) noexcept {
  std::byte probe{};
  const ssize_t got = ::recv(link.lifeline, &probe, 1, MSG_PEEK | MSG_DONTWAIT);
  return got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

/// ppoll until `deadline`, to the nanosecond; the number ready, 0 on timeout, -1 on error.
int poll_until(pollfd* fds, nfds_t count, TimePoint deadline) noexcept {
  for (;;) {
    const auto remaining = deadline - MonotonicClock::now();
    const std::int64_t nanoseconds = remaining.count() > 0 ? remaining.count() : 0;
    const timespec timeout{static_cast<time_t>(nanoseconds / 1'000'000'000),
                           static_cast<long>(nanoseconds % 1'000'000'000)};
    const int ready = ::ppoll(fds, count, &timeout, nullptr);
    if (ready >= 0 || errno != EINTR) {
      return ready;
    }
  }
}

bool is_eventfd(int fd) noexcept {
  char path[32];
  char target[64] = {};
  std::snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  const ssize_t length = ::readlink(path, target, sizeof target - 1);
  return length > 0 && std::strcmp(target, "anon_inode:[eventfd]") == 0;
}

void close_fd(int& fd) noexcept {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}

/// Makes `link` the state of a new connection over `mapping`, read through `handle`.
void open_link(SharedMemoryLink& link, std::byte* mapping, int lifeline, int peer_doorbell,
               bool server) noexcept {
  link.mapping = mapping;
  link.lifeline = lifeline;
  link.peer_doorbell = peer_doorbell;
  link.server = server;
  link.read_position = 0;
  link.armed = true;  // the server starts both rings with `sleeping` set
  link.bell_set = false;
  link.peer_gone = false;
  link.empty_reads = 0;
  link.shut_down.store(false, std::memory_order_relaxed);
}
}  // namespace

Status listen(const Endpoint& endpoint, LocalPeers peers, int& handle) noexcept {
  sockaddr_un address{};
  socklen_t length = 0;
  if (!setup_address(endpoint.address, address, length)) {
    return Status::kInvalidArgument;
  }
  handle = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (handle < 0) {
    return Status::kResourceExhausted;
  }
  // A file left by a run that ended is taken over; one a process still listens on is not (its
  // node would serve nothing more, silently), as for a uds: endpoint.
  sockaddr_storage probed{};
  std::memcpy(&probed, &address, sizeof address);
  if (someone_listens(probed, length, Transfer::kMessages)) {
    close_fd(handle);
    return Status::kAddressInUse;
  }
  ::unlink(address.sun_path);
  if (::bind(handle, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    const Status status = errno == EACCES ? Status::kPermissionDenied : Status::kPlatformError;
    close_fd(handle);
    return status;
  }
  // Its user's (and the group's) before anyone can connect (listen below); each peer is checked
  // on accept too.
  if (const Status guarded = guard_socket_file(address.sun_path, peers); guarded != Status::kOk) {
    close_fd(handle);
    ::unlink(address.sun_path);
    return guarded;
  }
  if (::listen(handle, 64) != 0) {
    close_fd(handle);
    return Status::kPlatformError;
  }
  return Status::kOk;
}

Status guard_socket_file(const char* path, LocalPeers peers) noexcept {
  if (peers.group < 0) {
    return ::chmod(path, 0600) == 0 ? Status::kOk : Status::kPlatformError;
  }
  // Group first, then its permission: the file is never open to a group it is not given to.
  if (::chown(path, static_cast<uid_t>(-1), static_cast<gid_t>(peers.group)) != 0) {
    return errno == EPERM ? Status::kPermissionDenied : Status::kPlatformError;
  }
  return ::chmod(path, 0660) == 0 ? Status::kOk : Status::kPlatformError;
}

void remove_setup_file(const Endpoint& endpoint) noexcept {
  sockaddr_un address{};
  socklen_t length = 0;
  if (setup_address(endpoint.address, address, length)) {
    ::unlink(address.sun_path);
  }
}

bool peer_is_trusted(int unix_socket, LocalPeers peers) noexcept {
  ucred peer{};
  socklen_t length = sizeof peer;
  if (::getsockopt(unix_socket, SOL_SOCKET, SO_PEERCRED, &peer, &length) != 0 ||
      length != sizeof peer) {
    return false;
  }
  if (peer.uid == ::geteuid() || peer.uid == 0) {
    return true;
  }
  if (peers.group < 0) {
    return false;
  }
  const auto group = static_cast<gid_t>(peers.group);
  if (peer.gid == group) {
    return true;
  }
  // The peer's supplementary groups, as the kernel recorded them when it connected. More than
  // this many (the kernel allows 65,536) and the check fails closed: ERANGE, refused.
  std::array<gid_t, 256> groups{};
  socklen_t groups_length = sizeof groups;
  if (::getsockopt(unix_socket, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &groups_length) != 0) {
    return false;
  }
  const std::size_t count = groups_length / sizeof(gid_t);
  return std::find(groups.begin(), groups.begin() + count, group) != groups.begin() + count;
}

Status accept(int listener, LocalPeers peers, int& handle, SharedMemoryLink& link) noexcept {
  int setup = ::accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (setup < 0) {
    return errno == EAGAIN ? Status::kResourceExhausted : Status::kPlatformError;
  }
  // The set-up socket's file is this user's (and the group's) alone, and the memory, which holds
  // both rings, goes only to a process of this node's user or group (root aside) besides.
  if (!peer_is_trusted(setup, peers)) {
    close_fd(setup);
    return Status::kPermissionDenied;
  }
  int memory = ::memfd_create("kairos-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  int to_server = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  int to_client = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  void* mapping = MAP_FAILED;
  auto fail = [&](Status status) {
    if (mapping != MAP_FAILED) {
      ::munmap(mapping, Layout::kSize);
    }
    close_fd(memory);
    close_fd(to_server);
    close_fd(to_client);
    close_fd(setup);
    return status;
  };
  if (memory < 0 || to_server < 0 || to_client < 0) {
    return fail(Status::kResourceExhausted);
  }
  // Sealed at its size: the client maps it knowing the server cannot shrink it under its feet
  // (an access past the end of a shrunk memfd is SIGBUS, not an error code).
  if (::ftruncate(memory, Layout::kSize) != 0 ||
      ::fcntl(memory, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return fail(Status::kResourceExhausted);
  }
  mapping =
      ::mmap(nullptr, Layout::kSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, memory, 0);
  if (mapping == MAP_FAILED) {
    return fail(Status::kResourceExhausted);
  }
  auto* bytes = static_cast<std::byte*>(mapping);
  for (const std::size_t control : Layout::kControlOffset) {
    // Both readers start asleep: the first message of each direction rings.
    std::atomic_ref<std::uint32_t>(reinterpret_cast<RingControl*>(bytes + control)->sleeping)
        .store(1, std::memory_order_relaxed);
  }
  SetupMessage setup_message{};
  iovec part{&setup_message, sizeof setup_message};
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  cmsghdr* rights = CMSG_FIRSTHDR(&message);
  rights->cmsg_level = SOL_SOCKET;
  rights->cmsg_type = SCM_RIGHTS;
  rights->cmsg_len = CMSG_LEN(3 * sizeof(int));
  const int handed[3] = {memory, to_server, to_client};
  std::memcpy(CMSG_DATA(rights), handed, sizeof handed);
  if (::sendmsg(setup, &message, MSG_NOSIGNAL | MSG_DONTWAIT) !=
      static_cast<ssize_t>(sizeof setup_message)) {
    return fail(Status::kPlatformError);
  }
  close_fd(memory);  // the mapping keeps the memory
  handle = to_server;
  open_link(link, bytes, setup, to_client, true);
  return Status::kOk;
}

Status connect(const Endpoint& endpoint, TimePoint deadline, int& handle,
               SharedMemoryLink& link) noexcept {
  sockaddr_un address{};
  socklen_t length = 0;
  if (!setup_address(endpoint.address, address, length)) {
    return Status::kInvalidArgument;
  }
  int setup = ::socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (setup < 0) {
    return Status::kResourceExhausted;
  }
  int fds[3] = {-1, -1, -1};
  std::size_t received_fds = 0;
  void* mapping = MAP_FAILED;
  auto fail = [&] {
    if (mapping != MAP_FAILED) {
      ::munmap(mapping, Layout::kSize);
    }
    for (int& fd : fds) {
      close_fd(fd);
    }
    close_fd(setup);
    return Status::kPlatformError;
  };
  if (::connect(setup, reinterpret_cast<sockaddr*>(&address), length) != 0) {
    if (errno != EAGAIN && errno != EINPROGRESS) {
      return fail();
    }
    pollfd writable{setup, POLLOUT, 0};
    if (poll_until(&writable, 1, deadline) != 1 || (writable.revents & POLLOUT) == 0) {
      return fail();
    }
  }
  // The server answers the connection with the memory and the doorbells.
  pollfd readable{setup, POLLIN, 0};
  if (poll_until(&readable, 1, deadline) != 1) {
    return fail();
  }
  SetupMessage setup_message{};
  setup_message.magic = 0;
  iovec part{&setup_message, sizeof setup_message};
  alignas(cmsghdr) char control[CMSG_SPACE(4 * sizeof(int))] = {};
  msghdr message{};
  message.msg_iov = &part;
  message.msg_iovlen = 1;
  message.msg_control = control;
  message.msg_controllen = sizeof control;
  const ssize_t got = ::recvmsg(setup, &message, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  // Take every handle that came, whatever else is wrong, so that none leaks.
  for (cmsghdr* part_header = got >= 0 ? CMSG_FIRSTHDR(&message) : nullptr; part_header != nullptr;
       part_header = CMSG_NXTHDR(&message, part_header)) {
    if (part_header->cmsg_level != SOL_SOCKET || part_header->cmsg_type != SCM_RIGHTS) {
      continue;
    }
    const std::size_t count = (part_header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int fd = -1;
      std::memcpy(&fd, CMSG_DATA(part_header) + i * sizeof(int), sizeof fd);
      if (received_fds < 3) {
        fds[received_fds++] = fd;
      } else {
        ::close(fd);
        ++received_fds;
      }
    }
  }
  const SetupMessage expected{};
  if (got != static_cast<ssize_t>(sizeof setup_message) ||
      (message.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0 || received_fds != 3 ||
      setup_message.magic != expected.magic || setup_message.version != expected.version ||
      setup_message.ring_capacity != expected.ring_capacity ||
      setup_message.size != expected.size) {
    return fail();
  }
  struct stat memory_status {};
  const int seals = ::fcntl(fds[0], F_GET_SEALS);
  if (::fstat(fds[0], &memory_status) != 0 ||
      memory_status.st_size != static_cast<off_t>(Layout::kSize) || seals < 0 ||
      (seals & F_SEAL_SHRINK) == 0 || !is_eventfd(fds[1]) || !is_eventfd(fds[2]) ||
      (::fcntl(fds[2], F_GETFL) & O_NONBLOCK) == 0 ||
      (::fcntl(fds[1], F_GETFL) & O_NONBLOCK) == 0) {
    return fail();
  }
  mapping =
      ::mmap(nullptr, Layout::kSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fds[0], 0);
  if (mapping == MAP_FAILED) {
    return fail();
  }
  close_fd(fds[0]);
  handle = fds[2];
  open_link(link, static_cast<std::byte*>(mapping), setup, fds[1], false);
  return Status::kOk;
}

std::int64_t send(SharedMemoryLink& link, std::span<const std::byte> message) noexcept {
  if (link.shut_down.load(std::memory_order_relaxed)) {
    return -1;
  }
  const MessageRing ring = ring_of(link, false);
  switch (ring.push(message)) {
    case PushResult::kOk:
      break;
    case PushResult::kFull:
      return 0;
    case PushResult::kTooLarge:
    case PushResult::kCorrupt:
      return -1;
  }
  // Pairs with the reader's fence in arm(): ring only a reader that said it sleeps.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  auto sleeping = ring.sleeping();
  if (sleeping.load(std::memory_order_relaxed) != 0 &&
      sleeping.exchange(0, std::memory_order_acq_rel) != 0) {
    ring_doorbell(link.peer_doorbell);
  }
  return static_cast<std::int64_t>(message.size());
}

std::int64_t receive(int handle, SharedMemoryLink& link, std::span<std::byte> buffer) noexcept {
  if (link.shut_down.load(std::memory_order_acquire)) {
    return -1;
  }
  const MessageRing ring = ring_of(link, true);
  for (int attempt = 0; attempt < 2; ++attempt) {
    RingMessage message{};
    const TakeResult taken = ring.peek(link.read_position, message);
    if (taken == TakeResult::kCorrupt) {
      link.peer_gone = true;  // nothing more is read from a ring that lies
      return -1;
    }
    if (taken == TakeResult::kMessage) {
      if (message.size > buffer.size()) {
        return -1;  // a message is taken whole or not at all
      }
      std::memcpy(buffer.data(), message.payload, message.size);
      ring.consume(link.read_position, message.next);
      link.read_position = message.next;
      link.empty_reads = 0;
      if (!arm(handle, link, ring)) {
        keep_ready(handle, link, ring);
      }
      return static_cast<std::int64_t>(message.size);
    }
    if (link.peer_gone) {
      return -1;
    }
    // Called twice in a row for nothing: a watcher woke for a doorbell count left over from a
    // race between a sender and this reader's arming, or for the set-up socket. Look at both.
    if (link.empty_reads < 2) {
      ++link.empty_reads;
    }
    if (link.empty_reads >= 2) {
      if (!peer_alive(link)) {
        link.peer_gone = true;
        return -1;
      }
      disarm(link, ring);
      link.bell_set = true;
    }
    if (arm(handle, link, ring)) {
      return 0;
    }
  }
  return 0;
}

bool wait_readable(int handle, SharedMemoryLink& link, TimePoint deadline) noexcept {
  const MessageRing ring = ring_of(link, true);
  auto ready = [&] {
    return ring.ready(link.read_position) || link.peer_gone ||
           link.shut_down.load(std::memory_order_relaxed);
  };
  if (ready()) {
    return true;
  }
  disarm(link, ring);  // awake and looking: senders need not ring
  const TimePoint spin_until = std::min(deadline, MonotonicClock::now() + kSpinBudget);
  do {
    if (ready()) {
      return true;
    }
    cpu_relax();
  } while (MonotonicClock::now() < spin_until);
  for (;;) {
    if (!arm(handle, link, ring)) {
      return true;
    }
    pollfd watched[kDoorbells] = {{handle, POLLIN, 0}, {link.lifeline, POLLIN, 0}};
    const int count = poll_until(watched, kDoorbells, deadline);
    if (count <= 0) {
      return ready();
    }
    if (watched[1].revents != 0) {
      link.peer_gone = true;  // closed, or shut down: receive() says so
      return true;
    }
    disarm(link, ring);
    link.bell_set = true;  // the doorbell is readable: drain it before sleeping again
    if (ready()) {
      return true;
    }
  }
}

void shutdown(SharedMemoryLink& link) noexcept {
  link.shut_down.store(true, std::memory_order_release);
  if (link.lifeline >= 0) {
    // Both sides' set-up sockets become readable: the peer's reader and this side's wake up.
    ::shutdown(link.lifeline, SHUT_RDWR);
  }
}

void close(int& handle, SharedMemoryLink& link) noexcept {
  if (link.mapping != nullptr) {
    ::munmap(link.mapping, Layout::kSize);
    link.mapping = nullptr;
  }
  close_fd(link.lifeline);
  close_fd(link.peer_doorbell);
  close_fd(handle);
}

}  // namespace kairos::kal::shm
