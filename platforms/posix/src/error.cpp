#include <kairos/kal/error.hpp>

#include <unistd.h>
#include <cstring>

namespace kairos::kal {

namespace {
const char* severity_text(Severity severity) noexcept {
  switch (severity) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "error";
}

void write_all(const char* text) noexcept {
  std::size_t remaining = std::strlen(text);
  while (remaining > 0) {
    const ssize_t written = ::write(STDERR_FILENO, text, remaining);
    if (written <= 0) {
      return;
    }
    text += written;
    remaining -= static_cast<std::size_t>(written);
  }
}
}  // namespace

void report(Severity severity, const char* component, const char* message) noexcept {
  // Pieces are written separately: no buffer to size, no allocation, safe at any time.
  write_all("kairos: ");
  write_all(severity_text(severity));
  write_all(": ");
  write_all(component);
  write_all(": ");
  write_all(message);
  write_all("\n");
}

}  // namespace kairos::kal
