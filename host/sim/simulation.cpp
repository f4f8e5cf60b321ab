#include "sim/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <utility>

#include "device/kernel_source.hpp"
#include "io/output.hpp"
#include "io/output_guard.hpp"
#include "problem/limits.hpp"
#include "sim/backend.hpp"
#include "sim/launch_policy.hpp"
#include "sim/measurement_recorder.hpp"
#include "sim/simulation_internal.hpp"
#include "sim/wall_heat.hpp"

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

namespace {

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// `problem`'s params once check_problem_runs passes.
const Params& checked_params(const Problem& problem, const SimulationOptions& options) {
  check_problem_runs(problem.params, problem.name, options);
  return problem.params;
}

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

}  // namespace

void check_problem_runs(const Params& params, const std::string& problem_name, const SimulationOptions& options,
                        bool checkpointing) {
  const std::string name = problem_name.empty() ? "problem" : problem_name;
  check_params_fit_precision(params, options.precision, name);
  check_host_memory(params, options.backend == Backend::Reference, options.precision, checkpointing);
}

struct Simulation::State {
  using Clock = SimulationInternals::Clock;

  // The simulation d2q9-bgk and the public constructor make: its launch
  // decided by a LaunchPolicy (which may search during the run).
  State(Problem problem, const SimulationOptions& options, Ranks* on_ranks, const std::vector<int>& slab_rows)
      : problem_name(problem.name),
        input_files(problem.read_files),
        params(checked_params(problem, options)),
        mask(std::move(problem.mask)),
        measure(problem.measure),
        ranks(on_ranks),
        policy(std::make_unique<LaunchPolicy>(options.backend, params, mask, solver_config(options, slab_rows),
                                              options.search_now, on_ranks)),
        clock(wall_seconds),
        measurements(measurement_log(0)) {
    LaunchChoice choice = policy->start();
    solver = std::move(choice.solver);
    start_reason = std::move(choice.reason);
    search_now_table = std::move(choice.table);
    make = policy->candidate_factory();
    av_vels.reserve(static_cast<std::size_t>(params.max_iters));
    sample_probes_on(*solver);
  }

  // One on a solver made elsewhere (SimulationInternals::on_solver).
  State(Problem problem, std::unique_ptr<Solver> started, std::unique_ptr<InRunLaunchSearch> in_run,
        SolverFactory factory, Clock on)
      : problem_name(problem.name),
        input_files(problem.read_files),
        params(problem.params),
        mask(std::move(problem.mask)),
        measure(problem.measure),
        solver(std::move(started)),
        search_made(true),
        search(std::move(in_run)),
        make(std::move(factory)),
        clock(on ? std::move(on) : Clock(wall_seconds)),
        measurements(measurement_log(0)) {
    av_vels.reserve(static_cast<std::size_t>(params.max_iters));
    if (search) start_reason = search->reason();
    sample_probes_on(*solver);
  }

  int steps_done() const { return static_cast<int>(av_vels.size()); }
  // Empty, from first_step, nusselt.csv's walls set.
  MeasurementRecorder measurement_log(int first_step) const;
  // Has `on` sample the probes itself as it runs, where it can.
  void sample_probes_on(Solver& on);
  // InstabilityError again once a step was unstable.
  void refuse_if_unstable() const {
    if (unstable) throw *unstable;
  }
  // Simulation::step once it is checked.
  void advance(int steps);
  // Does what the launch search says after a report.
  void follow(InRunLaunchSearch::Move move);
  // nusselt.csv's row after this step: collective across ranks (heat_at_walls).
  void sample_nusselt();
  std::vector<WallHeat> heat_at_walls();
  StateRows own_rows();

