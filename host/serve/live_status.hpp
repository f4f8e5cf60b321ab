// What the page shows of a run: its fixed facts (describe), the numbers
// (step, speed, time left) and the line under the buttons, published by the
// stepping thread so that a status request never reads the Simulation.
#pragma once

#include <deque>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "serve/live_shared.hpp"
#include "sim/simulation.hpp"

namespace d2q9 {

class LiveStatus {
 public:
  explicit LiveStatus(LiveShared& shared);

  // The run's fixed facts: the problem, its grid, device and what it
  // measures; `checkpoint_path` where the page's checkpoint button writes.
  static nlohmann::json run_facts(const Simulation& sim, const std::string& checkpoint_path);
  // The stepping thread's: the numbers now, the run's state named `state`.
  void update(const Simulation& sim, const std::string& state);
  // The line under the buttons, in the numbers at once.
  void report(const std::string& message);

  // The rest with the shared mutex held.
  void set_facts(nlohmann::json facts) { info_ = std::move(facts); }
  // The line under the buttons, in the numbers from the next update.
  void say(const std::string& message) { message_ = message; }
  const std::string& message() const { return message_; }
  // The step of the numbers published last (-1: none yet).
  int step() const { return status_.value("step", -1); }
  // /api/status's answer: the numbers, the facts as "run", and whether the page holds the run paused.
  nlohmann::json page_status(bool paused) const;

 private:
  LiveShared& shared_;
  nlohmann::json info_ = nlohmann::json::object();    // the run's fixed facts
  nlohmann::json status_ = nlohmann::json::object();  // the latest numbers
  std::deque<std::pair<LiveClock::time_point, int>> speed_window_;  // (when, steps done)
  std::string message_;
  LiveClock::time_point started_ = LiveClock::now();
};

}  // namespace d2q9
