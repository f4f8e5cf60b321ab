#include "app/sweep.hpp"

#include <algorithm>
#include <chrono>

namespace d2q9 {

namespace {

int power_of_two_at_least(int n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

SolverConfig with_launch(SolverConfig config, KernelVariant variant, LocalSize local) {
  config.launch.variant = variant;
  config.launch.local = local;
  return config;
}

// --coursework-steps N times N steps per shape after two warm-up steps (the
// first launch builds the kernel); without it, time_steps chooses the count.
StepTimer sweep_timer(int steps) {
  if (steps <= 0) return time_steps;
  return [steps](Solver& solver) {
    std::vector<double> av;
    solver.run(2, av);
    const auto t0 = std::chrono::steady_clock::now();
    solver.run(steps, av);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / steps;
  };
}

// A CSV field in quotes, its own quotes doubled.
std::string csv_quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

void print_row(const SweepRow& r) {
  const LocalSize l = r.plan.local;
  if (r.us_per_step < 0) {
    std::printf("%-10s %5d %5d %-6s %-9s %9s %6d  skipped: %s\n", r.problem.c_str(), r.nx, r.ny,
                to_string(r.precision), to_string(r.plan.variant), l.text().c_str(), l.x * l.y, r.skipped.c_str());
  } else {
    std::printf("%-10s %5d %5d %-6s %-9s %9s %6d %12.1f %10.4g%s\n", r.problem.c_str(), r.nx, r.ny,
                to_string(r.precision), to_string(r.plan.variant), l.text().c_str(), l.x * l.y, r.us_per_step,
                r.projected_loop_s, r.is_default ? "  default" : "");
  }
  std::fflush(stdout);
}

// Marks the fastest timed row and prints the problem's verdict.
void mark_fastest(const std::string& problem, std::vector<SweepRow>& rows) {
  SweepRow* fastest = nullptr;
  const SweepRow* by_default = nullptr;
  for (SweepRow& r : rows) {
    if (r.us_per_step > 0 && (!fastest || r.us_per_step < fastest->us_per_step)) fastest = &r;
    if (r.is_default) by_default = &r;
  }
  if (!fastest) {
    std::printf("%s: no shape ran\n\n", problem.c_str());
    return;
  }
  fastest->is_fastest = true;
  std::printf("%s: fastest %s at %.1f us/step", problem.c_str(), fastest->plan.local.text().c_str(),
              fastest->us_per_step);
  if (by_default && by_default->us_per_step > 0)
    std::printf("; default %s at %.1f us/step (%.2fx the fastest's time)", by_default->plan.local.text().c_str(),
                by_default->us_per_step, by_default->us_per_step / fastest->us_per_step);
  std::printf("\n\n");
}

}  // namespace

KernelVariant swept_variant(const Sweep& sweep, const Params& params, std::string& note) {
  const SolverConfig asked = with_launch(sweep.config, sweep.config.launch.variant, {});
  const KernelVariant planned = plan_for(sweep.backend, params, asked)->variant;
  if (planned != KernelVariant::FusedRows) return planned;
  note = "sweeping fused: fused-rows, the default here, takes no work-group shape (a run given --local-size runs fused)";
  return KernelVariant::Fused;
}

std::vector<LaunchPlan> sweep_plans(const Sweep& sweep, const Params& params, KernelVariant variant) {
  std::vector<LaunchPlan> plans;
  for (int x = 1; x <= power_of_two_at_least(params.nx); x *= 2)
    for (int y = 1; y <= power_of_two_at_least(params.ny); y *= 2) {
      try {
        plans.push_back(*plan_for(sweep.backend, params, with_launch(sweep.config, variant, {x, y})));
      } catch (const DeviceError&) {
        // Beyond the device's work-group limits: not a shape to time.
      }
    }
  std::stable_sort(plans.begin(), plans.end(), [](const LaunchPlan& a, const LaunchPlan& b) {
    return a.local.x * a.local.y < b.local.x * b.local.y;
  });
  return plans;
}

std::vector<SweepRow> sweep_problem(const Sweep& sweep, const std::string& problem, const Params& params,
                                    const ObstacleMask& mask) {
  std::string note;
  const KernelVariant variant = swept_variant(sweep, params, note);
  if (!note.empty()) std::printf("%s: %s\n", problem.c_str(), note.c_str());
  const LocalSize default_shape = plan_for(sweep.backend, params, with_launch(sweep.config, variant, {}))->local;
  const SolverFactory make = [&](const LaunchCandidate& launch) {
    return make_solver(sweep.backend, params, mask, with_launch(sweep.config, launch.variant, launch.local));
  };
  const StepTimer timer = sweep_timer(sweep.timed_steps);
  std::vector<SweepRow> rows;
  for (const LaunchPlan& plan : sweep_plans(sweep, params, variant)) {
    // One shape at a time, so that each row prints as soon as it is timed.
    const TuningResult timed = time_launches(make, {{plan.variant, plan.local}}, timer).front();
    SweepRow r;
    r.problem = problem;
    r.nx = params.nx;
    r.ny = params.ny;
    r.precision = sweep.config.device.precision;
    r.plan = plan;
    r.is_default = plan.local == default_shape;
    r.skipped = timed.note;
    if (timed.seconds_per_step > 0) {
      r.us_per_step = timed.seconds_per_step * 1e6;
      r.projected_loop_s = timed.seconds_per_step * params.max_iters;
    }
    print_row(r);
    rows.push_back(r);
  }
  mark_fastest(problem, rows);
  return rows;
}

void print_sweep_header() {
  std::printf("%-10s %5s %5s %-6s %-9s %9s %6s %12s %10s\n", "problem", "nx", "ny", "prec.", "variant", "local",
              "wg", "us/step", "loop s");
}

// `commit` and `version` last, as in the bench's own records.
void write_sweep_csv(std::FILE* out, const std::vector<SweepRow>& rows, const std::string& backend,
                     const std::string& device, const BuildInfo& build) {
  std::fprintf(out,
               "problem,nx,ny,backend,device,precision,variant,rows_per_item,local_x,local_y,work_group_size,"
               "us_per_step,projected_loop_s,default,fastest,skipped,commit,version\n");
  for (const SweepRow& r : rows) {
    const bool ran = r.us_per_step > 0;
    std::fprintf(out, "%s,%d,%d,%s,%s,%s,%s,%d,%d,%d,%d,", r.problem.c_str(), r.nx, r.ny, backend.c_str(),
                 csv_quoted(device).c_str(), to_string(r.precision), to_string(r.plan.variant), r.plan.rows_per_item,
                 r.plan.local.x, r.plan.local.y, r.plan.local.x * r.plan.local.y);
    if (ran) std::fprintf(out, "%.3f,%.6g,", r.us_per_step, r.projected_loop_s);
    else std::fputs(",,", out);
    std::fprintf(out, "%d,%d,%s,%s,%s\n", r.is_default ? 1 : 0, r.is_fastest ? 1 : 0, csv_quoted(r.skipped).c_str(),
                 build.commit.c_str(), build.version.c_str());
  }
}

}  // namespace d2q9
