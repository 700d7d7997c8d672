// Partitioned scheduling: where the engine's cores run, and the rule that keeps every TMO, its
// ODS segments and its BCC on one core.
#include <kairos/engine.hpp>

#include <algorithm>
#include <array>
#include <cstdio>

#include <kairos/kal/error.hpp>
#include <kairos/kal/thread.hpp>

#include "engine_state.hpp"

namespace kairos {

namespace {
// CPUs looked at when a multicore engine places its cores itself (Linux's fixed CPU set size).
constexpr int kCpusLooked = 1024;
}  // namespace

bool Engine::shares_across_cores(std::string_view instance, std::uint64_t segments,
                                 std::uint8_t core) const noexcept {
  // A TMO is bound to one core with all its methods: its segment locks and the BCC between its
  // methods are then never contended from another core.
  auto shared = [&](const auto& entry) {
    return entry.core != core && (entry.instance == instance || (entry.segments & segments) != 0);
  };
  for (std::size_t i = 0; i < state_->binding_count; ++i) {
    if (shared(*state_->bindings[i].entry)) {
      return true;
    }
  }
  for (std::size_t i = 0; i < state_->service_count; ++i) {
    if (shared(*state_->services[i].entry)) {
      return true;
    }
  }
  return false;
}

kal::Status Engine::place_cores() noexcept {
  const std::size_t cores = options_.cores;
  const std::span<const int> cpus = options_.core_cpus;
  if (cores == 0) {
    return kal::Status::kInvalidArgument;
  }
  if (cores > kMaxCores) {
    return kal::Status::kCapacityExceeded;
  }
  if (options_.cpu >= 0 && (cores > 1 || !cpus.empty())) {
    return kal::Status::kInvalidArgument;  // `cpu` pins a single-core engine only
  }
  if (const kal::Status status = kal::provision_processors(static_cast<int>(cores));
      status != kal::Status::kOk) {
    return status;
  }
  if (!cpus.empty()) {
    if (cpus.size() != cores) {
      return kal::Status::kInvalidArgument;
    }
    for (std::size_t c = 0; c < cores; ++c) {
      if (!kal::cpu_available(cpus[c])) {
        return kal::Status::kInvalidArgument;
      }
      for (std::size_t d = 0; d < c; ++d) {
        if (cpus[d] == cpus[c]) {
          return kal::Status::kInvalidArgument;  // two cores on one CPU would preempt each other
        }
      }
      state_->core_cpu[c] = cpus[c];
    }
    return kal::Status::kOk;
  }
  if (cores == 1) {
    if (options_.cpu >= 0 && !kal::cpu_available(options_.cpu)) {
      return kal::Status::kInvalidArgument;
    }
    state_->core_cpu[0] = options_.cpu;
    return kal::Status::kOk;
  }
  // Core c on the c-th CPU this process may use, for the cores that run something: core 0 (the
  // time trigger's) and every core with a lane. A node placed on fewer cores than its hardware
  // has runs where there are fewer CPUs.
  std::size_t used = 1;
  for (std::size_t l = 0; l < state_->lane_count; ++l) {
    used = std::max(used, std::size_t{state_->lanes[l].core} + 1);
  }
  int cpu = 0;
  for (std::size_t c = 0; c < cores; ++c, ++cpu) {
    while (cpu < kCpusLooked && !kal::cpu_available(cpu)) {
      ++cpu;
    }
    if (cpu == kCpusLooked) {
      if (c >= used) {
        state_->core_cpu[c] = -1;  // nothing runs there
        continue;
      }
      std::array<char, 160> message{};
      std::snprintf(message.data(), message.size(),
                    "the node's methods run on cores 0 to %zu, each on a CPU of its own, but this "
                    "process may use only %zu CPU%s",
                    used - 1, c, c == 1 ? "" : "s");
      kal::report(kal::Severity::kError, "engine", message.data());
      return kal::Status::kUnavailable;
    }
    state_->core_cpu[c] = cpu;
  }
  return kal::Status::kOk;
}

}  // namespace kairos
