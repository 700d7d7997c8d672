#include <kairos/kal/global_time.hpp>

#include <algorithm>

namespace kairos::kal {

namespace {
constexpr std::int64_t kPpm = 1'000'000;
/// A correction larger than this is stepped, not slewed: a slew's arithmetic stays within 64 bits
/// (a slew of this size at the smallest rate takes 2.8 hours of monotonic time; for any larger
/// one, global time is not yet in use).
constexpr std::int64_t kLargestSlewNs = 10'000'000'000;

SlewedOffset process_offset;
}  // namespace

SlewedOffset::Plan SlewedOffset::read() const noexcept {
  // A writer changes the plan once per synchronisation round, so a read that overlaps one is
  // rare, and is simply read again.
  for (;;) {
    const std::uint32_t before = sequence_.load(std::memory_order_acquire);
    if ((before & 1U) != 0) {
      continue;
    }
    Plan plan;
    plan.start_ns = start_ns_.load(std::memory_order_relaxed);
    plan.from_ns = from_ns_.load(std::memory_order_relaxed);
    plan.to_ns = to_ns_.load(std::memory_order_relaxed);
    plan.rate_ppm = rate_ppm_.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    if (sequence_.load(std::memory_order_relaxed) == before) {
      return plan;
    }
  }
}

void SlewedOffset::write(const Plan& plan) noexcept {
  const std::uint32_t sequence = sequence_.load(std::memory_order_relaxed);
  sequence_.store(sequence + 1, std::memory_order_relaxed);
  std::atomic_thread_fence(std::memory_order_release);
  start_ns_.store(plan.start_ns, std::memory_order_relaxed);
  from_ns_.store(plan.from_ns, std::memory_order_relaxed);
  to_ns_.store(plan.to_ns, std::memory_order_relaxed);
  rate_ppm_.store(plan.rate_ppm, std::memory_order_relaxed);
  sequence_.store(sequence + 2, std::memory_order_release);
}

std::int64_t SlewedOffset::evaluate(const Plan& plan, std::int64_t t_ns) noexcept {
  const std::int64_t distance = plan.to_ns - plan.from_ns;
  if (distance == 0 || plan.rate_ppm <= 0) {
    return plan.to_ns;
  }
  const std::int64_t elapsed = t_ns - plan.start_ns;
  if (elapsed <= 0) {
    return plan.from_ns;
  }
  const std::int64_t magnitude = distance < 0 ? -distance : distance;
  // elapsed * rate / 1e6 without overflow, for any elapsed time and rate up to kMaxRatePpm.
  const std::int64_t moved =
      std::min(magnitude, elapsed / kPpm * plan.rate_ppm + elapsed % kPpm * plan.rate_ppm / kPpm);
  return plan.from_ns + (distance < 0 ? -moved : moved);
}

void SlewedOffset::step(Duration offset) noexcept {
  write(Plan{0, offset.count(), offset.count(), 0});
}

void SlewedOffset::slew_to(Duration target, TimePoint now, std::int64_t rate_ppm) noexcept {
  const std::int64_t now_ns = to_nanoseconds(now);
  const std::int64_t from = evaluate(read(), now_ns);
  const std::int64_t distance = target.count() - from;
  if (rate_ppm <= 0 || distance > kLargestSlewNs || distance < -kLargestSlewNs) {
    step(target);
    return;
  }
  write(Plan{now_ns, from, target.count(), std::min(rate_ppm, kMaxRatePpm)});
}

Duration SlewedOffset::at(TimePoint t) const noexcept {
  return Duration{evaluate(read(), to_nanoseconds(t))};
}

Duration SlewedOffset::target() const noexcept {
  return Duration{read().to_ns};
}

void set_global_offset(Duration offset) noexcept {
  process_offset.step(offset);
}

void slew_global_offset(Duration target, std::int64_t rate_ppm) noexcept {
  process_offset.slew_to(target, MonotonicClock::now(), rate_ppm);
}

Duration global_offset_at(TimePoint t) noexcept {
  return process_offset.at(t);
}

}  // namespace kairos::kal
