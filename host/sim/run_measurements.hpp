// What a Simulation's step loop measures after its steps, from its solver:
// the bodies' forces, the probes (which a solver that can samples itself as
// it runs) and, with heat, the walls' Nusselt numbers; kept in a
// MeasurementRecorder, which a checkpoint saves and a restart takes back.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/ranks.hpp"
#include "device/solver.hpp"
#include "io/state_rows.hpp"
#include "problem/problem_file.hpp"
#include "sim/measurement_recorder.hpp"
#include "sim/wall_heat.hpp"

namespace d2q9 {

class RunMeasurements {
 public:
  // Empty from step 0 of `problem` (which outlives it) on `ranks` (null: one process).
  RunMeasurements(const Problem& problem, Ranks* ranks);

  const MeasurementLog& log() const { return recorder_.log(); }
  // Has `solver` sample the probes itself as it runs, where it can.
  void sample_probes_on(Solver& solver) const;
  // Where, after `done` steps and before `end`, the loop stops to measure
  // next: the next Nusselt row, and the next probe unless `solver` samples them.
  int next_stop(const Solver& solver, int done, int end) const;
  // What `solver`'s steps up to `done` measured: collective across ranks,
  // rank 0 keeping what it reads.
  void take(Solver& solver, int done);
  // Each thermal wall's heat and Nusselt number now; empty without heat.
  // Collective across ranks, on rank 0.
  std::vector<WallHeat> heat_at_walls(Solver& solver);

  // What a checkpoint keeps of them.
  MeasurementRecorder::Series saved_series() const { return recorder_.saved_series(); }
  // Empty from `first_step`, then the series the checkpoint at `path` kept.
  void resume(int first_step, const MeasurementRecorder::Series& series, const std::string& path);

 private:
  MeasurementRecorder recorder_from(int first_step) const;
  int probe_every() const;    // 0 without probes
  int nusselt_every() const;  // 0 without Nusselt rows
  // nusselt.csv's row after `done` steps: collective across ranks (heat_at_walls).
  void add_nusselt_row(Solver& solver, int done);

  const Problem& problem_;
  Ranks* ranks_;
  MeasurementRecorder recorder_;
  std::unique_ptr<WallHeatCells> heat_cells_;  // heat_at_walls' cells on one process, found at its first call
};

// This rank's rows of `solver`'s state (the whole grid on one process).
StateRows own_rows(Solver& solver, const Params& params);

}  // namespace d2q9
