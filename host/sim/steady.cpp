#include "sim/steady.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace d2q9 {

SteadyRule steady_rule(double tolerance, int steps) {
  SteadyRule r;
  r.tolerance = tolerance;
  r.window = std::max(1000, steps / 10 + (steps % 10 != 0));
  r.every = std::max(1, r.window / 10);
  return r;
}

namespace {

struct Windows {
  double previous_mean = 0, mean = 0, min = 0, max = 0;
};

// The two windows of `w` values before `end` of values spaced `stride` apart from `at`.
Windows windows(const double* at, std::size_t stride, std::size_t w) {
  Windows r;
  for (std::size_t i = 0; i < w; ++i) r.previous_mean += at[i * stride];
  r.min = r.max = at[w * stride];
  for (std::size_t i = w; i < 2 * w; ++i) {
    const double v = at[i * stride];
    r.mean += v;
    r.min = std::min(r.min, v);
    r.max = std::max(r.max, v);
  }
  r.previous_mean /= static_cast<double>(w);
  r.mean /= static_cast<double>(w);
  return r;
}

double relative(const Windows& x, double scale) {
  const double change = std::max(std::fabs(x.mean - x.previous_mean), x.max - x.min);
  if (change == 0) return 0;
  return scale > 0 ? change / scale : std::numeric_limits<double>::infinity();
}

std::string e2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2e", v);
  return buf;
}

}  // namespace

SteadyCheck check_steady(const SteadyRule& rule, const std::vector<double>& av_vels, const std::vector<double>& forces,
                         int forces_from, const std::vector<std::string>& bodies) {
  SteadyCheck c;
  const int n = static_cast<int>(av_vels.size());
  c.step = n;
  const int w = rule.window;
  if (w < 1 || n < 2 * w) return c;
  const std::size_t per_step = 2 * bodies.size();
  const int forces_to = forces_from + static_cast<int>(per_step ? forces.size() / per_step : 0);  // steps covered: (forces_from, forces_to]
  if (per_step && (n - 2 * w < forces_from || forces_to < n)) return c;
  c.checked = true;
  c.change = 0;
  auto consider = [&](double change, const std::string& name) {
    if (!(change <= c.change)) c.change = change, c.quantity = name;  // NaN counts as the largest
  };
  const Windows u = windows(av_vels.data() + (n - 2 * w), 1, static_cast<std::size_t>(w));
  consider(relative(u, std::fabs(u.mean)), "av_vels");
  c.quantity = c.quantity.empty() ? "av_vels" : c.quantity;
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    // 0-based step k is row k - forces_from.
    const double* first = forces.data() + static_cast<std::size_t>(n - 2 * w - forces_from) * per_step + 2 * b;
    const Windows fx = windows(first, per_step, static_cast<std::size_t>(w));
    const Windows fy = windows(first + 1, per_step, static_cast<std::size_t>(w));
    const double scale = std::hypot(fx.mean, fy.mean);
    consider(relative(fx, scale), bodies[b] + "_Fx");
    consider(relative(fy, scale), bodies[b] + "_Fy");
  }
  c.steady = c.change < rule.tolerance;
  return c;
}

std::string steady_text(const SteadyRule& rule, const SteadyCheck& check, int steps_run) {
  if (check.steady)
    return "steady after " + std::to_string(steps_run) + " steps (change " + e2(check.change) + " < " + e2(rule.tolerance) +
           " over the last " + std::to_string(rule.window) + " steps)";
  if (!check.checked)
    return "not steady: no change measured after " + std::to_string(steps_run) + " steps (the check compares two windows of " +
           std::to_string(rule.window) + " steps, " + std::to_string(2 * rule.window) + " steps in all)";
  return "not steady: change " + e2(check.change) + " after " + std::to_string(steps_run) + " steps (" + check.quantity +
         ", over the last " + std::to_string(rule.window) + " steps; steady means below " + e2(rule.tolerance) + ")";
}

}  // namespace d2q9
