#include "stack.hpp"

#include <unistd.h>

#include <cstdio>

namespace cubit {

const char* family_name(Family family) {
  switch (family) {
    case Family::kUds:
      return "uds";
    case Family::kTcp:
      return "tcp";
    case Family::kUdp:
      return "udp";
    case Family::kShm:
      return "shm";
  }
  return "?";
}

bool announce(const ServeContext& context, const std::string& endpoint) {
  const std::string line = endpoint + "\n";
  const bool written =
      write(context.ready_fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  close(context.ready_fd);
  if (!written) {
    std::perror("cubit server: announce");
  }
  return written;
}

}  // namespace cubit
