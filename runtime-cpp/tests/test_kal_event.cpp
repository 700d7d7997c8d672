#include "kairos_catch.hpp"

#include <atomic>
#include <thread>

#include <kairos/kal/event.hpp>

using kairos::kal::MonotonicClock;
using namespace std::chrono_literals;

TEST_CASE("an event wait times out when nobody sets it", "[unit][kal][event]") {
  kairos::kal::Event event;
  const auto before = MonotonicClock::now();
  REQUIRE_FALSE(event.wait_until(before + 20ms));
  REQUIRE(MonotonicClock::now() - before >= 20ms);
}

TEST_CASE("a set before the wait is not lost, and auto-resets", "[unit][kal][event]") {
  kairos::kal::Event event;
  event.set();
  REQUIRE(event.wait_until(MonotonicClock::now() + 1s));
  REQUIRE_FALSE(event.wait_until(MonotonicClock::now() + 5ms));
}

TEST_CASE("an event wakes a thread blocked on it", "[integration][kal][event]") {
  kairos::kal::Event event;
  std::atomic<bool> woke{false};
  std::thread waiter([&] {
    event.wait();
    woke = true;
  });
  event.set();
  waiter.join();
  REQUIRE(woke);
}
