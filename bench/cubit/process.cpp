#include "process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cubit {

std::int64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

bool pin_to_cpu(int cpu) {
  if (cpu < 0) {
    return true;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(static_cast<std::size_t>(cpu), &set);
  return sched_setaffinity(0, sizeof set, &set) == 0;
}

namespace {
constexpr int kReadyFd = 3;

std::string describe_status(int status) {
  if (WIFEXITED(status)) {
    return "exited with status " + std::to_string(WEXITSTATUS(status));
  }
  if (WIFSIGNALED(status)) {
    return std::string("killed by signal ") + strsignal(WTERMSIG(status));
  }
  return "stopped";
}

/// Waits up to `timeout_ms` for the child to exit; true when it did (status filled).
bool wait_for(pid_t pid, int timeout_ms, int& status) {
  const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1'000'000;
  for (;;) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      return true;
    }
    if (now_ns() >= deadline) {
      return false;
    }
    usleep(2000);
  }
}
}  // namespace

bool ServerProcess::start(const std::vector<std::string>& arguments, int timeout_ms,
                          std::string& endpoint, std::string& error) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<std::string> strings{"kairos_bench_cubit"};
  strings.insert(strings.end(), arguments.begin(), arguments.end());
  strings.push_back("--ready-fd");
  strings.push_back(std::to_string(kReadyFd));
  std::vector<char*> argv;
  for (auto& s : strings) {
    argv.push_back(s.data());
  }
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(ready[0]);
    close(ready[1]);
    return false;
  }
  if (pid == 0) {
    // Only async-signal-safe calls until exec: the parent may have threads (gRPC, DDS).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) {
      _exit(1);
    }
    if (ready[1] == kReadyFd) {
      fcntl(kReadyFd, F_SETFD, 0);
    } else if (dup2(ready[1], kReadyFd) < 0) {
      _exit(1);
    }
    execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  pid_ = pid;
  close(ready[1]);
  endpoint.clear();
  const std::int64_t deadline = now_ns() + std::int64_t{timeout_ms} * 1'000'000;
  bool complete = false;
  while (!complete) {
    const std::int64_t left_ms = (deadline - now_ns()) / 1'000'000;
    if (left_ms <= 0) {
      error = "the server did not announce itself within " + std::to_string(timeout_ms) + " ms";
      break;
    }
    pollfd p{ready[0], POLLIN, 0};
    const int polled = poll(&p, 1, static_cast<int>(left_ms));
    if (polled < 0 && errno == EINTR) {
      continue;
    }
    if (polled <= 0) {
      continue;
    }
    char buffer[256];
    const ssize_t n = read(ready[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      error = "the server exited before it was ready";
      break;
    }
    for (ssize_t i = 0; i < n && !complete; ++i) {
      if (buffer[i] == '\n') {
        complete = true;
      } else if (endpoint.size() < 1024) {
        endpoint.push_back(buffer[i]);
      }
    }
  }
  close(ready[0]);
  if (!complete) {
    const std::string exit = stop(200);
    if (!exit.empty()) {
      error += " (" + exit + ")";
    }
    return false;
  }
  return true;
}

std::string ServerProcess::stop(int grace_ms) {
  if (pid_ < 0) {
    return {};
  }
  int status = 0;
  std::string result;
  if (wait_for(pid_, grace_ms, status)) {
    if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
      result = "server " + describe_status(status);
    }
  } else {
    kill(pid_, SIGTERM);
    if (!wait_for(pid_, 2000, status)) {
      kill(pid_, SIGKILL);
      while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
    }
  }
  pid_ = -1;
  return result;
}

ServerProcess::~ServerProcess() {
  stop(0);
}

bool RunDirectory::create(std::string& error) {
  const char* base = std::getenv("TMPDIR");
  std::string templ =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/kairos-cubit-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) {
    error = "mkdtemp " + templ + ": " + std::strerror(errno);
    return false;
  }
  path_ = templ;
  return true;
}

RunDirectory::~RunDirectory() {
  if (path_.empty()) {
    return;
  }
  if (DIR* dir = opendir(path_.c_str())) {
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") {
        unlink((path_ + "/" + name).c_str());
      }
    }
    closedir(dir);
  }
  rmdir(path_.c_str());
}

}  // namespace cubit
