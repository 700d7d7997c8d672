// What every generated node `main` shares: command-line options and the activation log.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include <kairos/clock/clock_sync.hpp>
#include <kairos/engine.hpp>
#include <kairos/kal/clock.hpp>
#include <kairos/kal/tls.hpp>
#include <kairos/orb/gate.hpp>
#include <kairos/probe.hpp>

namespace kairos {

/// `--duration forever`: a run that ends only when it is stopped (SIGINT, SIGTERM). A hundred
/// years, so that the end of the run is still a time the clock can hold.
inline constexpr kal::Duration kUntilStopped = std::chrono::hours{24 * 365 * 100};

struct NodeOptions {
  kal::Duration duration = std::chrono::seconds{10};
  bool quiet = false;  ///< no line per activation, only the summary
  /// `--peer-wait`: how long a node that calls others waits for them to answer before its engine
  /// starts (the nodes of a system start together).
  kal::Duration peer_wait = std::chrono::seconds{5};
  int cpu = -1;  ///< `--cpu`: single-core nodes pin the engine's threads to it (-1: any)
  /// The node's cores, from its schedule: the generated main sets it before parsing, which
  /// checks `--cpu` and `--cpus` against it.
  std::uint8_t cores = 1;
  /// `--cpus`: core c runs on cpus[c]; `cpu_count` is 0 when the option was not given.
  std::array<int, Engine::kMaxCores> cpus{};
  std::size_t cpu_count = 0;

  /// The CPU of the node's ORB threads (its acceptor and band readers; -1: any). Not an option
  /// of the command line: a node's own executable puts them on its core 0's CPU when `--cpu` or
  /// `--cpus` pins it, and a system run in one process on the processor of each node's core 0,
  /// so that nodes never share a processor.
  int orb_cpu = -1;

  /// `--clock-skew`: a synthetic offset added to the node's local clock (may be negative), so
  /// that nodes sharing one host clock have an offset for clock synchronisation to find.
  kal::Duration clock_skew{};
  /// `--clock-log`: print a `clock-round` line per synchronisation round after the run.
  bool clock_log = false;
  /// `--probe`: instead of running, measure the machine's overheads into this platform file.
  const char* probe_path = nullptr;
  /// Whether the node's global time is the process's (kal::global_now). Not an option of the
  /// command line: a node's own executable owns its process; nodes of a system run in one
  /// process (run_system) keep their global times apart.
  bool sets_process_clock = true;
  /// `--timings`: where the node writes what it measured of each method (JSON, at the end of the
  /// run and on SIGUSR1); nullptr when not asked for. Points into the command line.
  const char* timings = nullptr;

  /// `--start-at`: the Unix time (CLOCK_REALTIME, nanoseconds) the run's epoch is at, for nodes
  /// started together (`kairos run`): each sets up and meets its peers, then waits for it. 0: as
  /// soon as the node is set up. Ignored on `os sim`, whose clock is virtual.
  std::int64_t start_at_unix_ns = 0;

  /// `--rejoin-every`: the system's hyperperiod, for a node that starts after the --start-at
  /// instant (restarted by its service manager, or started late): it then begins at the next
  /// instant start_at + k x rejoin_every that leaves it time to start, so that its releases fall
  /// where its peers expect them. Zero: it begins as soon as it can (and warns).
  kal::Duration rejoin_every{0};

  /// One entry of `--band-map`: band `band` of core `core` runs at host band `host` on that
  /// core's CPU, which other nodes' cores share (`kairos run` ranks them all; docs/deploy.md).
  struct BandMapping {
    std::uint8_t core = 0;
    kal::PriorityBand band = 0;
    kal::PriorityBand host = 0;
  };
  static constexpr std::size_t kMaxBandMappings = std::size_t{Engine::kMaxCores} * 16;
  /// `--band-map`: applied with kal::map_band on the CPUs of `--cpu`/`--cpus` before any thread
  /// starts; `band_map_count` is 0 when the option was not given.
  std::array<BandMapping, kMaxBandMappings> band_map{};
  std::size_t band_map_count = 0;

  /// `--keys` (or the environment's KAIROS_KEYS): the node's identity for authenticated tcp:
  /// connections (ca.pem, NODE.pem and NODE.key of that directory, as `kairos keys` makes them),
  /// loaded while the options are parsed; nullptr when neither names one, or KAIROS_KEYS's did
  /// not load, which `identity_error` then says.
  const kal::TlsIdentity* identity = nullptr;
  const char* identity_error = "";

  /// `--socket-group`: the group whose members may connect to the node's uds: or shm: endpoint
  /// besides its own user (its socket file then mode 0660), for nodes of one host that run as
  /// users of their own; -1: its user alone.
  std::int64_t socket_group = -1;

