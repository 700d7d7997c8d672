// Command line of kairos_bench_cubit.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "payload.hpp"
#include "stack.hpp"

namespace cubit {

struct Options {
  int samples = 10'000;  // two-way round trips measured per cell
  int warmup = -1;       // round trips before measuring; -1: a tenth of the samples
  int oneway = 50'000;   // oneway messages per cell (small payloads); 0: none
  std::vector<Family> families{Family::kUds, Family::kTcp, Family::kUdp, Family::kShm};
  std::vector<Payload> payloads = all_payloads();
  std::vector<std::string> stacks;  // empty: every stack built into the binary
  std::string json;                 // write the results here as JSON
  int cpu_client = -1;
  int cpu_server = -1;
  int wrong_reply = -1;    // test of the bench itself: the raw servers answer this call wrongly
  bool breakdown = false;  // the kairos server reports the parts of its requests' time

  // The serving child (`--serve STACK TRANSPORT`), started by the driver.
  bool serve = false;
  std::string serve_stack;
  std::string serve_transport;
  std::string run_dir;
  std::string token;
  int ready_fd = -1;

  int warmup_calls() const;
};

/// Parses the arguments; on an error returns nothing with `error` set.
std::optional<Options> parse_options(int argc, char** argv, std::string& error);
void print_usage(std::FILE* to, const char* program);

}  // namespace cubit
