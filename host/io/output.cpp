#include "io/output.hpp"

#include "problem/stability.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <unistd.h>
#include <utility>

#include "core/types.hpp"
#include "problem/lattice.hpp"
#include "io/number_text.hpp"

namespace d2q9 {

namespace {

// Distributions of global rows [first_row, first_row + rows), laid out as
// StateRows lays them out (the whole grid: first_row 0, rows ny).
struct Rows {
  const double* f;
  int first_row, rows;
};

// The one place that sums a cell's distributions.
CellState state_at(const Params& params, const ObstacleMask& mask, const Rows& r, int ii, int jj) {
  const std::size_t global = static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * params.nx;
  const Extensions& x = params.extensions;
  if (is_obstacle(mask.kinds[global])) {
    CellState wall{0.0, 0.0, 0.0, params.density / 3.0};
    const std::uint8_t b = mask.kinds[global];
    const ThermalWall held = cell_kind(b) == kFreeSlip ? ThermalWall{} : x.thermal_wall(cell_number(b));
    if (x.heat && held.kind == ThermalWall::Kind::Temperature) wall.temperature = held.value;
    return wall;
  }
  const std::size_t plane = static_cast<std::size_t>(r.rows) * params.nx;
  const std::size_t cell = static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj - r.first_row) * params.nx;
  double f[kSpeeds + kHeatSpeeds];
  for (int k = 0; k < x.planes(); ++k) f[k] = r.f[k * plane + cell];
  return fluid_cell_state(params, f, x.heat ? f + kSpeeds : nullptr);
}

}  // namespace

CellState fluid_cell_state(const Params& params, const double* f, const double* h) {
  const Extensions& x = params.extensions;
  double rho = 0.0, mx = 0.0, my = 0.0, temperature = std::numeric_limits<double>::quiet_NaN();
  if (h) temperature = h[0] + h[1] + h[2] + h[3] + h[4];
  for (int k = 0; k < kSpeeds; ++k) {
    const double fk = f[k];
    rho += fk;
    mx += kEx[k] * fk;
    my += kEy[k] * fk;
  }
  // The stored state is post-collision, whose momentum holds the step's whole
  // body force: the velocity is half a force behind (Guo). (Guarded: adding 0
  // would turn -0 into +0 and change coursework bytes.)
  if (x.forced()) {
    mx -= 0.5 * x.body_force.x;
    my -= 0.5 * x.body_force.y;
  }
  if (x.buoyant() && h) {  // the buoyancy's part of the force, at the cell's temperature
    mx -= 0.5 * x.buoyancy.x * (temperature - x.reference_temperature);
    my -= 0.5 * x.buoyancy.y * (temperature - x.reference_temperature);
  }
  const double ux = mx / rho, uy = my / rho;
  return {ux, uy, std::sqrt(ux * ux + uy * uy), rho / 3.0, temperature};
}

namespace {

// final_state.dat's lines for global rows [j0, j1): the one formatting of the file.
void append_lines(std::string& out, const Params& params, const ObstacleMask& mask, const Rows& r, int j0, int j1) {
  char line[16 + 5 * kMaxE12Chars];
  for (int jj = j0; jj < j1; ++jj) {
    for (int ii = 0; ii < params.nx; ++ii) {
      const CellState s = state_at(params, mask, r, ii, jj);
      // "%d %d %.12E %.12E %.12E %.12E %d\n"
      char* c = format_int(line, ii);
      *c++ = ' ';
      c = format_int(c, jj);
      for (double v : {s.ux, s.uy, s.speed, s.pressure}) {
        *c++ = ' ';
        c = format_e12(c, v);
      }
      *c++ = ' ';
      *c++ = mask.at(ii, jj) ? '1' : '0';
      if (params.extensions.heat) {  // an eighth column: the temperature (nan on walls that hold none)
        *c++ = ' ';
        c = format_e12(c, s.temperature);
      }
      *c++ = '\n';
      out.append(line, static_cast<std::size_t>(c - line));
    }
  }
}

// All the rows `r` holds, in bands of grid rows (about 1.5 MB of text each).
void write_lines(std::FILE* out, const Params& params, const ObstacleMask& mask, const Rows& r) {
  const std::size_t band = static_cast<std::size_t>(std::max(1, (1 << 14) / std::max(1, params.nx)));
  write_rows_in_bands(out, static_cast<std::size_t>(r.rows), band, [&](std::string& text, std::size_t first, std::size_t end) {
    append_lines(text, params, mask, r, r.first_row + static_cast<int>(first), r.first_row + static_cast<int>(end));
  });  // (a short write: the file's error flag says why)
}

Rows whole_grid(const Params& params, const std::vector<double>& f) { return {f.data(), 0, params.ny}; }
Rows rows_of(const StateRows& s) { return {s.f.data(), s.first_row, s.rows}; }

}  // namespace

