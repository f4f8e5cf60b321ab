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

// Builds a solver for the problem with the given work-group shape (auto = the
// backend's own default); throws DeviceError for shapes the device rejects.
using SolverFactory = std::function<std::unique_ptr<Solver>(LocalSize)>;

struct TuningResult {
  LocalSize local;
  double seconds_per_step;  // < 0 when the shape could not run
  std::string note;         // why it could not run
};

// Identifies what a tuned shape is valid for: backend, device, grid,
// precision, variant and (where requested) rows per work-item.
std::string tuning_key(Backend backend, const std::string& device, const Params& params, Precision precision,
                       KernelVariant variant, int rows_per_item_requested = 0);

// The cache file: $D2Q9_CACHE_DIR, else $XDG_CACHE_HOME/d2q9-bgk, else ~/.cache/d2q9-bgk, + /tuning.json.
std::string tuning_cache_path();
std::optional<LocalSize> load_tuned_local_size(const std::string& key);
// Best effort: a cache that cannot be written only costs a new search later.
void store_tuned_local_size(const std::string& key, LocalSize local, double seconds_per_step);

// Candidate shapes for a grid: one-row groups of 32..1024 and a few 2D tiles,
// none much wider than the grid.
std::vector<LocalSize> local_size_candidates(const Params& params);

// Times every candidate (a few hundred milliseconds in all on a GPU) and returns
// them in the given order; the state of the solvers it builds is thrown away.
std::vector<TuningResult> tune_local_size(const SolverFactory& make, const Params& params,
                                          const std::vector<LocalSize>& candidates);

// Runs below this many cell updates use the backend's default shape untuned:
// a search would cost more than it saves.
constexpr double kTuneMinCellUpdates = 2e8;

enum class ShapeChoice { Given, Cached, Tuned, Default };

struct LocalSizeChoice {
  std::unique_ptr<Solver> solver;   // built with the chosen shape
  std::vector<TuningResult> table;  // filled when a search ran
  ShapeChoice how = ShapeChoice::Default;
};

// The work-group shape for a run: `requested` when given; otherwise the
// shape cached under `key`, or a new search when `force_search` or the run is
// large, or `default_plan`'s. Builds only the solver it returns (and, when
// searching, one per candidate).
LocalSizeChoice choose_local_size(const SolverFactory& make, const Params& params, LocalSize requested,
                                  bool force_search, const LaunchPlan& default_plan, const std::string& key);

}  // namespace d2q9
