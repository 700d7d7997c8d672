// A stack under test: the raw transports written for the bench, gRPC, Cyclone DDS and the
// Kairos ORB. Each serves in a child process and is called through a Connection from the
// parent; the driver measures every stack with the same sampler and prints one table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "payload.hpp"

namespace cubit {

/// The transport families of `--transport`; a stack offers one or more variants of each
/// (raw UDS: stream and seqpacket sockets; raw shared memory: futex and spin-then-futex).
enum class Family { kUds, kTcp, kUdp, kShm };
const char* family_name(Family family);

struct Transport {
  std::string name;  // e.g. "uds-stream", unique within its stack
  Family family;
};

/// Totals of the oneway messages a server has received and cubed since the connection opened.
struct OnewayTotals {
  std::uint64_t count = 0;
  std::uint64_t digest = 0;
};

/// The client side of one connection to a serving child. Calls block for at most a few
/// seconds; a failure returns false and leaves a description in error().
class Connection {
 public:
  virtual ~Connection() = default;
  /// One two-way call: `reply` receives the server's answer to `request`.
  virtual bool call(const Value& request, Value& reply) = 0;
  /// Whether this stack's two-way round trips are measured (a transport of oneways only has none).
  virtual bool has_two_way() const { return true; }
  /// Whether this stack's oneway throughput is measured.
  virtual bool has_oneway() const { return true; }
  /// Whether the server may drop oneway messages it has no room for (then the throughput
  /// counts what arrived, as over UDP).
  virtual bool oneway_may_drop() const { return false; }
  /// Sends `request` without waiting for an answer.
  virtual bool send_oneway(const Value& request) = 0;
  /// Waits until the server has handled every oneway message sent before, then reports what
  /// it received in total.
  virtual bool oneway_totals(OnewayTotals& totals) = 0;
  const std::string& error() const { return error_; }

 protected:
  bool fail(std::string what) {
    error_ = std::move(what);
    return false;
  }

 private:
  std::string error_;
};

/// What a serving child needs: where to put files of the run, where to announce its endpoint.
struct ServeContext {
  std::string run_dir;     // a private directory of this run (Unix sockets live there)
  std::string token;       // unique in this run: names of sockets, shared memory, topics
  int ready_fd = -1;       // write the endpoint and a newline here once ready to be called
  long wrong_reply = -1;   // the raw server answers this call wrongly (the bench's own test)
  bool breakdown = false;  // report where the server's time went (kairos stack, on stderr)
};

class Stack {
 public:
  virtual ~Stack() = default;
  virtual std::string name() const = 0;
  virtual std::vector<Transport> transports() const = 0;
  /// Runs the server of `transport` in the child until the client leaves (or a bounded idle
  /// time passes); returns the child's exit status.
  virtual int serve(const Transport& transport, const ServeContext& context) = 0;
  /// Connects to the server that announced `endpoint`; null with `error` set on failure.
  virtual std::unique_ptr<Connection> connect(const Transport& transport,
                                              const std::string& endpoint, std::string& error) = 0;
};

/// Writes the endpoint line to the ready pipe and closes it.
bool announce(const ServeContext& context, const std::string& endpoint);

/// The stacks built into this binary: raw always, the peers when their packages were found.
std::vector<std::unique_ptr<Stack>> make_stacks();
std::unique_ptr<Stack> make_raw_stack();
#ifdef KAIROS_CUBIT_KAIROS
std::unique_ptr<Stack> make_kairos_stack();
#endif
#ifdef KAIROS_CUBIT_GRPC
std::unique_ptr<Stack> make_grpc_stack();
#endif
#ifdef KAIROS_CUBIT_DDS
std::unique_ptr<Stack> make_dds_stack();
#endif

}  // namespace cubit
