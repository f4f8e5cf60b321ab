// The files a Simulation writes from its run as it stands: the outputs
// (av_vels.dat, final_state.dat or .vti and the measurements' CSVs) and its
// checkpoints. A view made for each call; sim/simulation.hpp says what each
// refuses, and the Simulation refuses an unstable state before it asks.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "device/solver.hpp"
#include "io/checkpoint.hpp"
#include "problem/problem_file.hpp"
#include "sim/run_measurements.hpp"

namespace d2q9 {

class RunFiles {
 public:
  RunFiles(const Problem& problem, Solver& solver, const std::vector<double>& av_vels,
           const RunMeasurements& measurements)
      : problem_(problem), solver_(solver), av_vels_(av_vels), measurements_(measurements) {}

  // Simulation::write_outputs: the final state's files as final_state_format
  // says for `asked`.
  void write_outputs(const std::string& dir, std::optional<FinalStateFormat> asked) const;
  // Simulation::checkpoint.
  Checkpoint checkpoint() const;
  // Simulation::check_checkpoint_target.
  void check_checkpoint_target(const std::string& path, bool overwrite) const;
  // Simulation::save_checkpoint.
  void save_checkpoint(const std::string& path, const RunRecord& run, bool overwrite) const;

 private:
  const Problem& problem_;
  Solver& solver_;
  const std::vector<double>& av_vels_;
  const RunMeasurements& measurements_;
};

}  // namespace d2q9
