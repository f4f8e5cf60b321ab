// The output folder, made by the library (Simulation::write_outputs) and the programs alike.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "io/output.hpp"

namespace d2q9 {

void make_output_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) throw InputError(dir + ": output directory is not a directory");
    return;
  }
  if (::mkdir(dir.c_str(), 0777) == 0) return;
  const int why = errno;
  if (why == EEXIST && ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return;  // made meanwhile
  if (why == ENOENT)
    throw InputError(dir + ": cannot create output directory (its parent directory does not exist)");
  throw InputError(dir + ": cannot create output directory (" + std::strerror(why) + ")");
}

}  // namespace d2q9
