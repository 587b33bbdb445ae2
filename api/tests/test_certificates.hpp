#pragma once

// The throwaway CA and certificates of scripts/make-test-certs.sh, made once per process in a
// fresh temporary folder (ARB_SOURCE_DIR names the source tree), for TLS tests and benchmarks.

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace arbroker::api::testing {

inline const std::string& certificates_dir() {
  // Removed when the process ends.
  struct folder {
    std::string path;
    ~folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const folder dir{[] {
    char tmpl[] = "/tmp/arb-tls-XXXXXX";
    const char* made = ::mkdtemp(tmpl);
    if (!made) throw std::runtime_error("mkdtemp failed");
    const std::string d = made;
    const std::string cmd =
        "bash " ARB_SOURCE_DIR "/scripts/make-test-certs.sh " + d + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("make-test-certs.sh failed");
    return d;
  }()};
  return dir.path;
}

/// A file of it: "ca.pem", "server.key", "alice.pem", ...
inline std::string certificate_file(const std::string& name) {
  return certificates_dir() + "/" + name;
}

}  // namespace arbroker::api::testing
