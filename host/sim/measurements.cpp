#include "sim/measurements.hpp"

#include <cmath>
#include <algorithm>
#include <numeric>

#include "io/number_text.hpp"
#include "io/output.hpp"

namespace d2q9 {

namespace {
std::string g3(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
}  // namespace

namespace {
// "10%": a threshold as the messages state it, from its constant.
std::string percent(double fraction) { return g3(100 * fraction) + "%"; }
}  // namespace

Oscillation analyse_oscillation(const std::vector<double>& signal, int spacing, double scale) {
  Oscillation o;
  const std::size_t start = signal.size() / 2;
  if (signal.size() - start < 4) {
    const std::size_t samples = signal.size() - start;
    o.why = "has " + std::to_string(samples) + (samples == 1 ? " sample" : " samples") + " in the second half of the run";
    return o;
  }
  const auto half = signal.begin() + static_cast<std::ptrdiff_t>(start);
  const double mean = std::accumulate(half, signal.end(), 0.0) / static_cast<double>(signal.size() - start);
  const double floor = kStrouhalNoiseFloor * scale;
  // Rounding noise about a steady value crosses its mean too: an oscillation counts from the noise floor.
  const auto [low, high] = std::minmax_element(half, signal.end());
  if (!((*high - *low) / 2 >= floor) || *high == *low) {
    o.why = "is steady: its amplitude over the second half of the run, " + g3((*high - *low) / 2) +
            ", is below the noise floor " + g3(floor) + " (" + percent(kStrouhalNoiseFloor) + " of " + g3(scale) + ")";
    return o;
  }
  // Upward crossings, placed between samples by linear interpolation.
  std::vector<double> crossings;
  for (std::size_t i = start + 1; i < signal.size(); ++i) {
    const double a = signal[i - 1] - mean, b = signal[i] - mean;
    if (a < 0 && b >= 0) crossings.push_back(static_cast<double>(i - 1) + a / (a - b));
  }
  o.periods = crossings.empty() ? 0 : static_cast<int>(crossings.size()) - 1;
  if (o.periods < kStrouhalMinPeriods) {
    o.why = "has " + std::to_string(o.periods) + " whole period" + (o.periods == 1 ? "" : "s") +
            " in the second half of the run: too few (at least " + std::to_string(kStrouhalMinPeriods) + ")";
    return o;
  }
  o.first_crossing = crossings.front();
  o.last_crossing = crossings.back();
  // Each period's amplitude: half its swing; and its length.
  std::vector<double> amplitude, length;
  for (int k = 0; k < o.periods; ++k) {
    double lo = signal[static_cast<std::size_t>(crossings[k]) + 1], hi = lo;
    for (std::size_t i = static_cast<std::size_t>(crossings[k]) + 1; i <= static_cast<std::size_t>(crossings[k + 1]); ++i)
      lo = std::min(lo, signal[i]), hi = std::max(hi, signal[i]);
    amplitude.push_back((hi - lo) / 2);
    length.push_back((crossings[k + 1] - crossings[k]) * spacing);
  }
  const double periods = o.periods;
  o.amplitude_first = amplitude.front();
  o.amplitude_last = amplitude.back();
  o.amplitude_mean = std::accumulate(amplitude.begin(), amplitude.end(), 0.0) / periods;
  const auto [a_low, a_high] = std::minmax_element(amplitude.begin(), amplitude.end());
  const std::string over = " over the " + std::to_string(o.periods) + " periods in the second half of the run";
  if (!(o.amplitude_mean >= floor)) {
    o.why = "is below the noise: its mean amplitude" + over + ", " + g3(o.amplitude_mean) + ", is below " + g3(floor) +
            " (" + percent(kStrouhalNoiseFloor) + " of " + g3(scale) + ")";
    return o;
  }
  if (*a_high - *a_low > kStrouhalAmplitudeSpread * o.amplitude_mean) {
    const std::string trend = o.amplitude_last < o.amplitude_first   ? "decays from " + g3(o.amplitude_first) + " to " + g3(o.amplitude_last)
                              : o.amplitude_last > o.amplitude_first ? "grows from " + g3(o.amplitude_first) + " to " + g3(o.amplitude_last)
                                                                     : "varies between " + g3(*a_low) + " and " + g3(*a_high);
    o.why = "is not stationary: its amplitude " + trend + over + " (a stationary one stays within " + percent(kStrouhalAmplitudeSpread) + " of its mean)";
    return o;
  }
  const double mean_t = std::accumulate(length.begin(), length.end(), 0.0) / periods;
  double var = 0;
  for (double t : length) var += (t - mean_t) * (t - mean_t);
  const double sd_t = std::sqrt(var / (periods - 1));
  if (sd_t > kStrouhalPeriodSpread * mean_t) {
    o.why = "has no single frequency: its periods" + over + " vary by " + g3(100 * sd_t / mean_t) +
            "% (standard deviation over mean; at most " + percent(kStrouhalPeriodSpread) + ")";
    return o;
  }
  o.stationary = true;
  o.frequency = 1 / mean_t;
  o.frequency_sd = o.frequency * sd_t / mean_t;
  return o;
}

MeasurementLog::MeasurementLog(const Measurements& m, const Params& params, int first_step)
    : m_(m), params_(params), forces_from_(first_step) {}

namespace {
// Rows of a step and numbers, `per_row` numbers a row, formatted in bands.
void write_step_rows(std::FILE* csv, const std::vector<int>& steps, const std::vector<double>& values,
                     std::size_t per_row) {
  write_rows_in_bands(csv, steps.size(), 4096, [&](std::string& out, std::size_t first, std::size_t end) {
    char number[kMaxE12Chars];
    for (std::size_t r = first; r < end; ++r) {
      out.append(number, format_int(number, steps[r]));
      for (std::size_t v = 0; v < per_row; ++v) {
        out += ',';
        out.append(number, format_e12(number, values[r * per_row + v]));
      }
      out += '\n';
    }
  });
}
}  // namespace

std::vector<std::size_t> probe_cells(const Measurements& m, const Params& params) {
  std::vector<std::size_t> cells;
  for (const Probe& p : m.probes) cells.push_back(static_cast<std::size_t>(p.i) + static_cast<std::size_t>(p.j) * params.nx);
  return cells;
}

std::vector<std::string> MeasurementLog::probe_quantities() const {
  std::vector<std::string> q = {"rho", "ux", "uy"};
  if (params_.extensions.heat) q.push_back("T");
  return q;
}

double MeasurementLog::coefficient(double force) const {
  return 2.0 * force / (m_.density * *m_.velocity * *m_.velocity * *m_.length);
}

std::vector<double> MeasurementLog::coefficient_series() const {
  std::vector<double> c;
  if (!m_.coefficients()) return c;
  c.reserve(force_series().size());
  for (double f : force_series()) c.push_back(coefficient(f));
  return c;
}

void MeasurementLog::write(std::FILE* forces_csv, std::FILE* probes_csv, std::FILE* nusselt_csv) const {
  if (forces_csv) {
    std::string text = "step";
    for (const std::string& b : m_.bodies) {
      text += "," + b + "_Fx," + b + "_Fy";
      if (m_.coefficients()) text += "," + b + "_Cd," + b + "_Cl";
    }
    text += "\n";
    std::fputs(text.c_str(), forces_csv);
    const std::size_t per_step = 2 * m_.bodies.size();
    const std::size_t steps = per_step ? forces_.size() / per_step : 0;
    write_rows_in_bands(forces_csv, steps, 4096, [&](std::string& out, std::size_t first, std::size_t end) {
      char number[kMaxE12Chars];
      const auto add = [&](double v) {
        out += ',';
        out.append(number, format_e12(number, v));
      };
      for (std::size_t t = first; t < end; ++t) {
        out.append(number, format_int(number, forces_from_ + static_cast<int>(t) + 1));
        for (std::size_t b = 0; b < m_.bodies.size(); ++b) {
          const double fx = forces_[t * per_step + 2 * b], fy = forces_[t * per_step + 2 * b + 1];
          add(fx);
          add(fy);
          if (m_.coefficients()) {
            add(coefficient(fx));
            add(coefficient(fy));
          }
        }
        out += '\n';
      }
    });
  }
  if (probes_csv) {
    std::string text = "step";
    const std::vector<std::string> quantities = probe_quantities();
    for (const Probe& p : m_.probes)
      for (const std::string& q : quantities) text += "," + p.name + "_" + q;
    text += "\n";
    std::fputs(text.c_str(), probes_csv);
    // Rows of probes every step are millions of numbers: formatted in bands.
    write_step_rows(probes_csv, probe_steps_, probe_values_, quantities.size() * m_.probes.size());
  }
  if (nusselt_csv) {
    std::string text = "step";
    for (const std::string& wall : nusselt_walls_) text += "," + wall + "_Nu";
    text += "\n";
    std::fputs(text.c_str(), nusselt_csv);
    write_step_rows(nusselt_csv, nusselt_steps_, nusselt_values_, nusselt_walls_.size());
  }
}

namespace {

// The first body's lift over the steps recorded; its noise floor is 1% of the mean drag over their second half.
Oscillation lift_oscillation(const std::vector<double>& forces, std::size_t per_step, std::size_t steps) {
  std::vector<double> lift(steps);
  double drag = 0;
  for (std::size_t t = steps / 2; t < steps; ++t) drag += std::fabs(forces[t * per_step]) / static_cast<double>(steps - steps / 2);
  for (std::size_t t = 0; t < steps; ++t) lift[t] = forces[t * per_step + 1];
  return analyse_oscillation(lift, 1, drag);
}

// uy of the first probe in each row of probe values (`quantities` of each probe: rho, ux, uy, ...).
std::vector<double> first_probe_uy(const std::vector<double>& probe_values, std::size_t rows, std::size_t probes,
                                   std::size_t quantities) {
  std::vector<double> uy;
  for (std::size_t r = 0; r < rows; ++r) uy.push_back(probe_values[r * quantities * probes + 2]);
  return uy;
}

// St = f L / U of a stationary oscillation, over the steps its periods span.
StrouhalEstimate strouhal_estimate(const Oscillation& o, const Measurements& m, const std::string& source,
                                   int first_step, int last_step) {
  StrouhalEstimate st{0, 0, source, o.periods, first_step, last_step};
  st.value = o.frequency * *m.length / *m.velocity;
  st.uncertainty = o.frequency_sd * *m.length / *m.velocity;
  return st;
}

// The estimate's whole periods, else the steady window, else the last 10% of the steps.
ForceWindow force_window(const std::optional<StrouhalEstimate>& strouhal, int forces_from, int last_step,
                         int steady_window) {
  ForceWindow w;
  w.last_step = last_step;
  if (strouhal && strouhal->last_step > strouhal->first_step) {
    w.first_step = std::max(forces_from + 1, strouhal->first_step);
    w.last_step = std::min(last_step, strouhal->last_step);
    w.rule = "the " + std::to_string(strouhal->periods) + " whole periods of the Strouhal estimate";
  } else if (steady_window > 0) {
    w.first_step = std::max(forces_from + 1, last_step - steady_window + 1);
    w.rule = "the last " + std::to_string(steady_window) + " steps, judged steady";
  } else {
    w.first_step = std::max(forces_from + 1, last_step - std::max(1, (last_step + 9) / 10) + 1);
    w.rule = "the last 10% of the steps";
  }
  return w;
}

// Mean, min and max over the window of one force (`column` of each step's Fx, Fy per body).
WindowStats window_stats(const std::vector<double>& forces, std::size_t per_step, std::size_t column,
                         const ForceWindow& w, int forces_from) {
  WindowStats st;
  double sum = 0;
  st.min = st.max = forces[static_cast<std::size_t>(w.first_step - forces_from - 1) * per_step + column];
  for (int step = w.first_step; step <= w.last_step; ++step) {
    const double v = forces[static_cast<std::size_t>(step - forces_from - 1) * per_step + column];
    sum += v;
    st.min = std::min(st.min, v);
    st.max = std::max(st.max, v);
  }
  st.mean = sum / (w.last_step - w.first_step + 1);
  return st;
}

}  // namespace

MeasurementSummary MeasurementLog::summary(int steady_window) const {
  MeasurementSummary s;
  const std::size_t per_step = 2 * m_.bodies.size();
  const std::size_t steps = per_step ? forces_.size() / per_step : 0;
  const int last_step = forces_from_ + static_cast<int>(steps);
  // The Strouhal number first: its periods are the forces' window.
  if (!m_.coefficients()) {
    s.strouhal_note = "no estimate: [forces] gives no velocity and length";
  } else {
    std::string why;
    if (steps > 0) {
      const Oscillation o = lift_oscillation(forces_, per_step, steps);
      if (o.stationary)  // sample t is step forces_from_ + t + 1
        s.strouhal = strouhal_estimate(o, m_, "lift of " + m_.bodies[0],
                                       forces_from_ + static_cast<int>(std::floor(o.first_crossing)) + 2,
                                       forces_from_ + static_cast<int>(std::floor(o.last_crossing)) + 1);
      else
        why = "the lift of " + m_.bodies[0] + " " + o.why;
    }
    if (!s.strouhal && !probe_steps_.empty()) {
      // uy's noise floor is 1% of the reference velocity.
      const Oscillation o = analyse_oscillation(first_probe_uy(probe_values_, probe_steps_.size(), m_.probes.size(), probe_quantities().size()),
                                                m_.probe_every, *m_.velocity);
      const double at0 = probe_steps_[0];  // row r is step probe_steps_[0] + r * every
      if (o.stationary)
        s.strouhal = strouhal_estimate(o, m_, "uy at probe " + m_.probes[0].name,
                                       static_cast<int>(std::floor(at0 + o.first_crossing * m_.probe_every)) + 1,
                                       static_cast<int>(std::floor(at0 + o.last_crossing * m_.probe_every)));
      else
        why += (why.empty() ? "" : "; ") + ("uy at probe " + m_.probes[0].name + " " + o.why);
    }
    if (!s.strouhal) s.strouhal_note = "no estimate: " + (why.empty() ? std::string("nothing measured") : why);
  }
  s.window = force_window(s.strouhal, forces_from_, last_step, steady_window);
  const ForceWindow& w = s.window;
  for (std::size_t b = 0; b < m_.bodies.size(); ++b) {
    BodyForce f;
    f.name = m_.bodies[b];
    if (steps > 0) {
      f.fx = forces_[(steps - 1) * per_step + 2 * b];
      f.fy = forces_[(steps - 1) * per_step + 2 * b + 1];
      if (m_.coefficients()) f.cd = coefficient(f.fx), f.cl = coefficient(f.fy);
      f.fx_window = window_stats(forces_, per_step, 2 * b, w, forces_from_);
      f.fy_window = window_stats(forces_, per_step, 2 * b + 1, w, forces_from_);
      if (m_.coefficients()) {
        // C = k F with k > 0: the coefficient's mean, min and max are k times the force's.
        auto scaled = [&](const WindowStats& st) { return WindowStats{coefficient(st.mean), coefficient(st.min), coefficient(st.max)}; };
        f.cd_window = scaled(f.fx_window);
        f.cl_window = scaled(f.fy_window);
      }
    }
    s.bodies.push_back(f);
  }
  return s;
}

}  // namespace d2q9
