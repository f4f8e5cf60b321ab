#include "app/measurements.hpp"

#include <cmath>
#include <algorithm>
#include <numeric>

#include "io/number_text.hpp"
#include "io/output.hpp"

namespace d2q9 {

namespace {
std::string e12(double v) {
  char buf[kMaxE12Chars];
  return std::string(buf, format_e12(buf, v));
}
std::string integer(int v) {
  char buf[16];
  return std::string(buf, format_int(buf, v));
}
}  // namespace

std::optional<std::pair<double, int>> dominant_frequency(const std::vector<double>& signal, int spacing, double scale) {
  const std::size_t start = signal.size() / 2;
  if (signal.size() - start < 4) return std::nullopt;
  const auto half = signal.begin() + static_cast<std::ptrdiff_t>(start);
  const double mean = std::accumulate(half, signal.end(), 0.0) / (signal.size() - start);
  // Rounding noise about a steady value crosses its mean too: an oscillation counts from 1% of the scale.
  const auto [low, high] = std::minmax_element(half, signal.end());
  if (!(*high - *low >= 0.01 * scale)) return std::nullopt;
  // Upward crossings, placed between samples by linear interpolation.
  std::vector<double> crossings;
  for (std::size_t i = start + 1; i < signal.size(); ++i) {
    const double a = signal[i - 1] - mean, b = signal[i] - mean;
    if (a < 0 && b >= 0) crossings.push_back((static_cast<double>(i - 1) + a / (a - b)) * spacing);
  }
  if (crossings.size() < 3) return std::nullopt;
  const int periods = static_cast<int>(crossings.size()) - 1;
  return std::make_pair(periods / (crossings.back() - crossings.front()), periods);
}

MeasurementLog::MeasurementLog(const Measurements& m, const Params& params, int first_step)
    : m_(m), params_(params), first_step_(first_step), forces_from_(first_step), whole_history_(first_step == 0) {}

namespace {
constexpr const char* kForcesSeries = "forces";
constexpr const char* kProbeStepsSeries = "probe_steps";
constexpr const char* kProbeValuesSeries = "probe_values";
}  // namespace

MeasurementLog::Series MeasurementLog::saved_series() const {
  Series s;
  if (!whole_history_) return s;  // one that does not start at step 0 is not one to continue
  if (forces()) s.emplace_back(kForcesSeries, forces_);
  if (probes()) {
    s.emplace_back(kProbeStepsSeries, std::vector<double>(probe_steps_.begin(), probe_steps_.end()));
    s.emplace_back(kProbeValuesSeries, probe_values_);
  }
  return s;
}

void MeasurementLog::restore(const Series& series, const std::string& checkpoint) {
  const std::vector<double>* forces = nullptr;
  const std::vector<double>* steps = nullptr;
  const std::vector<double>* values = nullptr;
  for (const auto& [name, v] : series) {
    if (name == kForcesSeries) forces = &v;
    if (name == kProbeStepsSeries) steps = &v;
    if (name == kProbeValuesSeries) values = &v;
  }
  auto mismatch = [&](const char* what) {
    return InputError(checkpoint + ": checkpoint does not match the run: its " + what + " series does not fit " +
                      std::to_string(first_step_) + " steps of this problem's measurements");
  };
  if (forces && this->forces()) {
    if (forces->size() != 2 * m_.bodies.size() * static_cast<std::size_t>(first_step_)) throw mismatch(kForcesSeries);
    forces_ = *forces;
    forces_from_ = 0;
  }
  if (steps && values && probes()) {
    if (values->size() != 3 * m_.probes.size() * steps->size()) throw mismatch(kProbeValuesSeries);
    probe_steps_.assign(steps->begin(), steps->end());
    probe_values_ = *values;
  }
  if (!series.empty() && (forces_from_ == 0 || !this->forces())) whole_history_ = true;
}

void MeasurementLog::add_forces(const std::vector<double>& forces) {
  forces_.insert(forces_.end(), forces.begin(), forces.end());
}

void MeasurementLog::add_probes(int step, Solver& solver) {
  std::vector<std::size_t> cells;
  for (const Probe& p : m_.probes) cells.push_back(static_cast<std::size_t>(p.i) + static_cast<std::size_t>(p.j) * params_.nx);
  const std::vector<double> f = solver.cell_distributions(cells);
  if (f.empty()) return;  // another rank's
  probe_steps_.push_back(step);
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const CellState s = fluid_cell_state(params_, f.data() + kSpeeds * c);
    probe_values_.insert(probe_values_.end(), {3.0 * s.pressure, s.ux, s.uy});
  }
}

