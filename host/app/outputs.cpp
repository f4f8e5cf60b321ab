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

std::string output_path(const std::string& output_dir, const std::string& name) {
  if (!name.empty() && name[0] == '/') return name;
  return output_dir + "/" + name;
}

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

void check_can_create(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a file");
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(path + ": cannot create file (" + dir + ": " + std::strerror(errno) + ")");
}

namespace {

// "a/speed.png" -> "a/speed_vorticity.png"; a name not ending in .png gets
// "_vorticity.png" appended.
std::string vorticity_picture_name(const std::string& name) {
  const std::string ext = ".png";
  const bool has_ext = name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? name.substr(0, name.size() - ext.size()) : name) + "_vorticity.png";
}

const char* picture_suffix(PictureField field) { return field == PictureField::Speed ? ".png" : "_vorticity.png"; }

}  // namespace

ExtraOutputs plan_extra_outputs(const Options& o, int max_iters, bool check) {
  ExtraOutputs x;
  x.fields = o.fields;
  x.scale = o.scale;
  if (!o.no_png) {
    const bool both = x.fields.size() > 1;
    for (PictureField field : x.fields) {
      std::string name = o.png_file;
      if (name.empty()) name = field == PictureField::Speed ? "final_state.png" : "final_state_vorticity.png";
      else if (both && field == PictureField::Vorticity) name = vorticity_picture_name(name);
      x.pictures.push_back({field, output_path(o.output_dir, name)});
    }
  }
  if (!o.vtk_file.empty()) x.vtk = output_path(o.output_dir, o.vtk_file);
  if (!o.summary_json_file.empty()) x.summary_json = output_path(o.output_dir, o.summary_json_file);
  x.snapshot_every = o.snapshot_every;
  x.snapshot_png = o.snapshot_png;
  x.snapshot_vti = o.snapshot_vti;
  x.snapshot_dir = o.output_dir;
  if (!check) return x;
  for (const PictureFile& p : x.pictures) check_can_create(p.path);
  for (const std::string* path : {&x.vtk, &x.summary_json})
    if (!path->empty()) check_can_create(*path);
  if (x.snapshot_every > 0 && x.snapshot_every <= max_iters) {
    if (x.snapshot_png)
      for (PictureField field : x.fields)
        check_can_create(snapshot_path(x.snapshot_dir, x.snapshot_every, max_iters, picture_suffix(field)));
    if (x.snapshot_vti) {
      check_can_create(snapshot_path(x.snapshot_dir, x.snapshot_every, max_iters, ".vti"));
      check_can_create(output_path(x.snapshot_dir, kSnapshotSeries));
    }
  }
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
  for (const PictureFile& p : extra.pictures) outputs.push_back(p.path);
  for (const std::string* p : {&extra.vtk, &extra.summary_json})
    if (!p->empty()) outputs.push_back(*p);
  if (extra.snapshot_every > 0 && extra.snapshot_vti) outputs.push_back(output_path(extra.snapshot_dir, kSnapshotSeries));
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

std::string snapshot_name(int step, int max_iters, const std::string& suffix) {
  const int width = static_cast<int>(std::to_string(max_iters).size());
  char name[64];
  std::snprintf(name, sizeof name, "snapshot_%0*d", width, step);
  return name + suffix;
}

std::string snapshot_path(const std::string& dir, int step, int max_iters, const std::string& suffix) {
  return dir + "/" + snapshot_name(step, max_iters, suffix);
}

ViewWriter::ViewWriter(const ExtraOutputs& plan, const Params& params, const ObstacleMask& mask)
    : plan_(plan), params_(params), mask_(mask) {}

ColourRange ViewWriter::next_range(PictureField field, const FlowFields& fields) {
  switch (plan_.scale.mode) {
    case PictureScale::Mode::Given:
      for (std::size_t i = 0; i < plan_.fields.size(); ++i)
        if (plan_.fields[i] == field) return plan_.scale.given.at(i);
      break;
    case PictureScale::Mode::Fixed:
      return kept_.emplace(field, own_range(field, fields, mask_)).first->second;
    case PictureScale::Mode::Auto:
      break;
  }
  return own_range(field, fields, mask_);
}

void ViewWriter::write_snapshot(int step, const std::vector<double>& f) {
  const FlowFields fields = flow_fields(params_, mask_, f);
  if (plan_.snapshot_png) {
    const std::string caption = "step " + std::to_string(step);
    for (PictureField field : plan_.fields) {
      const std::string path = snapshot_path(plan_.snapshot_dir, step, params_.max_iters, picture_suffix(field));
      AtomicFile frame(path);
      write_png(frame.get(), render_picture(field, fields, mask_, next_range(field, fields), caption), path);
      frame.commit();
    }
  }
  if (plan_.snapshot_vti) {
    AtomicFile frame(snapshot_path(plan_.snapshot_dir, step, params_.max_iters, ".vti"));
    write_vti(frame.get(), mask_, fields);
    frame.commit();
    write_series(step);
  }
}

void ViewWriter::write_series(int step) {
  if (!scanned_earlier_frames_) {
    // A restarted run's series goes on from the frames the run before it left here.
    for (int earlier = plan_.snapshot_every; earlier < step; earlier += plan_.snapshot_every) {
      const std::string name = snapshot_name(earlier, params_.max_iters, ".vti");
      if (::access(output_path(plan_.snapshot_dir, name).c_str(), F_OK) == 0) frames_.push_back({earlier, name});
    }
    scanned_earlier_frames_ = true;
  }
  frames_.push_back({step, snapshot_name(step, params_.max_iters, ".vti")});
  AtomicFile series(output_path(plan_.snapshot_dir, kSnapshotSeries));
  write_pvd(series.get(), frames_);
  series.commit();
}

void ViewWriter::add_final_outputs(OutputSet& outputs, const std::vector<double>& f) {
  if (plan_.pictures.empty() && plan_.vtk.empty()) return;
  const FlowFields fields = flow_fields(params_, mask_, f);
  for (const PictureFile& p : plan_.pictures)
    write_png(outputs.add(p.path), render_picture(p.field, fields, mask_, next_range(p.field, fields)), p.path);
  if (plan_.vtk.empty()) return;
  const bool xml = plan_.vtk.size() > 4 && plan_.vtk.compare(plan_.vtk.size() - 4, 4, ".vti") == 0;
  if (xml)
    write_vti(outputs.add(plan_.vtk), mask_, fields);
  else
    write_vtk(outputs.add(plan_.vtk), params_, mask_, fields);
}

}  // namespace d2q9
