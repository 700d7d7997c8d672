// Clock synchronisation on Linux: the slewed offset behind global time, and a master and a
// follower in one process over loopback, the follower's clock skewed (they share the host's
// monotonic clock, so the skew is what there is to find). Bounds are generous: this checks
// behaviour; bench/clock_sync.py measures accuracy.
#include "kairos_catch.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>

#include <kairos/clock/clock_sync.hpp>
#include <kairos/kal/global_time.hpp>
#include <kairos/orb/orb.hpp>

using kairos::kal::Duration;
using kairos::kal::MonotonicClock;
using kairos::kal::Status;
using kairos::kal::TimePoint;
using namespace std::chrono_literals;

TEST_CASE("a slewed offset moves at its rate towards its target, then holds it", "[unit][clock]") {
  kairos::kal::SlewedOffset offset;
  offset.step(10us);
  const TimePoint start{1s};
  REQUIRE(offset.at(start) == 10us);
  offset.slew_to(-40us, start, 500);  // 500 ns per ms: 50 us take 100 ms
  REQUIRE(offset.target() == -40us);
  REQUIRE(offset.at(start) == 10us);
  REQUIRE(offset.at(start + 10ms) == 5us);
  REQUIRE(offset.at(start + 100ms) == -40us);
  REQUIRE(offset.at(start + 1h) == -40us);
  // A new slew starts where the offset stands, so the offset never jumps.
  offset.slew_to(0us, start + 50ms, 500);
  REQUIRE(offset.at(start + 50ms) == -15us);
  REQUIRE(offset.at(start + 60ms) == -10us);
  REQUIRE(offset.at(start + 80ms) == 0us);
  // Time plus the offset never runs backwards while it slews down.
  offset.slew_to(-1ms, start + 80ms, kairos::kal::SlewedOffset::kMaxRatePpm);
  TimePoint previous = start + 80ms + offset.at(start + 80ms);
  for (Duration t = 80ms + 7us; t <= 90ms; t += 7us) {
    const TimePoint global = start + t + offset.at(start + t);
    REQUIRE(global > previous);
    previous = global;
  }
  // A correction too large to slew in reasonable time is stepped.
  offset.slew_to(1h, start + 90ms, 500);
  REQUIRE(offset.at(start + 90ms) == 1h);
}

TEST_CASE("over loopback a follower finds a 5 ms skew to within a millisecond",
          "[unit][clock][orb]") {
  const std::string endpoint =
      "uds:/tmp/kairos-test-clock-" + std::to_string(static_cast<long>(::getpid()));
  const kairos::clock::ClockSyncTable master_table{
      .master = true, .master_node = "master", .master_endpoint = "", .period = 20ms};
  const kairos::clock::ClockSyncTable follower_table{
      .master = false, .master_node = "master", .master_endpoint = "", .period = 20ms};
  kairos::orb::Orb master_orb{kairos::orb::OrbOptions{.node = "master", .real_time = false}};
  kairos::orb::Orb follower_orb{kairos::orb::OrbOptions{.node = "follower", .real_time = false}};
  kairos::clock::ClockSync master{master_table, {.node = "master", .sets_process_clock = false}};
  kairos::clock::ClockSync follower{follower_table,
                                    {.node = "follower",
                                     .skew = 5ms,
                                     .sets_process_clock = false,
                                     .real_time = false,
                                     .rounds_kept = 64}};
  REQUIRE(master_orb.listen(endpoint) == Status::kOk);
  REQUIRE(master.serve(master_orb) == Status::kOk);
  REQUIRE(master_orb.start() == Status::kOk);
  REQUIRE(master.start() == Status::kOk);
  std::uint8_t peer = 0;
  REQUIRE(follower_orb.add_peer(endpoint, peer) == Status::kOk);
  REQUIRE(follower.follow(follower_orb, peer) == Status::kOk);
  REQUIRE(follower_orb.start() == Status::kOk);
  REQUIRE(follower.start() == Status::kOk);
  kairos::kal::sleep_until(MonotonicClock::now() + 300ms);
  follower.stop();
  master.stop();
  follower_orb.stop();
  master_orb.stop();

  const auto summary = follower.summary();
  REQUIRE(summary.synchronised);
  REQUIRE(summary.rounds >= 3);
  REQUIRE(summary.exchanges > 0);
  REQUIRE(std::abs(summary.offset_ns - Duration{5ms}.count()) < Duration{1ms}.count());
  REQUIRE(summary.error_bound_ns > 0);
  REQUIRE(summary.max_round_trip_ns >= summary.mean_round_trip_ns);
  REQUIRE(std::abs((follower.global_now() - master.global_now()).count()) < Duration{1ms}.count());
  REQUIRE(master.summary().exchanges >= summary.exchanges);
  REQUIRE(follower.rounds().size() == summary.rounds);
}
