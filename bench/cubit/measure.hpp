// The sampler every stack is measured with, and the rows of the report.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../stats.hpp"
#include "payload.hpp"
#include "stack.hpp"

namespace cubit {

struct Row {
  std::string stack;
  std::string transport;
  Family family = Family::kUds;
  Payload payload{Kind::kOctet, 1};
  bool oneway = false;
  bench::Summary latency{0, 0, 0, 0, 0};  // two-way rows
  std::uint64_t sent = 0;                 // oneway rows
  std::uint64_t received = 0;
  double seconds = 0;
  double per_second = 0;
  // Two-way: p50 / the baseline's p50. Oneway: messages/s / the baseline's. 0: no baseline.
  double ratio = 0;
  std::string baseline;  // the raw transport of the same family the ratio refers to
};

/// `warmup` unmeasured calls, then `samples` timed two-way calls; every reply is checked to be
/// the cube of its request (outside the timed section). False with `error` on a failed call or
/// a wrong value.
bool measure_two_way(Connection& connection, const Payload& payload, int samples, int warmup,
                     bench::Summary& summary, std::string& error);

/// Sends `messages` oneway messages as fast as the connection takes them, then waits for the
/// server's totals; the time includes that wait. Checks the count (all must arrive, except over
/// a datagram transport, which may drop) and the digest of the cubed values.
bool measure_oneway(Connection& connection, const Payload& payload, int messages, bool may_drop,
                    Row& row, std::string& error);

/// Fills ratio and baseline of every row from the fastest raw transport of its family.
void compute_ratios(std::vector<Row>& rows);

void print_tables(const std::vector<Row>& rows, int samples, int warmup, int oneway);
bool write_json(const std::string& file, const std::vector<Row>& rows, int samples, int warmup,
                const double load_before[3], const double load_after[3],
                const std::vector<std::string>& errors);
/// The 1, 5 and 15 minute load averages.
void read_load(double load[3]);

}  // namespace cubit
