// What the library's own programs and tests reach in a Simulation besides
// its public face (sim/simulation.hpp), because it names the device layer:
// a simulation across MPI ranks, one on a solver made elsewhere, the launch
// search's table, a rank's own rows. No public header includes this one, so
// it is never staged nor installed (tests/tools/check_staged_headers.py).
#pragma once

#include <memory>
#include <vector>

#include "core/ranks.hpp"
#include "core/stopwatch.hpp"
#include "device/solver.hpp"
#include "device/tuning.hpp"
#include "io/state_rows.hpp"
#include "sim/launch_policy.hpp"
#include "sim/simulation.hpp"

namespace d2q9 {

struct SimulationInternals {
  // d2q9-bgk's simulation: `options` on `ranks`' MPI ranks sharing the grid
  // (null: one process), each stepping its slab of `slab_rows` rows, bottom
  // to top (empty: an even split); every rank builds and steps it alike.
  static std::unique_ptr<Simulation> on_ranks(Problem problem, const SimulationOptions& options, Ranks* ranks,
                                               std::vector<int> slab_rows = {});

  // A simulation on `started`, whose launch `search` (may be null) builds
  // candidates with `make` and times steps on `clock` (steady_seconds when
  // empty). Tests: solvers that need no device, on a clock their steps move
  // on, so that nothing sleeps.
  static std::unique_ptr<Simulation> on_solver(Problem problem, std::unique_ptr<Solver> started,
                                                std::unique_ptr<InRunLaunchSearch> search = nullptr,
                                                SolverFactory make = {}, RunClock clock = {});

  // The launches a search before the first step timed, the default first (empty without one).
  static const std::vector<TuningResult>& search_now_table(const Simulation& sim);
  // This rank's rows of the state (the whole grid on one process).
  static StateRows own_rows(Simulation& sim);
};

}  // namespace d2q9
