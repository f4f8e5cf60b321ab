// The step loop every single-device backend shares: steps run in chunks; each
// chunk's per-group partial sums of |u| are read back into one half of a
// double buffer while the device runs the next chunk, then summed into
// average velocities. Backends supply the launches and the transfers.
#pragma once

#include <utility>
#include <vector>

#include "device/solver.hpp"

namespace d2q9 {

class ChunkedSolver : public Solver {
 public:
  void run(int steps, std::vector<double>& av_vels) final;
  std::optional<LaunchPlan> launch_plan() const final { return plan_; }
  Precision precision() const final { return precision_; }
  std::vector<double> take_body_forces() final { return std::exchange(body_forces_, {}); }

 protected:
  ChunkedSolver(const LaunchPlan& plan, Precision precision, std::size_t fluid_cells, int sums_per_group)
      : plan_(plan), precision_(precision), fluid_cells_(fluid_cells), sums_per_group_(sums_per_group) {}

  // `steps` steps whose partial sums go to half `half`; the call's last chunk
  // leaves the state unaccelerated, so distributions() between calls sees the
  // model's state.
  struct Chunk {
    int half = 0;
    int steps = 0;
    bool ends_call = false;
    int run_step = 0;  // the number of its first step, from the run's start
  };
  // One kernel launch in a chunk: the step it starts at (within the chunk),
  // how many steps it runs, and whether it accelerates the step after it.
  struct Launch {
    int step = 0;
    int steps = 1;
    bool two_step_kernel = false;  // propagate_rebound_collide_x2, not the plan's step_kernel()
    bool accelerate_next = false;
    int partial_offset = 0;  // in values, into the whole partial-sum buffer
    int run_step = 0;        // the number of its first step, from the run's start (the kernels' `step`)
  };

  // The chunks of a run() call of `steps` steps from step `first_step`.
  std::vector<Chunk> chunks(int steps, int first_step = 0) const;
  std::vector<Launch> launches(const Chunk& chunk) const;
  // Values of one half of the partial sums, and of a chunk's.
  std::size_t half_values() const {
    return static_cast<std::size_t>(plan_.chunk_steps) * plan_.num_groups() * sums_per_group_;
  }
  std::size_t chunk_values(const Chunk& c) const {
    return static_cast<std::size_t>(c.steps) * plan_.num_groups() * sums_per_group_;
  }

  // Fused variants: the first step's acceleration, alone, at the start of a call.
  virtual void accelerate_first() = 0;
  // The chunk's launches, then an asynchronous read of its partial sums.
  virtual void enqueue_chunk(const Chunk& chunk) = 0;
  // The partial sums of the chunk read into `half`, once they have arrived.
  virtual const void* wait_partials(int half) = 0;
  // Lets queued work finish before an error leaves run() (buffers stay valid).
  virtual void drain() noexcept {}

  LaunchPlan plan_;
  Precision precision_;
  std::size_t fluid_cells_;
  int sums_per_group_;                // |u|, then Fx, Fy per measured body
  std::vector<double> body_forces_;  // measured since take_body_forces()
};

}  // namespace d2q9
