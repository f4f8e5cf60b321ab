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
//   sim.write_outputs("out");            // av_vels.dat, final_state.vti, forces.csv, probes.csv
//
// This header and what it includes are what the library promises (staged
// and installed: cmake/stage_headers.cmake): the problem model, the
// options, the results and the errors. Simulation keeps the device layer
// (solvers, launch plans and searches, the tuning cache, MPI ranks) behind
// a pointer, so that it can change without a user's program noticing; the
// library's own programs and tests reach it through
// sim/simulation_internal.hpp, never installed.
//
// d2q9-bgk is this library's user: it steps a Simulation on its schedule of
// checkpoints, snapshots and progress, across MPI ranks where it is started so.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/run_types.hpp"
#include "core/types.hpp"
#include "sim/measurements.hpp"
#include "sim/steady.hpp"
#include "io/checkpoint.hpp"
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
};

// How a simulation runs, as its summary and views report it: plain values,
// so that the device layer's solver stays the library's own.
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

struct SimulationState;

class Simulation {
 public:
  // InputError or DeviceError where `problem` cannot run with `options`
  // (check_problem_runs), the device is missing or its kernels do not build.
  Simulation(Problem problem, const SimulationOptions& options);
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
  const InstabilityError* unstable() const;
  int steps_done() const;
  // The step the simulation started from (a resumed run's checkpoint step).
  int first_step() const;

  const Params& params() const;
  const ObstacleMask& mask() const;
  RunInfo run_info() const;
  // Why the steps are launched as they are now.
  const std::string& launch_reason() const;
  // Seconds in steps; seconds the search during the run spent besides its
  // steps (building candidates, moving the state).
  double stepping_seconds() const;
  // Seconds taking the steps' measurements in (forces and probes) after the steps.
  double measuring_seconds() const;
  double search_seconds() const;

  // One per step done.
  const std::vector<double>& average_velocities() const;
  // The current state: distributions (speed k of cell i at [k*cells + i])
  // and the flow fields computed from them. Across ranks: collective, the
  // whole grid on rank 0 and nothing elsewhere.
  std::vector<double> distributions();
  // With heat: each thermal wall's heat into the fluid and Nusselt number
  // now; empty without. Across ranks: collective, on rank 0 (from each
  // rank's own rows: never the whole grid on one rank).
  std::vector<WallHeat> heat_at_walls();
  FlowFields fields();
  // A picture of one field of the current state, no wider than asked (the
  // live view's): made on the device where the backend can, else on the host.
  // Across ranks: collective, each rank sampling the pixels of its own rows;
  // the picture on rank 0 (an empty one, width 0, elsewhere), the same as one
  // process's of the same state.
  FieldImage picture(const FieldImageRequest& request);
  // Forces on measured bodies and probe series so far.
  const MeasurementLog& measurements() const;
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

  // The coursework's av_vels.dat, the final state and forces.csv, probes.csv
  // and nusselt.csv where the problem measures them, into `dir` (made if
  // missing), as d2q9-bgk writes them (one process). The final state is
  // final_state.dat (text), final_state.vti (VTK XML image data) or both, as
  // `final_state` asks, else as final_state_format(problem) chooses for the
  // problem this simulation was made from (text for a coursework .params
  // problem or one made in code, vti for a problem file, unless its [output]
  // says otherwise). Every target checked before
  // anything is written (io/output_guard.hpp: no input of the problem, no
  // directory or read-only file), the files replacing their targets together
  // or not at all, and an earlier run's outputs that this call does not
  // write removed where the folder's manifest proves them ours.
  // InstabilityError for a state that is not finite or physical.
  void write_outputs(const std::string& dir, std::optional<FinalStateFormat> final_state = std::nullopt);
  // The files the problem was read from (Problem::read_files).
  const std::vector<std::string>& input_files() const;
  // What errors call the problem (Problem::name).
  const std::string& problem_name() const;

 private:
  // The solver, the launch policy and search, the measurements and the
  // clocks: defined in sim/simulation_state.hpp, never installed, so that
  // none of it is part of this header (nor of a user's program).
  explicit Simulation(std::unique_ptr<SimulationState> state);
  std::unique_ptr<SimulationState> state_;
  // The library's own programs and tests: sim/simulation_internal.hpp.
  friend struct SimulationInternals;
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
