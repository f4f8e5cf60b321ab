#include "app/outputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace d2q9 {

void check_can_create(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a file");
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(path + ": cannot create file (" + dir + ": " + std::strerror(errno) + ")");
}

ExtraOutputs plan_extra_outputs(const Options& o, int max_iters, bool check) {
  ExtraOutputs x;
  if (!o.no_png) x.png = o.png_file.empty() ? o.output_dir + "/final_state.png" : o.png_file;
  x.vtk = o.vtk_file;
  x.summary_json = o.summary_json_file;
  x.snapshot_every = o.snapshot_every;
  x.snapshot_dir = o.output_dir;
  if (!check) return x;
  for (const std::string* path : {&x.png, &x.vtk, &x.summary_json})
    if (!path->empty()) check_can_create(*path);
  if (x.snapshot_every > 0 && x.snapshot_every <= max_iters)
    check_can_create(snapshot_path(x.snapshot_dir, x.snapshot_every, max_iters));
  return x;
}

std::string snapshot_path(const std::string& dir, int step, int max_iters) {
  const int width = static_cast<int>(std::to_string(max_iters).size());
  char name[64];
  std::snprintf(name, sizeof name, "snapshot_%0*d.png", width, step);
  return dir + "/" + name;
}

}  // namespace d2q9
