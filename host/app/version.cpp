#include "app/version.hpp"

#include "d2q9_commit.hpp"
#include "sim/backend.hpp"

namespace d2q9 {

BuildInfo build_info() {
  BuildInfo info;
  info.version = D2Q9_VERSION;
  info.commit = D2Q9_COMMIT;
  for (Backend b : built_backends()) info.backends += (info.backends.empty() ? "" : ", ") + std::string(to_string(b));
  info.mpi = built_with_mpi();
  return info;
}

std::string version_line(const std::string& program) {
  const BuildInfo info = build_info();
  return program + " " + info.version + " (commit " + info.commit + "; backends: " + info.backends +
         (info.mpi ? "; MPI" : "; no MPI") + ")";
}

}  // namespace d2q9
