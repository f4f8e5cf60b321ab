#include "sim/simulation.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <utility>

#include "device/kernel_source.hpp"
#include "io/output.hpp"
#include "io/output_guard.hpp"
#include "problem/limits.hpp"

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

SolverConfig solver_config(const SimulationOptions& options) {
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
  config.slab_rows = options.slab_rows;
  return config;
}

}  // namespace

void check_problem_runs(const Params& params, const std::string& problem_name, const SimulationOptions& options,
                        bool checkpointing) {
  const std::string name = problem_name.empty() ? "problem" : problem_name;
  check_params_fit_precision(params, options.precision, name);
  check_host_memory(params, options.backend == Backend::Reference, options.precision, checkpointing);
}

Simulation::Simulation(Problem problem, const SimulationOptions& options)
    : problem_name_(problem.name),
      input_files_(problem.read_files),
      params_(checked_params(problem, options)),
      mask_(std::move(problem.mask)),
      measure_(problem.measure),
      ranks_(options.ranks),
      policy_(std::make_unique<LaunchPolicy>(options.backend, params_, mask_, solver_config(options),
                                             options.search_now, options.ranks)),
      clock_(wall_seconds),
      measurements_(measurement_log(0)) {
  LaunchChoice choice = policy_->start();
  solver_ = std::move(choice.solver);
  start_reason_ = std::move(choice.reason);
  search_now_table_ = std::move(choice.table);
  make_ = policy_->candidate_factory();
  av_vels_.reserve(static_cast<std::size_t>(params_.max_iters));
  sample_probes_on(*solver_);
}

Simulation::Simulation(Problem problem, std::unique_ptr<Solver> started, std::unique_ptr<InRunLaunchSearch> search,
                       SolverFactory make, Clock clock)
    : problem_name_(problem.name),
      input_files_(problem.read_files),
      params_(problem.params),
      mask_(std::move(problem.mask)),
      measure_(problem.measure),
      solver_(std::move(started)),
      search_made_(true),
      search_(std::move(search)),
      make_(std::move(make)),
      clock_(clock ? std::move(clock) : Clock(wall_seconds)),
      measurements_(measurement_log(0)) {
  av_vels_.reserve(static_cast<std::size_t>(params_.max_iters));
  if (search_) start_reason_ = search_->reason();
  sample_probes_on(*solver_);
}

Simulation::~Simulation() = default;

void Simulation::resume(Checkpoint checkpoint, const std::string& path) {
  // check_checkpoint_matches says more; this keeps a solver from reading past a lattice it lacks.
  const std::size_t planes = static_cast<std::size_t>(params_.extensions.planes());
  if (checkpoint.f.size() != planes * params_.cells())
    throw InputError(path + ": checkpoint does not match the inputs: it holds " + std::to_string(checkpoint.f.size()) +
                     " values, but " + (problem_name_.empty() ? "the problem" : problem_name_) + " needs " +
                     std::to_string(planes) + " per cell of its " + std::to_string(params_.nx) + "x" +
                     std::to_string(params_.ny) + " grid");
  solver_->load_distributions(checkpoint.f);
  av_vels_ = std::move(checkpoint.av_vels);
  av_vels_.reserve(static_cast<std::size_t>(params_.max_iters));
  first_step_ = steps_done();
  measurements_ = measurement_log(first_step_);
  measurements_.restore(checkpoint.series, path);
}

const std::string& Simulation::launch_reason() const { return search_ ? search_->reason() : start_reason_; }

RunInfo Simulation::run_info() const {
  RunInfo r;
  r.backend = solver_->backend_name();
  r.device = solver_->device_name();
  r.precision = solver_->precision();
  r.local_size = solver_->local_size();
  if (const auto plan = solver_->launch_plan()) {
    r.kernel_variant = to_string(plan->variant);
    if (plan->variant == KernelVariant::Blocked) {
      r.block_steps = plan->block_steps;
      r.tile = plan->tile;
    }
  }
  r.decomposition = solver_->decomposition();
  r.halos = solver_->halo_times();
  r.setup = solver_->setup_times();
  return r;
}

