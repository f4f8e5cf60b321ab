#include "device/chunked_solver.hpp"

#include <algorithm>
#include <deque>

#include "problem/stability.hpp"

namespace d2q9 {

std::vector<ChunkedSolver::Chunk> ChunkedSolver::chunks(int steps, int first_step) const {
  std::vector<Chunk> out;
  int half = 0;
  for (int done = 0; done < steps;) {
    const int n = std::min(plan_.chunk_steps, steps - done);
    out.push_back({half, n, done + n == steps, first_step + done});
    half = 1 - half;
    done += n;
  }
  return out;
}

std::vector<ChunkedSolver::Launch> ChunkedSolver::launches(const Chunk& chunk) const {
  std::vector<Launch> out;
  for (int t = 0; t < chunk.steps;) {
    Launch l;
    l.step = t;
    // The blocked kernel runs any number up to its maximum; the two-step
    // kernel leaves a last odd step to the one-step kernel.
    const int left = chunk.steps - t;
    l.steps = plan_.variant == KernelVariant::Blocked ? std::min(plan_.block_steps, left)
              : plan_.variant == KernelVariant::FusedX2 && left >= 2 ? 2
                                                                    : 1;
    l.two_step_kernel = plan_.variant == KernelVariant::FusedX2 && l.steps == 2;
    l.accelerate_next = plan_.fused() && !(chunk.ends_call && t + l.steps == chunk.steps);
    l.partial_offset = (chunk.half * plan_.chunk_steps + t) * plan_.num_groups();
    l.run_step = chunk.run_step + t;
    out.push_back(l);
    t += l.steps;
  }
  return out;
}

void ChunkedSolver::run(int steps, std::vector<double>& av_vels) {
  std::deque<Chunk> pending;
  auto consume = [&] {
    const Chunk& c = pending.front();
    append_average_velocities(wait_partials(c.half), precision_, c.steps, plan_.num_groups(), fluid_cells_, av_vels,
                              sums_per_group_, &body_forces_);
    pending.pop_front();
  };
  try {
    if (plan_.fused() && steps > 0) accelerate_first();
    for (const Chunk& c : chunks(steps, static_cast<int>(av_vels.size()))) {
      enqueue_chunk(c);
      pending.push_back(c);
      // The older half is read while the device works on this chunk.
      if (pending.size() == 2) consume();
    }
    while (!pending.empty()) consume();
  } catch (const InstabilityError&) {
    drain();
    throw;
  }
}

}  // namespace d2q9
