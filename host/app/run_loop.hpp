// The time-step loop as main() drives it: resuming from a checkpoint,
// checkpointing every N steps, stopping cleanly on SIGINT/SIGTERM, pictures
// every N steps and a progress line. Without any of these the whole run is
// one Solver::run call; with them it runs in segments.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "io/checkpoint.hpp"
#include "problem/problem.hpp"
#include "app/progress.hpp"
#include "core/ranks.hpp"
#include "device/solver.hpp"

namespace d2q9 {

// SIGINT or SIGTERM arrived while checkpointing; what() says where the
// checkpoint is and how to continue.
class InterruptedError : public StatusError {
 public:
  // The conventional status of a process ended by `signal`: 128 + signal.
  InterruptedError(int signal, const std::string& what) : StatusError(what, 128 + signal), signal_(signal) {}
  int signal() const { return signal_; }
  int exit_status() const { return status(); }

 private:
  int signal_;
};

// SIGINT and SIGTERM only remembered while this is alive; the previous
// handlers come back afterwards.
class StopSignals {
 public:
  StopSignals();
  ~StopSignals();
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;
  int received() const;
};

struct RunLoopOptions {
  int checkpoint_every = 0;  // 0: no checkpoints, and the whole run is one Solver::run call
  std::string checkpoint_path;
  RunRecord run_record;  // kept in every checkpoint, so --restart alone continues the run
  // The run's per-step series besides av_vels, up to now, for a checkpoint
  // (collective: every rank calls it).
  std::function<std::vector<std::pair<std::string, std::vector<double>>>()> series;
  // Wall time one segment aims at: SIGTERM is honoured, and the progress line
  // redrawn, within about this long.
  double segment_seconds = 0.25;
  int snapshot_every = 0;                  // 0: no snapshots
  std::function<void(int step)> snapshot;  // after every snapshot_every-th step
  int probe_every = 0;                     // 0: no probes
  std::function<void(int step)> probe;     // after every probe_every-th step (collective)
  int steady_every = 0;                    // 0: no steady check
  // After every steady_every-th step (collective): true to stop there, as
  // steady. Rank 0's answer counts, for every rank.
  std::function<bool(int step)> steady;
  ProgressLine* progress = nullptr;        // updated between segments when active
  // Split across MPI ranks: every rank calls run_steps alike, and the
  // segments, signals and checkpoints are agreed on (null: one process).
  Ranks* ranks = nullptr;
};

struct RunLoopResult {
  bool wrote_checkpoint = false;
  double compute_seconds = 0;  // time in Solver::run, checkpoints and pictures not counted
};

// Runs from step av_vels.size() to params.max_iters, appending to av_vels,
// or to an earlier step where options.steady says the run is steady.
// Throws InstabilityError if the flow blows up and InterruptedError on
// SIGINT/SIGTERM (checkpointing only).
RunLoopResult run_steps(Solver& solver, const Params& params, const ObstacleMask& mask, std::vector<double>& av_vels,
               const RunLoopOptions& options);

}  // namespace d2q9
