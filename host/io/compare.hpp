// Comparison of two runs' output files, as users check against reference outputs.
#pragma once

#include <string>
#include <vector>

namespace d2q9 {

struct ColumnDifference {
  std::string name;
  double value;     // the measure compared with the tolerance
  bool passed;
};

// Magnitudes below this (in lattice units of speed, or pressure) count as
// this large when dividing: fields that are zero up to rounding are then
// compared absolutely rather than failing on relative noise.
constexpr double kAbsoluteFloor = 1e-4;

// Any NaN or infinity in either file fails its measure.
// av_vels.dat: the largest pointwise relative difference per step.
// final_state.dat: per column (ux, uy, |u|, pressure), the relative L2 error
// ||sim - ref|| / ||ref||, since components near zero differ in relative terms
// between any two float implementations; obstacle flags and coordinates must
// match. A folder without final_state.dat has its final_state.vti read
// instead (a problem-file run's default: velocity, speed, density / 3 as the
// pressure, obstacle), so either file compares with either.
// InputError for unreadable or mismatched files.
std::vector<ColumnDifference> compare_outputs(const std::string& ref_dir, const std::string& sim_dir, double tolerance);

}  // namespace d2q9
