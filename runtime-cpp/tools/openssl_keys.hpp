// Keys for the test and bench programs' authenticated connections, made as `kairos keys` makes
// them: the openssl command, a P-256 key per node, certificates of one CA whose common name is
// the node's name.
#pragma once

#include <unistd.h>
#include <cstdlib>
#include <initializer_list>
#include <string>

namespace openssl_keys {

/// Makes `directory` (anew) with ca.pem and, for each of `nodes`, NODE.pem and NODE.key, all
/// under a CA of its own; false when openssl failed.
inline bool make(const std::string& directory, std::initializer_list<const char*> nodes) {
  std::string script = "set -e; rm -rf " + directory + "; mkdir -p " + directory + "; cd " +
                       directory +
                       "; openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
                       "-keyout ca.key -out ca.pem -subj '/CN=Kairos test CA' -days 2";
  for (const char* node : nodes) {
    const std::string n = node;
    script += "; openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout " + n +
              ".key -out " + n + ".csr -subj /CN=" + n + "; openssl x509 -req -in " + n +
              ".csr -CA ca.pem -CAkey ca.key -CAcreateserial -out " + n + ".pem -days 2";
  }
  const std::string command = "sh -c \"" + script + "\" > /dev/null 2>&1";
  return std::system(command.c_str()) == 0;
}

/// make() in /tmp/kairos-keys-PID-NAME: that directory, or "" when openssl failed.
inline std::string in_tmp(const std::string& name, std::initializer_list<const char*> nodes) {
  const std::string directory = "/tmp/kairos-keys-" + std::to_string(getpid()) + "-" + name;
  return make(directory, nodes) ? directory : std::string{};
}

}  // namespace openssl_keys
