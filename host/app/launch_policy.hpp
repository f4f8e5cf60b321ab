// How a run's steps are launched, decided in one place. run() asks the
// policy once for the solver to start with (the shape given, the launch
// cached, a search now with --tune, or the plan's default) and lets it take
// the run's first steps: where the default started and the run is long
// enough that searching costs under kSearchBudget of it, the policy times
// other launches on the run's own steps (every launch gives the same
// distributions, so the state moves from one to the next) and the run goes
// on with the fastest, which is cached.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/ranks.hpp"
#include "app/backend.hpp"
#include "device/tuning.hpp"

namespace d2q9 {

class LaunchPolicy {
 public:
  LaunchPolicy(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
               bool force_search, Ranks* ranks = nullptr);
  // Seconds on a clock that only moves forward: what the search's decisions
  // take as the measured cost of steps (the wall clock unless given).
  using Clock = std::function<double()>;
  // A policy whose run started on `search`'s default and builds candidates
  // with `make`, timing them on `clock` (tests: solvers that need no device,
  // on a clock the solvers advance, so that nothing sleeps).
  static LaunchPolicy searching(const Params& params, const ObstacleMask& mask, const LaunchSearch& search,
                                SolverFactory make, Clock clock = {});

  // The solver the run starts with, and why it launches so.
  LaunchChoice start();

  // Runs the first of the run's steps on `solver` (at most `max_steps`,
  // appending their average velocities and adding their step time to
  // `loop_s`): the default's first chunks, timed, and where a search pays,
  // some steps on each other launch; `solver` is then the one to go on
  // with. Returns the steps run (0 when the policy has nothing to decide).
  // `after_steps` (if set) is told the steps done so far after each part.
  int run_first_steps(std::unique_ptr<Solver>& solver, std::vector<double>& av_vels, int max_steps, double& loop_s,
                      const std::function<void(int)>& after_steps = {});

  // Why the run launches as it does (changed by a search during the run).
  const std::string& reason() const { return reason_; }
  // Seconds spent searching besides the steps: building candidates, moving the state.
  double search_s() const { return search_s_; }
  // The body forces of the steps run_first_steps ran (Solver::take_body_forces).
  std::vector<double> take_body_forces() { return std::exchange(body_forces_, {}); }
  // The launches timed during the run, the default first (empty without a search).
  const std::vector<TuningResult>& table() const { return table_; }

 private:
  Backend backend_;
  Params params_;
  const ObstacleMask& mask_;
  SolverConfig config_;
  Clock clock_;
  bool force_search_;
  Ranks* ranks_;
  LaunchSearch search_;
  SolverFactory make_;       // a solver of the problem launched otherwise
  bool may_search_ = false;  // started from the default, with nothing given or cached
  std::string reason_;
  double search_s_ = 0;
  std::vector<double> body_forces_;
  std::vector<TuningResult> table_;
};

// One process's solver launched as the user asked (LaunchPolicy::start).
LaunchChoice make_tuned_solver(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
                               bool force_search, Ranks* ranks = nullptr);

}  // namespace d2q9
