#include "run_loop.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>

#include "stability.hpp"

namespace d2q9 {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void remember_signal(int signal) { g_signal = signal; }

// SIGINT and SIGTERM only set g_signal while this is alive; the previous
// handlers come back afterwards (the output files are then written as usual).
class StopSignals {
 public:
  StopSignals() {
    g_signal = 0;
    struct sigaction action {};
    action.sa_handler = remember_signal;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~StopSignals() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int received() const { return g_signal; }

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

void save(Solver& solver, const Params& params, const ObstacleMask& mask, const std::vector<double>& av_vels,
          const std::string& path) {
  Checkpoint c;
  c.params = params;
  c.mask_hash = obstacle_mask_hash(mask);
  c.precision = solver.precision();
  c.av_vels = av_vels;
  c.f = solver.distributions();
  // Never replace a good checkpoint with a broken state.
  check_distributions(params, mask, c.f, av_vels.empty() ? 0 : av_vels.size() - 1);
  write_checkpoint(path, c);
}

}  // namespace

Checkpoint load_restart_checkpoint(const std::string& checkpoint_file, const Params& params,
                                   const std::string& param_file, const ObstacleMask& mask,
                                   const std::string& obstacle_file, Precision precision) {
  Checkpoint c = read_checkpoint(checkpoint_file);
  check_checkpoint_matches(c, checkpoint_file, params, param_file, mask, obstacle_file, precision);
  return c;
}

bool run_steps(Solver& solver, const Params& params, const ObstacleMask& mask, std::vector<double>& av_vels,
               const RunLoopOptions& options) {
  const int start = static_cast<int>(av_vels.size());
  if (options.checkpoint_every <= 0) {
    solver.run(params.max_iters - start, av_vels);
    return false;
  }

  StopSignals signals;
  int written_step = -1;  // the step of the checkpoint this run last wrote
  int segment = 1;        // grows to about segment_seconds of steps once the speed is known
  for (int step = start; step < params.max_iters;) {
    if (const int sig = signals.received()) {
      if (step != written_step) save(solver, params, mask, av_vels, options.checkpoint_path);
      throw InterruptedError(sig, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + " after " +
                                      std::to_string(step) + " of " + std::to_string(params.max_iters) +
                                      " steps; checkpoint written to " + options.checkpoint_path +
                                      "; continue with --restart " + options.checkpoint_path);
    }
    const int next_checkpoint = (step / options.checkpoint_every + 1) * options.checkpoint_every;
    const int n = std::min({segment, next_checkpoint - step, params.max_iters - step});
    const auto tic = std::chrono::steady_clock::now();
    solver.run(n, av_vels);
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count();
    step += n;
    // At most 4x growth per segment, so one quick measurement cannot overshoot far.
    const double fitting = elapsed > 0 ? n * options.segment_seconds / elapsed : 4.0 * n;
    segment = static_cast<int>(std::clamp(fitting, 1.0, 4.0 * n));
    if (step == next_checkpoint && step < params.max_iters) {
      save(solver, params, mask, av_vels, options.checkpoint_path);
      written_step = step;
    }
  }
  return written_step >= 0;
}

}  // namespace d2q9
