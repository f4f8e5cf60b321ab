// What built this program: its version, the git commit and the backends, for
// --version and for every record a run or a benchmark leaves behind.
#pragma once

#include <string>

namespace d2q9 {

struct BuildInfo {
  std::string version;   // the project version in CMakeLists.txt
  std::string commit;    // git commit at build time, "-dirty" with uncommitted changes; "unknown" outside git
  std::string backends;  // built-in backends, e.g. "reference, opencl, cuda"
  bool mpi = false;      // multi-rank runs built in
};

BuildInfo build_info();

// "d2q9-bgk 0.9.0 (commit 1a2b3c4d5e6f; backends: reference, opencl; MPI)".
std::string version_line(const std::string& program);

}  // namespace d2q9