CellState cell_state(const Params& params, const ObstacleMask& mask, const std::vector<double>& f, std::size_t cell) {
  return state_at(params, mask, whole_grid(params, f), static_cast<int>(cell % params.nx),
                  static_cast<int>(cell / params.nx));
}

CellState cell_state(const Params& params, const ObstacleMask& mask, const StateRows& state, int ii, int jj) {
  return state_at(params, mask, rows_of(state), ii, jj);
}

void write_av_vels(std::FILE* out, const std::vector<double>& av_vels) {
  std::string text;
  text.reserve(av_vels.size() * 28);
  char line[16 + kMaxE12Chars];
  for (std::size_t t = 0; t < av_vels.size(); ++t) {
    // "%d:\t%.12E\n"
    char* c = format_int(line, static_cast<int>(t));
    *c++ = ':';
    *c++ = '\t';
    c = format_e12(c, av_vels[t]);
    *c++ = '\n';
    text.append(line, static_cast<std::size_t>(c - line));
  }
  std::fwrite(text.data(), 1, text.size(), out);  // the file's error flag says whether it failed
}

void write_final_state(std::FILE* out, const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  write_lines(out, params, mask, whole_grid(params, f));
}

void write_final_state(std::FILE* out, const Params& params, const ObstacleMask& mask, const StateRows& state) {
  write_lines(out, params, mask, rows_of(state));
}

std::string final_state_lines(const Params& params, const ObstacleMask& mask, const StateRows& state, int j0, int j1) {
  // Room for the longest lines of values with two-digit exponents (all but
  // the tiniest), so that the text is never copied as it grows.
  const std::size_t line = std::to_string(params.nx - 1).size() + std::to_string(params.ny - 1).size() + 5 * 19 + 8;
  std::string text;
  text.reserve(line * params.nx * static_cast<std::size_t>(std::max(0, j1 - j0)));
  append_lines(text, params, mask, rows_of(state), j0, j1);
  return text;
}

std::string unstable_cell(const Params& params, const ObstacleMask& mask, const StateRows& state) {
  const std::size_t plane = static_cast<std::size_t>(state.rows) * params.nx;
  for (std::size_t cell = 0; cell < plane; ++cell) {
    double rho = 0.0;
    for (int k = 0; k < kSpeeds; ++k) rho += state.f[k * plane + cell];
    const std::size_t global = cell + static_cast<std::size_t>(state.first_row) * params.nx;
    if (std::isfinite(rho) && (is_obstacle(mask.kinds[global]) || rho > 0.0)) {
      if (is_obstacle(mask.kinds[global])) continue;
      const std::string supersonic = supersonic_cell(params, state.f.data(), plane, cell, global);
      if (supersonic.empty()) continue;
      return supersonic;
    }
    std::ostringstream detail;
    detail << "density " << rho << " at cell (" << global % params.nx << ", " << global / params.nx << ")";
    return detail.str();
  }
  return "";
}

namespace {

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
}

// Whether a link on the way from `path` names one of the process's own
// descriptors (/dev/stdout, /proc/self/fd/1, /dev/fd/3): that stream is
// written, never the file it happens to be.
bool names_own_descriptor(const std::string& path) {
  std::string at = path;
  for (int hop = 0; hop < 40; ++hop) {
    for (const char* prefix : {"/proc/self/fd/", "/dev/fd/", "/dev/stdout", "/dev/stderr"})
      if (at.rfind(prefix, 0) == 0) return true;
    char target[PATH_MAX];
    const ssize_t n = ::readlink(at.c_str(), target, sizeof target - 1);
    if (n < 0) return false;
    target[n] = '\0';
    at = target[0] == '/' ? std::string(target) : folder_of(at) + "/" + target;
  }
  return false;
}

}  // namespace

OutputTarget output_target(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) return {OutputTarget::Kind::Replace, path};
  struct stat st = link;
  const bool is_link = S_ISLNK(link.st_mode);
  if (is_link && ::stat(path.c_str(), &st) != 0) return {OutputTarget::Kind::Replace, path};
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode) || (is_link && S_ISREG(st.st_mode) && names_own_descriptor(path)))
    return {OutputTarget::Kind::WriteThrough, path};
  if (is_link && S_ISREG(st.st_mode)) {
    // The file the link points to is replaced; the link stays.
    char resolved[PATH_MAX];
    if (::realpath(path.c_str(), resolved)) return {OutputTarget::Kind::Replace, resolved};
  }
  return {OutputTarget::Kind::Replace, path};
}