MeasurementLog Simulation::measurement_log(int first_step) const {
  MeasurementLog log(measure_, params_, first_step);
  if (measure_.nusselt_every > 0) {
    std::vector<std::string> names;
    for (const WallHeat& w : heated_walls(params_, mask_)) names.push_back(w.name);
    log.set_nusselt_walls(names);
  }
  return log;
}

// nusselt.csv's row after this step: collective across ranks (heat_at_walls).
void Simulation::sample_nusselt() {
  const std::vector<WallHeat> walls = heat_at_walls();
  if (ranks_ && !ranks_->is_root()) return;  // rank 0 keeps the log
  std::vector<double> nusselt;
  for (const WallHeat& w : walls) nusselt.push_back(w.nusselt);
  measurements_.add_nusselt(steps_done(), nusselt);
}

void Simulation::sample_probes_on(Solver& solver) {
  if (measure_.probes.empty()) return;
  solver.sample_cells_every(probe_cells(measure_, params_), measure_.probe_every);
}

void Simulation::refuse_if_unstable() const {
  if (unstable_) throw *unstable_;
}

void Simulation::step(int steps) {
  refuse_if_unstable();
  if (steps < 0) throw InputError("step(" + std::to_string(steps) + "): the number of steps is negative");
  if (steps > INT_MAX - steps_done())
    throw InputError("step(" + std::to_string(steps) + "): " + std::to_string(steps_done()) +
                     " steps are done, and a simulation holds at most " + std::to_string(INT_MAX) + " steps");
  try {
    advance(steps);
  } catch (const InstabilityError& e) {
    unstable_ = std::make_unique<InstabilityError>(e);
    throw;
  }
}

void Simulation::advance(int steps) {
  if (!search_made_) {
    search_made_ = true;
    search_ = policy_->in_run_search(*solver_, std::max(0, params_.max_iters - steps_done()));
  }
  const int end = steps_done() + steps;
  const int every = measure_.probes.empty() ? 0 : measure_.probe_every;
  const int nusselt_every = measurements_.nusselt() ? measurements_.nusselt_every() : 0;
  const auto next_multiple = [&](int of) { return of > 0 ? std::min(end, (steps_done() / of + 1) * of) : end; };
  while (steps_done() < end) {
    // Up to the next report to the launch search, to the next Nusselt
    // row, and to the next probe unless the solver samples them itself,
    // on the device, as it runs.
    const bool sampled = solver_->samples_cells();
    int next = std::min(sampled ? end : next_multiple(every), next_multiple(nusselt_every));
    const int wanted = search_ ? search_->steps_wanted() : 0;
    if (wanted > 0) next = std::min(next, steps_done() + wanted);
    const int n = next - steps_done();
    const double t0 = clock_();
    solver_->run(n, av_vels_);
    const double t = clock_() - t0;
    stepping_s_ += t;
    const double m0 = clock_();
    measurements_.add_forces(solver_->take_body_forces());  // a candidate's too: its steps are the run's
    if (sampled) {
      const Solver::CellSamples samples = solver_->take_cell_samples();  // collective across ranks
      const std::size_t per_sample = solver_->values_per_cell() * measure_.probes.size();
      for (std::size_t r = 0; r < samples.steps.size() && !samples.values.empty(); ++r)
        measurements_.add_probe_cells(samples.steps[r], samples.values.data() + r * per_sample);
    } else if (every > 0 && steps_done() % every == 0) {
      measurements_.add_probes(steps_done(), *solver_);
    }
    if (nusselt_every > 0 && steps_done() % nusselt_every == 0) sample_nusselt();
    measuring_s_ += clock_() - m0;
    if (wanted > 0) follow(search_->report(n, t));
  }
}

