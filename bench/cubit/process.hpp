// The serving child: this same binary started again with `--serve`, so that no stack's threads
// or sockets are inherited across fork. The child dies with the parent (PR_SET_PDEATHSIG) and
// is always reaped.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace cubit {

std::int64_t now_ns();
/// Pins the calling thread to `cpu` (no-op for -1); false when the CPU is not available.
bool pin_to_cpu(int cpu);

class ServerProcess {
 public:
  /// Starts this binary with `arguments` plus `--ready-fd N`, and waits up to `timeout_ms` for
  /// the endpoint line the child writes there. On failure the child is reaped and `error` set.
  bool start(const std::vector<std::string>& arguments, int timeout_ms, std::string& endpoint,
             std::string& error);
  /// Lets the child exit by itself for up to `grace_ms` (the client closed its connection),
  /// then terminates it. Returns a description of an abnormal exit, or empty.
  std::string stop(int grace_ms);
  ~ServerProcess();

  ServerProcess() = default;
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

 private:
  pid_t pid_ = -1;
};

/// A private directory for the run's sockets, removed with its files at the end.
class RunDirectory {
 public:
  bool create(std::string& error);
  const std::string& path() const { return path_; }
  ~RunDirectory();

 private:
  std::string path_;
};

}  // namespace cubit
