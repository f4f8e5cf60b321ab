#include "app/outputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <vector>

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

namespace {

// Where `path` would be: its folder resolved (links, "..") and its name.
std::string normal_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  if (!::realpath(dir.c_str(), resolved)) return path;
  return std::string(resolved) + "/" + name;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return normal_path(a) == normal_path(b);
}

}  // namespace

void check_output_targets(const Options& o, const ExtraOutputs& extra) {
  std::vector<std::string> outputs = {o.output_dir + "/av_vels.dat", o.output_dir + "/final_state.dat"};
  for (const std::string* p : {&extra.png, &extra.vtk, &extra.summary_json})
    if (!p->empty()) outputs.push_back(*p);
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    check_can_create(outputs[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (same_file(outputs[i], outputs[j]))
        throw InputError(outputs[i] + ": the run would write this file twice (also as " + outputs[j] + ")");
    for (const std::string* input : {&o.param_file, &o.obstacle_file, &o.restart_file})
      if (!input->empty() && same_file(outputs[i], *input))
        throw InputError(outputs[i] + ": is an input of this run; the run would overwrite it");
  }
}

std::string snapshot_path(const std::string& dir, int step, int max_iters) {
  const int width = static_cast<int>(std::to_string(max_iters).size());
  char name[64];
  std::snprintf(name, sizeof name, "snapshot_%0*d.png", width, step);
  return dir + "/" + name;
}

}  // namespace d2q9
