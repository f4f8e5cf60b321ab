#include "io/compare.hpp"

#include <sys/stat.h>

#include <cmath>
#include <sstream>

#include "io/output_guard.hpp"
#include "io/vtk_output.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

namespace {

// Rows of numbers, one per non-empty line; "12:" parses as 12.
std::vector<std::vector<double>> read_table(const std::string& path, std::size_t columns) {
  std::istringstream in(read_text_file(path));
  std::vector<std::vector<double>> rows;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::vector<double> row;
    for (std::string tok; ls >> tok;) {
      if (tok.back() == ':') tok.pop_back();
      char* end = nullptr;
      const double v = std::strtod(tok.c_str(), &end);
      if (end != tok.c_str() + tok.size())
        throw InputError(path + ":" + std::to_string(lineno) + ": not a number: '" + tok + "'");
      row.push_back(v);
    }
    if (row.empty()) continue;
    if (row.size() != columns)
      throw InputError(path + ":" + std::to_string(lineno) + ": expected " + std::to_string(columns) + " values, got " +
                       std::to_string(row.size()));
    rows.push_back(row);
  }
  return rows;
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// A run's final state as final_state.dat's rows "ii jj ux uy |u| pressure
// obstacle": final_state.dat where the folder holds it, else final_state.vti
// (pressure = density / 3, as the text has it); `file` says which was read.
std::vector<std::vector<double>> read_final_state(const std::string& dir, std::string& file) {
  file = dir + "/" + kFinalStateFile;
  if (exists(file)) return read_table(file, 7);
  if (!exists(dir + "/" + kFinalStateVtiFile))
    throw InputError(dir + ": holds neither " + kFinalStateFile + " nor " + kFinalStateVtiFile);
  file = dir + "/" + kFinalStateVtiFile;
  const VtiContents image = read_vti_file(file);
  const VtiValues& velocity = image.array("velocity", file);
  const VtiValues& speed = image.array("speed", file);
  const VtiValues& density = image.array("density", file);
  const VtiValues& obstacle = image.array("obstacle", file);
  if (velocity.components < 2 || speed.components != 1 || density.components != 1 || obstacle.components != 1)
    throw InputError(file + ": velocity needs 2 or 3 components and speed, density and obstacle 1");
  const std::size_t nx = static_cast<std::size_t>(image.nx()), cells = speed.values.size();
  std::vector<std::vector<double>> rows(cells);
  for (std::size_t c = 0; c < cells; ++c)
    rows[c] = {static_cast<double>(image.extent[0] + static_cast<int>(c % nx)),
               static_cast<double>(image.extent[2] + static_cast<int>(c / nx)),
               velocity.values[velocity.components * c],
               velocity.values[velocity.components * c + 1],
               speed.values[c],
               density.values[c] / 3.0,
               obstacle.values[c]};
  return rows;
}

}  // namespace

std::vector<ColumnDifference> compare_outputs(const std::string& ref_dir, const std::string& sim_dir, double tolerance) {
  std::vector<ColumnDifference> out;
  const auto ref_av = read_table(ref_dir + "/av_vels.dat", 2);
  const auto sim_av = read_table(sim_dir + "/av_vels.dat", 2);
  if (ref_av.size() != sim_av.size())
    throw InputError(sim_dir + "/av_vels.dat: " + std::to_string(sim_av.size()) + " steps, the reference has " +
                     std::to_string(ref_av.size()));
  // NaN would drop out of a max and pass: any non-finite value fails outright.
  double worst = 0.0;
  bool finite = true;
  for (std::size_t i = 0; i < ref_av.size(); ++i) {
    const double r = ref_av[i][1], s = sim_av[i][1];
    finite = finite && std::isfinite(r) && std::isfinite(s);
    const double d = std::fabs(s - r) / std::fmax(std::fabs(r), kAbsoluteFloor);
    worst = std::fmax(worst, d);
  }
  if (!finite) worst = NAN;
  out.push_back({"av_vels (max relative)", worst, finite && worst <= tolerance});

  std::string ref_file, sim_file;
  const auto ref_fs = read_final_state(ref_dir, ref_file);
  const auto sim_fs = read_final_state(sim_dir, sim_file);
  if (ref_fs.size() != sim_fs.size())
    throw InputError(sim_file + ": " + std::to_string(sim_fs.size()) + " cells, the reference " + ref_file + " has " +
                     std::to_string(ref_fs.size()));
  for (std::size_t i = 0; i < ref_fs.size(); ++i)
    if (ref_fs[i][0] != sim_fs[i][0] || ref_fs[i][1] != sim_fs[i][1] || ref_fs[i][6] != sim_fs[i][6])
      throw InputError(sim_file + (sim_file == sim_dir + "/" + kFinalStateFile ? ":" : ": cell ") +
                       std::to_string(i + 1) + ": cell coordinates or obstacle flag differ from the reference");
  const char* names[] = {"ux", "uy", "|u|", "pressure"};
  for (int c = 0; c < 4; ++c) {
    double num = 0.0, den = 0.0;
    bool finite = true;
    for (std::size_t i = 0; i < ref_fs.size(); ++i) {
      const double r = ref_fs[i][2 + c], s = sim_fs[i][2 + c];
      finite = finite && std::isfinite(r) && std::isfinite(s);
      num += (s - r) * (s - r);
      den += r * r;
    }
    // A field that is zero up to rounding (uy of a channel) is compared with
    // the floor instead of its own tiny norm.
    const double floor_norm = kAbsoluteFloor * std::sqrt(static_cast<double>(ref_fs.size()));
    const double rel = finite ? std::sqrt(num) / std::fmax(std::sqrt(den), floor_norm) : NAN;
    out.push_back({std::string("final_state ") + names[c] + " (relative L2)", rel, finite && rel <= tolerance});
  }
  return out;
}

}  // namespace d2q9
