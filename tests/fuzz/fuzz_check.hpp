// What the fuzz harnesses share: a check that makes libFuzzer report a
// finding, and the rule that every rejection is an InputError naming the file.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace d2q9::fuzz {

// abort() is what libFuzzer (and the replay driver) report as a crash.
inline void require(bool ok, const char* what) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

inline void require_names_file(const std::string& message, const std::string& filename) {
  require(message.rfind(filename + ":", 0) == 0, "error message does not start with the file name");
  require(message.find('\n') == std::string::npos, "error message is not one line");
}

}  // namespace d2q9::fuzz