  std::span<const int> core_cpus() const noexcept { return {cpus.data(), cpu_count}; }
};

/// One node's generated program (`<node>.node.cpp`, `<node>_node::kProgram`): its steps, in the
/// order they run. The node's own executable runs it with run_node; a system whose nodes run in
/// one process runs several with run_system (kairos/system.hpp).
struct NodeProgram {
  const char* name = "";   ///< the node's name in the model
  std::uint8_t cores = 1;  ///< the cores of its hardware
  /// Builds the node for a run with `options` (which must outlive the run): its engine and its
  /// rows, its ORB listening on its endpoint, its peers, routes and gates, and starts the ORB.
  /// Says what failed (kal::report) and returns false.
  bool (*set_up)(const NodeOptions& options) noexcept = nullptr;
  /// Waits until every peer the node calls has answered, or `until` passes; true when all have.
  /// nullptr for a node that calls no other.
  bool (*meet_peers)(kal::TimePoint until) noexcept = nullptr;
  /// Runs the node's engine for `duration` (Engine::run_for, with its observer).
  kal::Status (*run)(kal::Duration duration, ActivationObserver observer,
                     void* observer_context) noexcept = nullptr;
  /// After the run: stops the ORB and prints the node's summary line and a line per gate.
  void (*finish)() noexcept = nullptr;
  /// The node's engine once set up (nullptr before): what it measured of each method, for the
  /// `--timings` file, and what SIGINT and SIGTERM stop (kairos/node_signals.hpp).
  Engine* (*engine)() noexcept = nullptr;
  /// What `--probe` measures of the channel transport: a node whose channels cross Cyclone DDS
  /// measures it with Kairos::probe_dds (kairos/probe_dds.hpp); nullptr leaves the figure out.
  probe::FigureMeasure channel_transport = nullptr;
};

/// Says that node `node`, whose tcp: connections the model authenticates, has no identity: how
/// to give it one, and what was wrong with the one KAIROS_KEYS named.
void report_missing_identity(const NodeOptions& options, const char* node) noexcept;

/// The main of a node's own executable: parses its command line (parse_node_options), sets the
/// node up, meets its peers for at most `--peer-wait`, runs it, printing an activation line per
/// record unless `--quiet`, and finishes it; with `--timings FILE` it writes the file at the end
/// and whenever SIGUSR1 arrives during the run (kairos/timings_report.hpp). SIGINT or SIGTERM
/// ends the run early at a clean point, which then finishes as at the end of its duration
/// (kairos/node_signals.hpp). Returns the exit
/// code: 0; 1 when the node could not be set up, its run failed or its timings could not be
/// written; 2 on a usage error.
int run_node(const NodeProgram& program, int argc, const char* const* argv) noexcept;

enum class NodeCommand { kRun, kHelp, kUsageError };

/// Parses `--duration <time>` (e.g. 2s, 1500ms), `--cpu <n>` (single-core nodes), `--cpus <list>`
/// (one CPU per core, e.g. 2,3), `--peer-wait <time>`, `--timings <file>` (in an existing
/// directory), `--quiet` and `--help`, for a node of
/// `options.cores` cores. It first provisions a machine of that many processors
/// (kal::provision_processors: on sim, one virtual processor per core), so that CPUs are checked
/// against the machine the node runs on. Problems are explained on stderr; the caller exits with 2
/// on kUsageError.
NodeCommand parse_node_options(int argc, const char* const* argv, std::string_view node_name,
                               NodeOptions& options) noexcept;

/// The engine options of a node run with `options`: its strategy, whether it models WCETs, its
/// cores and their CPUs (`core_cpus` refers to `options`, which must outlive the run), and how
/// long it serves requests after its run ends (EngineOptions::serve_after_end).
EngineOptions engine_options(const NodeOptions& options, Strategy strategy,
                             bool model_execution_time,
                             kal::Duration serve_after_end = kal::Duration::zero()) noexcept;

/// Parses a duration with a unit: ns, us, ms, s or min. False on any malformed text.
bool parse_duration(std::string_view text, kal::Duration& out) noexcept;

/// The Unix time (ns) a node's run begins at when asked for `start_at` (--start-at) and it is now
/// `now`: `start_at` itself while at least `margin` ahead; otherwise, with `every` (--rejoin-every)
/// above zero, the first start_at + k x every at least `margin` ahead, and without it, `start_at`
/// (already past: the run begins as soon as it can).
std::int64_t rejoin_instant(std::int64_t start_at, std::int64_t now, std::int64_t every,
                            std::int64_t margin) noexcept;

/// parse_duration that also takes a leading `-` (an offset rather than a length of time).
bool parse_signed_duration(std::string_view text, kal::Duration& out) noexcept;

/// The clock synchronisation options of a node run with `options` and `table` (`rounds_kept`
/// sized for `--clock-log` over the run's duration).
clock::ClockSyncOptions clock_sync_options(const NodeOptions& options,
                                           const clock::ClockSyncTable& table,
                                           const char* node_name) noexcept;

/// Longest line print_activation and print_summary write; longer ones are cut at this length.
inline constexpr std::size_t kLineCapacity = 1024;

/// Writes the `activation ...` line of one record, newline included, into `out` (cut to fit,
/// always terminated); returns its length. `core=` is the core the method is bound to. `window=`
/// and `deadline=` follow from the outcome: met/met, met/missed, missed/not-run (start window
/// missed) or overrun/not-run.
std::size_t format_activation(std::span<char> out, const SpmEntry& entry,
                              const ActivationRecord& record) noexcept;

/// Writes the closing `summary ...` line into `out` as format_activation does. Its counts are
/// those of the lines: `activations` all of them, `start_window_misses` those with
/// `window=missed`, `overruns` those with `window=overrun`, `not_run` those with
/// `deadline=not-run` (the two before together), `deadline_misses` those with `deadline=missed`
/// or `deadline=not-run` (an activation that never ran did not finish by its deadline either);
/// `wcet_overruns` (last) counts runs longer than their WCET, as the
/// `--timings` file does per method, or says `unmeasured` when execution times were not measured
/// (EngineOptions::measure_execution_time).
std::size_t format_summary(std::span<char> out, std::string_view node_name,
                           const EngineCounters& counters) noexcept;

/// format_activation for a node among several in one process: the line names the node too
/// (`activation node=<name> instance=...`).
std::size_t format_activation(std::span<char> out, std::string_view node_name,
                              const SpmEntry& entry, const ActivationRecord& record) noexcept;

/// ActivationObserver that prints one `activation ...` line per record on stdout.
void print_activation(void* context, const SpmEntry& entry, const ActivationRecord& record);

/// Prints the closing `summary ...` line on stdout.
void print_summary(std::string_view node_name, const EngineCounters& counters);

/// Writes the `gate ...` line of one gate after the run into `out` as format_activation does:
/// its calls made, answered, late (no reply by the deadline) and failed, the longest answered
/// round trip beside the bound `kairos check` computed for it (callee's worst-case response plus
/// the network both ways; negative: none) and the gate's deadline.
std::size_t format_gate(std::span<char> out, std::string_view node_name, std::string_view gate,
                        std::string_view callee, const orb::GateCounters& counters,
                        kal::Duration analysed_bound, kal::Duration deadline) noexcept;

/// Writes, into `out`, what a gate's counts say against what `kairos check` assumed, when they
/// say something: calls that had no reply by the deadline (the longest round trip leaves them
/// out, since their replies never came), and an answered round trip beyond the analysed bound.
/// Returns 0 when the run kept both, else the size of one sentence (no newline).
std::size_t format_gate_warning(std::span<char> out, std::string_view gate,
                                const orb::GateCounters& counters, kal::Duration analysed_bound,
                                kal::Duration deadline) noexcept;

/// Writes the `clock ...` line of a node's clock synchronisation after the run into `out` as
/// format_activation does: its role, the master, rounds and exchanges made and failed, the
/// estimated offset of its clock to the master's with its error bound, and the largest and mean
/// round trip of the exchanges (a master: the exchanges it answered).
std::size_t format_clock(std::span<char> out, std::string_view node_name,
                         const clock::ClockSyncTable& table,
                         const clock::ClockSummary& summary) noexcept;

/// Writes one `clock-round ...` line (`--clock-log`) into `out` as format_activation does.
std::size_t format_clock_round(std::span<char> out, std::string_view node_name, std::size_t round,
                               const clock::ClockRound& record) noexcept;

/// Prints a `clock-round ...` line per round recorded (`--clock-log`), then the `clock ...` line,
/// on stdout.
void print_clock(std::string_view node_name, const clock::ClockSync& sync);

/// Writes the `orb ...` line of a node that serves others, after the run, into `out` as
/// format_activation does: requests taken in and refused, and of those refused the ones whose
/// caller the access list does not permit or that went beyond their caller's budget, the
/// connections refused at their hello (an unknown node; a node holding every slot it is given)
/// and closed to let a newer one in, and the malformed frames whose connections were closed.
std::size_t format_orb(std::span<char> out, std::string_view node_name,
                       const orb::OrbCounters& counters) noexcept;

/// Writes the `orb-caller ...` line of one calling node of the access list into `out`: what it
/// asked of this node and what was refused, and the connection slots it holds and is given.
std::size_t format_orb_caller(std::span<char> out, std::string_view node_name,
                              const orb::CallerCounters& caller) noexcept;

/// Prints the `orb ...` line, then an `orb-caller ...` line per node of its access list, on
/// stdout.
void print_orb(std::string_view node_name, const orb::Orb& orb);

/// Reports, as one error line of the node (kal::report), that `what` failed and why (`status`).
void report_failure(const char* node_name, const char* what, kal::Status status) noexcept;

/// Prints the `gate ...` line of one gate on stdout.
void print_gate(std::string_view node_name, std::string_view gate, std::string_view callee,
                const orb::GateCounters& counters, kal::Duration analysed_bound,
                kal::Duration deadline);

}  // namespace kairos
