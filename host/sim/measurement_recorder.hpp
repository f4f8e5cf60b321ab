// The writing side of a run's MeasurementLog (sim/measurements.hpp): what
// the step loop adds after its steps, and what a checkpoint keeps of the log
// and a restart takes back. No public header includes this one, so it is
// never staged nor installed: a user's program reads the log and cannot
// rewrite it (tests/tools/check_staged_headers.py).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/measurements.hpp"

namespace d2q9 {

class MeasurementRecorder {
 public:
  // An empty log whose first step is `first_step` + 1; with [heat]
  // nusselt_every, nusselt.csv reports on `nusselt_walls` (heated_walls).
  MeasurementRecorder(const Measurements& m, const Params& params, int first_step,
                      std::vector<std::string> nusselt_walls = {});

  const MeasurementLog& log() const { return log_; }

  // Fx, Fy per body of the steps run since the last call (Solver::take_body_forces).
  void add_forces(const std::vector<double>& forces);
  // Their Nusselt numbers after `step` steps, one per nusselt_walls' wall
  // (wall_heat of the whole lattice, in the same order).
  void add_nusselt(int step, const std::vector<double>& nusselt);
  // The probes after `step` steps from their cells' distributions (the
  // planes of a cell a probe, in the order of probe_cells).
  void add_probe_cells(int step, const double* f);

  // What a checkpoint keeps of the log, by name, and takes back on a
  // restart: the forces of every step so far and the probes' and Nusselt
  // numbers' rows, so the files and the Strouhal estimate cover the whole
  // run. A checkpoint without them (an older version) leaves the log
  // starting at its first step.
  using Series = std::vector<std::pair<std::string, std::vector<double>>>;
  Series saved_series() const;
  // InputError naming `checkpoint` when its series do not fit this run.
  void restore(const Series& series, const std::string& checkpoint);

 private:
  MeasurementLog log_;
  int first_step_;
  bool whole_history_;  // the series hold every step from step 0
};

}  // namespace d2q9
