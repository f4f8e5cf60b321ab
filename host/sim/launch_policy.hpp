// How a run's steps are launched, decided in one place. A Simulation asks
// the policy once for the solver to start with (the shape given, the launch
// cached, a search now with --tune, or the plan's default). A run that
// started on the default may then search on its own steps: the policy gives
// it an InRunLaunchSearch, which the Simulation's step loop reports its
// timed steps to and follows (every launch gives the same distributions, so
// the state moves from one launch to the next).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ranks.hpp"
#include "sim/backend.hpp"
#include "device/tuning.hpp"

namespace d2q9 {

// The launch search during a run, as decisions on measured costs alone: the
// run runs the steps it asks for on the launch it names, times them and
// reports them. No clock and no device here, so its tests neither wait nor
// depend on a machine's speed.
//
// The default's first chunk warms up (first launches, clocks), its second is
// timed: the speed the run would go on at. Where the candidates' set-up (a
// build, the state moved there and back) costs under kSearchBudget of the
// run's expected time and their steps fit in the run, each candidate runs a
// chunk to warm up, then about 20 ms of steps, timed; the fastest (by more
// than kTuneMargin) goes on, and is cached.
class InRunLaunchSearch {
 public:
  // `setup`: the default solver's; `run_steps`: the steps this run is to take from its first.
  InRunLaunchSearch(const LaunchSearch& search, std::vector<LaunchCandidate> candidates, int chunk_steps,
                    const SetupTimes& setup, int run_steps);

  // What the run does after a report.
  struct Move {
    // The launch on trial was timed: the run goes on with it (Keep), or
    // moves the state back to the best launch so far and drops it (Drop).
    enum class Trial { Running, Keep, Drop } trial = Trial::Running;
    std::optional<LaunchCandidate> next;  // build it, move the state onto it, run the next steps there
    std::optional<TuningResult> cache;    // the search is over: the fastest, to cache
  };

  // The steps to run on the current launch before the next report; 0 once the search is over.
  int steps_wanted() const;
  // `steps` (at most steps_wanted()) ran on the current launch in `seconds`.
  Move report(int steps, double seconds);
  // The launch the last move named could not be built (`why`); the run stays on its launch.
  Move build_failed(const std::string& why);

  const std::string& key() const { return search_.key; }
  // Why the run launches as it does now.
  const std::string& reason() const { return reason_; }
  // The launches timed, the default first (empty unless the candidates were tried).
  const std::vector<TuningResult>& table() const { return table_; }

 private:
  enum class Phase { WarmDefault, TimeDefault, WarmTrial, TimeTrial, Over };
  Move try_next();

  LaunchSearch search_;
  std::vector<LaunchCandidate> candidates_;
  int chunk_;
  SetupTimes setup_;
  int run_steps_;
  Phase phase_ = Phase::WarmDefault;
  int phase_steps_ = 0;  // reported in this phase so far
  double phase_s_ = 0;
  int reported_ = 0;     // every step reported
  int steps_each_ = 0;   // a candidate's timed steps
  std::size_t next_ = 0; // the candidate on trial or to try
  TuningResult best_;
  std::string reason_;
  std::vector<TuningResult> table_;
};

class LaunchPolicy {
 public:
  LaunchPolicy(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
               bool force_search, Ranks* ranks = nullptr);

  // The solver the run starts with, and why it launches so.
  LaunchChoice start();

  // The search a run that started on the default may make on its `run_steps`
  // steps from `started` (start()'s solver); null where there is nothing to
  // decide (a launch given, cached or searched now, or the grid split).
  std::unique_ptr<InRunLaunchSearch> in_run_search(const Solver& started, int run_steps) const;
  // Builds a solver of the problem launched as a candidate.
  const SolverFactory& candidate_factory() const { return make_; }

 private:
  Backend backend_;
  Params params_;
  const ObstacleMask& mask_;
  SolverConfig config_;
  bool force_search_;
  Ranks* ranks_;
  LaunchSearch search_;
  SolverFactory make_;       // a solver of the problem launched otherwise
  bool may_search_ = false;  // started from the default, with nothing given or cached
};

// One process's solver launched as the user asked (LaunchPolicy::start).
LaunchChoice make_tuned_solver(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
                               bool force_search, Ranks* ranks = nullptr);

}  // namespace d2q9
