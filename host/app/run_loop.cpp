#include "app/run_loop.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstring>
#include <optional>

#include "problem/stability.hpp"

namespace d2q9 {

namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void remember_signal(int signal) { g_signal = signal; }

struct sigaction g_old_int {}, g_old_term {};

}  // namespace

StopSignals::StopSignals() {
  g_signal = 0;
  struct sigaction action {};
  action.sa_handler = remember_signal;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGINT, &action, &g_old_int);
  ::sigaction(SIGTERM, &action, &g_old_term);
}

StopSignals::~StopSignals() {
  ::sigaction(SIGINT, &g_old_int, nullptr);
  ::sigaction(SIGTERM, &g_old_term, nullptr);
}

int StopSignals::received() const { return g_signal; }

namespace {

// How much longer a segment may be than the last: 1, 64, 4096 steps, then
// the speed's fit.
constexpr double kSegmentGrowth = 64.0;

// Collective: the whole grid comes to rank 0, which checks and writes it.
void save(Simulation& sim, const RunLoopOptions& options, Ranks& ranks) {
  Checkpoint c = sim.checkpoint();
  if (options.run_record) c.run = options.run_record();
  ranks.on_root([&] {
    // Never replace a good checkpoint with a broken state.
    check_distributions(sim.params(), sim.mask(), c.f, c.av_vels.empty() ? 0 : c.av_vels.size() - 1);
    write_checkpoint(options.checkpoint_path, c);
  });
}

// What rank 0 tells the other ranks between segments of a served run
// split across ranks: the turn's end (go on, or stop there), a checkpoint
// to write together, or a page's request to answer together (kJob + work).
const std::string kGoOn = "go on", kStop = "stop", kCheckpoint = "checkpoint", kJob = "job ";

// The live view's turn after a segment (rank 0's, which serves): its
// commands, and its pause, which holds the run here until resumed; true
// where its Stop ends the run. Across ranks, each of its turn's collective
// steps told to the others (follow_between_segments), which wait meanwhile.
bool serve_between_segments(Simulation& sim, const RunLoopOptions& options, Ranks& ranks,
                            const std::optional<StopSignals>& signals) {
  LiveView& live = *options.live;
  auto tell = [&](const std::string& what) {
    if (ranks.size() > 1) ranks.broadcast_after_wait(what);
  };
  live.after_chunk(sim);
  auto interrupted = [&] { return signals && signals->received() != 0; };
  for (;;) {
    const LiveCommand command = live.take_command();
    if (command == LiveCommand::Stop) {
      tell(kStop);
      return true;
    }
    if (command == LiveCommand::Checkpoint) {
      try {
        sim.check_checkpoint_target(options.checkpoint_path);
        tell(kCheckpoint);
        save(sim, options, ranks);
        live.report("checkpoint of step " + std::to_string(sim.steps_done()) + " written to " +
                    options.checkpoint_path + "; continue with --restart " + options.checkpoint_path);
      } catch (const std::exception& e) {
        live.report(std::string("error: ") + e.what());
      }
      continue;
    }
    if (!live.paused() || interrupted()) {
      tell(kGoOn);
      return false;
    }
    live.hold_while_paused(sim, interrupted);
  }
}

// The other ranks' side of rank 0's turn: what it tells them, until the
// turn ends; true where the run stops there. Rank 0 reports how the work
// went: a failure here was agreed on with it, and the run goes on.
bool follow_between_segments(Simulation& sim, const RunLoopOptions& options, Ranks& ranks) {
  for (;;) {
    const std::string told = ranks.broadcast_after_wait("");
    if (told == kGoOn || told == kStop) return told == kStop;
    bool known = told == kCheckpoint || told.rfind(kJob, 0) == 0;
    try {
      if (told == kCheckpoint)
        save(sim, options, ranks);
      else if (known)
        known = LiveView::join_work(sim, told.substr(kJob.size()));
    } catch (const std::exception&) {
    }
    if (!known) throw std::logic_error("run loop: rank 0 said '" + told + "' between segments");
  }
}

// While a served run split across ranks steps: rank 0's live view tells the
// other ranks each request that needs them (run_pending, between segments);
// once the loop is over they no longer listen, and such requests are refused.
class SharedWork {
 public:
  SharedWork(LiveView* live, Ranks& ranks) : live_(ranks.size() > 1 ? live : nullptr) {
    if (live_) live_->share_work_with([&ranks](const std::string& work) {
      ranks.broadcast_after_wait(kJob + work);
      return true;
    });
  }
  ~SharedWork() {
    if (live_) live_->share_work_with([](const std::string&) { return false; });
  }
  SharedWork(const SharedWork&) = delete;
  SharedWork& operator=(const SharedWork&) = delete;

