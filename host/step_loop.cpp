#include "step_loop.hpp"

#include <algorithm>
#include <chrono>

namespace d2q9 {

double run_steps(Solver& solver, int total_steps, std::vector<double>& av_vels, const StepLoopHooks& hooks) {
  using clock = std::chrono::steady_clock;
  const bool progress = hooks.progress && hooks.progress->active();
  const bool snapshots = hooks.snapshot_every > 0 && hooks.snapshot;
  if (!progress && !snapshots) {
    const auto tic = clock::now();
    solver.run(total_steps, av_vels);
    return std::chrono::duration<double>(clock::now() - tic).count();
  }

  double compute_s = 0.0;
  // A short first segment measures the step rate; later ones grow towards
  // segment_s of work, at most fourfold at a time, so one slow start cannot
  // make a segment far too long.
  long segment = 8;
  for (int done = 0; done < total_steps;) {
    int end = static_cast<int>(std::min<long>(total_steps, done + segment));
    if (snapshots) end = std::min(end, (done / hooks.snapshot_every + 1) * hooks.snapshot_every);
    const auto tic = clock::now();
    solver.run(end - done, av_vels);
    const double took = std::chrono::duration<double>(clock::now() - tic).count();
    compute_s += took;
    const double rate = (end - done) / std::max(took, 1e-6);
    segment = std::clamp(static_cast<long>(rate * hooks.segment_s), 1L, std::max(1L, 4 * segment));
    done = end;
    if (snapshots && done % hooks.snapshot_every == 0) hooks.snapshot(done);
    if (progress) hooks.progress->update(done);
  }
  if (progress) hooks.progress->finish();
  return compute_s;
}

}  // namespace d2q9
