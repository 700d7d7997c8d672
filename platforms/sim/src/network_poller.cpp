// The KAL poller on the simulated network: the sockets it watches wake it at their first
// delivery in virtual time (network_internal.hpp).
#include "network_internal.hpp"

namespace kairos::kal {

using namespace sim_net;

// ---------------------------------------------------------------- poller

Poller::~Poller() {
  if (handle_ < 0) {
    return;
  }
  auto lock = sim::enter();
  SimPoller& p = pollers[static_cast<std::size_t>(handle_)];
  while (p.count > 0) {
    unwatch(handle_, p.watches[0].socket);
  }
  p = SimPoller{};
}

namespace {
/// A free poller slot, taken; -1 if none.
int take_poller() {
  for (int p = 0; p < kMaxPollers; ++p) {
    if (!pollers[static_cast<std::size_t>(p)].used) {
      pollers[static_cast<std::size_t>(p)].used = true;
      return p;
    }
  }
  return -1;
}
}  // namespace

Status Poller::open() noexcept {
  auto lock = sim::enter();
  if (handle_ < 0) {
    handle_ = take_poller();
    if (handle_ < 0) {
      return Status::kResourceExhausted;
    }
  }
  return Status::kOk;
}

Status Poller::add(const Socket& socket, std::uint64_t tag) noexcept {
  auto lock = sim::enter();
  sim::current(lock);
  if (handle_ < 0) {
    handle_ = take_poller();
    if (handle_ < 0) {
      return Status::kResourceExhausted;
    }
  }
  const int handle = socket.native_handle();
  if (handle < 0) {
    return Status::kPlatformError;
  }
  SimPoller& p = pollers[static_cast<std::size_t>(handle_)];
  SimSocket& s = at(handle);
  if (std::find(s.pollers.begin(), s.pollers.end(), handle_) != s.pollers.end()) {
    return Status::kPlatformError;  // EEXIST
  }
  const auto slot = std::find(s.pollers.begin(), s.pollers.end(), -1);
  if (slot == s.pollers.end() || p.count == kPollerCapacity) {
    return Status::kCapacityExceeded;
  }
  *slot = handle_;
  p.watches[p.count++] = Watch{handle, tag};
  // A socket readable already wakes a wait in progress, as epoll_ctl does.
  notify(lock, handle, readable_at(s));
  return Status::kOk;
}

void Poller::remove(const Socket& socket) noexcept {
  if (handle_ < 0 || !socket.is_open()) {
    return;
  }
  auto lock = sim::enter();
  unwatch(handle_, socket.native_handle());
}

std::size_t Poller::wait(TimePoint deadline, std::span<std::uint64_t> ready) noexcept {
  if (ready.empty()) {
    sleep_until(deadline);  // nowhere to say what is ready: wait as long as asked, never spin
    return 0;
  }
  auto lock = sim::enter();
  sim::SimThread* self = sim::current(lock);
  if (handle_ < 0) {
    // Nothing watched yet, but a socket added while this waits must end the wait (as an ORB
    // reader's first connection does), so the poller exists from now on.
    handle_ = take_poller();
    if (handle_ < 0) {
      lock.unlock();
      sleep_until(deadline);
      return 0;
    }
  }
  SimPoller& p = pollers[static_cast<std::size_t>(handle_)];
  const std::int64_t until = nanoseconds_of(deadline);
  for (;;) {
    const std::int64_t now = sim::virtual_now_ns();
    std::size_t count = 0;
    std::int64_t next = kNever;
    for (std::size_t i = 0; i < p.count; ++i) {
      const std::int64_t when = readable_at(at(p.watches[i].socket));
      if (when <= now) {
        if (count < ready.size()) {
          ready[count++] = p.watches[i].tag;
        }
      } else {
        next = std::min(next, when);
      }
    }
    if (count > 0) {
      return count;
    }
    if (until <= now) {
      return 0;
    }
    const std::int64_t wake = std::min(next, until);
    self->wake_at = wake == kNever ? -1 : wake;
    p.waiter = self;
    sim::block(lock, self);
    if (p.waiter == self) {
      p.waiter = nullptr;
    }
  }
}

}  // namespace kairos::kal
