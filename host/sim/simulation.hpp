// The embeddable library: build a simulation from a problem, step it, read
// its fields, forces and probes, write its outputs. Another C++ program
// drives it in a loop (link d2q9::d2q9, #include <d2q9/d2q9.hpp>: see
// examples/embed/); a program that
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
// d2q9-bgk is this library's user: it steps a Simulation on its schedule of
// checkpoints, snapshots and progress, across MPI ranks where it is started so.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/backend.hpp"
#include "sim/launch_policy.hpp"
#include "sim/measurements.hpp"
#include "sim/steady.hpp"
#include "sim/wall_heat.hpp"
#include "io/checkpoint.hpp"
#include "io/state_rows.hpp"
#include "io/fields.hpp"
#include "io/field_image.hpp"
#include "problem/problem_file.hpp"
#include "problem/stability.hpp"

namespace d2q9 {

// A problem from a problem file (.toml), or from a coursework .params file
// and its obstacle file; InputError naming the file and line otherwise.
// `check_fits` sees the Params before the mask is built (see read_problem_file).
Problem load_problem(const std::string& problem_or_params_file, const std::string& obstacle_file = "",
                     const std::function<void(const Params&)>& check_fits = {});

struct SimulationOptions {
  SimulationOptions() = default;
  // SimulationOptions{Backend::Reference}: the other options their defaults.
  SimulationOptions(Backend on) : backend(on) {}  // NOLINT(google-explicit-constructor): the documented idiom
  Backend backend = Backend::OpenCL;
  int device = -1;  // the backend's default
  Precision precision = Precision::Float;
  LaunchRequest launch;     // Auto: the launch decision's default (cached, or searched during the run where it pays)
  std::string kernels_dir;  // empty: $D2Q9_KERNELS_DIR, else found beside the program or the installed library
  bool search_now = false;  // search the launches before the first step (--tune) and cache the fastest
  // MPI ranks sharing the grid, each stepping its slab (null: one process);
  // every rank then builds and steps its Simulation alike.
  Ranks* ranks = nullptr;
  std::vector<int> slab_rows;  // the ranks' rows, bottom to top (empty: an even split)
};

// How a simulation runs, as its summary and views report it (the device
// layer's Solver stays the library's own).
struct RunInfo {
  std::string backend;  // "reference", "opencl" or "cuda"
  std::string device;   // this process's device
  Precision precision = Precision::Float;
  std::string kernel_variant;  // the launch's variant; empty for the reference
  LocalSize local_size{1, 1};  // its work-group shape
  int block_steps = 0;         // blocked: steps per launch, and each work-group's tile
  LocalSize tile;
  std::string decomposition;  // under MPI, the slabs; else empty
  HaloTimes halos;            // under MPI, the halo exchanges' times so far
  SetupTimes setup;           // the device's set-up
};

class Simulation {
 public:
  Simulation(Problem problem, const SimulationOptions& options);
  // Seconds on a clock that only moves forward.
  using Clock = std::function<double()>;
  // A simulation on `started`, whose launch `search` (may be null) builds
  // candidates with `make` and times steps on `clock` (the wall clock when
  // empty). Tests: solvers that need no device, on a clock their steps move
  // on, so that nothing sleeps.
  Simulation(Problem problem, std::unique_ptr<Solver> started, std::unique_ptr<InRunLaunchSearch> search = nullptr,
             SolverFactory make = {}, Clock clock = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Continues the run `checkpoint` saved (read from `path`, which errors
  // name): its distributions, average velocities and measurements. Before
  // the first step.
  void resume(Checkpoint checkpoint, const std::string& path);

  // Advances `steps` timesteps (InstabilityError at the first step whose
  // average velocity is not finite), taking the probes the problem asks for
  // and, where the launch is the default's, searching for a faster one on
  // these steps (collective across ranks). InputError for a negative count
  // or one that would take steps_done() past INT_MAX. The problem's steps
  // (params().max_iters) are the run d2q9-bgk makes; a Simulation may step
  // past them (a run continued until steady): its outputs then hold every
  // step done. Once a step was unstable, the simulation is over: step,
  // write_outputs, save_checkpoint and checkpoint raise that InstabilityError
  // again, and nothing of the unstable state is written.
  void step(int steps);
  // The instability that ended the run, if one did.
  const InstabilityError* unstable() const { return unstable_.get(); }
  int steps_done() const { return static_cast<int>(av_vels_.size()); }
  // The step the simulation started from (a resumed run's checkpoint step).
  int first_step() const { return first_step_; }

  const Params& params() const { return params_; }
  const ObstacleMask& mask() const { return mask_; }
  RunInfo run_info() const;
  // Why the steps are launched as they are now.
  const std::string& launch_reason() const;
  // The launches a search before the first step timed, the default first (empty without one).
  const std::vector<TuningResult>& search_now_table() const { return search_now_table_; }
  // Seconds in steps; seconds the search during the run spent besides its
  // steps (building candidates, moving the state).
  double stepping_seconds() const { return stepping_s_; }
  // Seconds taking the steps' measurements in (forces and probes) after the steps.
  double measuring_seconds() const { return measuring_s_; }
  double search_seconds() const { return search_s_; }

  // One per step done.
  const std::vector<double>& average_velocities() const { return av_vels_; }
  // The current state: distributions (speed k of cell i at [k*cells + i])
  // and the flow fields computed from them. Across ranks: collective, the
  // whole grid on rank 0 and nothing elsewhere.
  std::vector<double> distributions() { return solver_->distributions(); }
  // With heat: each thermal wall's heat into the fluid and Nusselt number
  // now (sim/wall_heat.hpp); empty without. Across ranks: collective, on
  // rank 0 (from each rank's own rows: never the whole grid on one rank).
  std::vector<WallHeat> heat_at_walls();
  // This rank's rows of the state (the whole grid on one process).
  StateRows own_rows();
  FlowFields fields();
  // A picture of one field of the current state, no wider than asked (the
  // live view's): made on the device where the backend can, else on the host. One process.
  FieldImage picture(const FieldImageRequest& request);
  // Forces on measured bodies and probe series so far.
  const MeasurementLog& measurements() const { return measurements_; }
  // How far from steady the run is now (sim/steady.hpp).
  SteadyCheck steady_check(const SteadyRule& rule) const;
  // The state a checkpoint keeps now (collective; the distributions on rank
  // 0 only), without its run record.
  Checkpoint checkpoint();
  // That state, with `run`, written to `path` (one process). Refused with
  // InputError, before anything is written, where `path` is one of the
  // problem's input files, a directory, link, device or other non-file, a
  // read-only file, a file that is not a checkpoint, or the checkpoint of
  // another problem (params, obstacles, precision) unless `overwrite`; a
  // checkpoint of this problem at any step is replaced. InstabilityError for
  // a state that is not finite or physical.
  void save_checkpoint(const std::string& path, const RunRecord& run = {}, bool overwrite = false);
  // save_checkpoint's refusals alone, before anything is written (a caller
  // that writes a file beside the checkpoint asks first).
  void check_checkpoint_target(const std::string& path, bool overwrite = false) const;

  // The coursework's av_vels.dat and final_state.dat, and forces.csv and
  // probes.csv where the problem measures them, into `dir` (made if missing),
  // as d2q9-bgk writes them (one process): every target checked before
  // anything is written (io/output_guard.hpp: no input of the problem, no
  // directory or read-only file), the files replacing their targets together
  // or not at all, and an earlier run's outputs that this call does not
  // write removed where the folder's manifest proves them ours.
  // InstabilityError for a state that is not finite or physical.
  void write_outputs(const std::string& dir);
  // The files the problem was read from (Problem::read_files).
  const std::vector<std::string>& input_files() const { return input_files_; }
  // What errors call the problem (Problem::name).
  const std::string& problem_name() const { return problem_name_; }

 private:
  // Does what the launch search says after a report.
  void follow(InRunLaunchSearch::Move move);
  // Has `solver` sample the probes itself as it runs, where it can.
  void sample_probes_on(Solver& solver);

  // step() once it is checked.
  void advance(int steps);
  // InstabilityError again once a step was unstable.
  void refuse_if_unstable() const;

  std::string problem_name_;
  std::vector<std::string> input_files_;
  Params params_;
  ObstacleMask mask_;
  Measurements measure_;
  Ranks* ranks_ = nullptr;                // SimulationOptions::ranks (null: one process)
  std::unique_ptr<LaunchPolicy> policy_;  // null for solvers made elsewhere
  std::unique_ptr<Solver> solver_;
  std::unique_ptr<WallHeatCells> heat_cells_;  // heat_at_walls' cells on one process, found at its first call
  std::string start_reason_;
  std::vector<TuningResult> search_now_table_;
  // The search during the run, made at the first step (which knows the run's steps).
  bool search_made_ = false;
  std::unique_ptr<InRunLaunchSearch> search_;
  std::unique_ptr<Solver> best_;  // while a candidate is on trial: the fastest so far, state-less
  SolverFactory make_;
  Clock clock_;
  int first_step_ = 0;
  std::vector<double> av_vels_;
  MeasurementLog measurements_;
  MeasurementLog measurement_log(int first_step) const;  // empty, from first_step, nusselt.csv's walls set
  void sample_nusselt();
  double stepping_s_ = 0;
  double measuring_s_ = 0;
  double search_s_ = 0;
  std::unique_ptr<InstabilityError> unstable_;
};

// The run record of a run of problem file `problem_file` as d2q9-bgk writes
// it, so that `d2q9-bgk --restart` and Python's resume continue it: the file
// (absolute path, content hash) as both inputs, and in place of an obstacle
// file's hash the fingerprint of `params`' extensions.
RunRecord problem_file_record(const std::string& problem_file, const Params& params);

// InputError or DeviceError where `problem` cannot run with `options`: a
// value its precision cannot hold, omega outside (0, 2) as that precision
// holds it (problem/limits.hpp), a grid this machine's memory cannot hold.
// The Simulation checks this first; load_problem's `check_fits` may run it
// sooner, before the mask is built.
void check_problem_runs(const Params& params, const std::string& problem_name, const SimulationOptions& options,
                        bool checkpointing = false);

}  // namespace d2q9
