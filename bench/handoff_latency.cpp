// Dispatch handoff latency: from the moment the time-trigger thread hands a released
// activation to its lane until the method starts, against a raw futex handoff between two
// threads measured in the same run, on the same CPUs.
//
//   kairos_bench_handoff [--samples N]
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

#include <kairos/engine.hpp>
#include <kairos/kal/clock.hpp>

#include "stats.hpp"

namespace {
using kairos::kal::MonotonicClock;
using namespace std::chrono_literals;

std::int64_t now_ns() {
  return kairos::kal::to_nanoseconds(MonotonicClock::now());
}

void futex_wait(std::atomic<std::uint32_t>& word, std::uint32_t expected) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, nullptr,
          nullptr, 0);
}
void futex_wake(std::atomic<std::uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<std::uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr,
          nullptr, 0);
}

void pin_fifo(int cpu, int priority) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  sched_param param{};
  param.sched_priority = priority;
  pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
}

/// A raw futex ping-pong, the baseline: thread A stamps the time, wakes B through a futex and
/// waits for B's answer; B reads the clock and answers. `waker_first` gives A the higher
/// priority, as the time trigger has over a lane (B runs once A blocks); otherwise B preempts
/// A at the wake-up. Samples are spaced 1 ms apart, like 1 ms releases.
std::vector<std::int64_t> raw_futex_handoff(int waker_cpu, int sleeper_cpu, int samples,
                                            bool waker_first = true) {
  std::atomic<std::uint32_t> word{0};
  std::atomic<std::uint32_t> answer{0};
  std::atomic<std::int64_t> stamp{0};
  std::atomic<bool> stop{false};
  std::vector<std::int64_t> latencies;
  latencies.reserve(static_cast<std::size_t>(samples));
  std::thread sleeper([&] {
    pin_fifo(sleeper_cpu, waker_first ? 50 : 60);
    std::uint32_t seen = 0;
    while (!stop.load()) {
      while (word.load(std::memory_order_acquire) == seen && !stop.load()) {
        futex_wait(word, seen);
      }
      seen = word.load(std::memory_order_acquire);
      if (stop.load()) {
        break;
      }
      latencies.push_back(now_ns() - stamp.load(std::memory_order_acquire));
      answer.fetch_add(1, std::memory_order_release);
      futex_wake(answer);
    }
  });
  std::thread waker([&] {
    pin_fifo(waker_cpu, waker_first ? 60 : 50);
    auto next = MonotonicClock::now() + 10ms;
    for (int i = 0; i < samples; ++i) {
      kairos::kal::sleep_until(next);
      next += 1ms;
      const std::uint32_t answered = answer.load(std::memory_order_acquire);
      stamp.store(now_ns(), std::memory_order_release);
      word.fetch_add(1, std::memory_order_release);
      futex_wake(word);
      while (answer.load(std::memory_order_acquire) == answered) {
        futex_wait(answer, answered);
      }
    }
    kairos::kal::sleep_until(next + 5ms);
    stop = true;
    word.fetch_add(1);
    futex_wake(word);
  });
  waker.join();
  sleeper.join();
  return latencies;
}

struct Handoffs {
  std::vector<std::int64_t> ns;
};

void collect(void* context, const kairos::SpmEntry&, const kairos::ActivationRecord& record) {
  if (record.ran()) {
    static_cast<Handoffs*>(context)->ns.push_back(record.start_ns - record.dispatch_ns);
  }
}

void nothing(void*) {}

/// The engine: an SpM released every 1 ms; handoff = method start - dispatch by the trigger.
std::vector<std::int64_t> engine_handoff(int cpu, int samples) {
  static const kairos::SpmEntry entry{
      "bench", "tick", "bench", 0ms,  kairos::kForever,           1ms,
      0ms,     1ms,    1ms,     10us, kairos::Criticality::kHard, 1};
  // Dispatched at the window opening (no dispatch ahead): the handoff itself is measured.
  auto engine = std::make_unique<kairos::Engine>(kairos::EngineOptions{
      kairos::Strategy::kRms, cpu, false, true, kairos::kal::Duration::zero()});
  engine->add_spm(entry, nullptr, &nothing, nullptr);
  Handoffs handoffs;
  handoffs.ns.reserve(static_cast<std::size_t>(samples) + 16);
  engine->run_for(1ms * samples, &collect, &handoffs);
  return handoffs.ns;
}
}  // namespace

int main(int argc, char** argv) {
  int samples = 5000;
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--samples" && i + 1 < argc) {
      samples = std::atoi(argv[++i]);
    }
  }
  if (samples <= 0) {
    std::fprintf(stderr, "usage: %s [--samples N]\n", argv[0]);
    return 2;
  }
  const int cpus = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("dispatch handoff latency, %d samples at 1 ms intervals, %d CPUs\n", samples, cpus);
  bench::print_load();

  bench::print("baseline: raw futex ping-pong, same CPU",
               bench::summarize(raw_futex_handoff(0, 0, samples)));
  bench::print("floor: raw futex wake of a more urgent thread, same CPU",
               bench::summarize(raw_futex_handoff(0, 0, samples, false)));
  bench::print("kairos: trigger -> lane handoff, same CPU",
               bench::summarize(engine_handoff(0, samples)));
  if (cpus > 1) {
    bench::print("baseline: raw futex ping-pong, across CPUs",
                 bench::summarize(raw_futex_handoff(0, 1, samples)));
    bench::print("kairos: trigger -> lane handoff, any CPU",
                 bench::summarize(engine_handoff(-1, samples)));
  }
  bench::print_load();
  return 0;
}