  std::string problem_name;
  std::vector<std::string> input_files;
  Params params;
  ObstacleMask mask;  // where `policy` reads it: never moved
  Measurements measure;
  Ranks* ranks = nullptr;                // null: one process
  std::unique_ptr<LaunchPolicy> policy;  // null for solvers made elsewhere
  std::unique_ptr<Solver> solver;
  std::unique_ptr<WallHeatCells> heat_cells;  // heat_at_walls' cells on one process, found at its first call
  std::string start_reason;
  std::vector<TuningResult> search_now_table;
  // The search during the run, made at the first step (which knows the run's steps).
  bool search_made = false;
  std::unique_ptr<InRunLaunchSearch> search;
  std::unique_ptr<Solver> best;  // while a candidate is on trial: the fastest so far, state-less
  SolverFactory make;
  Clock clock;
  int first_step = 0;
  std::vector<double> av_vels;
  MeasurementRecorder measurements;
  double stepping_s = 0;
  double measuring_s = 0;
  double search_s = 0;
  std::unique_ptr<InstabilityError> unstable;
};

Simulation::Simulation(Problem problem, const SimulationOptions& options)
    : state_(std::make_unique<State>(std::move(problem), options, nullptr, std::vector<int>{})) {}

Simulation::Simulation(std::unique_ptr<State> state) : state_(std::move(state)) {}

Simulation::~Simulation() = default;

std::unique_ptr<Simulation> SimulationInternals::on_ranks(Problem problem, const SimulationOptions& options,
                                                          Ranks* ranks, std::vector<int> slab_rows) {
  return std::unique_ptr<Simulation>(
      new Simulation(std::make_unique<Simulation::State>(std::move(problem), options, ranks, slab_rows)));
}

std::unique_ptr<Simulation> SimulationInternals::on_solver(Problem problem, std::unique_ptr<Solver> started,
                                                           std::unique_ptr<InRunLaunchSearch> search,
                                                           SolverFactory make, Clock clock) {
  return std::unique_ptr<Simulation>(new Simulation(std::make_unique<Simulation::State>(
      std::move(problem), std::move(started), std::move(search), std::move(make), std::move(clock))));
}

const std::vector<TuningResult>& SimulationInternals::search_now_table(const Simulation& sim) {
  return sim.state_->search_now_table;
}

StateRows SimulationInternals::own_rows(Simulation& sim) { return sim.state_->own_rows(); }

void Simulation::resume(Checkpoint checkpoint, const std::string& path) {
  State& s = *state_;
  // check_checkpoint_matches says more; this keeps a solver from reading past a lattice it lacks.
  const std::size_t planes = static_cast<std::size_t>(s.params.extensions.planes());
  if (checkpoint.f.size() != planes * s.params.cells())
    throw InputError(path + ": checkpoint does not match the inputs: it holds " + std::to_string(checkpoint.f.size()) +
                     " values, but " + (s.problem_name.empty() ? "the problem" : s.problem_name) + " needs " +
                     std::to_string(planes) + " per cell of its " + std::to_string(s.params.nx) + "x" +
                     std::to_string(s.params.ny) + " grid");
  s.solver->load_distributions(checkpoint.f);
  s.av_vels = std::move(checkpoint.av_vels);
  s.av_vels.reserve(static_cast<std::size_t>(s.params.max_iters));
  s.first_step = s.steps_done();
  s.measurements = s.measurement_log(s.first_step);
  s.measurements.restore(checkpoint.series, path);
}

const InstabilityError* Simulation::unstable() const { return state_->unstable.get(); }
int Simulation::steps_done() const { return state_->steps_done(); }
int Simulation::first_step() const { return state_->first_step; }
const Params& Simulation::params() const { return state_->params; }
const ObstacleMask& Simulation::mask() const { return state_->mask; }
double Simulation::stepping_seconds() const { return state_->stepping_s; }
double Simulation::measuring_seconds() const { return state_->measuring_s; }
double Simulation::search_seconds() const { return state_->search_s; }
const std::vector<double>& Simulation::average_velocities() const { return state_->av_vels; }
std::vector<double> Simulation::distributions() { return state_->solver->distributions(); }
const MeasurementLog& Simulation::measurements() const { return state_->measurements.log(); }
const std::vector<std::string>& Simulation::input_files() const { return state_->input_files; }
const std::string& Simulation::problem_name() const { return state_->problem_name; }

const std::string& Simulation::launch_reason() const {
  return state_->search ? state_->search->reason() : state_->start_reason;
}

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

MeasurementRecorder Simulation::State::measurement_log(int from_step) const {
  std::vector<std::string> names;
  if (measure.nusselt_every > 0)
    for (const WallHeat& w : heated_walls(params, mask)) names.push_back(w.name);
  return MeasurementRecorder(measure, params, from_step, std::move(names));
}

