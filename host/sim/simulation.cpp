#include "sim/simulation.hpp"

#include <climits>
#include <utility>

#include "device/kernel_source.hpp"
#include "problem/limits.hpp"
#include "sim/rank_picture.hpp"
#include "sim/run_measurements.hpp"
#include "sim/simulation_internal.hpp"
#include "sim/simulation_state.hpp"

namespace d2q9 {

Problem load_problem(const std::string& problem_or_params_file, const std::string& obstacle_file,
                     const std::function<void(const Params&)>& check_fits) {
  const auto check = [&](const Params& p) {
    if (check_fits) check_fits(p);
  };
  if (is_problem_file(problem_or_params_file)) return read_problem_file(problem_or_params_file, check);
  Problem problem;
  problem.name = problem_or_params_file;
  problem.params = read_params(problem_or_params_file);
  if (obstacle_file.empty())
    throw InputError(problem_or_params_file + ": a .params file needs its obstacle file (a problem file, .toml, "
                     "describes its obstacles itself)");
  check(problem.params);
  problem.mask = read_obstacles(obstacle_file, problem.params);
  problem.read_files = {problem_or_params_file, obstacle_file};
  return problem;
}

void check_problem_runs(const Params& params, const std::string& problem_name, const SimulationOptions& options,
                        bool checkpointing) {
  const std::string name = problem_name.empty() ? "problem" : problem_name;
  check_params_fit_precision(params, options.precision, name);
  check_host_memory(params, options.backend == Backend::Reference, options.precision, checkpointing);
}

namespace {

SolverConfig solver_config(const SimulationOptions& options, const std::vector<int>& slab_rows) {
  if (options.device < -1)
    throw InputError("--device " + std::to_string(options.device) + ": a device index is 0 or more");
  if (options.backend == Backend::Reference) {
    // The serial reference has no devices and builds no kernels: what it would ignore is refused.
    if (options.device > 0)
      throw InputError("--device " + std::to_string(options.device) +
                       ": the reference backend runs on the CPU and has no devices (give none, or 0)");
    if (!options.kernels_dir.empty()) find_kernels_dir(options.kernels_dir);
  }
  SolverConfig config;
  config.device = {options.device, options.precision,
                   options.backend == Backend::Reference ? "" : find_kernels_dir(options.kernels_dir)};
  config.launch = options.launch;
  config.slab_rows = slab_rows;
  return config;
}

// `problem` set up with `options` on `ranks`, once check_problem_runs and the options pass.
std::unique_ptr<SimulationState> set_up(Problem problem, const SimulationOptions& options, Ranks* ranks,
                                        const std::vector<int>& slab_rows) {
  check_problem_runs(problem.params, problem.name, options);
  const SolverConfig config = solver_config(options, slab_rows);
  return std::make_unique<SimulationState>(std::move(problem), options.backend, config, options.search_now, ranks);
}

}  // namespace

Simulation::Simulation(Problem problem, const SimulationOptions& options)
    : state_(set_up(std::move(problem), options, nullptr, {})) {}

Simulation::Simulation(std::unique_ptr<SimulationState> state) : state_(std::move(state)) {}

Simulation::~Simulation() = default;

std::unique_ptr<Simulation> SimulationInternals::on_ranks(Problem problem, const SimulationOptions& options,
                                                          Ranks* ranks, std::vector<int> slab_rows) {
  return std::unique_ptr<Simulation>(new Simulation(set_up(std::move(problem), options, ranks, slab_rows)));
}

std::unique_ptr<Simulation> SimulationInternals::on_solver(Problem problem, std::unique_ptr<Solver> started,
                                                           std::unique_ptr<InRunLaunchSearch> search,
                                                           SolverFactory make, RunClock clock) {
  return std::unique_ptr<Simulation>(new Simulation(std::make_unique<SimulationState>(
      std::move(problem), std::move(started), std::move(search), std::move(make), std::move(clock))));
}

const std::vector<TuningResult>& SimulationInternals::search_now_table(const Simulation& sim) {
  return sim.state_->search_now_table;
}

StateRows SimulationInternals::own_rows(Simulation& sim) {
  return d2q9::own_rows(*sim.state_->solver, sim.state_->problem.params);
}

void Simulation::resume(Checkpoint checkpoint, const std::string& path) {
  SimulationState& s = *state_;
  const Params& params = s.problem.params;
  // check_checkpoint_matches says more; this keeps a solver from reading past a lattice it lacks.
  const std::size_t planes = static_cast<std::size_t>(params.extensions.planes());
  if (checkpoint.f.size() != planes * params.cells())
    throw InputError(path + ": checkpoint does not match the inputs: it holds " + std::to_string(checkpoint.f.size()) +
                     " values, but " + (s.problem.name.empty() ? "the problem" : s.problem.name) + " needs " +
                     std::to_string(planes) + " per cell of its " + std::to_string(params.nx) + "x" +
                     std::to_string(params.ny) + " grid");
  s.solver->load_distributions(checkpoint.f);
  s.av_vels = std::move(checkpoint.av_vels);
  s.av_vels.reserve(static_cast<std::size_t>(params.max_iters));
  s.first_step = s.steps_done();
  s.measurements.resume(s.first_step, checkpoint.series, path);
}

void Simulation::step(int steps) {
  SimulationState& s = *state_;
  s.refuse_if_unstable();
  if (steps < 0) throw InputError("step(" + std::to_string(steps) + "): the number of steps is negative");
  if (steps > INT_MAX - s.steps_done())
    throw InputError("step(" + std::to_string(steps) + "): " + std::to_string(s.steps_done()) +
                     " steps are done, and a simulation holds at most " + std::to_string(INT_MAX) + " steps");
  try {
    s.advance(steps);
  } catch (const InstabilityError& e) {
    s.unstable = std::make_unique<InstabilityError>(e);
    throw;
  }
}

const InstabilityError* Simulation::unstable() const { return state_->unstable.get(); }
int Simulation::steps_done() const { return state_->steps_done(); }
int Simulation::first_step() const { return state_->first_step; }
const Params& Simulation::params() const { return state_->problem.params; }
const ObstacleMask& Simulation::mask() const { return state_->problem.mask; }
const std::string& Simulation::launch_reason() const { return state_->trials.reason(); }
double Simulation::stepping_seconds() const { return state_->stepping_s; }
double Simulation::measuring_seconds() const { return state_->measuring_s; }
double Simulation::search_seconds() const { return state_->trials.seconds(); }
const std::vector<double>& Simulation::average_velocities() const { return state_->av_vels; }
std::vector<double> Simulation::distributions() { return state_->solver->distributions(); }
std::vector<WallHeat> Simulation::heat_at_walls() { return state_->measurements.heat_at_walls(*state_->solver); }
const MeasurementLog& Simulation::measurements() const { return state_->measurements.log(); }
const std::vector<std::string>& Simulation::input_files() const { return state_->problem.read_files; }
const std::string& Simulation::problem_name() const { return state_->problem.name; }

RunInfo Simulation::run_info() const {
  const Solver& solver = *state_->solver;
  RunInfo r;
  r.backend = solver.backend_name();
  r.device = solver.device_name();
  r.precision = solver.precision();
  r.local_size = solver.local_size();
  if (const auto plan = solver.launch_plan()) {
    r.kernel_variant = to_string(plan->variant);
    if (plan->variant == KernelVariant::Blocked) {
      r.block_steps = plan->block_steps;
      r.tile = plan->tile;
    }
  }
  r.decomposition = solver.decomposition();
  r.halos = solver.halo_times();
  r.setup = solver.setup_times();
  return r;
}

SteadyCheck Simulation::steady_check(const SteadyRule& rule) const {
  const MeasurementLog& log = state_->measurements.log();
  return check_steady(rule, state_->av_vels, log.force_series(), log.forces_from(), log.bodies());
}

FlowFields Simulation::fields() {
  return flow_fields(state_->problem.params, state_->problem.mask, state_->solver->distributions());
}

FieldImage Simulation::picture(const FieldImageRequest& request) {
  SimulationState& s = *state_;
  if (request.field == ImageField::Temperature && !s.problem.params.extensions.heat)
    throw InputError(s.problem.name + ": a picture of the temperature needs a problem with [heat]");
  if (std::optional<FieldImage> made = s.solver->render(request)) return std::move(*made);
  if (s.ranks && s.ranks->size() > 1) {  // each rank from its own rows, never the whole grid
    StateRows own;
    s.ranks->on_every_rank([&] { own = own_rows(*s.solver, s.problem.params); });
    return field_image_on_ranks(*s.ranks, s.problem.params, s.problem.mask, own, request);
  }
  return field_image(fields(), s.problem.mask, request);
}

Checkpoint Simulation::checkpoint() {
  state_->refuse_if_unstable();
  return state_->files().checkpoint();
}

void Simulation::check_checkpoint_target(const std::string& path, bool overwrite) const {
  state_->refuse_if_unstable();
  state_->files().check_checkpoint_target(path, overwrite);
}

void Simulation::save_checkpoint(const std::string& path, const RunRecord& run, bool overwrite) {
  state_->refuse_if_unstable();
  state_->files().save_checkpoint(path, run, overwrite);
}

void Simulation::write_outputs(const std::string& dir, std::optional<FinalStateFormat> final_state) {
  state_->refuse_if_unstable();
  state_->files().write_outputs(dir, final_state);
}

RunRecord problem_file_record(const std::string& problem_file, const Params& params) {
  RunRecord r;
  r.param_file = r.obstacle_file = problem_file;
  r.param_hash = file_hash(problem_file);
  r.obstacle_hash = extensions_fingerprint(params.extensions);
  return r;
}

}  // namespace d2q9
