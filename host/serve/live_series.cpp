#include "serve/live_series.hpp"

#include <algorithm>

namespace d2q9 {

namespace {

// Indices of at most `points` of `count` rows, oldest first, the newest always among them.
std::vector<std::size_t> thinned(std::size_t count, int points) {
  const std::size_t most = static_cast<std::size_t>(std::clamp(points, 2, 5000));
  const std::size_t stride = std::max<std::size_t>(1, (count + most - 1) / most);
  std::vector<std::size_t> rows;
  for (std::size_t back = 0; back < count; back += stride) rows.push_back(count - 1 - back);
  std::reverse(rows.begin(), rows.end());
  return rows;
}

}  // namespace

nlohmann::json forces_json(const MeasurementLog& log, int points) {
  const bool coefficients = log.coefficients();
  const std::vector<double> series = coefficients ? log.coefficient_series() : log.force_series();
  const std::size_t bodies = log.bodies().size();
  const std::size_t steps = bodies ? series.size() / (2 * bodies) : 0;
  const std::vector<std::size_t> rows = thinned(steps, points);
  nlohmann::json out{{"coefficients", coefficients}};
  std::vector<int> step_numbers;
  for (const std::size_t r : rows) step_numbers.push_back(log.forces_from() + 1 + static_cast<int>(r));
  out["steps"] = step_numbers;
  out["bodies"] = nlohmann::json::array();
  for (std::size_t b = 0; b < bodies; ++b) {
    std::vector<double> x, y;
    for (const std::size_t r : rows) {
      x.push_back(series[(r * bodies + b) * 2]);
      y.push_back(series[(r * bodies + b) * 2 + 1]);
    }
    out["bodies"].push_back({{"name", log.bodies()[b]}, {coefficients ? "cd" : "fx", x}, {coefficients ? "cl" : "fy", y}});
  }
  return out;
}

nlohmann::json probes_json(const MeasurementLog& log, int points) {
  const std::vector<Probe>& probes = log.probe_list();
  const std::vector<int>& steps = log.probe_steps();
  const std::vector<double>& values = log.probe_series();
  const std::vector<std::size_t> rows = thinned(steps.size(), points);
  nlohmann::json out;
  std::vector<int> step_numbers;
  for (const std::size_t r : rows) step_numbers.push_back(steps[r]);
  out["steps"] = step_numbers;
  out["probes"] = nlohmann::json::array();
  const std::size_t each = log.probe_quantities().size(), width = each * probes.size();
  for (std::size_t p = 0; p < probes.size(); ++p) {
    std::vector<double> rho, ux, uy;
    for (const std::size_t r : rows) {
      rho.push_back(values[r * width + each * p]);
      ux.push_back(values[r * width + each * p + 1]);
      uy.push_back(values[r * width + each * p + 2]);
    }
    out["probes"].push_back({{"name", probes[p].name}, {"rho", rho}, {"ux", ux}, {"uy", uy}});
  }
  return out;
}

}  // namespace d2q9
