// Clock synchronisation on the simulated network: a master and a follower, each with an ORB of
// its own on a virtual processor of its own, the follower's clock skewed. In virtual time a
// request and its answer take exactly the link's latency plus a jitter, and nothing on the
// master's side takes time, so what the follower finds is known exactly: the skew, to the
// nanosecond, without jitter; within half the jitter with it (the two directions' jitters differ
// by at most the jitter, and the offset splits that difference).
#include "../kairos_catch.hpp"

#include <cstdlib>

#include <kairos/clock/clock_sync.hpp>
#include <kairos/kal/sim_network.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/orb/orb.hpp>

using kairos::kal::Duration;
using kairos::kal::MonotonicClock;
using kairos::kal::Status;
using namespace std::chrono_literals;

namespace {

constexpr Duration kLatency = 100us;
constexpr Duration kPeriod = 10ms;
constexpr int kMasterCpu = 1;
constexpr int kFollowerCpu = 0;

struct Synchronisation {
  kairos::clock::ClockSyncTable master_table{
      .master = true, .master_node = "master", .master_endpoint = "", .period = kPeriod};
  kairos::clock::ClockSyncTable follower_table{
      .master = false, .master_node = "master", .master_endpoint = "", .period = kPeriod};
  kairos::orb::Orb master_orb{kairos::orb::OrbOptions{.node = "master", .cpu = kMasterCpu}};
  kairos::orb::Orb follower_orb{kairos::orb::OrbOptions{.node = "follower", .cpu = kFollowerCpu}};
  kairos::clock::ClockSync master;
  kairos::clock::ClockSync follower;

  Synchronisation(const char* endpoint, Duration master_skew, Duration follower_skew,
                  std::size_t rounds_kept = 0)
      : master{master_table,
               {.node = "master",
                .skew = master_skew,
                .sets_process_clock = false,
                .cpu = kMasterCpu}},
        follower{follower_table,
                 {.node = "follower",
                  .skew = follower_skew,
                  .sets_process_clock = false,
                  .cpu = kFollowerCpu,
                  .rounds_kept = rounds_kept}} {
    REQUIRE(kairos::kal::provision_processors(2) == Status::kOk);
    REQUIRE(master_orb.listen(endpoint) == Status::kOk);
    REQUIRE(master.serve(master_orb) == Status::kOk);
    REQUIRE(master_orb.start() == Status::kOk);
    REQUIRE(master.start() == Status::kOk);
    std::uint8_t peer = 0;
    REQUIRE(follower_orb.add_peer(endpoint, peer) == Status::kOk);
    REQUIRE(follower.follow(follower_orb, peer) == Status::kOk);
    REQUIRE(follower_orb.start() == Status::kOk);
    REQUIRE(follower.start() == Status::kOk);
  }
  ~Synchronisation() {
    follower.stop();
    master.stop();
    follower_orb.stop();
    master_orb.stop();
  }
};

}  // namespace

TEST_CASE("on sim a follower finds its skew exactly over a link without jitter", "[sim][clock]") {
  REQUIRE(kairos::kal::sim::set_network({.latency = kLatency}, 1) == Status::kOk);
  Synchronisation sync("tcp:10.0.1.1:7100", -1ms, 5ms);
  kairos::kal::sleep_until(MonotonicClock::now() + 10 * kPeriod + kPeriod / 2);
  sync.follower.stop();
  const auto summary = sync.follower.summary();
  REQUIRE(summary.synchronised);
  REQUIRE(summary.rounds == 11);  // the first at once, then one a period
  REQUIRE(summary.exchanges == 11 * kairos::clock::kExchangesPerRound);
  REQUIRE(summary.failed == 0);
  // The follower's clock minus the master's: its skew minus the master's.
  REQUIRE(summary.offset_ns == Duration{6ms}.count());
  REQUIRE(summary.max_round_trip_ns == (2 * kLatency).count());
  REQUIRE(summary.mean_round_trip_ns == (2 * kLatency).count());
  // Half the round trip, and 15 ppm of the estimate's age (at most a period).
  REQUIRE(summary.error_bound_ns >= kLatency.count());
  REQUIRE(summary.error_bound_ns <= kLatency.count() + (kPeriod * 15 / 1'000'000).count());
  // Global time is the master's, at one virtual instant.
  REQUIRE(sync.follower.global_now() == sync.master.global_now());
  REQUIRE(sync.follower.local_now() - sync.master.local_now() == 6ms);
  const auto master = sync.master.summary();
  REQUIRE(master.master);
  REQUIRE(master.exchanges == summary.exchanges);
}

