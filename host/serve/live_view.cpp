#include "serve/live_view.hpp"

#include <cstdlib>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "serve/live_controls.hpp"
#include "serve/live_jobs.hpp"
#include "serve/live_pictures.hpp"
#include "serve/live_series.hpp"
#include "serve/live_server.hpp"
#include "serve/live_shared.hpp"
#include "serve/live_status.hpp"

namespace d2q9 {

// The view's parts, each over the shared state, with the routes that read the run.
struct LiveView::State {
  explicit State(const std::string& token)
      : server(token), status(shared), jobs(shared), controls(shared, status, jobs), pictures(shared, jobs, status) {}
  // GET /api/status, /api/forces and /api/probes.
  void read_routes();

  LiveServer server;
  LiveShared shared;
  LiveStatus status;
  LiveJobs jobs;
  LiveControls controls;
  LivePictures pictures;
};

void LiveView::State::read_routes() {
  httplib::Server& http = server.http();
  http.Get("/api/status", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(shared.mutex);
    res.set_content(status.page_status(controls.paused()).dump(), "application/json");
  });
  http.Get("/api/forces", [this](const httplib::Request& req, httplib::Response& res) {
    const int points = req.has_param("points") ? std::atoi(req.get_param_value("points").c_str()) : 400;
    nlohmann::json out;
    if (jobs.run([&](Simulation& sim) { out = forces_json(sim.measurements(), points); }, res))
      res.set_content(out.dump(), "application/json");
  });
  http.Get("/api/probes", [this](const httplib::Request& req, httplib::Response& res) {
    const int points = req.has_param("points") ? std::atoi(req.get_param_value("points").c_str()) : 400;
    nlohmann::json out;
    if (jobs.run([&](Simulation& sim) { out = probes_json(sim.measurements(), points); }, res))
      res.set_content(out.dump(), "application/json");
  });
}

LiveView::LiveView(const ServeAddress& address, const std::string& token) : state_(std::make_unique<State>(token)) {
  state_->read_routes();
  state_->pictures.add_route(state_->server.http());
  state_->controls.add_routes(state_->server.http());
  state_->server.listen(address);
}

LiveView::~LiveView() {
  {
    std::lock_guard<std::mutex> lock(state_->shared.mutex);
    state_->shared.finished = true;
  }
  state_->shared.changed.notify_all();
  state_->server.stop();
}

int LiveView::port() const { return state_->server.port(); }

std::string LiveView::url() const { return state_->server.url(); }

const std::string& LiveView::token() const { return state_->server.token(); }

void LiveView::describe(const Simulation& sim, const std::string& checkpoint_path, const std::string& device) {
  nlohmann::json facts = LiveStatus::run_facts(sim, checkpoint_path);
  if (!device.empty()) facts["device"] = device;
  state_->status.update(sim, "starting");
  std::lock_guard<std::mutex> lock(state_->shared.mutex);
  state_->controls.allow_checkpoint(!checkpoint_path.empty());
  state_->status.set_facts(std::move(facts));
}

void LiveView::after_chunk(Simulation& sim) {
  state_->status.update(sim, "running");
  state_->jobs.run_pending(sim);
}

void LiveView::show_state(const Simulation& sim, const std::string& state) { state_->status.update(sim, state); }

void LiveView::hold_while_paused(Simulation& sim, const std::function<bool()>& interrupted) {
  state_->controls.hold_while_paused(sim, interrupted);
}

void LiveView::run_idle_with(IdleRunner run) {
  std::lock_guard<std::mutex> lock(state_->shared.mutex);
  state_->jobs.set_idle_runner(std::move(run));
}

void LiveView::share_work_with(Announcer announce) {
  std::lock_guard<std::mutex> lock(state_->shared.mutex);
  state_->jobs.set_announcer(std::move(announce));
}

bool LiveView::join_work(Simulation& sim, const std::string& work) { return LivePictures::join(sim, work); }

LiveCommand LiveView::take_command() {
  std::lock_guard<std::mutex> lock(state_->shared.mutex);
  return state_->controls.take_command();
}

bool LiveView::watched() const { return state_->server.watched(); }

bool LiveView::paused() const {
  std::lock_guard<std::mutex> lock(state_->shared.mutex);
  return state_->controls.paused();
}

void LiveView::report(const std::string& message) { state_->status.report(message); }

void LiveView::finish(Simulation& sim, const std::string& how) {
  state_->jobs.run_pending(sim);
  state_->status.update(sim, how);
  std::lock_guard<std::mutex> lock(state_->shared.mutex);
  state_->shared.finished = true;
  state_->controls.end_pause();
  state_->shared.changed.notify_all();
}

}  // namespace d2q9
