// Clock synchronisation between the nodes of a system (the model's `system ... clock-sync master
// M period P`): every other node estimates the offset of its clock to the master's with NTP-like
// two-way exchanges over the ORB, and keeps its global time (local time + correction) on the
// master's.
//
// A follower sends, every period, a short burst of exchanges to the master on the highest band,
// from a thread of its own on a connection of its own (never shared with application traffic):
// t1 (its send), t2 and t3 (the master's receive and send, read on the master's global clock by
// the master's band reader, which answers at once), t4 (its receive). Each exchange gives an
// offset ((t2 - t1) + (t3 - t4)) / 2 and a round trip (t4 - t1) - (t3 - t2); the true offset is
// within half the round trip of it. Of the last rounds' best exchanges, the one whose bound (half
// its round trip plus a drift allowance for its age) is smallest wins (NTP's clock filter). The
// first estimate is stepped into the correction; later ones are slewed at a bounded rate, so that
// global time never runs backwards.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>
#include <kairos/kal/event.hpp>
#include <kairos/kal/global_time.hpp>
#include <kairos/kal/thread.hpp>
#include <kairos/orb/orb.hpp>

namespace kairos::clock {

/// The band of every exchange: above any application lane's, so no request queues before them.
inline constexpr kal::PriorityBand kSyncBand = kal::kHighestBand;
/// The ORB object number the master answers exchanges as (above any deployed instance's).
inline constexpr std::uint16_t kSyncObject = orb::kMaxObjects - 1;
/// Exchanges per round: the one with the smallest round trip is kept.
inline constexpr std::size_t kExchangesPerRound = 8;
/// Rounds whose best exchange the filter keeps.
inline constexpr std::size_t kFilterRounds = 8;
/// How fast the correction moves once synchronised (NTP's largest slew: 500 us per second).
inline constexpr std::int64_t kSlewRatePpm = 500;
/// How fast two clocks may drift apart, for the error bound of an exchange as it ages (NTP's
/// tolerance of 15 ppm).
inline constexpr std::int64_t kDriftPpm = 15;
/// Bytes of an exchange's request (t1) and reply (t1, t2, t3).
inline constexpr std::size_t kRequestSize = 8;
inline constexpr std::size_t kReplySize = 24;

/// What the model says of one node's clock synchronisation: the generated constexpr table.
struct ClockSyncTable {
  bool master = false;               ///< this node is the system's time master
  const char* master_node = "";      ///< the master's name
  const char* master_endpoint = "";  ///< where followers reach it
  kal::Duration period{};            ///< one round of exchanges per period
};

struct ClockSyncOptions {
  const char* node = "node";  ///< this node's name, in reports
  /// A synthetic offset added to this node's local clock (`--clock-skew`): two processes on one
  /// host share one monotonic clock, and this gives their synchronisation an offset to find.
  kal::Duration skew{};
  /// Whether this node's global time is the process's (kal::global_now): true for a node in a
  /// process of its own; false where several nodes share one process (a system on sim).
  bool sets_process_clock = true;
  int cpu = -1;  ///< the CPU of the follower's exchange thread (-1: any)
  bool real_time = true;
  /// How many rounds to record for rounds() (`--clock-log`; 0: none). Allocated by start().
  std::size_t rounds_kept = 0;
};

/// One round of a follower, as rounds() records it. Offsets are this node's local clock minus the
/// master's, in nanoseconds.
struct ClockRound {
  std::int64_t local_ns = 0;        ///< when the round ended, on the local clock
  std::int64_t estimate_ns = 0;     ///< the offset the filter chose after it
  std::int64_t applied_ns = 0;      ///< the offset global time corrected for as the round ended
  std::int64_t error_bound_ns = 0;  ///< the bound of the chosen estimate
  std::int64_t round_trip_ns = 0;   ///< the round's smallest round trip (-1: no exchange answered)
};

/// A node's clock synchronisation after (or during) the run.
struct ClockSummary {
  bool master = false;
  bool synchronised = false;            ///< a follower that has had an answer
  std::uint64_t rounds = 0;             ///< rounds of exchanges made (follower)
  std::uint64_t exchanges = 0;          ///< exchanges answered (follower), or answered (master)
  std::uint64_t failed = 0;             ///< exchanges not answered in time, or answered wrongly
  std::int64_t offset_ns = 0;           ///< estimated offset of this clock to the master's
  std::int64_t error_bound_ns = 0;      ///< the true offset is within this of offset_ns
  std::int64_t max_round_trip_ns = 0;   ///< the largest round trip of any answered exchange
  std::int64_t mean_round_trip_ns = 0;  ///< the mean round trip of the answered exchanges
};

class ClockSync {
 public:
  ClockSync(const ClockSyncTable& table, const ClockSyncOptions& options) noexcept;
  ClockSync(const ClockSync&) = delete;
  ClockSync& operator=(const ClockSync&) = delete;
  ~ClockSync();

