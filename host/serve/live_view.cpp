#include "serve/live_view.hpp"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "serve/live_series.hpp"
#include "live_view_page.hpp"  // kLiveViewPage: generated from live_view.html by CMake

namespace d2q9 {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// Seconds a request waits for the stepping thread before it is answered 503
// (the first picture builds cl/render.cl, which takes PoCL a few seconds).
constexpr double kJobWaitSeconds = 10.0;
// A picture this recent is served again rather than drawn anew: at most a
// few pictures a second reach the device, however many pages ask.
constexpr double kPictureReuseSeconds = 0.2;
// The least time between two pictures drawn, whatever they show: at most
// four a second reach the device, however many pages ask for different ones.
constexpr double kPictureIntervalSeconds = 0.25;
// The widest picture drawn: the page asks for its canvas's width.
constexpr int kMaxPictureWidth = 2048;
// The window the speed (steps a second) is measured over.
constexpr double kSpeedWindowSeconds = 3.0;

int parse_port(const std::string& text, const std::string& whole) {
  std::size_t used = 0;
  long port = -1;
  try {
    port = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || port < 0 || port > 65535 || text[0] == '-' || text[0] == '+')
    throw InputError("--serve must be [HOST:]PORT with PORT 0 to 65535 (0: any free port), got '" + whole + "'");
  return static_cast<int>(port);
}

// Why binding `host`:`port` fails, from a bind of our own (httplib says only
// that it failed): "Address already in use", "Permission denied", ...
std::string bind_failure(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  if (const int e = ::getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found); e != 0)
    return ::gai_strerror(e);
  std::string why = "the port is in use, or the host is not an address of this machine";
  const int sock = ::socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  if (sock >= 0) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(sock, found->ai_addr, found->ai_addrlen) != 0) why = std::strerror(errno);
    ::close(sock);
  }
  ::freeaddrinfo(found);
  return why;
}

}  // namespace

ServeAddress parse_serve_address(const std::string& text) {
  ServeAddress a;
  std::string port = text;
  if (!text.empty() && text[0] == '[') {  // [IPv6]:PORT
    const auto close = text.find("]:");
    if (close == std::string::npos || close < 2)
      throw InputError("--serve must be [HOST:]PORT, e.g. 8080 or [::1]:8080, got '" + text + "'");
    a.host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else if (const auto colon = text.rfind(':'); colon != std::string::npos) {
    a.host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (a.host.empty() || a.host.find(':') != std::string::npos)
      throw InputError("--serve must be [HOST:]PORT (an IPv6 host in brackets), got '" + text + "'");
  }
  a.port = parse_port(port, text);
  return a;
}

std::string random_token() {
  std::random_device device;  // /dev/urandom with libstdc++ on Linux
  std::string hex;
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t word = device();
    for (int shift = 28; shift >= 0; shift -= 4) hex += digits[(word >> shift) & 0xF];
  }
  return hex;
}