double MeasurementLog::coefficient(double force) const {
  return 2.0 * force / (m_.density * *m_.velocity * *m_.velocity * *m_.length);
}

void MeasurementLog::write(std::FILE* forces_csv, std::FILE* probes_csv) const {
  if (forces_csv) {
    std::string text = "step";
    for (const std::string& b : m_.bodies) {
      text += "," + b + "_Fx," + b + "_Fy";
      if (m_.coefficients()) text += "," + b + "_Cd," + b + "_Cl";
    }
    text += "\n";
    const std::size_t per_step = 2 * m_.bodies.size();
    for (std::size_t t = 0; per_step && t < forces_.size() / per_step; ++t) {
      text += integer(forces_from_ + static_cast<int>(t) + 1);
      for (std::size_t b = 0; b < m_.bodies.size(); ++b) {
        const double fx = forces_[t * per_step + 2 * b], fy = forces_[t * per_step + 2 * b + 1];
        for (double v : m_.coefficients() ? std::vector<double>{fx, fy, coefficient(fx), coefficient(fy)}
                                          : std::vector<double>{fx, fy})
          text += "," + e12(v);
      }
      text += "\n";
    }
    std::fputs(text.c_str(), forces_csv);
  }
  if (probes_csv) {
    std::string text = "step";
    for (const Probe& p : m_.probes) text += "," + p.name + "_rho," + p.name + "_ux," + p.name + "_uy";
    text += "\n";
    const std::size_t per_row = 3 * m_.probes.size();
    for (std::size_t r = 0; r < probe_steps_.size(); ++r) {
      text += integer(probe_steps_[r]);
      for (std::size_t v = 0; v < per_row; ++v) text += "," + e12(probe_values_[r * per_row + v]);
      text += "\n";
    }
    std::fputs(text.c_str(), probes_csv);
  }
}

MeasurementSummary MeasurementLog::summary() const {
  MeasurementSummary s;
  const std::size_t per_step = 2 * m_.bodies.size();
  const std::size_t steps = per_step ? forces_.size() / per_step : 0;
  for (std::size_t b = 0; b < m_.bodies.size(); ++b) {
    BodyForce f;
    f.name = m_.bodies[b];
    if (steps > 0) {
      f.fx = forces_[(steps - 1) * per_step + 2 * b];
      f.fy = forces_[(steps - 1) * per_step + 2 * b + 1];
      if (m_.coefficients()) f.cd = coefficient(f.fx), f.cl = coefficient(f.fy);
    }
    s.bodies.push_back(f);
  }
  if (!m_.coefficients()) {
    s.strouhal_note = "no Strouhal number: [forces] gives no velocity and length";
    return s;
  }
  // From the first body's lift, else from the first probe's uy.
  std::optional<std::pair<double, int>> found;
  if (steps > 0) {
    // The lift oscillates by at least 1% of the drag.
    std::vector<double> lift(steps);
    double drag = 0;
    for (std::size_t t = steps / 2; t < steps; ++t) drag += std::fabs(forces_[t * per_step]) / (steps - steps / 2);
    for (std::size_t t = 0; t < steps; ++t) lift[t] = forces_[t * per_step + 1];
    if ((found = dominant_frequency(lift, 1, drag))) s.strouhal = StrouhalEstimate{0, "lift of " + m_.bodies[0], 0};
  }
  if (!found && !probe_steps_.empty()) {
    std::vector<double> uy;
    for (std::size_t r = 0; r < probe_steps_.size(); ++r) uy.push_back(probe_values_[r * 3 * m_.probes.size() + 2]);
    // uy oscillates by at least 1% of the reference velocity.
    if ((found = dominant_frequency(uy, m_.probe_every, *m_.velocity)))
      s.strouhal = StrouhalEstimate{0, "uy at probe " + m_.probes[0].name, 0};
  }
  if (found) {
    s.strouhal->value = found->first * *m_.length / *m_.velocity;
    s.strouhal->periods = found->second;
  } else {
    s.strouhal_note = "no Strouhal number: the second half of the run holds fewer than two periods of the lift or a probe's uy";
  }
  return s;
}

}  // namespace d2q9