  /// The master, before orb.start(): its ORB serves kSyncBand and answers kSyncObject.
  kal::Status serve(orb::Orb& orb) noexcept;
  /// A follower, before orb.start(): exchanges go to `master_peer` (orb.add_peer's number for
  /// the master's endpoint) on a route of their own.
  kal::Status follow(orb::Orb& orb, std::uint8_t master_peer) noexcept;
  /// After orb.start(): a follower starts its exchange thread (its first round at once). Sets the
  /// process's global time to the local clock until the first estimate (sets_process_clock).
  kal::Status start() noexcept;
  /// Stops the exchange thread (before the ORB stops).
  void stop() noexcept;

  /// This node's local clock: monotonic time plus the injected skew.
  kal::TimePoint local_now() const noexcept;
  /// This node's global time: its local clock, corrected by the estimated offset to the master.
  kal::TimePoint global_now() const noexcept;

  /// What the synchronisation found; read after stop() for a consistent picture.
  ClockSummary summary() const noexcept;
  /// The rounds recorded (ClockSyncOptions::rounds_kept), oldest first; read after stop().
  std::span<const ClockRound> rounds() const noexcept;
  const ClockSyncTable& table() const noexcept { return table_; }

 private:
  struct Sample {
    std::int64_t offset_ns = 0;  ///< master minus local: the correction it asks for
    std::int64_t round_trip_ns = 0;
    std::int64_t local_ns = 0;  ///< when it was taken, on the local clock
    bool valid = false;
  };

  static orb::ReplyStatus answer(void* self, orb::ServerRequest& request) noexcept;
  static void follower_main(void* self) noexcept;
  void follow_rounds() noexcept;
  /// One exchange; false when it was not answered correctly.
  bool exchange(Sample& sample) noexcept;
  void run_round() noexcept;
  /// The filter's choice at local time `now_ns`, and its bound then.
  const Sample* chosen(std::int64_t now_ns, std::int64_t& bound_ns) const noexcept;
  void correct(std::int64_t correction_ns, kal::TimePoint now) noexcept;

  ClockSyncTable table_;
  ClockSyncOptions options_;
  orb::Orb* orb_ = nullptr;
  std::uint8_t master_peer_ = 0;
  bool following_ = false;
  bool started_ = false;

  kal::Thread thread_;
  kal::Event stop_{kal::ResetMode::kManual};
  /// global = local + correction (master minus local), stepped once, then slewed.
  kal::SlewedOffset correction_;

  std::array<Sample, kFilterRounds> history_{};
  std::size_t next_history_ = 0;
  std::atomic<std::uint64_t> answered_{0};  ///< the master's answers (its band reader counts)
  std::uint64_t rounds_ = 0;
  std::uint64_t exchanges_ = 0;
  std::uint64_t failed_ = 0;
  bool synchronised_ = false;
  std::int64_t max_round_trip_ns_ = 0;
  std::int64_t sum_round_trip_ns_ = 0;

  std::unique_ptr<ClockRound[]> log_;
  std::size_t logged_ = 0;
};

}  // namespace kairos::clock