void Simulation::follow(InRunLaunchSearch::Move move) {
  if (move.trial == InRunLaunchSearch::Move::Trial::Running && !move.next && !move.cache) return;
  const double t0 = clock_();
  for (;;) {
    if (move.trial == InRunLaunchSearch::Move::Trial::Keep) {
      best_.reset();
    } else if (move.trial == InRunLaunchSearch::Move::Trial::Drop) {
      best_->load_distributions(solver_->distributions());
      solver_ = std::move(best_);
    }
    if (move.cache) store_tuned_launch(search_->key(), move.cache->launch, move.cache->seconds_per_step);
    if (!move.next) break;
    // The candidate takes the state; the best so far waits without it.
    try {
      std::unique_ptr<Solver> next = make_(*move.next);
      next->load_distributions(solver_->distributions());
      sample_probes_on(*next);
      best_ = std::exchange(solver_, std::move(next));
      break;
    } catch (const DeviceError& e) {
      move = search_->build_failed(e.what());
    }
  }
  search_s_ += clock_() - t0;
}

StateRows Simulation::own_rows() {
  if (auto* rows = dynamic_cast<HoldsRows*>(solver_.get())) return rows->own_rows();
  return {0, params_.ny, solver_->distributions()};
}

SteadyCheck Simulation::steady_check(const SteadyRule& rule) const {
  return check_steady(rule, av_vels_, measurements_.force_series(), measurements_.forces_from(),
                      measurements_.bodies());
}

Checkpoint Simulation::checkpoint() {
  refuse_if_unstable();
  Checkpoint c;
  c.params = params_;
  c.mask_hash = obstacle_mask_hash(mask_);
  c.precision = solver_->precision();
  c.av_vels = av_vels_;
  c.series = measurements_.saved_series();
  c.f = solver_->distributions();
  c.thermal_codes = thermal_codes(c.precision, params_);
  return c;
}

void Simulation::check_checkpoint_target(const std::string& path, bool overwrite) const {
  refuse_if_unstable();
  const Precision precision = solver_->precision();
  d2q9::check_checkpoint_target(path, input_files_, overwrite,
                                [&](const std::string& p) { return holds_checkpoint_of(p, params_, mask_, precision); },
                                "", "set overwrite");
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
  check_distributions(params_, mask_, c.f, c.av_vels.empty() ? 0 : c.av_vels.size() - 1);
  write_checkpoint(path, c);
}

FlowFields Simulation::fields() { return flow_fields(params_, mask_, solver_->distributions()); }

std::vector<WallHeat> Simulation::heat_at_walls() {
  if (!params_.extensions.heat) return {};
  if (ranks_ && ranks_->size() > 1) return wall_heat(*ranks_, params_, mask_, own_rows());
  if (!heat_cells_) heat_cells_ = std::make_unique<WallHeatCells>(params_, mask_);
  return heat_cells_->heat(solver_->cell_distributions(heat_cells_->cells()));
}

FieldImage Simulation::picture(const FieldImageRequest& request) {
  if (request.field == ImageField::Temperature && !params_.extensions.heat)
    throw InputError(problem_name_ + ": a picture of the temperature needs a problem with [heat]");
  if (std::optional<FieldImage> made = solver_->render(request)) return std::move(*made);
  return field_image(fields(), mask_, request);
}

void Simulation::write_outputs(const std::string& dir) {
  refuse_if_unstable();
  make_output_dir(dir);
  std::vector<std::string> paths = {dir + "/" + kAvVelsFile, dir + "/" + kFinalStateFile};
  if (measurements_.forces()) paths.push_back(dir + "/" + kForcesFile);
  if (measurements_.probes()) paths.push_back(dir + "/" + kProbesFile);
  if (measurements_.nusselt()) paths.push_back(dir + "/" + kNusseltFile);
  check_output_targets(paths, input_files_);
  const std::vector<double> f = solver_->distributions();
  check_distributions(params_, mask_, f, av_vels_.empty() ? 0 : av_vels_.size() - 1);
  OutputSet outputs;
  write_av_vels(outputs.add(paths[0]), av_vels_);
  write_final_state(outputs.add(paths[1]), params_, mask_, f);
  std::size_t next = 2;
  std::FILE* forces = measurements_.forces() ? outputs.add(paths[next++]) : nullptr;
  std::FILE* probes = measurements_.probes() ? outputs.add(paths[next++]) : nullptr;
  std::FILE* nusselt = measurements_.nusselt() ? outputs.add(paths[next++]) : nullptr;
  measurements_.write(forces, probes, nusselt);
  outputs.commit();
  tidy_output_dir(dir, paths, input_files_);
}

}  // namespace d2q9