TEST_CASE("on sim a follower keeps global time within half the jitter of the master's",
          "[sim][clock]") {
  constexpr Duration kJitter = 50us;
  REQUIRE(kairos::kal::sim::set_network({.latency = kLatency, .jitter = kJitter}, 7) ==
          Status::kOk);
  constexpr std::size_t kRounds = 100;
  Synchronisation sync("tcp:10.0.1.2:7100", 0ms, 5ms, kRounds + 8);
  for (std::size_t k = 0; k < kRounds; ++k) {
    kairos::kal::sleep_until(MonotonicClock::now() + kPeriod);
    // Monotonic time is the same on both nodes here: their global times differ by the error.
    const Duration error = sync.follower.global_now() - sync.master.global_now();
    REQUIRE(std::abs(error.count()) <= (kJitter / 2).count());
  }
  sync.follower.stop();
  const auto summary = sync.follower.summary();
  REQUIRE(summary.synchronised);
  REQUIRE(summary.failed == 0);
  REQUIRE(std::abs(summary.offset_ns - Duration{5ms}.count()) <= (kJitter / 2).count());
  REQUIRE(std::abs(summary.offset_ns - Duration{5ms}.count()) <= summary.error_bound_ns);
  REQUIRE(summary.max_round_trip_ns <= (2 * (kLatency + kJitter)).count());
  REQUIRE(summary.max_round_trip_ns > (2 * kLatency).count());
  // Every round is recorded: its estimate is within its bound of the true offset.
  const auto rounds = sync.follower.rounds();
  REQUIRE(rounds.size() >= kRounds);
  for (const auto& round : rounds) {
    REQUIRE(std::abs(round.estimate_ns - Duration{5ms}.count()) <= round.error_bound_ns);
    REQUIRE(round.round_trip_ns >= (2 * kLatency).count());
  }
}

TEST_CASE("on sim a follower whose master is not there fails its rounds and stays unsynchronised",
          "[sim][clock]") {
  REQUIRE(kairos::kal::sim::set_network({.latency = kLatency}, 1) == Status::kOk);
  kairos::clock::ClockSyncTable table{.master = false,
                                      .master_node = "gone",
                                      .master_endpoint = "tcp:10.0.1.9:7100",
                                      .period = kPeriod};
  kairos::orb::Orb orb{kairos::orb::OrbOptions{.node = "follower"}};
  kairos::clock::ClockSync follower{table, {.node = "follower", .sets_process_clock = false}};
  std::uint8_t peer = 0;
  REQUIRE(orb.add_peer(table.master_endpoint, peer) == Status::kOk);
  REQUIRE(follower.follow(orb, peer) == Status::kOk);
  REQUIRE(orb.start() == Status::kOk);
  REQUIRE(follower.start() == Status::kOk);
  kairos::kal::sleep_until(MonotonicClock::now() + 500ms);
  follower.stop();
  orb.stop();
  const auto summary = follower.summary();
  REQUIRE_FALSE(summary.synchronised);
  REQUIRE(summary.rounds > 0);
  REQUIRE(summary.failed == summary.rounds);
  REQUIRE(summary.exchanges == 0);
  REQUIRE(follower.global_now() == follower.local_now());
}
