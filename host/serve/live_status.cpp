#include "serve/live_status.hpp"

#include <vector>

namespace d2q9 {

namespace {

using nlohmann::json;

// The window the speed (steps a second) is measured over.
constexpr double kSpeedWindowSeconds = 3.0;

}  // namespace

LiveStatus::LiveStatus(LiveShared& shared) : shared_(shared) { status_ = json{{"state", "starting"}, {"step", 0}}; }

json LiveStatus::run_facts(const Simulation& sim, const std::string& checkpoint_path) {
  const Params& p = sim.params();
  const MeasurementLog& m = sim.measurements();
  json probes = json::array();
  for (const Probe& probe : m.probe_list()) probes.push_back(probe.name);
  return json{{"problem", sim.problem_name()},
              {"nx", p.nx},
              {"ny", p.ny},
              {"steps", p.max_iters},
              {"backend", sim.run_info().backend},
              {"device", sim.run_info().device},
              {"precision", to_string(sim.run_info().precision)},
              {"bodies", m.bodies()},
              {"coefficients", m.coefficients()},
              {"probes", probes},
              {"checkpoint", checkpoint_path}};
}

void LiveStatus::update(const Simulation& sim, const std::string& state) {
  const auto now = LiveClock::now();
  const int step = sim.steps_done();
  std::lock_guard<std::mutex> lock(shared_.mutex);
  // Paused time is no time stepping: the window starts afresh after a pause
  // (a Python program's time between its step() calls counts, as wall time).
  if (state == "paused" || state == "starting") speed_window_.clear();
  speed_window_.emplace_back(now, step);
  while (speed_window_.size() > 2 &&
         std::chrono::duration<double>(now - speed_window_[1].first).count() > kSpeedWindowSeconds)
    speed_window_.pop_front();
  const double span = std::chrono::duration<double>(now - speed_window_.front().first).count();
  const double per_s = span > 0 ? (step - speed_window_.front().second) / span : 0.0;
  const int last = sim.params().max_iters;
  const std::vector<double>& av = sim.average_velocities();
  status_ = json{{"step", step},
                 {"first_step", sim.first_step()},
                 {"steps", last},
                 {"state", state},
                 {"steps_per_second", per_s},
                 {"mlups", per_s * static_cast<double>(sim.params().cells()) / 1e6},
                 {"seconds_left", per_s > 0 && step < last ? (last - step) / per_s : 0.0},
                 {"average_velocity", av.empty() ? 0.0 : av.back()},
                 {"elapsed_seconds", std::chrono::duration<double>(now - started_).count()},
                 {"message", message_}};
}

void LiveStatus::report(const std::string& message) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  message_ = message;
  status_["message"] = message;
}

json LiveStatus::page_status(bool paused) const {
  json j = status_;
  j["run"] = info_;
  j["paused"] = paused;
  return j;
}

}  // namespace d2q9
