// The run's summary as stdout prints it and as JSON for scripts (--summary-json).
#pragma once

#include <cstdio>
#include <optional>
#include <string>

#include "sim/measurements.hpp"
#include "sim/steady.hpp"
#include "sim/wall_heat.hpp"
#include "problem/problem.hpp"
#include "device/solver.hpp"

namespace d2q9 {

// Where a run's wall time went, in seconds.
struct RunTimes {
  double inputs_s = 0;   // reading and checking the inputs
  double setup_s = 0;    // the solver: device, kernels, upload (below), and any search with --tune
  SetupTimes setup;      // the solver's own account of its set-up
  double search_s = 0;   // a search during the run: building candidates, moving the state (not its steps)
  // The step loop as the user waits for it, from the first step to the last
  // (stdout's "Elapsed time" and MLUPS): its steps with the probes sampled
  // on the way, the measurements taken in, a search, checkpoints, snapshots,
  // steady checks and the progress line, which `loop` accounts for.
  double loop_s = 0;
  struct Loop {
    double steps_s = 0, measurements_s = 0, checkpoints_s = 0, snapshots_s = 0, steady_checks_s = 0,
           progress_s = 0;
  } loop;
  double final_state_s = 0;  // the final state onto the host, after the loop
  double outputs_s = 0;      // formatting and writing the output files
  double wall_s = 0;     // from reading the inputs to the summary
};

// What --until-steady found: its rule and its last check.
struct SteadyOutcome {
  SteadyRule rule;
  SteadyCheck check;
};

struct RunSummary {
  std::string version, commit;  // of the program that ran (BuildInfo)
  std::string param_file, obstacle_file;
  Params params;
  std::size_t fluid_cells = 0;
  std::string device, backend;
  Precision precision = Precision::Float;
  LocalSize local_size;
  std::string kernel_variant;  // empty where the backend has none (reference)
  int block_steps = 0;         // blocked: steps per launch and tile (0 and auto otherwise)
  LocalSize tile;
  std::string launch_reason;   // why this variant and shape (LaunchChoice::reason)
  std::string decomposition;   // how the grid is split across MPI ranks; empty on one process
  std::vector<WallHeat> heat_walls;  // with heat: each thermal wall's heat and Nusselt number at the end
  HaloTimes halos;             // rank 0's host time in the staged halo exchanges (none elsewhere)
  RunTimes times;
  double elapsed_s = 0.0;  // the step loop, as stdout's "Elapsed time" (times.loop_s)
  double user_cpu_s = 0.0, system_cpu_s = 0.0;
  double final_average_velocity = 0.0;
  std::optional<MeasurementSummary> measured;  // forces and probes, where the problem asks for them
  int steps_run = 0;  // steps completed (av_vels.dat's lines); fewer than params.max_iters when stopped as steady; 0: max_iters
  std::optional<SteadyOutcome> steady;  // with --until-steady

  double reynolds_number() const;
  int first_step = 0;  // > 0 when resumed from a checkpoint
  double mlups() const;  // every cell of the grid per step, obstacles included
};

// The coursework's lines and ours, as the program prints them on stdout.
void print_summary(std::FILE* out, const RunSummary& s);

// Pretty-printed JSON object with every field above, and reynolds_number and mlups.
std::string summary_json(const RunSummary& s);

}  // namespace d2q9
