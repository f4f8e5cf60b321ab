#include "sim/launch_policy.hpp"

#include <algorithm>
#include <utility>


namespace d2q9 {

InRunLaunchSearch::InRunLaunchSearch(const LaunchSearch& search, std::vector<LaunchCandidate> candidates,
                                     int chunk_steps, const SetupTimes& setup, int run_steps)
    : search_(search), candidates_(std::move(candidates)), chunk_(chunk_steps), setup_(setup), run_steps_(run_steps),
      reason_(search.default_reason) {}

int InRunLaunchSearch::steps_wanted() const {
  switch (phase_) {
    case Phase::WarmDefault:
    case Phase::TimeDefault:
    case Phase::WarmTrial: return chunk_ - phase_steps_;
    case Phase::TimeTrial: return steps_each_ - phase_steps_;
    case Phase::Over: break;
  }
  return 0;
}

InRunLaunchSearch::Move InRunLaunchSearch::report(int steps, double seconds) {
  if (phase_ == Phase::Over) return {};
  reported_ += steps;
  phase_steps_ += steps;
  phase_s_ += seconds;
  if (steps_wanted() > 0) return {};
  const double step_s = phase_s_ / phase_steps_;
  const Phase finished = phase_;
  phase_steps_ = 0;
  phase_s_ = 0;
  switch (finished) {
    case Phase::WarmDefault: phase_ = Phase::TimeDefault; return {};
    case Phase::WarmTrial: phase_ = Phase::TimeTrial; return {};
    case Phase::TimeDefault: {
      // Each candidate is built and gets the state, and gives it back unless it wins.
      const double per_candidate = setup_.build_estimate_s() + 2 * setup_.upload_s;
      const double expected_run_s = step_s * run_steps_;
      const double expected_cost = per_candidate * static_cast<double>(candidates_.size());
      // Each timed on about 20 ms of steps, after a chunk of warm-up.
      steps_each_ = std::max(chunk_, static_cast<int>(std::min(0.02 / std::max(step_s, 1e-9), 1e6)));
      const long long search_steps = static_cast<long long>(candidates_.size()) * (chunk_ + steps_each_);
      if (candidates_.empty() || expected_cost > kSearchBudget * expected_run_s ||
          reported_ + search_steps > run_steps_) {
        phase_ = Phase::Over;
        reason_ += " (no search: it would cost about " + std::to_string(static_cast<int>(expected_cost * 1000)) +
                   " ms against " + std::to_string(static_cast<int>(expected_run_s * 1000)) + " ms of steps)";
        return {};
      }
      best_ = {search_.default_launch, step_s, ""};
      table_.push_back(best_);
      return try_next();
    }
    case Phase::TimeTrial: {
      TuningResult r{candidates_[next_++], step_s, ""};
      table_.push_back(r);
      const bool faster = step_s < (1.0 - kTuneMargin) * best_.seconds_per_step;
      if (faster) best_ = r;
      Move move = try_next();
      move.trial = faster ? Move::Trial::Keep : Move::Trial::Drop;
      return move;
    }
    case Phase::Over: break;
  }
  return {};
}

InRunLaunchSearch::Move InRunLaunchSearch::build_failed(const std::string& why) {
  table_.push_back({candidates_[next_++], -1.0, why});
  return try_next();
}

InRunLaunchSearch::Move InRunLaunchSearch::try_next() {
  Move move;
  if (next_ < candidates_.size()) {
    phase_ = Phase::WarmTrial;
    move.next = candidates_[next_];
    return move;
  }
  phase_ = Phase::Over;
  move.cache = best_;
  reason_ = best_.launch.text() + ": the fastest of " + std::to_string(table_.size()) +
            " launches timed on the run's first steps, cached";
  return move;
}

LaunchPolicy::LaunchPolicy(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
                           bool force_search, Ranks* ranks)
    : backend_(b), params_(params), mask_(mask), config_(config), force_search_(force_search), ranks_(ranks) {}

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
      choice.reason = decision.reason;
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
  return choice;
}

std::unique_ptr<InRunLaunchSearch> LaunchPolicy::in_run_search(const Solver& started, int run_steps) const {
  if (!may_search_ || run_steps <= 0) return nullptr;
  const LaunchPlan plan = *started.launch_plan();
  // A chunk to warm up, then one timed: the speed the run would go on at.
  const int chunk = std::max(plan.chunk_steps, plan.steps_per_launch());
  return std::make_unique<InRunLaunchSearch>(search_, run_search_candidates(params_, search_), chunk,
                                             started.setup_times(), run_steps);
}

LaunchChoice make_tuned_solver(Backend b, const Params& params, const ObstacleMask& mask, const SolverConfig& config,
                               bool force_search, Ranks* ranks) {
  return LaunchPolicy(b, params, mask, config, force_search, ranks).start();
}

}  // namespace d2q9
