#include "model/output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <unistd.h>
#include <utility>

#include "device/types.hpp"
#include "model/lattice.hpp"

namespace d2q9 {

CellState cell_state(const Params& params, const ObstacleMask& mask, const std::vector<double>& f, std::size_t cell) {
  if (mask.blocked[cell]) return {0.0, 0.0, 0.0, params.density / 3.0};
  const std::size_t n = params.cells();
  double rho = 0.0, mx = 0.0, my = 0.0;
  for (int k = 0; k < kSpeeds; ++k) {
    const double fk = f[k * n + cell];
    rho += fk;
    mx += kEx[k] * fk;
    my += kEy[k] * fk;
  }
  const double ux = mx / rho, uy = my / rho;
  return {ux, uy, std::sqrt(ux * ux + uy * uy), rho / 3.0};
}

void write_av_vels(std::FILE* out, const std::vector<double>& av_vels) {
  for (std::size_t t = 0; t < av_vels.size(); ++t) std::fprintf(out, "%d:\t%.12E\n", static_cast<int>(t), av_vels[t]);
}

void write_final_state(std::FILE* out, const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  for (int jj = 0; jj < params.ny; ++jj) {
    for (int ii = 0; ii < params.nx; ++ii) {
      const std::size_t cell = static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * params.nx;
      const CellState s = cell_state(params, mask, f, cell);
      std::fprintf(out, "%d %d %.12E %.12E %.12E %.12E %d\n", ii, jj, s.ux, s.uy, s.speed, s.pressure,
                   mask.blocked[cell] ? 1 : 0);
    }
  }
}

AtomicFile::AtomicFile(std::string path)
    : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
  file_ = std::fopen(tmp_.c_str(), "w");
  if (!file_) throw std::runtime_error(path_ + ": cannot create file (" + std::strerror(errno) + ")");
}

AtomicFile::~AtomicFile() {
  if (file_) std::fclose(file_);
  if (!published_) std::remove(tmp_.c_str());
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
    std::remove(tmp_.c_str());
    throw std::runtime_error(path_ + ": write failed (" + std::strerror(failed ? err : errno) + ")");
  }
}

void AtomicFile::publish() {
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

void OutputSet::commit() {
  for (auto& f : files_) f->close();  // a failure here has replaced nothing
  struct Replaced {
    std::string target, backup;  // backup empty: there was no old file
  };
  std::vector<Replaced> done;
  const std::string suffix = ".old." + std::to_string(::getpid());
  try {
    for (auto& f : files_) {
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