void Simulation::State::sample_nusselt() {
  const std::vector<WallHeat> walls = heat_at_walls();
  if (ranks && !ranks->is_root()) return;  // rank 0 keeps the log
  std::vector<double> nusselt;
  for (const WallHeat& w : walls) nusselt.push_back(w.nusselt);
  measurements.add_nusselt(steps_done(), nusselt);
}

void Simulation::State::sample_probes_on(Solver& on) {
  if (measure.probes.empty()) return;
  on.sample_cells_every(probe_cells(measure, params), measure.probe_every);
}

void Simulation::step(int steps) {
  State& s = *state_;
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

void Simulation::State::advance(int steps) {
  if (!search_made) {
    search_made = true;
    search = policy->in_run_search(*solver, std::max(0, params.max_iters - steps_done()));
  }
  const int end = steps_done() + steps;
  const int every = measure.probes.empty() ? 0 : measure.probe_every;
  const int nusselt_every = measurements.log().nusselt() ? measurements.log().nusselt_every() : 0;
  const auto next_multiple = [&](int of) { return of > 0 ? std::min(end, (steps_done() / of + 1) * of) : end; };
  while (steps_done() < end) {
    // Up to the next report to the launch search, to the next Nusselt
    // row, and to the next probe unless the solver samples them itself,
    // on the device, as it runs.
    const bool sampled = solver->samples_cells();
    int next = std::min(sampled ? end : next_multiple(every), next_multiple(nusselt_every));
    const int wanted = search ? search->steps_wanted() : 0;
    if (wanted > 0) next = std::min(next, steps_done() + wanted);
    const int n = next - steps_done();
    const double t0 = clock();
    solver->run(n, av_vels);
    const double t = clock() - t0;
    stepping_s += t;
    const double m0 = clock();
    measurements.add_forces(solver->take_body_forces());  // a candidate's too: its steps are the run's
    if (sampled) {
      const Solver::CellSamples samples = solver->take_cell_samples();  // collective across ranks
      const std::size_t per_sample = solver->values_per_cell() * measure.probes.size();
      for (std::size_t r = 0; r < samples.steps.size() && !samples.values.empty(); ++r)
        measurements.add_probe_cells(samples.steps[r], samples.values.data() + r * per_sample);
    } else if (every > 0 && steps_done() % every == 0) {
      // Collective across ranks (every rank reads); the values on rank 0 alone.
      const std::vector<double> f = solver->cell_distributions(probe_cells(measure, params));
      if (!f.empty()) measurements.add_probe_cells(steps_done(), f.data());
    }
    if (nusselt_every > 0 && steps_done() % nusselt_every == 0) sample_nusselt();
    measuring_s += clock() - m0;
    if (wanted > 0) follow(search->report(n, t));
  }
}

void Simulation::State::follow(InRunLaunchSearch::Move move) {
  if (move.trial == InRunLaunchSearch::Move::Trial::Running && !move.next && !move.cache) return;
  const double t0 = clock();
  for (;;) {
    if (move.trial == InRunLaunchSearch::Move::Trial::Keep) {
      best.reset();
    } else if (move.trial == InRunLaunchSearch::Move::Trial::Drop) {
      best->load_distributions(solver->distributions());
      solver = std::move(best);
    }
    if (move.cache) store_tuned_launch(search->key(), move.cache->launch, move.cache->seconds_per_step);
    if (!move.next) break;
    // The candidate takes the state; the best so far waits without it.
    try {
      std::unique_ptr<Solver> next = make(*move.next);
      next->load_distributions(solver->distributions());
      sample_probes_on(*next);
      best = std::exchange(solver, std::move(next));
      break;
    } catch (const DeviceError& e) {
      move = search->build_failed(e.what());
    }
  }
  search_s += clock() - t0;
}

StateRows Simulation::State::own_rows() {
  if (auto* rows = dynamic_cast<HoldsRows*>(solver.get())) return rows->own_rows();
  return {0, params.ny, solver->distributions()};
}

SteadyCheck Simulation::steady_check(const SteadyRule& rule) const {
  const MeasurementLog& log = state_->measurements.log();
  return check_steady(rule, state_->av_vels, log.force_series(), log.forces_from(), log.bodies());
}

Checkpoint Simulation::checkpoint() {
  State& s = *state_;
  s.refuse_if_unstable();
  Checkpoint c;
  c.params = s.params;
  c.mask_hash = obstacle_mask_hash(s.mask);
  c.precision = s.solver->precision();
  c.av_vels = s.av_vels;
  c.series = s.measurements.saved_series();
  c.f = s.solver->distributions();
  c.thermal_codes = thermal_codes(c.precision, s.params);
  return c;
}

void Simulation::check_checkpoint_target(const std::string& path, bool overwrite) const {
  const State& s = *state_;
  s.refuse_if_unstable();
  const Precision precision = s.solver->precision();
  d2q9::check_checkpoint_target(
      path, s.input_files, overwrite,
      [&](const std::string& p) { return holds_checkpoint_of(p, s.params, s.mask, precision); }, "", "set overwrite");
}

RunRecord problem_file_record(const std::string& problem_file, const Params& params) {
  RunRecord r;
  r.param_file = r.obstacle_file = problem_file;
  r.param_hash = file_hash(problem_file);
  r.obstacle_hash = extensions_fingerprint(params.extensions);
  return r;
}

void Simulation::save_checkpoint(const std::string& path, const RunRecord& run, bool overwrite) {
  check_checkpoint_target(path, overwrite);
  Checkpoint c = checkpoint();
  c.run = run;
  // Never replace a good checkpoint with a broken state.
  check_distributions(state_->params, state_->mask, c.f, c.av_vels.empty() ? 0 : c.av_vels.size() - 1);
  write_checkpoint(path, c);
}

FlowFields Simulation::fields() {
  return flow_fields(state_->params, state_->mask, state_->solver->distributions());
}

std::vector<WallHeat> Simulation::heat_at_walls() { return state_->heat_at_walls(); }

std::vector<WallHeat> Simulation::State::heat_at_walls() {
  if (!params.extensions.heat) return {};
  if (ranks && ranks->size() > 1) return wall_heat(*ranks, params, mask, own_rows());
  if (!heat_cells) heat_cells = std::make_unique<WallHeatCells>(params, mask);
  return heat_cells->heat(solver->cell_distributions(heat_cells->cells()));
}

FieldImage Simulation::picture(const FieldImageRequest& request) {
  State& s = *state_;
  if (request.field == ImageField::Temperature && !s.params.extensions.heat)
    throw InputError(s.problem_name + ": a picture of the temperature needs a problem with [heat]");
  if (std::optional<FieldImage> made = s.solver->render(request)) return std::move(*made);
  return field_image(fields(), s.mask, request);
}

void Simulation::write_outputs(const std::string& dir) {
  State& s = *state_;
  s.refuse_if_unstable();
  const MeasurementLog& log = s.measurements.log();
  make_output_dir(dir);
  std::vector<std::string> paths = {dir + "/" + kAvVelsFile, dir + "/" + kFinalStateFile};
  if (log.forces()) paths.push_back(dir + "/" + kForcesFile);
  if (log.probes()) paths.push_back(dir + "/" + kProbesFile);
  if (log.nusselt()) paths.push_back(dir + "/" + kNusseltFile);
  check_output_targets(paths, s.input_files);
  const std::vector<double> f = s.solver->distributions();
  check_distributions(s.params, s.mask, f, s.av_vels.empty() ? 0 : s.av_vels.size() - 1);
  OutputSet outputs;
  write_av_vels(outputs.add(paths[0]), s.av_vels);
  write_final_state(outputs.add(paths[1]), s.params, s.mask, f);
  std::size_t next = 2;
  std::FILE* forces = log.forces() ? outputs.add(paths[next++]) : nullptr;
  std::FILE* probes = log.probes() ? outputs.add(paths[next++]) : nullptr;
  std::FILE* nusselt = log.nusselt() ? outputs.add(paths[next++]) : nullptr;
  log.write(forces, probes, nusselt);
  outputs.commit();
  tidy_output_dir(dir, paths, s.input_files);
}

}  // namespace d2q9
