// The page's buttons: pause, resume, checkpoint and stop as POST routes, and
// the stepping thread's side of them (the command it takes, the pause it
// holds in), so that only the stepping thread ever changes the run.
#pragma once

#include <functional>

#include <httplib.h>

#include "serve/live_jobs.hpp"
#include "serve/live_shared.hpp"
#include "serve/live_status.hpp"
#include "serve/live_view.hpp"

namespace d2q9 {

class LiveControls {
 public:
  // `status` shows what a button did in its message; `jobs` are answered while the run is held.
  LiveControls(LiveShared& shared, LiveStatus& status, LiveJobs& jobs)
      : shared_(shared), status_(status), jobs_(jobs) {}

  void add_routes(httplib::Server& server);
  // The stepping thread's: LiveView::hold_while_paused.
  void hold_while_paused(Simulation& sim, const std::function<bool()>& interrupted);

  // The rest with the shared mutex held.
  bool paused() const { return paused_; }
  // Checkpoint once, Stop from then on (None when there is none).
  LiveCommand take_command();
  void allow_checkpoint(bool allowed) { can_checkpoint_ = allowed; }
  // The run is over: nothing holds it paused.
  void end_pause() { paused_ = false; }

 private:
  // The buttons' answer: whether the run is paused, and the message.
  void answer(httplib::Response& res) const;

  LiveShared& shared_;
  LiveStatus& status_;
  LiveJobs& jobs_;
  bool paused_ = false;
  LiveCommand command_ = LiveCommand::None;
  bool can_checkpoint_ = false;
};

}  // namespace d2q9
