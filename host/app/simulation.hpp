// The embeddable library: build a simulation from a problem, step it, read
// its fields, forces and probes, write its outputs. Another C++ program
// drives it in a loop (link d2q9_app, include this header); a program that
// runs one simulation after another on a device makes that device's context
// once (the backends keep one per device for the process).
//
//   d2q9::Simulation sim(d2q9::load_problem("cylinder.toml"), {d2q9::Backend::OpenCL});
//   while (sim.steps_done() < sim.params().max_iters) {
//     sim.step(100);
//     const auto fields = sim.fields();   // density, ux, uy, speed, vorticity
//   }
//   sim.write_outputs("out");            // av_vels.dat, final_state.dat, forces.csv, probes.csv
//
// One process, one device: d2q9-bgk is the way to run across MPI ranks.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "app/backend.hpp"
#include "app/measurements.hpp"
#include "io/fields.hpp"
#include "problem/problem_file.hpp"

namespace d2q9 {

// A problem from a problem file (.toml), or from a coursework .params file
// and its obstacle file; InputError naming the file and line otherwise.
// `check_fits` sees the Params before the mask is built (see read_problem_file).
Problem load_problem(const std::string& problem_or_params_file, const std::string& obstacle_file = "",
                     const std::function<void(const Params&)>& check_fits = {});

struct SimulationOptions {
  Backend backend = Backend::OpenCL;
  int device = -1;  // the backend's default
  Precision precision = Precision::Float;
  LaunchRequest launch;     // Auto: the launch decision's default
  std::string kernels_dir;  // empty: found beside the program or installed
};

class Simulation {
 public:
  Simulation(Problem problem, const SimulationOptions& options);

  // Advances `steps` timesteps (InstabilityError at the first step whose
  // average velocity is not finite), taking the probes the problem asks for.
  void step(int steps);
  int steps_done() const { return static_cast<int>(av_vels_.size()); }

  const Params& params() const { return params_; }
  const ObstacleMask& mask() const { return mask_; }
  const Solver& solver() const { return *solver_; }
  // One per step done.
  const std::vector<double>& average_velocities() const { return av_vels_; }
  // The current state: distributions (speed k of cell i at [k*cells + i])
  // and the flow fields computed from them.
  std::vector<double> distributions() { return solver_->distributions(); }
  FlowFields fields();
  // Forces on measured bodies and probe series so far.
  const MeasurementLog& measurements() const { return measurements_; }

  // The coursework's av_vels.dat and final_state.dat, and forces.csv and
  // probes.csv where the problem measures them, into `dir` (made if missing).
  void write_outputs(const std::string& dir);

 private:
  Params params_;
  ObstacleMask mask_;
  Measurements measure_;
  std::unique_ptr<Solver> solver_;
  std::vector<double> av_vels_;
  MeasurementLog measurements_;
};

}  // namespace d2q9
