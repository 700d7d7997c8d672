// The platform probe: what the schedulability analysis needs to know about the machine a node
// runs on, measured through the runtime's own engine and KAL (`kairos probe`, a node's
// `--probe FILE`). The figures go into a platform file (JSON, docs/cli.md#probe) that a `hardware`
// of the model names, so that `kairos check` charges them to every method:
//   - release lateness: how late the engine starts an SpM after its start window opens (the
//     time trigger's timer, the hand-over to the lane, the lane's own timer), measured on an
//     engine releasing an SpM every millisecond, as cyclictest measures a timer thread;
//   - dispatch handoff: from the moment the time trigger hands an activation to its lane to the
//     moment the lane starts it (what a service request admitted to a sleeping lane waits too);
//   - context switch: one hand-over between two threads of one CPU through a KAL event (the
//     engine's wake-up path), half an event ping-pong;
//   - ceiling lock: locking and unlocking an uncontended priority-ceiling mutex (an ODS segment);
//   - ORB call: one two-way call of an empty operation through the ORB over a Unix socket, the
//     client and the serving engine on the probe's CPU: what a remote call costs its two ends;
//   - clock read: one MonotonicClock::now();
//   - channel transport: a channel sample's way through Cyclone DDS, from its write in one
//     process to the reader's listener in another on this host, both at the hub's band on the
//     probe's CPU (only the kairos-probe built with Cyclone DDS measures it).
// Each figure is a distribution (samples, p50, p99, p99.9, max); the analysis charges the
// maxima of the lateness and the handoff and the p99.9 of the per-job costs (docs/analysis.md).
#pragma once

#include <cstdint>
#include <cstdio>
#include <vector>

#include <kairos/kal/clock.hpp>
#include <kairos/kal/error.hpp>

namespace kairos::probe {

/// One measured distribution, in nanoseconds.
struct Distribution {
  std::uint64_t samples = 0;
  std::int64_t p50_ns = 0;
  std::int64_t p99_ns = 0;
  std::int64_t p999_ns = 0;
  std::int64_t max_ns = 0;
};

/// The distribution of `samples` (sorted in place); no samples, none.
Distribution distribution_of(std::vector<std::int64_t>& samples);

struct ProbeOptions;

/// A figure the runtime cannot measure itself, measured on `cpu` by whoever links what it needs:
/// kOk with `out` filled, or why not.
using FigureMeasure = kal::Status (*)(const ProbeOptions& options, int cpu,
                                      Distribution& out) noexcept;

struct ProbeOptions {
  kal::Duration duration = std::chrono::seconds{10};  ///< release-lateness run; the rest is short
  int cpu = -1;            ///< the CPU to measure on (-1: the first this process may use)
  bool real_time = true;   ///< SCHED_FIFO where permitted, as a node runs
  const char* label = "";  ///< who measured: a node's name, or empty for the probe program
  /// A channel sample's way through the channel transport between nodes (Cyclone DDS): from its
  /// write on one process to the reader's listener in another, on this host. The kairos-probe
  /// built with Cyclone DDS measures it; without it (nullptr) the figure is not measured.
  FigureMeasure channel_transport = nullptr;
};

struct ProbeResult {
  Distribution release_lateness;
  Distribution dispatch_handoff;
  Distribution context_switch;
  Distribution ceiling_lock;
  Distribution orb_call;
  /// The same call over loopback tcp: under TLS 1.3 (the records sealed and opened, as between
  /// nodes on a network without `security none`); no samples where it could not be measured (no
  /// openssl command to make the probe's keys).
  Distribution orb_call_tls;
  Distribution clock_read;
  Distribution channel_transport;  ///< no samples where not measured (ProbeOptions)
  bool real_time = false;          ///< whether the measuring threads ran with real-time priorities
  int cpu = -1;
};

/// Measures the machine. Not on simulated time (kUnavailable: a simulated node has no
/// overheads to measure); otherwise kOk or the KAL's error.
kal::Status measure(const ProbeOptions& options, ProbeResult& result) noexcept;

/// Writes the platform file for `result` (JSON; the format is docs/cli.md#probe's).
void write_platform_file(std::FILE* out, const ProbeOptions& options,
                         const ProbeResult& result) noexcept;

/// The probe program's main and a node's `--probe FILE`: measures, prints a summary to
/// standard output, writes the platform file to `path` ("-" for standard output); 0 on success,
/// 1 when the measurement or the file failed (said on standard error).
int run_probe(const ProbeOptions& options, const char* path) noexcept;

}  // namespace kairos::probe
