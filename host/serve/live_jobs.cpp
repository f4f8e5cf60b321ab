#include "serve/live_jobs.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace d2q9 {

namespace {

// Seconds a request waits for the stepping thread before it is answered 503
// (the first picture builds cl/render.cl, which takes PoCL a few seconds).
constexpr double kJobWaitSeconds = 10.0;

}  // namespace

void LiveJobs::Pending::run_on(Simulation& sim) {
  try {
    run(sim);
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = "failed";
  }
}

bool LiveJobs::run(const Job& what, httplib::Response& res, const std::string& every_rank) {
  auto job = std::make_shared<Pending>();
  job->run = what;
  job->every_rank = every_rank;
  const auto deadline =
      LiveClock::now() + std::chrono::duration_cast<LiveClock::duration>(std::chrono::duration<double>(kJobWaitSeconds));
  std::unique_lock<std::mutex> lock(shared_.mutex);
  const bool& finished = shared_.finished;
  const bool queued_once = !finished;
  if (queued_once) {
    jobs_.push_back(job);
    shared_.changed.notify_all();  // a paused run answers at once
  }
  // A job the stepping thread has taken writes into this request's locals:
  // it is waited for to its end, whatever the time.
  auto taken = [&] { return queued_once && !job->done && std::find(jobs_.begin(), jobs_.end(), job) == jobs_.end(); };
  while (!job->done && (taken() || (!finished && LiveClock::now() < deadline))) {
    shared_.changed.wait_for(lock, std::chrono::milliseconds(100), [&] { return job->done || finished; });
    const auto queued = std::find(jobs_.begin(), jobs_.end(), job);
    if (job->done || finished || !idle_ || queued == jobs_.end()) continue;
    // Nothing stepping took it: run it here if the simulation is free.
    jobs_.erase(queued);
    lock.unlock();
    const bool ran = idle_([&](Simulation& sim) { job->run_on(sim); });
    lock.lock();
    if (ran) job->done = true;
    else jobs_.push_front(job);
  }
  if (job->done && job->error.empty()) return true;
  if (!job->done) jobs_.erase(std::remove(jobs_.begin(), jobs_.end(), job), jobs_.end());
  res.status = job->done && !job->unavailable ? 500 : 503;
  const std::string why = job->done ? job->error : finished ? "the run is over" : "the simulation is not stepping now";
  res.set_content(nlohmann::json{{"error", why}}.dump(), "application/json");
  return false;
}

void LiveJobs::run_pending(Simulation& sim) {
  std::unique_lock<std::mutex> lock(shared_.mutex);
  while (!jobs_.empty()) {
    std::shared_ptr<Pending> job = jobs_.front();
    jobs_.pop_front();
    const Announcer announce = job->every_rank.empty() ? nullptr : announce_;
    lock.unlock();
    if (announce && !announce(job->every_rank)) {
      job->error = "the run is over";
      job->unavailable = true;
    } else {
      job->run_on(sim);
    }
    lock.lock();
    job->done = true;
  }
  shared_.changed.notify_all();
}

}  // namespace d2q9
