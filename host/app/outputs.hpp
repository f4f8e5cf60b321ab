// The files beyond the coursework's two: picture, snapshots, VTK, JSON summary.
#pragma once

#include <string>

#include "app/cli.hpp"
#include "model/problem.hpp"

namespace d2q9 {

struct ExtraOutputs {
  std::string png;           // empty: none
  std::string vtk;           // empty: none
  std::string summary_json;  // empty: none
  int snapshot_every = 0;    // 0: none
  std::string snapshot_dir;
};

// Resolves the defaults (final_state.png in the output directory) and, with
// `check` (the rank that writes them), checks before anything runs that each
// file can be created: InputError naming it.
ExtraOutputs plan_extra_outputs(const Options& options, int max_iters, bool check = true);

// Before the run: every file the run will write (av_vels.dat, final_state.dat
// and the extras) can be created, no two of them are one file, and none is
// one of the inputs. InputError naming the paths otherwise.
void check_output_targets(const Options& options, const ExtraOutputs& extra);

// "<dir>/snapshot_<step>.png", the step zero-padded to the width of max_iters
// so that the frames sort in order.
std::string snapshot_path(const std::string& dir, int step, int max_iters);

// InputError unless `path` could be created or replaced (its folder exists
// and is writable, and it is no folder itself).
void check_can_create(const std::string& path);

}  // namespace d2q9
