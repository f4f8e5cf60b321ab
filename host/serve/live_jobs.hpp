// The requests that need the simulation (pictures, forces, probes): queued
// by the server's threads and run by the stepping thread between chunks (or
// by an idle runner while nothing steps), so that no server thread touches
// the Simulation while it steps.
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

  explicit LiveJobs(LiveShared& shared) : shared_(shared) {}

  // A server thread's: runs `what` on the stepping thread and waits for it;
  // false (res 503) when the run is over or the stepping thread did not come
  // to it in time, or (res 500) when it failed.
  bool run(const Job& what, httplib::Response& res);
  // The stepping thread's: runs the jobs queued.
  void run_pending(Simulation& sim);

  // With the shared mutex held: whether a job waits.
  bool waiting() const { return !jobs_.empty(); }
  // With the shared mutex held: null, only the stepping thread runs jobs.
  void set_idle_runner(IdleRunner run) { idle_ = std::move(run); }

 private:
  struct Pending {
    Job run;
    bool done = false;
    std::string error;
    // Runs `run` on `sim`, keeping what it threw as `error`.
    void run_on(Simulation& sim);
  };

  LiveShared& shared_;
  std::deque<std::shared_ptr<Pending>> jobs_;
  IdleRunner idle_;
};

}  // namespace d2q9
