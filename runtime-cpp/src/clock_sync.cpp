#include <kairos/clock/clock_sync.hpp>

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

#include <kairos/engine.hpp>
#include <kairos/orb/frame.hpp>

namespace kairos::clock {

namespace {
constexpr std::int64_t kPpm = 1'000'000;
/// The longest an exchange waits for its answer: a late answer is worth nothing to the filter.
constexpr kal::Duration kLongestExchange = std::chrono::milliseconds{100};
/// Until the master first answers, rounds come at least this often (it may still be starting).
constexpr kal::Duration kUnsynchronisedRetry = std::chrono::milliseconds{100};

void store(std::span<std::byte> out, std::size_t at, std::int64_t value) noexcept {
  std::memcpy(out.data() + at, &value, sizeof value);  // native order: the frame says which
}

std::int64_t load(std::span<const std::byte> in, std::size_t at, bool little_endian) noexcept {
  const bool swap = little_endian != (std::endian::native == std::endian::little);
  return static_cast<std::int64_t>(orb::detail::load<std::uint64_t>(in.data() + at, swap));
}

std::int64_t abs(std::int64_t value) noexcept {
  return value < 0 ? -value : value;
}
}  // namespace

ClockSync::ClockSync(const ClockSyncTable& table, const ClockSyncOptions& options) noexcept
    : table_(table), options_(options) {}

ClockSync::~ClockSync() {
  stop();
}

kal::Status ClockSync::serve(orb::Orb& orb) noexcept {
  if (!table_.master || orb_ != nullptr) {
    return kal::Status::kInvalidArgument;
  }
  if (const kal::Status status = orb.serve_band(kSyncBand); status != kal::Status::kOk) {
    return status;
  }
  if (const kal::Status status = orb.add_object(kSyncObject, &ClockSync::answer, this);
      status != kal::Status::kOk) {
    return status;
  }
  orb_ = &orb;
  return kal::Status::kOk;
}

kal::Status ClockSync::follow(orb::Orb& orb, std::uint8_t master_peer) noexcept {
  if (table_.master || orb_ != nullptr || table_.period.count() <= 0) {
    return kal::Status::kInvalidArgument;
  }
  // Its own connection: no lane of the engine calls from kSyncBand, so this route is never shared.
  if (const kal::Status status = orb.add_route(master_peer, kSyncBand, 0, kSyncBand);
      status != kal::Status::kOk) {
    return status;
  }
  orb_ = &orb;
  master_peer_ = master_peer;
  following_ = true;
  return kal::Status::kOk;
}

kal::Status ClockSync::start() noexcept {
  if (started_) {
    return kal::Status::kInvalidArgument;
  }
  // Until the first estimate, global time is the local clock (the master's always is).
  correction_.step(kal::Duration{0});
  if (options_.sets_process_clock) {
    kal::set_global_offset(options_.skew);
  }
  if (following_ && options_.rounds_kept > 0) {
    log_.reset(new (std::nothrow) ClockRound[options_.rounds_kept]);
    if (!log_) {
      return kal::Status::kResourceExhausted;
    }
  }
  if (following_) {
    stop_.reset();
    kal::ThreadAttributes attributes{};
    attributes.name = "kairos-clock";
    attributes.band = kSyncBand;
    attributes.cpu = options_.cpu;
    attributes.real_time = options_.real_time;
    if (const kal::Status status = thread_.start(attributes, &ClockSync::follower_main, this);
        status != kal::Status::kOk) {
      return status;
    }
  }
  started_ = true;
  return kal::Status::kOk;
}

void ClockSync::stop() noexcept {
  if (!started_) {
    return;
  }
  stop_.set();
  thread_.join();
  started_ = false;
}

kal::TimePoint ClockSync::local_now() const noexcept {
  return kal::MonotonicClock::now() + options_.skew;
}

kal::TimePoint ClockSync::global_now() const noexcept {
  const kal::TimePoint now = kal::MonotonicClock::now();
  return now + options_.skew + correction_.at(now);
}

// ---------------------------------------------------------------- master

orb::ReplyStatus ClockSync::answer(void* self, orb::ServerRequest& request) noexcept {
  auto& clock = *static_cast<ClockSync*>(self);
  const auto& header = request.header();
  if (request.oneway() || header.operation != 0 || header.band != kSyncBand ||
      request.body().size() != kRequestSize) {
    return orb::ReplyStatus::kMalformed;
  }
  // t2: when the reader took the request in; t3: now, as the answer leaves. Both on the master's
  // global clock, which is its local clock (the skew included).
  const std::int64_t t1 = load(request.body(), 0, header.little_endian);
  const std::int64_t t2 = kal::to_nanoseconds(request.arrival() + clock.options_.skew);
  const std::span<std::byte> reply = request.reply_body();
  store(reply, 0, t1);
  store(reply, 8, t2);
  store(reply, 16, kal::to_nanoseconds(clock.local_now()));
  clock.answered_.fetch_add(1, std::memory_order_relaxed);
  request.complete(orb::ReplyStatus::kOk, kReplySize);
  return orb::ReplyStatus::kOk;  // answered already: nothing is left to hand on
}

// ---------------------------------------------------------------- follower

void ClockSync::follower_main(void* self) noexcept {
  auto& clock = *static_cast<ClockSync*>(self);
  // The ORB picks a route by the calling thread's lane: this thread stands for the sync band's.
  set_current_lane(LaneIdentity{0, kSyncBand, false, clock.options_.cpu});
  clock.follow_rounds();
}

void ClockSync::follow_rounds() noexcept {
  kal::TimePoint next = kal::MonotonicClock::now();
  for (;;) {
    if (stop_.wait_until(next)) {
      return;
    }
    run_round();
    next += synchronised_ ? table_.period : std::min(table_.period, kUnsynchronisedRetry);
    const kal::TimePoint now = kal::MonotonicClock::now();
    if (next <= now) {
      next = now + table_.period;  // a round that overran its period: the next one a period on
    }
  }
}

bool ClockSync::exchange(Sample& sample) noexcept {
  orb::Orb& orb = *orb_;
  orb::Call call = orb.begin(orb::Target{master_peer_, kSyncBand, kSyncObject, 0});
  if (call.status() != orb::CallStatus::kPending) {
    return false;
  }
  const kal::Duration timeout = std::min(kLongestExchange, table_.period / 2);
  const std::int64_t t1 = kal::to_nanoseconds(local_now());
  store(call.request_body(), 0, t1);
  const orb::CallStatus status =
      orb.invoke(call, kRequestSize, kal::MonotonicClock::now() + timeout);
  const std::int64_t t4 = kal::to_nanoseconds(local_now());
  if (status != orb::CallStatus::kOk || call.reply_body().size() != kReplySize) {
    return false;
  }
  const bool little = call.reply_little_endian();
  const std::int64_t echoed = load(call.reply_body(), 0, little);
  const std::int64_t t2 = load(call.reply_body(), 8, little);
  const std::int64_t t3 = load(call.reply_body(), 16, little);
  const std::int64_t round_trip = (t4 - t1) - (t3 - t2);
  if (echoed != t1 || t3 < t2 || round_trip < 0) {
    return false;  // not the answer to this exchange, or times no clock could give
  }
  sample.offset_ns = ((t2 - t1) + (t3 - t4)) / 2;
  sample.round_trip_ns = round_trip;
  sample.local_ns = t4;
  sample.valid = true;
  return true;
}

void ClockSync::run_round() noexcept {
  Sample best{};
  for (std::size_t k = 0; k < kExchangesPerRound; ++k) {
    Sample sample{};
    if (!exchange(sample)) {
      ++failed_;
      break;  // the master is away or slow: try again next round
    }
    ++exchanges_;
    max_round_trip_ns_ = std::max(max_round_trip_ns_, sample.round_trip_ns);
    sum_round_trip_ns_ += sample.round_trip_ns;
    if (!best.valid || sample.round_trip_ns < best.round_trip_ns) {
      best = sample;
    }
  }
  ++rounds_;
  const kal::TimePoint now = kal::MonotonicClock::now();
  const std::int64_t local_ns = kal::to_nanoseconds(now + options_.skew);
  const std::int64_t applied_before = -correction_.at(now).count();
  if (best.valid) {
    history_[next_history_] = best;
    next_history_ = (next_history_ + 1) % history_.size();
  }
  std::int64_t bound = 0;
  const Sample* choice = chosen(local_ns, bound);
  if (choice != nullptr && best.valid) {
    correct(choice->offset_ns, now);
  }
  if (log_ && logged_ < options_.rounds_kept) {
    ClockRound& round = log_[logged_++];
    round.local_ns = local_ns;
    round.estimate_ns = choice != nullptr ? -choice->offset_ns : 0;
    round.applied_ns = applied_before;
    round.error_bound_ns = choice != nullptr ? bound : -1;
    round.round_trip_ns = best.valid ? best.round_trip_ns : -1;
  }
}

const ClockSync::Sample* ClockSync::chosen(std::int64_t now_ns,
                                           std::int64_t& bound_ns) const noexcept {
  const Sample* choice = nullptr;
  for (const Sample& sample : history_) {
    if (!sample.valid) {
      continue;
    }
    const std::int64_t age = std::max<std::int64_t>(0, now_ns - sample.local_ns);
    const std::int64_t bound =
        sample.round_trip_ns / 2 + age / kPpm * kDriftPpm + age % kPpm * kDriftPpm / kPpm;
    if (choice == nullptr || bound < bound_ns) {
      choice = &sample;
      bound_ns = bound;
    }
  }
  return choice;
}

void ClockSync::correct(std::int64_t correction_ns, kal::TimePoint now) noexcept {
  const kal::Duration correction{correction_ns};
  if (!synchronised_) {
    // The first estimate is stepped: before it, global time was only the local clock.
    synchronised_ = true;
    correction_.step(correction);
    if (options_.sets_process_clock) {
      kal::set_global_offset(options_.skew + correction);
    }
    return;
  }
  correction_.slew_to(correction, now, kSlewRatePpm);
  if (options_.sets_process_clock) {
    kal::slew_global_offset(options_.skew + correction, kSlewRatePpm);
  }
}

ClockSummary ClockSync::summary() const noexcept {
  ClockSummary summary;
  summary.master = table_.master;
  if (table_.master) {
    summary.synchronised = true;
    summary.exchanges = answered_.load(std::memory_order_relaxed);
    return summary;
  }
  summary.synchronised = synchronised_;
  summary.rounds = rounds_;
  summary.exchanges = exchanges_;
  summary.failed = failed_;
  const kal::TimePoint now = kal::MonotonicClock::now();
  std::int64_t bound = 0;
  if (const Sample* choice = chosen(kal::to_nanoseconds(now + options_.skew), bound);
      choice != nullptr) {
    summary.offset_ns = -choice->offset_ns;
    // What global time still lacks of the estimate (a slew in progress) widens its bound.
    summary.error_bound_ns = bound + abs(correction_.at(now).count() - choice->offset_ns);
  }
  summary.max_round_trip_ns = max_round_trip_ns_;
  summary.mean_round_trip_ns =
      exchanges_ == 0 ? 0 : sum_round_trip_ns_ / static_cast<std::int64_t>(exchanges_);
  return summary;
}

std::span<const ClockRound> ClockSync::rounds() const noexcept {
  return {log_.get(), logged_};
}

}  // namespace kairos::clock
