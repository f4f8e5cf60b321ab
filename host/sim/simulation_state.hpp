// What a Simulation holds behind its pointer (sim/simulation.hpp): the
// problem, its solver and the launch trials on it, the measurements, the
// average velocities and the clocks, and the step loop that moves them on.
// No public header includes it, so none of it is part of a user's program.
#pragma once

#include <memory>
#include <vector>

#include "core/ranks.hpp"
#include "core/stopwatch.hpp"
#include "device/solver.hpp"
#include "device/tuning.hpp"
#include "problem/problem_file.hpp"
#include "problem/stability.hpp"
#include "sim/launch_trials.hpp"
#include "sim/run_files.hpp"
#include "sim/run_measurements.hpp"

namespace d2q9 {

struct SimulationState {
  // The simulation d2q9-bgk and the public constructor make, of a problem
  // check_problem_runs passed: its launch on `config`'s device decided by a
  // LaunchPolicy (which may search during the run), on `ranks` (null: one process).
  SimulationState(Problem problem, Backend backend, const SolverConfig& config, bool search_now, Ranks* ranks);
  // One on a solver made elsewhere (SimulationInternals::on_solver).
  SimulationState(Problem problem, std::unique_ptr<Solver> started, std::unique_ptr<InRunLaunchSearch> search,
                  SolverFactory make, RunClock on);

  int steps_done() const { return static_cast<int>(av_vels.size()); }
  // InstabilityError again once a step was unstable.
  void refuse_if_unstable() const {
    if (unstable) throw *unstable;
  }
  // Simulation::step once it is checked: the steps in pieces, each up to
  // the next measurement or report to the launch search.
  void advance(int steps);
  // The run's outputs and checkpoints as it stands now.
  RunFiles files() { return RunFiles(problem, *solver, av_vels, measurements); }

  const Problem problem;  // its mask where the launch policy reads it: never moved
  Ranks* const ranks;    // null: one process
  RunClock clock;
  LaunchTrials trials;
  RunMeasurements measurements;
  std::unique_ptr<Solver> solver;
  std::vector<TuningResult> search_now_table;
  int first_step = 0;
  std::vector<double> av_vels;
  double stepping_s = 0;
  double measuring_s = 0;
  std::unique_ptr<InstabilityError> unstable;
};

}  // namespace d2q9
