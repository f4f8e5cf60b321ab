#include "serve/live_controls.hpp"

#include <nlohmann/json.hpp>

namespace d2q9 {

using nlohmann::json;

void LiveControls::answer(httplib::Response& res) const {
  json j{{"paused", paused_}, {"message", status_.message()}};
  res.set_content(j.dump(), "application/json");
}

void LiveControls::add_routes(httplib::Server& server) {
  server.Post("/api/pause", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (!shared_.finished) paused_ = true;
    answer(res);
  });
  server.Post("/api/resume", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    paused_ = false;
    shared_.changed.notify_all();
    answer(res);
  });
  server.Post("/api/checkpoint", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (!can_checkpoint_) {
      res.status = 409;
      status_.say("this run writes no checkpoint from the page");
    } else if (!shared_.finished) {
      command_ = LiveCommand::Checkpoint;
      status_.say("checkpoint asked for");
    }
    shared_.changed.notify_all();
    answer(res);
  });
  server.Post("/api/stop", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    if (!shared_.finished) {
      command_ = LiveCommand::Stop;
      status_.say("stopping: the outputs are written as at the end");
    }
    shared_.changed.notify_all();
    answer(res);
  });
  // The controls change the run: a GET (a link, a prefetch) never does.
  for (const char* path : {"/api/pause", "/api/resume", "/api/checkpoint", "/api/stop"})
    server.Get(path, [](const httplib::Request&, httplib::Response& res) {
      res.status = 405;
      res.set_header("Allow", "POST");
      res.set_content(json{{"error", "use POST"}}.dump(), "application/json");
    });
}

void LiveControls::hold_while_paused(Simulation& sim, const std::function<bool()>& interrupted) {
  status_.update(sim, "paused");
  std::unique_lock<std::mutex> lock(shared_.mutex);
  while (paused_ && command_ != LiveCommand::Stop && !(interrupted && interrupted())) {
    shared_.changed.wait_for(lock, std::chrono::milliseconds(100),
                             [&] { return jobs_.waiting() || !paused_ || command_ != LiveCommand::None; });
    lock.unlock();
    jobs_.run_pending(sim);
    lock.lock();
    if (command_ == LiveCommand::Checkpoint) return;  // the caller writes it, then holds again
  }
  const bool still_paused = paused_;  // a slice of the pause ended (Python's), not the pause
  lock.unlock();
  status_.update(sim, still_paused ? "paused" : "running");
}

LiveCommand LiveControls::take_command() {
  const LiveCommand c = command_;
  if (c == LiveCommand::Checkpoint) command_ = LiveCommand::None;  // Stop stays: the run is ending
  return c;
}

}  // namespace d2q9