bool same_token(const std::string& a, const std::string& b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// A request that needs the simulation, run by the stepping thread.
struct LiveJob {
  std::function<void(Simulation&)> run;
  bool done = false;
  std::string error;
};

struct CachedPicture {
  int step = -1;
  Clock::time_point made;
  std::string png;
  json about;
};

struct LiveView::State {
  httplib::Server server;
  std::thread listener;
  std::atomic<bool> listen_returned{false};
  std::string host, token;
  int port = 0;

  // When a request with the token last came (steady clock, ns); watched().
  std::atomic<std::int64_t> last_request_ns{std::numeric_limits<std::int64_t>::min() / 2};

  std::mutex mutex;  // everything below
  std::condition_variable changed;
  json info = json::object();    // describe(): the run's fixed facts
  json status = json::object();  // after_chunk(): the latest numbers
  std::deque<std::shared_ptr<LiveJob>> jobs;
  std::map<std::string, CachedPicture> pictures;  // by "field/width"
  Clock::time_point next_picture;                  // the earliest another may be drawn
  std::deque<std::pair<Clock::time_point, int>> speed_window;  // (when, steps done)
  bool paused = false, finished = false;
  LiveCommand command = LiveCommand::None;
  std::string message;
  bool can_checkpoint = false;
  Clock::time_point started = Clock::now();
  IdleRunner idle;  // null: only the stepping thread runs jobs

  // Runs `job` on the stepping thread and waits for it; false (res 503) when
  // the run is over or the stepping thread did not come to it in time.
  bool run_job(const std::function<void(Simulation&)>& what, httplib::Response& res);
  void routes();
  void controls();
  void reads();
  void picture_route();
  void run_pending(Simulation& sim);
  void update_status(const Simulation& sim, const std::string& state);
};

bool LiveView::State::run_job(const std::function<void(Simulation&)>& what, httplib::Response& res) {
  auto job = std::make_shared<LiveJob>();
  job->run = what;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kJobWaitSeconds));
  std::unique_lock<std::mutex> lock(mutex);
  const bool queued_once = !finished;
  if (queued_once) {
    jobs.push_back(job);
    changed.notify_all();  // a paused run answers at once
  }
  // A job the stepping thread has taken writes into this request's locals:
  // it is waited for to its end, whatever the time.
  auto taken = [&] { return queued_once && !job->done && std::find(jobs.begin(), jobs.end(), job) == jobs.end(); };
  while (!job->done && (taken() || (!finished && Clock::now() < deadline))) {
    changed.wait_for(lock, std::chrono::milliseconds(100), [&] { return job->done || finished; });
    const auto queued = std::find(jobs.begin(), jobs.end(), job);
    if (job->done || finished || !idle || queued == jobs.end()) continue;
    // Nothing stepping took it: run it here if the simulation is free.
    jobs.erase(queued);
    lock.unlock();
    const bool ran = idle([&](Simulation& sim) {
      try {
        job->run(sim);
      } catch (const std::exception& e) {
        job->error = e.what();
      } catch (...) {
        job->error = "failed";
      }
    });
    lock.lock();
    if (ran) job->done = true;
    else jobs.push_front(job);
  }
  if (job->done && job->error.empty()) return true;
  if (!job->done) jobs.erase(std::remove(jobs.begin(), jobs.end(), job), jobs.end());
  res.status = job->done ? 500 : 503;
  const std::string why = job->done ? job->error : finished ? "the run is over" : "the simulation is not stepping now";
  res.set_content(json{{"error", why}}.dump(), "application/json");
  return false;
}

void LiveView::State::run_pending(Simulation& sim) {
  std::unique_lock<std::mutex> lock(mutex);
  while (!jobs.empty()) {
    std::shared_ptr<LiveJob> job = jobs.front();
    jobs.pop_front();
    lock.unlock();
    try {
      job->run(sim);
    } catch (const std::exception& e) {
      job->error = e.what();
    } catch (...) {
      job->error = "failed";
    }
    lock.lock();
    job->done = true;
  }
  changed.notify_all();
}

void LiveView::State::update_status(const Simulation& sim, const std::string& state) {
  const auto now = Clock::now();
  const int step = sim.steps_done();
  std::lock_guard<std::mutex> lock(mutex);
  // Paused time is no time stepping: the window starts afresh after a pause
  // (a Python program's time between its step() calls counts, as wall time).
  if (state == "paused" || state == "starting") speed_window.clear();
  speed_window.emplace_back(now, step);
  while (speed_window.size() > 2 &&
         std::chrono::duration<double>(now - speed_window[1].first).count() > kSpeedWindowSeconds)
    speed_window.pop_front();
  const double span = std::chrono::duration<double>(now - speed_window.front().first).count();
  const double per_s = span > 0 ? (step - speed_window.front().second) / span : 0.0;
  const int last = sim.params().max_iters;
  const std::vector<double>& av = sim.average_velocities();
  status = json{{"step", step},
                {"first_step", sim.first_step()},
                {"steps", last},
                {"state", state},
                {"steps_per_second", per_s},
                {"mlups", per_s * static_cast<double>(sim.params().cells()) / 1e6},
                {"seconds_left", per_s > 0 && step < last ? (last - step) / per_s : 0.0},
                {"average_velocity", av.empty() ? 0.0 : av.back()},
                {"elapsed_seconds", std::chrono::duration<double>(now - started).count()},
                {"message", message}};
}

