// Work-group size auto-tuning: time a few candidate shapes once per device,
// problem size and kernel variant, and remember the fastest in a cache file.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "device/solver.hpp"

namespace d2q9 {

// Builds a solver for the problem launched as `launch`; throws DeviceError
// for launches the device rejects.
using SolverFactory = std::function<std::unique_ptr<Solver>(const LaunchCandidate& launch)>;

struct TuningResult {
  LaunchCandidate launch;
  double seconds_per_step;  // < 0 when it could not run
  std::string note;         // why it could not run
};

// Identifies what a tuned launch is valid for: backend, device, grid,
// precision, and what was asked of the launch besides its shape: the
// variant (auto: any) and, where given, rows per work-item, steps per launch
// and tile.
std::string tuning_key(Backend backend, const std::string& device, const Params& params, Precision precision,
                       const LaunchRequest& request);

// The cache file: $D2Q9_CACHE_DIR, else $XDG_CACHE_HOME/d2q9-bgk, else ~/.cache/d2q9-bgk, + /tuning.json.
std::string tuning_cache_path();
std::optional<LaunchCandidate> load_tuned_launch(const std::string& key);
// Best effort: a cache that cannot be written only costs a new search later.
void store_tuned_launch(const std::string& key, const LaunchCandidate& launch, double seconds_per_step);

// Candidate shapes for a grid: one-row groups of 32..1024 and a few 2D tiles,
// none much wider than the grid.
std::vector<LocalSize> local_size_candidates(const Params& params);

// Seconds per step of a freshly built solver, whose state is then thrown away.
using StepTimer = std::function<double(Solver&)>;
// A few warm-up steps, then about 30 ms of steps (a few milliseconds in all on a GPU).
double time_steps(Solver& solver);

// Builds and times every candidate, in the given order.
std::vector<TuningResult> time_launches(const SolverFactory& make, const std::vector<LaunchCandidate>& candidates,
                                        const StepTimer& timer = time_steps);

// A search during a run (LaunchPolicy) starts only where its expected cost
// is below this fraction of the run's expected time.
constexpr double kSearchBudget = 0.05;

// A searched launch replaces the default only when it is faster by more than
// this fraction, so that timing noise never caches a slower choice.
constexpr double kTuneMargin = 0.03;

struct LaunchChoice {
  std::unique_ptr<Solver> solver;   // built with the chosen launch
  std::vector<TuningResult> table;  // filled when a search ran, the default first
  LaunchSource how = LaunchSource::Default;
  std::string reason;               // for the summary: why this launch
};

// What a search may try: the variants the device runs (`variants`; one when
// the user named it) and the shapes; the default plan's launch is timed first.
struct LaunchSearch {
  LaunchCandidate default_launch;
  std::string default_reason;  // why the plan chose it
  std::vector<KernelVariant> variants;
  std::string key;
  StepTimer timer = time_steps;
};

// The launch for a run that leaves the shape to us and has none cached
// (decide_launch takes a cached one): a new search when `force_search`, else
// the default (which a LaunchPolicy may search from during the run). A search times the default, the shapes of the
// default's variant (of fused where the default takes no shape), then the
// other variants at the fastest shape; the fastest and the default are then
// timed twice more, alternately, and the fastest is cached unless the
// default's best time is within kTuneMargin of its best time. Builds only the solver it returns (and,
// when searching, one per candidate).
LaunchChoice choose_launch(const SolverFactory& make, const Params& params, bool force_search,
                           const LaunchSearch& search);

// The launches a search during the run tries after the default: the other
// shapes of the default's variant (of fused where it takes none), then the
// other variants at the default's shape.
std::vector<LaunchCandidate> run_search_candidates(const Params& params, const LaunchSearch& search);

}  // namespace d2q9
