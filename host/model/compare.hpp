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

// av_vels.dat: the largest pointwise relative difference per step.
// final_state.dat: per column (ux, uy, |u|, pressure), the relative L2 error
// ||sim - ref|| / ||ref||, since components near zero differ in relative terms
// between any two float implementations; obstacle flags and coordinates must match.
// InputError for unreadable or mismatched files.
std::vector<ColumnDifference> compare_outputs(const std::string& ref_dir, const std::string& sim_dir, double tolerance);

}  // namespace d2q9
