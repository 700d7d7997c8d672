#include <charconv>
#include <cstring>

#include <kairos/kal/socket.hpp>

namespace kairos::kal {

bool parse_endpoint(std::string_view text, Endpoint& out) noexcept {
  auto starts = [&](std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; };
  if (starts("uds:")) {
    const std::string_view path = text.substr(4);
    if (path.empty() || path.front() != '/' || path.size() >= sizeof out.address) {
      return false;
    }
    out = Endpoint{};
    out.kind = Endpoint::Kind::kUnix;
    std::memcpy(out.address, path.data(), path.size());
    return true;
  }
  if (starts("shm:")) {
    // The language's form: a name of letters, digits, '_' and '-' (it names the set-up socket).
    const std::string_view name = text.substr(4);
    if (name.empty() || name.size() > kMaxSharedMemoryName) {
      return false;
    }
    for (const char c : name) {
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                           (c >= '0' && c <= '9') || c == '_' || c == '-';
      if (!allowed) {
        return false;
      }
    }
    out = Endpoint{};
    out.kind = Endpoint::Kind::kShm;
    std::memcpy(out.address, name.data(), name.size());
    return true;
  }
  Endpoint::Kind kind{};
  if (starts("tcp:")) {
    kind = Endpoint::Kind::kTcp;
  } else if (starts("udp:")) {
    kind = Endpoint::Kind::kUdp;
  } else {
    return false;
  }
  const std::string_view rest = text.substr(4);
  const auto colon = rest.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == rest.size() ||
      colon >= sizeof out.address) {
    return false;
  }
  unsigned port = 0;
  const std::string_view digits = rest.substr(colon + 1);
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (error != std::errc{} || end != digits.data() + digits.size() || port == 0 || port > 65535) {
    return false;
  }
  out = Endpoint{};
  out.kind = kind;
  out.port = static_cast<std::uint16_t>(port);
  std::memcpy(out.address, rest.data(), colon);
  return true;
}

}  // namespace kairos::kal
