// Periodic clients of several priorities calling one Kairos node over the ORB: the harness of
// mt_cubit and inversion (bench/README.md). The server is the calling binary started again with
// `--serve`: a TMO engine with one service method per client class, each on that class's band,
// and an ORB serving those bands (a reader per band, at its priority). The clients are threads
// of the calling process at their class's priority, each standing for its own lane of the client
// node, so each has its own connection (a connection never carries two priorities or two
// callers). Every call cubes a long; every reply is checked outside the timed section.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "../stats.hpp"
#include "process.hpp"
#include "stack.hpp"

namespace cubit::priority {

/// The most clients of one class: a route each, within the ORB's 64 (capacities.properties),
/// beside a few of other classes.
inline constexpr int kMaxLowClients = 56;

/// Clients of one rate and priority.
struct ClientClass {
  std::string name;           // e.g. "high", "20 Hz"
  double hz = 10;             // calls per second of each client
  int band = 10;              // the clients' and their service method's priority band
  int count = 1;              // clients of this class
  std::int64_t phase_ns = 0;  // release offset of the class from the common epoch
};

struct RunOptions {
  Family family = Family::kUds;
  double seconds = 5;  // length of each run
  int work_us = 100;   // busy time of the servant per request (its WCET, standing in)
  int stagger_us = 0;  // release offset between successive classes, less urgent ones first
  int cpu_client = -1;
  int cpu_server = -1;
};

/// One class's results: round trips of all its clients together.
struct ClassResult {
  bench::Summary latency{0, 0, 0, 0, 0};
  std::uint64_t calls = 0;
  std::uint64_t failed = 0;  // calls that did not come back OK
  std::uint64_t wrong = 0;   // replies that were not the cube of the request
  std::string first_error;
};

struct RunResult {
  std::vector<ClassResult> classes;
  bool real_time = false;  // the client threads obtained SCHED_FIFO
  std::string error;       // set when the run could not be made at all
};

/// Starts a server for `classes`' bands, runs every client for `options.seconds` from a common
/// epoch, stops the server and returns the results per class.
RunResult run(const std::vector<ClientClass>& classes, const RunOptions& options,
              const std::string& run_dir, const std::string& token);

/// The serving child: `--serve-priority BANDS WORK_US FAMILY --run-dir D --token T --ready-fd N`
/// (BANDS comma-separated). Returns the process's exit status.
int serve(int argc, char** argv);

/// The options of mt_cubit and inversion: --seconds, --work-us, --stagger-us,
/// --transport uds|tcp, --cpu-client, --cpu-server, --json, --help, and with `with_clients`
/// --clients LIST (numbers of low-priority clients); anything else is an error. `defaults` gives
/// the program's own defaults.
struct ParsedArgs {
  RunOptions options;
  std::vector<int> clients;
  bool placed = false;  // --cpu-client or --cpu-server was given (-1: unpinned)
  std::string json;     // --json FILE: also write the results there
  bool help = false;
  std::string error;
};
ParsedArgs parse_arguments(int argc, char** argv, const RunOptions& defaults, bool with_clients);

/// What mt_cubit and inversion do first, alike: serve (the child started with `--serve-priority`),
/// answer `--help`, refuse bad arguments (with `usage`), place and pin the client, and make the
/// run directory; a broken pipe is an error to read, not a signal. Returns the exit status when
/// the program should stop there, nothing when it should go on with `parsed` and `run_dir`.
std::optional<int> prepare(int argc, char** argv, const RunOptions& defaults, bool with_clients,
                           void (*usage)(std::FILE* to, const char* program), ParsedArgs& parsed,
                           RunDirectory& run_dir);

/// Where this process may use two CPUs or more: the client on the first, the server on the
/// second, so that each side's priorities decide on its own CPU.
void default_placement(RunOptions& options);

/// "SCHED_FIFO" or a sentence saying why not.
std::string scheduling_note(bool real_time);

/// JSON pieces for the programs' --json output.
std::string json_string(const std::string& text);
/// The head every result file shares: benchmark name, options, loads and errors, then
/// `"results": [` (the caller writes the rows and closes with `]}`).
void write_json_head(std::FILE* out, const char* benchmark, const RunOptions& options,
                     bool real_time, const double load_before[3], const double load_after[3],
                     const std::vector<std::string>& errors);

}  // namespace cubit::priority