OutputTarget classify_output(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno != ENOENT && errno != ENOTDIR) throw InputError(path + ": cannot examine output (" + std::strerror(errno) + ")");
    const std::string dir = folder_of(path);
    if (::access(dir.c_str(), W_OK) != 0)
      throw InputError(path + ": cannot create file (" + dir + ": " + std::strerror(errno) + ")");
    return {OutputTarget::Kind::Replace, path};
  }
  struct stat st = link;
  if (S_ISLNK(link.st_mode) && ::stat(path.c_str(), &st) != 0)
    throw InputError(path + ": is a link to nothing that can be written (" + std::strerror(errno) + ")");
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a file");
  const OutputTarget target = output_target(path);
  if (target.kind == OutputTarget::Kind::WriteThrough) {
    if (::access(path.c_str(), W_OK) != 0) throw InputError(path + ": cannot be written (" + std::strerror(errno) + ")");
    return target;
  }
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": is neither a regular file, a character device nor a FIFO; refusing to replace it");
  // Mode bits, not access(): root may write anything, but a file made
  // read-only says its owner wants it kept.
  if ((st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0 || ::access(path.c_str(), W_OK) != 0)
    throw InputError(path + ": is read-only; the run would replace it (make it writable or remove it first)");
  if (target.path == path && S_ISLNK(link.st_mode))
    throw InputError(path + ": cannot resolve link (" + std::strerror(errno) + ")");
  const std::string dir = folder_of(target.path);
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(path + ": cannot create file (" + dir + ": " + std::strerror(errno) + ")");
  return target;
}

namespace {

// "PID.N": no two files of one process (two Simulations writing one folder) share a temporary name.
std::string unique_suffix() {
  static std::atomic<unsigned long> next{0};
  return std::to_string(::getpid()) + "." + std::to_string(next++);
}

}  // namespace

AtomicFile::AtomicFile(std::string path) {
  // Where it goes; what may not be written was refused before the run (classify_output).
  const OutputTarget target = output_target(path);
  through_ = target.kind == OutputTarget::Kind::WriteThrough;
  path_ = target.path;
  tmp_ = through_ ? path_ : path_ + ".tmp." + unique_suffix();
  // Appended: through /dev/stdout into a file, after what the process wrote there.
  file_ = std::fopen(tmp_.c_str(), through_ ? "a" : "w");
  if (!file_) throw std::runtime_error(path_ + ": cannot create file (" + std::strerror(errno) + ")");
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!published_ && !through_) std::remove(tmp_.c_str());
}

void AtomicFile::commit() {
  close();
  publish();
}

void AtomicFile::close() {
  if (!file_) return;
  const bool failed = std::fflush(file_) != 0 || std::ferror(file_) != 0;
  const int err = errno;
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (failed || closed != 0) {
    if (!through_) std::remove(tmp_.c_str());
    throw std::runtime_error(path_ + ": write failed (" + std::strerror(failed ? err : errno) + ")");
  }
}

void AtomicFile::publish() {
  if (through_) {
    published_ = true;
    return;
  }
  if (std::rename(tmp_.c_str(), path_.c_str()) == 0) {
    published_ = true;
    return;
  }
  {
    const int err = errno;
    std::remove(tmp_.c_str());
    throw std::runtime_error(path_ + ": cannot rename temporary file into place (" + std::strerror(err) + ")");
  }
}

std::FILE* OutputSet::add(const std::string& path) {
  files_.push_back(std::make_unique<AtomicFile>(path));
  return files_.back()->get();
}

std::string OutputSet::add_written_elsewhere(const std::string& path) {
  files_.push_back(std::make_unique<AtomicFile>(path));
  files_.back()->close();
  return files_.back()->temp_path();
}

void OutputSet::commit() {
  for (auto& f : files_) f->close();  // a failure here has replaced nothing
  struct Replaced {
    std::string target, backup;  // backup empty: there was no old file
  };
  std::vector<Replaced> done;
  const std::string suffix = ".old." + unique_suffix();
  try {
    for (auto& f : files_) {
      if (f->writes_through()) {  // written already, in place: nothing to keep or put back
        f->publish();
        continue;
      }
      Replaced r{f->path(), ""};
      struct stat st {};
      if (::lstat(r.target.c_str(), &st) == 0) {
        r.backup = r.target + suffix;
        // A second name for the old file; the rename below then replaces the
        // target atomically and the old bytes stay reachable.
        if (::link(r.target.c_str(), r.backup.c_str()) != 0)
          throw std::runtime_error(r.target + ": cannot keep the old file aside (" + std::strerror(errno) + ")");
      }
      try {
        f->publish();
      } catch (...) {
        if (!r.backup.empty()) std::remove(r.backup.c_str());
        throw;
      }
      done.push_back(r);
    }
  } catch (...) {
    for (auto it = done.rbegin(); it != done.rend(); ++it) {
      if (it->backup.empty())
        std::remove(it->target.c_str());
      else
        std::rename(it->backup.c_str(), it->target.c_str());
    }
    throw;
  }
  for (const Replaced& r : done)
    if (!r.backup.empty()) std::remove(r.backup.c_str());
}

double reynolds_number(const Params& params, double final_av_velocity) {
  return final_av_velocity * params.reynolds_dim / params.viscosity();
}

}  // namespace d2q9
