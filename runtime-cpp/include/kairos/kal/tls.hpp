// Kernel Adaptation Layer: a node's identity for authenticated tcp: connections. TLS 1.3 with
// mutual authentication: each side proves with a certificate of the system's CA which node it is
// (the certificate's common name), as `kairos keys` makes them. Linux only; on sim, load() says
// kUnavailable (a simulated network has no one to keep out).
#pragma once

#include <kairos/kal/error.hpp>

namespace kairos::kal {

/// The longest node name a certificate may give (the ORB's kMaxNodeName).
inline constexpr unsigned kMaxIdentityName = 32;

class TlsIdentity {
 public:
  TlsIdentity() = default;
  TlsIdentity(const TlsIdentity&) = delete;
  TlsIdentity& operator=(const TlsIdentity&) = delete;
  ~TlsIdentity();

  /// Loads node `node`'s identity from `directory`: the system CA's certificate `ca.pem`, the
  /// node's certificate `NODE.pem` (its common name must be `node`) and its private key
  /// `NODE.key`. At start-up: it allocates. On failure error() says which file and why.
  Status load(const char* directory, const char* node) noexcept;

  bool loaded() const noexcept { return context_ != nullptr; }
  /// What load() found wrong ("" when it did not fail).
  const char* error() const noexcept { return error_; }
  /// The platform's context for new connections (OpenSSL's SSL_CTX on Linux).
  void* context() const noexcept { return context_; }

 private:
  void* context_ = nullptr;
  char error_[768] = {};
};

}  // namespace kairos::kal
