#include "app/simulation.hpp"

#include <algorithm>

#include "app/outputs.hpp"
#include "device/kernel_source.hpp"
#include "io/output.hpp"

namespace d2q9 {

Problem load_problem(const std::string& problem_or_params_file, const std::string& obstacle_file,
                     const std::function<void(const Params&)>& check_fits) {
  const auto check = [&](const Params& p) {
    if (check_fits) check_fits(p);
  };
  if (is_problem_file(problem_or_params_file)) return read_problem_file(problem_or_params_file, check);
  Problem problem;
  problem.params = read_params(problem_or_params_file);
  check(problem.params);
  problem.mask = read_obstacles(obstacle_file, problem.params);
  return problem;
}

namespace {

std::unique_ptr<Solver> build_solver(const Problem& problem, const SimulationOptions& options) {
  SolverConfig config;
  config.device = {options.device, options.precision,
                   options.backend == Backend::Reference ? "" : find_kernels_dir(options.kernels_dir)};
  config.launch = options.launch;
  return make_solver(options.backend, problem.params, problem.mask, config);
}

}  // namespace

Simulation::Simulation(Problem problem, const SimulationOptions& options)
    : params_(problem.params),
      mask_(std::move(problem.mask)),
      measure_(problem.measure),
      solver_(build_solver(Problem{params_, mask_, measure_, std::nullopt}, options)),
      measurements_(measure_, params_, 0) {
  av_vels_.reserve(static_cast<std::size_t>(params_.max_iters));
}

void Simulation::step(int steps) {
  const int end = steps_done() + steps;
  const int every = measure_.probes.empty() ? 0 : measure_.probe_every;
  while (steps_done() < end) {
    // Up to the next probe, which run_loop takes at the same steps.
    const int next = every > 0 ? std::min(end, (steps_done() / every + 1) * every) : end;
    solver_->run(next - steps_done(), av_vels_);
    measurements_.add_forces(solver_->take_body_forces());
    if (every > 0 && steps_done() % every == 0) measurements_.add_probes(steps_done(), *solver_);
  }
}

FlowFields Simulation::fields() { return flow_fields(params_, mask_, solver_->distributions()); }

void Simulation::write_outputs(const std::string& dir) {
  make_output_dir(dir);
  const std::vector<double> f = solver_->distributions();
  AtomicFile av(dir + "/av_vels.dat"), state(dir + "/final_state.dat");
  write_av_vels(av.get(), av_vels_);
  write_final_state(state.get(), params_, mask_, f);
  std::unique_ptr<AtomicFile> forces, probes;
  if (measurements_.forces()) forces = std::make_unique<AtomicFile>(dir + "/forces.csv");
  if (measurements_.probes()) probes = std::make_unique<AtomicFile>(dir + "/probes.csv");
  measurements_.write(forces ? forces->get() : nullptr, probes ? probes->get() : nullptr);
  for (AtomicFile* file : {&av, &state, forces.get(), probes.get()})
    if (file) file->commit();
}

}  // namespace d2q9
