// Drives Solver::run over a whole run, in segments when progress or snapshots
// need the host between steps, in one call otherwise.
#pragma once

#include <functional>
#include <vector>

#include "progress.hpp"
#include "solver.hpp"

namespace d2q9 {

struct StepLoopHooks {
  int snapshot_every = 0;                  // 0: no snapshots
  std::function<void(int step)> snapshot;  // after every snapshot_every-th step
  ProgressLine* progress = nullptr;        // updated between segments when active
  double segment_s = 0.25;                 // work per segment, from the measured step rate
};

// Runs `total_steps` steps, appending to av_vels; returns the seconds spent in
// Solver::run (snapshots and progress not counted).
double run_steps(Solver& solver, int total_steps, std::vector<double>& av_vels, const StepLoopHooks& hooks = {});

}  // namespace d2q9
