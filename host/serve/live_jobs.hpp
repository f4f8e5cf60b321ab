// The requests that need the simulation (pictures, forces, probes): queued
// by the server's threads and run by the stepping thread between chunks (or
// by an idle runner while nothing steps), so that no server thread touches
// the Simulation while it steps. Across MPI ranks (rank 0 serving) a job
// whose answer needs every rank's part (a picture) is announced to the other
// ranks first, which do their part alongside (LiveView::share_work_with).
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <string>

#include <httplib.h>

#include "serve/live_shared.hpp"
#include "sim/simulation.hpp"

namespace d2q9 {

class LiveJobs {
 public:
  using Job = std::function<void(Simulation&)>;
  using IdleRunner = std::function<bool(const Job& job)>;
  // LiveView::Announcer: tells the other ranks `work`; false where they no longer join.
  using Announcer = std::function<bool(const std::string& work)>;

  explicit LiveJobs(LiveShared& shared) : shared_(shared) {}

  // A server thread's: runs `what` on the stepping thread and waits for it;
  // false (res 503) when the run is over or the stepping thread did not come
  // to it in time, or (res 500) when it failed. `every_rank`: the work the
  // other MPI ranks do alongside, announced first (empty: this process's alone).
  bool run(const Job& what, httplib::Response& res, const std::string& every_rank = "");
  // The stepping thread's: runs the jobs queued.
  void run_pending(Simulation& sim);

  // With the shared mutex held: whether a job waits.
  bool waiting() const { return !jobs_.empty(); }
  // With the shared mutex held: null, only the stepping thread runs jobs.
  void set_idle_runner(IdleRunner run) { idle_ = std::move(run); }
  // With the shared mutex held: null, one process.
  void set_announcer(Announcer announce) { announce_ = std::move(announce); }

 private:
  struct Pending {
    Job run;
    std::string every_rank;  // the other ranks' part, announced before it runs
    bool done = false;
    std::string error;
    bool unavailable = false;  // not run: the other ranks no longer join (503)
    // Runs `run` on `sim`, keeping what it threw as `error`.
    void run_on(Simulation& sim);
  };

  LiveShared& shared_;
  std::deque<std::shared_ptr<Pending>> jobs_;
  IdleRunner idle_;
  Announcer announce_;
};

}  // namespace d2q9
