// cubit: the two-way cube of an octet, a short, a long, a struct and sequence<long> of 1..1024,
// and oneway throughput, over Unix sockets, TCP, UDP and shared memory — for the raw
// ping-pongs written for the bench and for every peer stack built in (gRPC, Cyclone DDS), in
// one run, with one table per payload and ratios to the raw baseline of the same transport.
//
//   kairos_bench_cubit [--samples N] [--transport uds,tcp,udp,shm|all] [--payload ...]
//                      [--stack raw,kairos,grpc,dds|all] [--oneway N] [--json FILE]
//                      [--cpu-client C] [--cpu-server C]
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "measure.hpp"
#include "options.hpp"
#include "process.hpp"
#include "stack.hpp"

namespace cubit {

std::vector<std::unique_ptr<Stack>> make_stacks() {
  std::vector<std::unique_ptr<Stack>> stacks;
  stacks.push_back(make_raw_stack());
#ifdef KAIROS_CUBIT_KAIROS
  stacks.push_back(make_kairos_stack());
#endif
#ifdef KAIROS_CUBIT_GRPC
  stacks.push_back(make_grpc_stack());
#endif
#ifdef KAIROS_CUBIT_DDS
  stacks.push_back(make_dds_stack());
#endif
  return stacks;
}

namespace {

int serve(const Options& options) {
  for (auto& stack : make_stacks()) {
    if (stack->name() != options.serve_stack) {
      continue;
    }
    for (const Transport& transport : stack->transports()) {
      if (transport.name == options.serve_transport) {
        if (!pin_to_cpu(options.cpu_server)) {
          std::fprintf(stderr, "cubit server: cannot pin to CPU %d\n", options.cpu_server);
          return 2;
        }
        return stack->serve(transport, {options.run_dir, options.token, options.ready_fd,
                                        options.wrong_reply, options.breakdown});
      }
    }
  }
  std::fprintf(stderr, "cubit server: no stack '%s' with transport '%s'\n",
               options.serve_stack.c_str(), options.serve_transport.c_str());
  return 2;
}

/// Measures every payload over one transport of one stack, served by a fresh child.
void run_transport(Stack& stack, const Transport& transport, const Options& options,
                   const std::string& run_dir, int serial, std::vector<Row>& rows,
                   std::vector<std::string>& errors) {
  const std::string what = stack.name() + " " + transport.name;
  std::fprintf(stderr, "cubit: %s\n", what.c_str());
  std::vector<std::string> arguments{"--serve",
                                     stack.name(),
                                     transport.name,
                                     "--run-dir",
                                     run_dir,
                                     "--token",
                                     std::to_string(getpid()) + "-" + std::to_string(serial)};
  if (options.cpu_server >= 0) {
    arguments.insert(arguments.end(), {"--cpu-server", std::to_string(options.cpu_server)});
  }
  if (options.wrong_reply >= 0) {
    arguments.insert(arguments.end(), {"--wrong-reply", std::to_string(options.wrong_reply)});
  }
  if (options.breakdown) {
    arguments.emplace_back("--breakdown");
  }
  ServerProcess server;
  std::string endpoint;
  std::string error;
  if (!server.start(arguments, 30'000, endpoint, error)) {
    errors.push_back(what + ": " + error);
    return;
  }
  auto connection = stack.connect(transport, endpoint, error);
  if (!connection) {
    errors.push_back(what + ": " + error);
    return;
  }
  const bool may_drop = transport.family == Family::kUdp || connection->oneway_may_drop();
  bool failed = false;
  for (const Payload& payload : options.payloads) {
    if (!connection->has_two_way()) {
      break;
    }
    Row row;
    row.stack = stack.name();
    row.transport = transport.name;
    row.family = transport.family;
    row.payload = payload;
    if (!measure_two_way(*connection, payload, options.samples, options.warmup_calls(), row.latency,
                         error)) {
      errors.push_back(what + " " + payload.name() + ": " + error);
      failed = true;
      break;
    }
    rows.push_back(row);
  }
  for (const Payload& payload : options.payloads) {
    if (failed || options.oneway == 0 || !payload.small() || !connection->has_oneway()) {
      continue;
    }
    Row row;
    row.stack = stack.name();
    row.transport = transport.name;
    row.family = transport.family;
    row.payload = payload;
    if (!measure_oneway(*connection, payload, options.oneway, may_drop, row, error)) {
      errors.push_back(what + " " + payload.name() + " oneway: " + error);
      failed = true;
      break;
    }
    rows.push_back(row);
  }
  connection.reset();
  const std::string exit = server.stop(failed ? 0 : 3000);
  if (!exit.empty() && !failed) {
    errors.push_back(what + ": " + exit);
  }
}

int drive(const Options& options) {
  auto stacks = make_stacks();
  for (const auto& name : options.stacks) {
    const bool known = std::any_of(stacks.begin(), stacks.end(),
                                   [&](const auto& stack) { return stack->name() == name; });
    if (!known) {
      std::string built;
      for (const auto& stack : stacks) {
        built += " " + stack->name();
      }
      std::fprintf(stderr, "cubit: no stack '%s' in this build (built:%s)\n", name.c_str(),
                   built.c_str());
      return 2;
    }
  }
  if (!pin_to_cpu(options.cpu_client)) {
    std::fprintf(stderr, "cubit: cannot pin the client to CPU %d\n", options.cpu_client);
    return 2;
  }
  RunDirectory run_dir;
  std::string error;
  if (!run_dir.create(error)) {
    std::fprintf(stderr, "cubit: %s\n", error.c_str());
    return 1;
  }
  double load_before[3];
  double load_after[3];
  read_load(load_before);
  std::printf(
      "cubit: two-way cube and oneway throughput, client pid %d, %ld CPUs, client CPU %d, "
      "server CPU %d (-1: unpinned)\n",
      static_cast<int>(getpid()), sysconf(_SC_NPROCESSORS_ONLN), options.cpu_client,
      options.cpu_server);
  std::printf("load average: %.2f %.2f %.2f\n", load_before[0], load_before[1], load_before[2]);
  std::fflush(stdout);

  std::vector<Row> rows;
  std::vector<std::string> errors;
  int serial = 0;
  for (auto& stack : stacks) {
    if (!options.stacks.empty() && std::find(options.stacks.begin(), options.stacks.end(),
                                             stack->name()) == options.stacks.end()) {
      continue;
    }
    for (const Transport& transport : stack->transports()) {
      if (std::find(options.families.begin(), options.families.end(), transport.family) !=
          options.families.end()) {
        run_transport(*stack, transport, options, run_dir.path(), serial++, rows, errors);
      }
    }
  }
  compute_ratios(rows);
  print_tables(rows, options.samples, options.warmup_calls(), options.oneway);
  read_load(load_after);
  std::printf("\nload average: %.2f %.2f %.2f\n", load_after[0], load_after[1], load_after[2]);
  std::size_t calls = 0;
  std::size_t bursts = 0;
  for (const Row& row : rows) {
    (row.oneway ? bursts : calls) += row.oneway ? 1 : row.latency.samples;
  }
  if (!options.json.empty() &&
      !write_json(options.json, rows, options.samples, options.warmup_calls(), load_before,
                  load_after, errors)) {
    errors.push_back("cannot write " + options.json + ": " + std::strerror(errno));
  }
  for (const auto& e : errors) {
    std::printf("ERROR: %s\n", e.c_str());
  }
  if (errors.empty()) {
    std::printf(
        "verified: %zu two-way replies were the cubes of their requests; %zu oneway "
        "bursts arrived with the right digest\n",
        calls, bursts);
  }
  return errors.empty() ? 0 : 1;
}

}  // namespace
}  // namespace cubit

int main(int argc, char** argv) {
  // A peer that dies must show up as an error of a call, never kill the driver.
  signal(SIGPIPE, SIG_IGN);
  std::string error;
  const auto options = cubit::parse_options(argc, argv, error);
  if (!options) {
    if (error.empty()) {
      cubit::print_usage(stdout, argv[0]);
      return 0;
    }
    std::fprintf(stderr, "%s: %s\n", argv[0], error.c_str());
    cubit::print_usage(stderr, argv[0]);
    return 2;
  }
  return options->serve ? cubit::serve(*options) : cubit::drive(*options);
}
