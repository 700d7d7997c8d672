// What the watchdogs decide when a deadline or GCT passes, and how a miss reaches its handler.
#include "watchdogs.hpp"

#include "engine_internal.hpp"
#include "time_trigger.hpp"

namespace kairos {

using namespace engine_internal;

void Engine::pass_watches(Trigger& trigger, kal::TimePoint now) noexcept {
  trigger.deadlines.pass(now, trigger.cursor,
                         [&](std::size_t spm, std::uint64_t sequence, kal::TimePoint release) {
                           watch_deadline(state_->bindings[spm], sequence, release, now);
                         });
  trigger.gcts.pass(
      now,
      [&](const GctWatchdog::Watch& watch) {
        return state_->services[watch.svm].done.load(std::memory_order_acquire) > watch.sequence;
      },
      [&](const GctWatchdog::Watch& watch) {
        ServiceBinding& service = state_->services[watch.svm];
        if (claim_decision(service.decided, watch.sequence)) {
          report_gct_miss(service, watch.sequence, watch.arrival, now);
        }
      });
}

void Engine::watch_deadline(Binding& binding, std::uint64_t sequence, kal::TimePoint release,
                            kal::TimePoint now) noexcept {
  // Still running at its deadline: missed. Still waiting: its start window, which closes no
  // later than the deadline, is missed, and the lane will not run it.
  const std::uint64_t decided = progress_of(sequence, kDecided);
  std::uint64_t seen = binding.progress.load(std::memory_order_acquire);
  while (seen < decided) {
    if (binding.progress.compare_exchange_weak(seen, decided, std::memory_order_acq_rel)) {
      report_miss(binding, sequence,
                  seen == progress_of(sequence, kRunning) ? MissKind::kCompletionDeadline
                                                          : MissKind::kStartWindow,
                  release, now);
      return;
    }
  }
}

void Engine::report_miss(Binding& binding, std::uint64_t sequence, MissKind kind,
                         kal::TimePoint release, kal::TimePoint observed) noexcept {
  if (binding.on_miss != nullptr) {
    const MissReport report{binding.entry, sequence, kind, release - state_->epoch,
                            observed - state_->epoch};
    binding.on_miss(binding.servant, report);
  }
}

void Engine::report_gct_miss(ServiceBinding& service, std::uint64_t sequence,
                             kal::TimePoint arrival, kal::TimePoint observed) noexcept {
  if (service.on_miss != nullptr) {
    const MissReport report{nullptr,
                            sequence,
                            MissKind::kGuaranteedCompletion,
                            arrival - state_->epoch,
                            observed - state_->epoch,
                            service.entry};
    service.on_miss(service.servant, report);
  }
}

}  // namespace kairos
