// d2q9-bgk's schedule over a Simulation: checkpointing every N steps,
// stopping cleanly on SIGINT/SIGTERM, snapshots every N steps, the steady
// check and a progress line. Without any of these the whole run is one
// Simulation::step call; with them it steps in segments.
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
#include "sim/simulation.hpp"
#include "serve/live_view.hpp"

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
  int checkpoint_every = 0;  // 0: no checkpoints
  std::string checkpoint_path;
  // What every checkpoint keeps, so that --restart alone continues the run:
  // asked at each save, since an in-run launch search may have changed the launch.
  std::function<RunRecord()> run_record;
  // Wall time one segment aims at: SIGTERM is honoured, and the progress line
  // redrawn, within about this long. Each segment's end drains the device,
  // so they are long; shorter while a live view's page is open (watched).
  double segment_seconds = 1.0;
  double watched_segment_seconds = 0.4;
  int snapshot_every = 0;                  // 0: no snapshots
  std::function<void(int step)> snapshot;  // after every snapshot_every-th step
  int steady_every = 0;                    // 0: no steady check
  // After every steady_every-th step (collective): true to stop there, as
  // steady. Rank 0's answer counts, for every rank.
  std::function<bool(int step)> steady;
  ProgressLine* progress = nullptr;        // updated between segments when active
  // --serve: told after every segment; its page may pause the run, have a
  // checkpoint written to checkpoint_path, or stop the run there. Across
  // ranks rank 0's alone (null on the others), which tells the others what
  // its page asks of them all (a picture, a checkpoint, the pause's end, a stop).
  LiveView* live = nullptr;
  // Split across MPI ranks: every rank calls run_steps alike, and the
  // segments, signals and checkpoints are agreed on (null: one process).
  Ranks* ranks = nullptr;
};

struct RunLoopResult {
  bool wrote_checkpoint = false;
  bool stopped_from_page = false;  // the live view's Stop ended the run before its last step
  // Where the loop's time went besides Simulation::step (its steps and
  // measurements are the Simulation's to say): seconds of this rank.
  double checkpoints_s = 0, snapshots_s = 0, steady_checks_s = 0, progress_s = 0;
};

// Steps `sim` from its steps done to params().max_iters, or to an earlier
// step where options.steady says the run is steady. Throws InstabilityError
// if the flow blows up and InterruptedError on SIGINT/SIGTERM (checkpointing
// only).
RunLoopResult run_steps(Simulation& sim, const RunLoopOptions& options);

}  // namespace d2q9
