#include "app/launch_policy.hpp"

#include <algorithm>
#include <chrono>


namespace d2q9 {

namespace {

double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

LaunchPolicy::LaunchPolicy(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
                           bool force_search, Ranks* ranks)
    : backend_(b), params_(params), mask_(mask), config_(config), clock_(wall_seconds), force_search_(force_search),
      ranks_(ranks) {}

LaunchChoice LaunchPolicy::start() {
  LaunchChoice choice;
  require_built(backend_);
  if (backend_ == Backend::Reference) {
    choice.solver = make_solver(backend_, params_, mask_, config_, ranks_);
    return choice;
  }
  const DeviceLimits limits = device_limits(backend_, config_.device.device);
  LaunchRequest request = config_.launch;
  request.slabs = request.slabs || config_.slabs_on_one_rank;
  const Precision precision = config_.device.precision;
  const int ranks = ranks_ ? ranks_->size() : 1;
  search_.key = tuning_key(backend_, limits.name, params_, precision, request);
  std::optional<CachedLaunch> cached;
  if (!force_search_ && request.local.is_auto() && ranks <= 1)
    if (auto c = load_tuned_launch(search_.key)) cached = CachedLaunch{*c, tuning_cache_path()};
  // The one decision; a request the device cannot run fails here.
  LaunchDecision decision = decide_launch(params_, limits, request, precision, ranks, cached);
  reason_ = decision.reason;
  choice.how = decision.how;
  choice.reason = decision.reason;
  // Each rank's slab is another grid than any searched on one device: the
  // ranks run the decision's plan, with a shape they agree on (make_solver).
  if (ranks > 1 || config_.slabs_on_one_rank) {
    choice.solver = make_solver(backend_, params_, mask_, config_, ranks_);
    return choice;
  }
  if (decision.how == LaunchSource::Cached) {
    try {
      choice.solver = make_planned_solver(backend_, params_, mask_, config_.device, decision.plan);
      return choice;
    } catch (const DeviceError&) {
      // A stale entry (a kernel the driver now builds with another limit): decided without it.
      decision = decide_launch(params_, limits, request, precision, ranks);
      reason_ = choice.reason = decision.reason;
      choice.how = decision.how;
    }
  }
  if (decision.how == LaunchSource::Given) {
    choice.solver = make_planned_solver(backend_, params_, mask_, config_.device, decision.plan);
    return choice;
  }
  const LaunchPlan& plan = decision.plan;
  search_.default_launch = {plan.variant, plan.variant == KernelVariant::FusedRows ? LocalSize{} : plan.local};
  search_.default_reason = decision.reason;
  search_.variants = request.variant == KernelVariant::Auto ? runnable_variants(limits)
                                                            : std::vector<KernelVariant>{request.variant};
  make_ = [backend = backend_, params = params_, &mask = mask_, config = config_](const LaunchCandidate& launch) {
    SolverConfig c = config;
    c.launch.variant = launch.variant;
    c.launch.local = launch.local;
    return make_solver(backend, params, mask, c);
  };
  if (force_search_) {
    choice = choose_launch(make_, params_, true, search_);
  } else {
    choice.solver = make_planned_solver(backend_, params_, mask_, config_.device, plan);  // the default
  }
  may_search_ = choice.how == LaunchSource::Default;
  reason_ = choice.reason;
  return choice;
}

int LaunchPolicy::run_first_steps(std::unique_ptr<Solver>& solver, std::vector<double>& av_vels, int max_steps,
                                  double& loop_s, const std::function<void(int)>& after_steps) {
  if (!may_search_ || max_steps <= 0) return 0;
  may_search_ = false;
  const auto candidates = run_search_candidates(params_, search_);
  const LaunchPlan plan = *solver->launch_plan();
  // A chunk to warm up (first launches, clocks), then one timed: the speed the run would go on at.
  const int chunk = std::max(plan.chunk_steps, plan.steps_per_launch());
  int done = 0;
  const auto run_on = [&](Solver& s, int steps) {
    steps = std::min(steps, max_steps - done);
    double t = 0.0;
    if (steps > 0) {
      const double t0 = clock_();
      s.run(steps, av_vels);
      t = clock_() - t0;
    }
    const std::vector<double> forces = s.take_body_forces();  // the candidates' too: their steps are the run's
    body_forces_.insert(body_forces_.end(), forces.begin(), forces.end());
    done += steps;
    loop_s += t;
    if (after_steps) after_steps(static_cast<int>(av_vels.size()));
    return t;
  };
  run_on(*solver, chunk);
  if (done + chunk > max_steps) return done;
  const double step_s = run_on(*solver, chunk) / chunk;
  const SetupTimes setup = solver->setup_times();
  // Each candidate is built and gets the state, and gives it back unless it wins.
  const double per_candidate = setup.build_estimate_s() + 2 * setup.upload_s;
  const double expected_run_s = step_s * (params_.max_iters - static_cast<int>(av_vels.size()) + done);
  const double expected_cost = per_candidate * static_cast<double>(candidates.size());
  // Each timed on about 20 ms of steps, after a chunk of warm-up.
  const int steps_each = std::max(chunk, static_cast<int>(std::min(0.02 / std::max(step_s, 1e-9), 1e6)));
  const long long search_steps = static_cast<long long>(candidates.size()) * (chunk + steps_each);
  if (candidates.empty() || expected_cost > kSearchBudget * expected_run_s || done + search_steps > max_steps) {
    reason_ += " (no search: it would cost about " + std::to_string(static_cast<int>(expected_cost * 1000)) +
               " ms against " + std::to_string(static_cast<int>(expected_run_s * 1000)) + " ms of steps)";
    return done;
  }

  const double search_t0 = clock_();
  double stepping_s = 0;  // the candidates' steps, which count as the run's, not the search's
  LaunchCandidate best = search_.default_launch;
  double best_s = step_s;
  table_.push_back({best, step_s, ""});
  for (const LaunchCandidate& launch : candidates) {
    TuningResult r{launch, -1.0, ""};
    std::unique_ptr<Solver> next;
    try {
      next = make_(launch);
      next->load_distributions(solver->distributions());
    } catch (const DeviceError& e) {
      r.note = e.what();
      table_.push_back(r);
      continue;
    }
    stepping_s += run_on(*next, chunk);
    const double t = run_on(*next, steps_each);
    stepping_s += t;
    r.seconds_per_step = t / steps_each;
    table_.push_back(r);
    if (r.seconds_per_step < (1.0 - kTuneMargin) * best_s) {
      best = launch;
      best_s = r.seconds_per_step;
      solver = std::move(next);  // the state is already there
    } else {
      solver->load_distributions(next->distributions());
    }
  }
  search_s_ = clock_() - search_t0 - stepping_s;
  store_tuned_launch(search_.key, best, best_s);
  reason_ = best.text() + ": the fastest of " + std::to_string(table_.size()) +
            " launches timed on the run's first steps, cached";
  return done;
}

LaunchPolicy LaunchPolicy::searching(const Params& params, const ObstacleMask& mask, const LaunchSearch& search,
                                     SolverFactory make, Clock clock) {
  LaunchPolicy policy(Backend::Reference, params, mask, SolverConfig{}, false);
  if (clock) policy.clock_ = std::move(clock);
  policy.search_ = search;
  policy.make_ = std::move(make);
  policy.may_search_ = true;
  policy.reason_ = search.default_reason;
  return policy;
}

LaunchChoice make_tuned_solver(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
                               bool force_search, Ranks* ranks) {
  return LaunchPolicy(b, params, mask, config, force_search, ranks).start();
}

}  // namespace d2q9
