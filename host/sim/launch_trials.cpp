#include "sim/launch_trials.hpp"

#include <utility>

namespace d2q9 {

LaunchTrials::LaunchTrials(std::unique_ptr<LaunchPolicy> policy, RunClock clock)
    : policy_(std::move(policy)), begun_(false), clock_(std::move(clock)) {}

LaunchTrials::LaunchTrials(std::unique_ptr<InRunLaunchSearch> search, SolverFactory make, RunClock clock)
    : begun_(true), search_(std::move(search)), make_(std::move(make)), clock_(std::move(clock)) {
  if (search_) start_reason_ = search_->reason();
}

LaunchChoice LaunchTrials::start() {
  LaunchChoice choice = policy_->start();
  start_reason_ = std::move(choice.reason);
  make_ = policy_->candidate_factory();  // made by start
  return choice;
}

void LaunchTrials::begin(const Solver& started, int run_steps) {
  if (begun_) return;
  begun_ = true;
  search_ = policy_->in_run_search(started, run_steps);
}

int LaunchTrials::steps_wanted() const { return search_ ? search_->steps_wanted() : 0; }

void LaunchTrials::report(int steps, double seconds, std::unique_ptr<Solver>& solver, const Ready& ready) {
  follow(search_->report(steps, seconds), solver, ready);
}

void LaunchTrials::follow(InRunLaunchSearch::Move move, std::unique_ptr<Solver>& solver, const Ready& ready) {
  if (move.trial == InRunLaunchSearch::Move::Trial::Running && !move.next && !move.cache) return;
  const double t0 = clock_();
  for (;;) {
    if (move.trial == InRunLaunchSearch::Move::Trial::Keep) {
      best_.reset();
    } else if (move.trial == InRunLaunchSearch::Move::Trial::Drop) {
      best_->load_distributions(solver->distributions());
      solver = std::move(best_);
    }
    if (move.cache) store_tuned_launch(search_->key(), move.cache->launch, move.cache->seconds_per_step);
    if (!move.next) break;
    // The candidate takes the state; the best so far waits without it.
    try {
      std::unique_ptr<Solver> next = make_(*move.next);
      next->load_distributions(solver->distributions());
      ready(*next);
      best_ = std::exchange(solver, std::move(next));
      break;
    } catch (const DeviceError& e) {
      move = search_->build_failed(e.what());
    }
  }
  seconds_ += clock_() - t0;
}

}  // namespace d2q9