LiveView::LiveView(const ServeAddress& address, const std::string& token) : state_(std::make_unique<State>()) {
  State& s = *state_;
  s.host = address.host;
  s.token = token.empty() ? random_token() : token;
  // Two runs must not share a port: no SO_REUSEPORT (httplib's default), which would split the requests between them.
  s.server.set_socket_options([](socket_t sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  s.server.new_task_queue = [] { return new httplib::ThreadPool(4); };
  s.server.set_payload_max_length(4096);  // no request of ours has a body worth more
  s.server.set_read_timeout(5, 0);       // a client that sends nothing does not hold a thread
  s.server.set_write_timeout(5, 0);
  s.server.set_keep_alive_max_count(100);
  s.server.set_tcp_nodelay(true);  // headers and body leave at once, not after a delayed ACK
  s.status = json{{"state", "starting"}, {"step", 0}};
  s.routes();
  const int port = address.port == 0 ? s.server.bind_to_any_port(address.host)
                                     : (s.server.bind_to_port(address.host, address.port) ? address.port : -1);
  if (port < 0)
    throw InputError("--serve: cannot listen on " + address.host + ":" + std::to_string(address.port) + " (" +
                     bind_failure(address.host, address.port) + ")");
  s.port = port;
  s.listener = std::thread([&s] {
    s.server.listen_after_bind();
    s.listen_returned = true;
  });
  // httplib's stop() does nothing until the listener runs: a LiveView gone at once would never be joined.
  while (!s.server.is_running() && !s.listen_returned) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

LiveView::~LiveView() {
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->finished = true;
  }
  state_->changed.notify_all();
  state_->server.stop();
  if (state_->listener.joinable()) state_->listener.join();
}

int LiveView::port() const { return state_->port; }

std::string LiveView::url() const {
  const std::string& h = state_->host;
  const std::string host = h.find(':') != std::string::npos ? "[" + h + "]" : h;
  return "http://" + host + ":" + std::to_string(state_->port) + "/?token=" + state_->token;
}

const std::string& LiveView::token() const { return state_->token; }

void LiveView::describe(const Simulation& sim, const std::string& checkpoint_path) {
  const Params& p = sim.params();
  const MeasurementLog& m = sim.measurements();
  json probes = json::array();
  for (const Probe& probe : m.probe_list()) probes.push_back(probe.name);
  state_->update_status(sim, "starting");
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->can_checkpoint = !checkpoint_path.empty();
  state_->info = json{{"problem", sim.problem_name()},
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

void LiveView::after_chunk(Simulation& sim) {
  state_->update_status(sim, "running");
  state_->run_pending(sim);
}

void LiveView::show_state(const Simulation& sim, const std::string& state) { state_->update_status(sim, state); }

void LiveView::hold_while_paused(Simulation& sim, const std::function<bool()>& interrupted) {
  State& s = *state_;
  state_->update_status(sim, "paused");
  std::unique_lock<std::mutex> lock(s.mutex);
  while (s.paused && s.command != LiveCommand::Stop && !(interrupted && interrupted())) {
    s.changed.wait_for(lock, std::chrono::milliseconds(100), [&] { return !s.jobs.empty() || !s.paused || s.command != LiveCommand::None; });
    lock.unlock();
    s.run_pending(sim);
    lock.lock();
    if (s.command == LiveCommand::Checkpoint) return;  // the caller writes it, then holds again
  }
  const bool still_paused = s.paused;  // a slice of the pause ended (Python's), not the pause
  lock.unlock();
  state_->update_status(sim, still_paused ? "paused" : "running");
}

void LiveView::run_idle_with(IdleRunner run) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->idle = std::move(run);
}

LiveCommand LiveView::take_command() {
  std::lock_guard<std::mutex> lock(state_->mutex);
  const LiveCommand c = state_->command;
  if (c == LiveCommand::Checkpoint) state_->command = LiveCommand::None;  // Stop stays: the run is ending
  return c;
}

bool LiveView::watched() const {
  constexpr std::int64_t kWatchedNs = 3'000'000'000;  // a page asks every 0.5 s or so
  const std::int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  return now - state_->last_request_ns.load() < kWatchedNs;
}

bool LiveView::paused() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->paused;
}

void LiveView::report(const std::string& message) {
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->message = message;
  state_->status["message"] = message;
}

void LiveView::finish(Simulation& sim, const std::string& how) {
  state_->run_pending(sim);
  state_->update_status(sim, how);
  std::lock_guard<std::mutex> lock(state_->mutex);
  state_->finished = true;
  state_->paused = false;
  state_->changed.notify_all();
}

void LiveView::State::routes() {
  // Every request carries the token (a query parameter, or the header a script may send instead).
  server.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    const std::string given =
        req.has_param("token") ? req.get_param_value("token") : req.get_header_value("X-D2Q9-Token");
    if (same_token(given, token)) {
      last_request_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
      return httplib::Server::HandlerResponse::Unhandled;
    }
    res.status = 403;
    res.set_content("403 forbidden: this run's page needs its token (printed when the run started)\n", "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  // The token is in the page's address: no referrer carries it elsewhere, no cache keeps it.
  server.set_default_headers({{"Cache-Control", "no-store"},
                              {"Referrer-Policy", "no-referrer"},
                              {"X-Content-Type-Options", "nosniff"},
                              {"X-Frame-Options", "DENY"},
                              {"Content-Security-Policy",
                               "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                               "img-src blob: data:; connect-src 'self'"}});
  server.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
    res.status = 500;
    res.set_content(json{{"error", "internal error"}}.dump(), "application/json");
  });
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(kLiveViewPage, "text/html; charset=utf-8");
  });
  reads();
  picture_route();
  controls();
}

void LiveView::State::reads() {
  server.Get("/api/status", [this](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    json j = status;
    j["run"] = info;
    j["paused"] = paused;
    res.set_content(j.dump(), "application/json");
  });
  server.Get("/api/forces", [this](const httplib::Request& req, httplib::Response& res) {
    const int points = req.has_param("points") ? std::atoi(req.get_param_value("points").c_str()) : 400;
    json out;
    if (run_job([&](Simulation& sim) { out = forces_json(sim.measurements(), points); }, res))
      res.set_content(out.dump(), "application/json");
  });
  server.Get("/api/probes", [this](const httplib::Request& req, httplib::Response& res) {
    const int points = req.has_param("points") ? std::atoi(req.get_param_value("points").c_str()) : 400;
    json out;
    if (run_job([&](Simulation& sim) { out = probes_json(sim.measurements(), points); }, res))
      res.set_content(out.dump(), "application/json");
  });
}

void LiveView::State::picture_route() {
  server.Get("/api/picture", [this](const httplib::Request& req, httplib::Response& res) {
    const std::string name = req.has_param("field") ? req.get_param_value("field") : "speed";
    const std::optional<ImageField> field = parse_image_field(name);
    const int width = req.has_param("width") ? std::atoi(req.get_param_value("width").c_str()) : 512;
    if (!field || width < 1 || width > kMaxPictureWidth) {
      res.status = 400;
      res.set_content(json{{"error", "field must be speed, vorticity, density or temperature, width 1 to " +
                                         std::to_string(kMaxPictureWidth)}}.dump(),
                      "application/json");
      return;
    }
    const std::string key = name + "/" + std::to_string(width);
    CachedPicture picture;
    bool reuse = false;
    {
      std::lock_guard<std::mutex> lock(mutex);
      picture = pictures[key];
      const bool recent = Clock::now() - picture.made < std::chrono::duration<double>(kPictureReuseSeconds);
      // The step drawn already, one drawn a moment ago, or the last one of a run that is over.
      reuse = !picture.png.empty() && (picture.step == status.value("step", -1) || recent || finished);
    }
    if (!reuse) {
      Clock::time_point turn;
      {
        std::lock_guard<std::mutex> lock(mutex);
        turn = std::max(Clock::now(), next_picture);
        next_picture = turn + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kPictureIntervalSeconds));
      }
      std::this_thread::sleep_until(turn);
      const bool made = run_job([&](Simulation& sim) {
        const FieldImage image = sim.picture({*field, width});
        picture.step = sim.steps_done();
        picture.made = Clock::now();
        picture.png = png_bytes(image);
        picture.about = json{{"field", name}, {"step", picture.step}, {"width", image.width},
                             {"height", image.height}, {"low", image.range.low}, {"high", image.range.high},
                             {"made_by", image.made_by}};
        std::lock_guard<std::mutex> lock(mutex);
        pictures[key] = picture;
      }, res);
      if (!made) return;
    }
    res.set_header("X-D2Q9-Picture", picture.about.dump());
    res.set_content(picture.png, "image/png");
  });
}

void LiveView::State::controls() {
  auto answer = [this](httplib::Response& res) {
    json j{{"paused", paused}, {"message", message}};
    res.set_content(j.dump(), "application/json");
  };
  server.Post("/api/pause", [this, answer](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!finished) paused = true;
    answer(res);
  });
  server.Post("/api/resume", [this, answer](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    paused = false;
    changed.notify_all();
    answer(res);
  });
  server.Post("/api/checkpoint", [this, answer](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!can_checkpoint) {
      res.status = 409;
      message = "this run writes no checkpoint from the page";
    } else if (!finished) {
      command = LiveCommand::Checkpoint;
      message = "checkpoint asked for";
    }
    changed.notify_all();
    answer(res);
  });
  server.Post("/api/stop", [this, answer](const httplib::Request&, httplib::Response& res) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!finished) {
      command = LiveCommand::Stop;
      message = "stopping: the outputs are written as at the end";
    }
    changed.notify_all();
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

}  // namespace d2q9
