// Node identities for the tests of authenticated connections: loaded from a directory of
// openssl_keys, kept for the whole test program (an ORB or a socket refers to its identity).
#pragma once

#include "kairos_catch.hpp"

#include <memory>
#include <string>
#include <vector>

#include <kairos/kal/tls.hpp>

namespace testing {

/// Node `node`'s identity from `directory` (ca.pem, NODE.pem, NODE.key); the test fails if it
/// does not load.
inline kairos::kal::TlsIdentity& loaded_identity(const std::string& directory, const char* node) {
  static std::vector<std::unique_ptr<kairos::kal::TlsIdentity>> identities;
  identities.push_back(std::make_unique<kairos::kal::TlsIdentity>());
  INFO(identities.back()->error());
  REQUIRE(identities.back()->load(directory.c_str(), node) == kairos::kal::Status::kOk);
  return *identities.back();
}

}  // namespace testing
