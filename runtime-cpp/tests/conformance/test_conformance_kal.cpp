// The KAL's groups behave alike on every platform: events (auto/manual reset, wait for one of
// several), timers, global time, memory.
#include "../kairos_catch.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>

#include <kairos/block_pool.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/execution.hpp>
#include <kairos/kal/global_time.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/kal/timer.hpp>

using kairos::kal::Duration;
using kairos::kal::Event;
using kairos::kal::MonotonicClock;
using kairos::kal::ResetMode;
using namespace std::chrono_literals;

namespace {
struct Signaller {
  Event* event;
  Duration after;
  static void run(void* self) noexcept {
    auto* s = static_cast<Signaller*>(self);
    kairos::kal::sleep_until(MonotonicClock::now() + s->after);
    s->event->set();
  }
};
}  // namespace

TEST_CASE("a manual-reset event stays set until reset", "[conformance][kal][event]") {
  Event event(ResetMode::kManual);
  event.set();
  REQUIRE(event.wait_until(MonotonicClock::now() + 1s));
  REQUIRE(event.wait_until(MonotonicClock::now() + 1s));
  event.reset();
  REQUIRE_FALSE(event.wait_until(MonotonicClock::now() + 5ms));
}

TEST_CASE("wait_any returns the event that was set, or -1 at the deadline",
          "[conformance][kal][event][woms]") {
  Event first;
  Event second;
  Event third(ResetMode::kManual);
  std::array<Event*, 3> events{&first, &second, &third};

  const auto before = MonotonicClock::now();
  REQUIRE(kairos::kal::wait_any(events, before + 20ms) == -1);
  REQUIRE(MonotonicClock::now() - before >= 20ms);

  second.set();
  REQUIRE(kairos::kal::wait_any(events, MonotonicClock::now() + 1s) == 1);
  REQUIRE(kairos::kal::wait_any(events, MonotonicClock::now() + 5ms) == -1);  // auto-reset

  // Set by another thread while the caller sleeps in wait_any.
  Signaller signaller{&third, 10ms};
  kairos::kal::Thread thread;
  REQUIRE(thread.start({"signaller", 5, -1}, &Signaller::run, &signaller) ==
          kairos::kal::Status::kOk);
  REQUIRE(kairos::kal::wait_any(events, MonotonicClock::now() + 5s) == 2);
  thread.join();
  REQUIRE(kairos::kal::wait_any(events, MonotonicClock::now() + 1s) == 2);  // manual stays set
}

TEST_CASE("a periodic timer expires once per period and counts what was missed",
          "[conformance][kal][timer]") {
  kairos::kal::Timer timer;
  REQUIRE(timer.wait() == 0);  // not armed: never blocks
  const auto start = MonotonicClock::now();
  REQUIRE(timer.arm(start + 5ms, 5ms) == kairos::kal::Status::kOk);
  std::uint64_t expirations = 0;
  for (int i = 0; i < 4; ++i) {
    expirations += timer.wait();
  }
  REQUIRE(expirations >= 4);
  REQUIRE(MonotonicClock::now() - start >= 20ms);
  kairos::kal::sleep_until(MonotonicClock::now() + 12ms);
  REQUIRE(timer.wait() >= 2);  // fell behind by at least two periods
  timer.disarm();
  REQUIRE(timer.wait() == 0);

  kairos::kal::Timer once;
  REQUIRE(once.arm(MonotonicClock::now() + 2ms, 0ms) == kairos::kal::Status::kOk);
  REQUIRE(once.wait() == 1);
}

TEST_CASE("global time is monotonic time plus the synchronised offset",
          "[conformance][kal][time]") {
  kairos::kal::set_global_offset(250ms);
  const auto local = MonotonicClock::now();
  const auto global = kairos::kal::global_now();
  REQUIRE(global - local >= 250ms);
  REQUIRE(global - local < 250ms + 100ms);
  kairos::kal::set_global_offset(0ms);
  REQUIRE(kairos::kal::clock_precision() > Duration::zero());
}

TEST_CASE("a block pool hands out each block once until released", "[conformance][kal][memory]") {
  kairos::BlockPool pool;
  REQUIRE(pool.init(100, 3) == kairos::kal::Status::kOk);
  REQUIRE(pool.block_size() == 128);
  void* a = pool.acquire();
  void* b = pool.acquire();
  void* c = pool.acquire();
  REQUIRE((a != nullptr && b != nullptr && c != nullptr));
  REQUIRE((a != b && b != c && a != c));
  REQUIRE(pool.acquire() == nullptr);
  pool.release(b);
  REQUIRE(pool.acquire() == b);
  kairos::kal::MemoryRegion region;
  REQUIRE(region.reserve(4096) == kairos::kal::Status::kOk);
  REQUIRE(region.reserve(4096) == kairos::kal::Status::kInvalidArgument);
  REQUIRE(static_cast<unsigned char*>(region.data())[4095] == 0);
}

TEST_CASE("the platform says which CPUs threads may be pinned to", "[conformance][kal][thread]") {
  REQUIRE(kairos::kal::cpu_available(0));
  REQUIRE_FALSE(kairos::kal::cpu_available(-1));
  REQUIRE_FALSE(kairos::kal::cpu_available(1 << 20));
  if (kairos::kal::kSimulatedTime) {
    // The virtual machine has the processors the tests before this one asked for (it grows,
    // never shrinks): 0..n-1, and none beyond.
    int processors = 1;
    while (kairos::kal::cpu_available(processors)) {
      ++processors;
    }
    REQUIRE(processors <= 8);  // the simulated kernel's kMaxProcessors
    REQUIRE_FALSE(kairos::kal::cpu_available(processors + 1));
    REQUIRE(kairos::kal::scheduling_mode() == kairos::kal::SchedulingMode::kSimulated);
  }
}

namespace {
/// In a child process, so that the drain (one per process, for good) stays out of the other
/// tests: stderr is a pipe filled to the brim that nobody reads, the drain is started, and a
/// burst of reports is timed. The exit code says what held (0: all).
int report_into_a_full_pipe() noexcept {
  int ends[2];
  if (::pipe(ends) != 0) {
    return 10;
  }
  ::fcntl(ends[1], F_SETFL, O_NONBLOCK);
  const std::array<char, 4096> filler{};
  while (::write(ends[1], filler.data(), filler.size()) > 0) {
  }
  ::fcntl(ends[1], F_SETFL, 0);  // blocking again, as a stream nobody reads would be
  if (::dup2(ends[1], STDERR_FILENO) < 0) {
    return 11;
  }
  if (!kairos::kal::start_log_drain()) {
    return 12;
  }
  const auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) {
    kairos::kal::report(kairos::kal::Severity::kWarning, "test", "a line nobody reads");
  }
  const auto took = std::chrono::steady_clock::now() - started;
  if (took > 1s) {
    return 13;  // each report is a copy into a queue: microseconds, not a blocked write
  }
  // At most 100 a second are queued: the rest were dropped and counted.
  if (kairos::kal::log_lines_dropped() < 900) {
    return 14;
  }
  const auto flushing = std::chrono::steady_clock::now();
  kairos::kal::flush_log();  // gives up on the full stream after a bounded wait
  if (std::chrono::steady_clock::now() - flushing > 2s) {
    return 15;
  }
  return 0;
}
}  // namespace

TEST_CASE("a report never waits for an error stream nobody reads", "[kal][log]") {
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::_exit(report_into_a_full_pipe());
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
}
