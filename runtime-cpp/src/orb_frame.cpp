#include <kairos/orb/frame.hpp>
#include <kairos/orb/orb.hpp>

namespace kairos::orb {

const char* to_string(HeaderError error) noexcept {
  switch (error) {
    case HeaderError::kNone:
      return "none";
    case HeaderError::kShort:
      return "shorter than a frame header";
    case HeaderError::kBadMagic:
      return "not a Kairos frame";
    case HeaderError::kBadVersion:
      return "unknown protocol version";
    case HeaderError::kBadKind:
      return "unknown frame kind or reply status";
    case HeaderError::kBadReserved:
      return "reserved bits set";
    case HeaderError::kTooLarge:
      return "body larger than the frame capacity";
  }
  return "unknown header error";
}

const char* to_string(CallStatus status) noexcept {
  switch (status) {
    case CallStatus::kOk:
      return "ok";
    case CallStatus::kUserException:
      return "user exception";
    case CallStatus::kDeadlineExpired:
      return "deadline expired";
    case CallStatus::kOverloaded:
      return "server overloaded";
    case CallStatus::kUnavailable:
      return "server unavailable";
    case CallStatus::kNoSuchTarget:
      return "no such object or operation";
    case CallStatus::kMalformed:
      return "malformed message";
    case CallStatus::kDisconnected:
      return "disconnected";
    case CallStatus::kNoRoute:
      return "no route from this lane";
    case CallStatus::kTooLarge:
      return "request too large";
    case CallStatus::kBusy:
      return "too many calls in flight";
    case CallStatus::kPending:
      return "pending";
    case CallStatus::kRateExceeded:
      return "refused: beyond the method's max-rate";
    case CallStatus::kNotPermitted:
      return "refused: no gate of this node names the operation there";
  }
  return "unknown call status";
}

}  // namespace kairos::orb
