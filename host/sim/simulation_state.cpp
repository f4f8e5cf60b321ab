#include "sim/simulation_state.hpp"

#include <algorithm>
#include <utility>

namespace d2q9 {

SimulationState::SimulationState(Problem problem_in, Backend backend, const SolverConfig& config, bool search_now,
                                 Ranks* ranks)
    : problem(std::move(problem_in)),
      ranks(ranks),
      clock(steady_seconds),
      trials(std::make_unique<LaunchPolicy>(backend, problem.params, problem.mask, config, search_now, ranks), clock),
      measurements(problem, ranks) {
  LaunchChoice choice = trials.start();
  solver = std::move(choice.solver);
  search_now_table = std::move(choice.table);
  av_vels.reserve(static_cast<std::size_t>(problem.params.max_iters));
  measurements.sample_probes_on(*solver);
}

SimulationState::SimulationState(Problem problem_in, std::unique_ptr<Solver> started,
                                 std::unique_ptr<InRunLaunchSearch> search, SolverFactory make, RunClock on)
    : problem(std::move(problem_in)),
      ranks(nullptr),
      clock(on ? std::move(on) : RunClock(steady_seconds)),
      trials(std::move(search), std::move(make), clock),
      measurements(problem, nullptr),
      solver(std::move(started)) {
  av_vels.reserve(static_cast<std::size_t>(problem.params.max_iters));
  measurements.sample_probes_on(*solver);
}

void SimulationState::advance(int steps) {
  trials.begin(*solver, std::max(0, problem.params.max_iters - steps_done()));
  const int end = steps_done() + steps;
  while (steps_done() < end) {
    int next = measurements.next_stop(*solver, steps_done(), end);
    const int wanted = trials.steps_wanted();
    if (wanted > 0) next = std::min(next, steps_done() + wanted);
    const int n = next - steps_done();
    const double t0 = clock();
    solver->run(n, av_vels);
    const double t = clock() - t0;
    stepping_s += t;
    const double m0 = clock();
    measurements.take(*solver, steps_done());
    measuring_s += clock() - m0;
    if (wanted > 0)
      trials.report(n, t, solver, [this](Solver& candidate) { measurements.sample_probes_on(candidate); });
  }
}

}  // namespace d2q9
