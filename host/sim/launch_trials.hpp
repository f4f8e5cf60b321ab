// The launch search during a run (InRunLaunchSearch, sim/launch_policy.hpp)
// as a Simulation's step loop follows it: the loop reports its timed steps,
// and the trials move the state onto each candidate built, then keep it or
// move the state back to the best launch so far.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/stopwatch.hpp"
#include "device/solver.hpp"
#include "device/tuning.hpp"
#include "sim/launch_policy.hpp"

namespace d2q9 {

class LaunchTrials {
 public:
  // What a candidate needs before it takes the state (its probes).
  using Ready = std::function<void(Solver&)>;

  // A run launched as `policy` decides (start), which may search on the
  // run's steps from the first.
  LaunchTrials(std::unique_ptr<LaunchPolicy> policy, RunClock clock);
  // A run on a solver made elsewhere, searching with `search` (may be null)
  // among candidates that `make` builds.
  LaunchTrials(std::unique_ptr<InRunLaunchSearch> search, SolverFactory make, RunClock clock);

  // The solver the run starts with (LaunchPolicy::start); with a policy only.
  LaunchChoice start();
  // Asked before every piece of steps; the first time, makes the search the
  // policy gives (if any) for the `run_steps` steps from `started`.
  void begin(const Solver& started, int run_steps);
  // The steps to run on the current launch before reporting them; 0 when no search is on.
  int steps_wanted() const;
  // `steps` ran on `solver` in `seconds`: may put a candidate, readied by
  // `ready`, or the best launch so far in `solver`'s place.
  void report(int steps, double seconds, std::unique_ptr<Solver>& solver, const Ready& ready);

  // Why the run launches as it does now.
  const std::string& reason() const { return search_ ? search_->reason() : start_reason_; }
  // Seconds spent besides the steps: building candidates, moving the state.
  double seconds() const { return seconds_; }

 private:
  void follow(InRunLaunchSearch::Move move, std::unique_ptr<Solver>& solver, const Ready& ready);

  std::unique_ptr<LaunchPolicy> policy_;  // null for solvers made elsewhere
  bool begun_;                            // the search is made at the first step, which knows the run's steps
  std::unique_ptr<InRunLaunchSearch> search_;
  std::unique_ptr<Solver> best_;  // while a candidate is on trial: the fastest so far, state-less
  SolverFactory make_;
  RunClock clock_;
  std::string start_reason_;
  double seconds_ = 0;
};

}  // namespace d2q9
