// What a node measures of each of its methods while it runs: execution and response times in
// fixed log-linear histograms (as HdrHistogram keeps them), and how often the method ran longer
// than its declared WCET. Written by the one thread that runs the method at a time, without a
// lock or an allocation; read by any thread (a report written on a signal reads a live run).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include <kairos/kal/clock.hpp>

namespace kairos {

/// A rank among recorded values: `parts` of `of` (99 of 100 is the 99th percentile).
struct Quantile {
  std::uint64_t parts;
  std::uint64_t of;
};
inline constexpr Quantile kP99{99, 100};
inline constexpr Quantile kP999{999, 1000};

/// Durations in nanoseconds in fixed buckets: exact below 64 ns, then 32 buckets per power of two,
/// so a bucket spans at most 1/32 (3.1%) of the values in it. Values from 2^36 ns (about 69 s)
/// share the last bucket. The maximum is kept exactly.
///
/// One writer at a time (the lane that runs the method, or the thread it lends itself to, which
/// the lane's hand-over orders before and after): a record is a relaxed load and store per word,
/// never a read-modify-write. Readers see every word whole; a reader during a record may see the
/// count and the buckets one value apart.
class TimingHistogram {
 public:
  static constexpr unsigned kSubBucketBits = 5;
  static constexpr std::uint64_t kSubBuckets = std::uint64_t{1} << kSubBucketBits;
  static constexpr unsigned kTopExponent = 36;
  static constexpr std::size_t kBuckets = kSubBuckets * (kTopExponent - kSubBucketBits + 1);

  /// The bucket that holds `value`.
  static constexpr std::size_t bucket_of(std::uint64_t value) noexcept {
    if (value < kSubBuckets) {
      return static_cast<std::size_t>(value);
    }
    const auto exponent = static_cast<unsigned>(std::bit_width(value)) - 1;
    if (exponent >= kTopExponent) {
      return kBuckets - 1;
    }
    const unsigned shift = exponent - kSubBucketBits;
    const std::uint64_t sub = (value >> shift) - kSubBuckets;
    return static_cast<std::size_t>(kSubBuckets + shift * kSubBuckets + sub);
  }

  /// The smallest value bucket `bucket` holds.
  static constexpr std::uint64_t lowest_in(std::size_t bucket) noexcept {
    if (bucket < kSubBuckets) {
      return bucket;
    }
    const std::uint64_t above = bucket - kSubBuckets;
    const auto shift = static_cast<unsigned>(above / kSubBuckets);
    return (kSubBuckets + above % kSubBuckets) << shift;
  }

  /// The largest value bucket `bucket` holds (the last bucket: every larger value too).
  static constexpr std::uint64_t highest_in(std::size_t bucket) noexcept {
    if (bucket + 1 >= kBuckets) {
      return std::numeric_limits<std::uint64_t>::max();
    }
    return lowest_in(bucket + 1) - 1;
  }

  /// Adds one value (negative durations count as 0).
  void record(std::int64_t nanoseconds) noexcept {
    const auto value = static_cast<std::uint64_t>(std::max<std::int64_t>(nanoseconds, 0));
    std::atomic<std::uint32_t>& bucket = buckets_[bucket_of(value)];
    const std::uint32_t held = bucket.load(std::memory_order_relaxed);
    if (held != std::numeric_limits<std::uint32_t>::max()) {  // saturates, never wraps
      bucket.store(held + 1, std::memory_order_relaxed);
    }
    count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    if (value > max_.load(std::memory_order_relaxed)) {
      max_.store(value, std::memory_order_relaxed);
    }
  }

  std::uint64_t count() const noexcept { return count_.load(std::memory_order_relaxed); }
  /// The largest value recorded (0 when none was).
  std::uint64_t max() const noexcept { return max_.load(std::memory_order_relaxed); }

  /// The value at rank ceil(n * parts / of) of the n recorded (nearest rank): the highest value of
  /// its bucket, never above max(). So it is exact where the values are bucket boundaries or
  /// below 64 ns, and otherwise at most 1/32 above the true one. 0 when nothing was recorded.
  std::uint64_t percentile(Quantile quantile) const noexcept {
    std::uint64_t total = 0;
    for (const auto& bucket : buckets_) {
      total += bucket.load(std::memory_order_relaxed);
    }
    if (total == 0 || quantile.of == 0) {
      return 0;
    }
    const std::uint64_t parts = std::min(quantile.parts, quantile.of);
    // ceil(total * parts / of) without overflow for any count a run can reach
    const std::uint64_t rank = std::max<std::uint64_t>(
        1, total / quantile.of * parts +
               (total % quantile.of * parts + quantile.of - 1) / quantile.of);
    std::uint64_t seen = 0;
    for (std::size_t bucket = 0; bucket < kBuckets; ++bucket) {
      seen += buckets_[bucket].load(std::memory_order_relaxed);
      if (seen >= rank) {
        return std::min(highest_in(bucket), max());
      }
    }
    return max();
  }

 private:
  std::array<std::atomic<std::uint32_t>, kBuckets> buckets_{};
  std::atomic<std::uint64_t> count_{0};
  std::atomic<std::uint64_t> max_{0};
};

static_assert(TimingHistogram::bucket_of(63) == 63 && TimingHistogram::bucket_of(64) == 64);
static_assert(TimingHistogram::lowest_in(TimingHistogram::bucket_of(1'000'000)) <= 1'000'000 &&
              TimingHistogram::highest_in(TimingHistogram::bucket_of(1'000'000)) >= 1'000'000);
static_assert(TimingHistogram::bucket_of((std::uint64_t{1} << 36) - 1) ==
              TimingHistogram::kBuckets - 1);

/// One method's measurements on a node (an SpM or SvM row of its engine).
struct MethodTimings {
  /// The method's execution time: its body's CPU time on a real platform (time it spends
  /// preempted or blocked is not in it), its modelled time on the simulated one.
  TimingHistogram execution;
  /// From its release (an SpM) or its request's arrival (an SvM) to its finish.
  TimingHistogram response;
  /// Executions longer than the row's declared WCET.
  std::atomic<std::uint64_t> wcet_overruns{0};
  /// Activations not started inside their start window (an SpM's; none for an SvM).
  std::atomic<std::uint64_t> start_window_misses{0};
  /// Runs that finished after their deadline (an SpM's completion deadline, an SvM's GCT).
  std::atomic<std::uint64_t> deadline_misses{0};
  /// Activations still running past their deadline when it came (an SpM's).
  std::atomic<std::uint64_t> overruns{0};

  /// Records one run of the method (by the thread running it, see TimingHistogram).
  void record(kal::Duration execution_time, kal::Duration response_time,
              kal::Duration wcet) noexcept {
    execution.record(execution_time.count());
    response.record(response_time.count());
    if (execution_time > wcet) {
      wcet_overruns.store(wcet_overruns.load(std::memory_order_relaxed) + 1,
                          std::memory_order_relaxed);
    }
  }
  /// Records one run whose execution time was not measured (EngineOptions).
  void record_response(kal::Duration response_time) noexcept {
    response.record(response_time.count());
  }
};

}  // namespace kairos