 private:
  LiveView* live_;
};

}  // namespace

RunLoopResult run_steps(Simulation& sim, const RunLoopOptions& options) {
  using clock = std::chrono::steady_clock;
  Ranks one_process;
  Ranks& ranks = options.ranks ? *options.ranks : one_process;
  RunLoopResult result;
  const int max_iters = sim.params().max_iters;
  const bool checkpoints = options.checkpoint_every > 0;
  const bool snapshots = options.snapshot_every > 0 && options.snapshot;
  const bool steady = options.steady_every > 0 && options.steady;
  const bool progress = options.progress && options.progress->active();  // rank 0's only
  if (!ranks.max(checkpoints || snapshots || steady || progress || options.live)) {
    sim.step(max_iters - sim.steps_done());
    return result;
  }
  // Served: rank 0 serves (options.live), the others follow its turns.
  const bool served = ranks.max(options.live ? 1 : 0) != 0;
  const SharedWork shared_work(options.live, ranks);
  std::optional<StopSignals> signals;
  if (checkpoints) {
    signals.emplace();
    if (ranks.is_root()) remove_stale_checkpoint_temps(options.checkpoint_path);
  }
  // Each part besides the steps timed, into the result's account of the loop.
  auto timed = [](double& seconds, auto&& what) {
    const auto t0 = clock::now();
    what();
    seconds += std::chrono::duration<double>(clock::now() - t0).count();
  };
  int written_step = -1;  // the step of the checkpoint this run last wrote
  int segment = 1;        // grows to about segment_seconds of steps once the speed is known
  auto next_multiple = [](int step, int every) { return (step / every + 1) * every; };
  for (int step = sim.steps_done(); step < max_iters;) {
    // mpirun passes a signal to every rank, not necessarily within one segment.
    if (const int sig = ranks.max(signals ? signals->received() : 0)) {
      if (step != written_step) save(sim, options, ranks);
      throw InterruptedError(sig, std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + " after " +
                                      std::to_string(step) + " of " + std::to_string(max_iters) +
                                      " steps; checkpoint written to " + options.checkpoint_path +
                                      "; continue with --restart " + options.checkpoint_path);
    }
    int end = std::min(max_iters, step + segment);
    if (checkpoints) end = std::min(end, next_multiple(step, options.checkpoint_every));
    if (snapshots) end = std::min(end, next_multiple(step, options.snapshot_every));
    if (steady) end = std::min(end, next_multiple(step, options.steady_every));
    const int n = end - step;
    const auto tic = clock::now();
    sim.step(n);  // the probes the problem asks for, the launch search's trials
    const double elapsed = std::chrono::duration<double>(clock::now() - tic).count();
    step = end;
    // Each segment ends a call whose last chunks the host waits for and sums
    // alone, so the first few, which only measure the speed, grow fast; the
    // bound keeps one quick measurement from overshooting far.
    const double aim = options.live && options.live->watched() ? options.watched_segment_seconds : options.segment_seconds;
    const double fitting = elapsed > 0 ? n * aim / elapsed : kSegmentGrowth * n;
    segment = ranks.broadcast(static_cast<int>(std::clamp(fitting, 1.0, kSegmentGrowth * std::max(n, segment))));
    // Steady: the run ends here as if this were its last step (no checkpoint).
    bool stop = false;
    if (steady && step % options.steady_every == 0 && step < max_iters)
      timed(result.steady_checks_s, [&] { stop = ranks.broadcast(options.steady(step) ? 1 : 0) != 0; });
    if (stop) {
      if (snapshots && step % options.snapshot_every == 0) timed(result.snapshots_s, [&] { options.snapshot(step); });
      break;
    }
    if (checkpoints && step % options.checkpoint_every == 0 && step < max_iters) {
      timed(result.checkpoints_s, [&] { save(sim, options, ranks); });
      written_step = step;
    }
    if (snapshots && step % options.snapshot_every == 0) timed(result.snapshots_s, [&] { options.snapshot(step); });
    if (progress) timed(result.progress_s, [&] { options.progress->update(step); });
    if (served && (options.live ? serve_between_segments(sim, options, ranks, signals)
                                : follow_between_segments(sim, options, ranks))) {
      result.stopped_from_page = step < max_iters;
      break;
    }
  }
  if (progress) timed(result.progress_s, [&] { options.progress->finish(); });
  result.wrote_checkpoint = written_step >= 0;
  return result;
}

}  // namespace d2q9
