// What a run measures besides the flow: the force on named bodies
// (forces.csv, one row per step) and probes (probes.csv, every N steps), and
// the Strouhal number estimated from them (docs/forces-and-probes.md); with
// heat, each thermal wall's heat and Nusselt number (nusselt.csv).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "problem/problem.hpp"

namespace d2q9 {

// A quantity over a window of steps: its mean, least and greatest value;
// the amplitude is half the swing, (max - min) / 2.
struct WindowStats {
  double mean = 0, min = 0, max = 0;
  double amplitude() const { return (max - min) / 2; }
};

struct BodyForce {
  std::string name;
  double fx = 0, fy = 0;           // the last step's, lattice units
  std::optional<double> cd, cl;    // with [forces] velocity and length
  // Over the summary's window (MeasurementSummary::window).
  WindowStats fx_window, fy_window;
  std::optional<WindowStats> cd_window, cl_window;
};

// The steps the summary's forces are taken over, numbered as forces.csv
// numbers them (steps completed), both ends included, and why those.
struct ForceWindow {
  int first_step = 0, last_step = 0;
  std::string rule;  // "the last 10% of the steps", "the 6 whole periods of the Strouhal estimate", ...
};

// The thresholds of a Strouhal estimate (docs/forces-and-probes.md).
constexpr int kStrouhalMinPeriods = 4;            // whole periods in the analysed half
constexpr double kStrouhalAmplitudeSpread = 0.10;  // (max - min) of the periods' amplitudes over their mean
constexpr double kStrouhalNoiseFloor = 0.01;       // mean amplitude over the scale (drag, or U for a probe)
constexpr double kStrouhalPeriodSpread = 0.05;     // standard deviation of the periods over their mean

// An oscillation read from the second half of a signal sampled every
// `spacing` steps: its upward crossings of its mean mark whole periods.
// It is stationary, and gives a frequency, when the half holds at least
// kStrouhalMinPeriods whole periods, their amplitudes (half the swing within
// each) differ by at most kStrouhalAmplitudeSpread of their mean, that mean
// is at least kStrouhalNoiseFloor of `scale`, and the period lengths' standard
// deviation is at most kStrouhalPeriodSpread of their mean. Otherwise `why`
// says which failed, with the numbers.
struct Oscillation {
  bool stationary = false;
  double frequency = 0;     // per step: 1 / the mean period
  double frequency_sd = 0;  // the spread of the periods carried to the frequency: frequency * sd(T) / mean(T)
  int periods = 0;          // whole periods found in the analysed half
  double first_crossing = 0, last_crossing = 0;  // in samples from the signal's start (fractional)
  double amplitude_first = 0, amplitude_last = 0, amplitude_mean = 0;
  std::string why;  // when not stationary: "only 2 whole periods ...", "amplitude decays from 0.15 to 0.04 ...", ...
};
Oscillation analyse_oscillation(const std::vector<double>& signal, int spacing, double scale);

// St = f L / U from a stationary oscillation (Oscillation) of the first
// body's lift, else of the first probe's uy; its uncertainty is the spread of
// the period lengths carried to St.
struct StrouhalEstimate {
  double value = 0;
  double uncertainty = 0;  // St * sd(period) / mean(period)
  std::string source;  // "lift of <body>" or "uy at probe <name>"
  int periods = 0;     // whole periods the estimate spans
  int first_step = 0, last_step = 0;  // the steps those periods span (steps completed)
};

struct MeasurementSummary {
  std::vector<BodyForce> bodies;
  ForceWindow window;  // of the bodies' *_window values
  std::optional<StrouhalEstimate> strouhal;
  std::string strouhal_note;  // why there is none, when there is none: "no estimate: ..."
};

// The heat a thermal wall exchanges with the fluid, and its Nusselt number
// (docs/heat.md#nusselt-numbers; sim/wall_heat.hpp finds them).
struct WallHeat {
  std::string name;  // HeatModel::thermal_wall_names, or "wall N"
  int number = 0;    // the wall number its cells carry
  ThermalWall wall;
  int faces = 0;           // links between its cells and fluid cells (D2Q5: cell faces)
  double heat_in = 0.0;    // heat into the fluid per step, over all its faces (negative: out of it)
  double nusselt = 0.0;    // heat_in / faces * heat_length / (diffusivity * temperature_difference)
};

// The probes' cells (whole-grid indices), in the problem's order.
std::vector<std::size_t> probe_cells(const Measurements& m, const Params& params);

class MeasurementRecorder;

// What a run has measured so far, read-only: Simulation::measurements().
// The library's step loop fills it through MeasurementRecorder
// (sim/measurement_recorder.hpp, never installed), so a user's program can
// read the log but not rewrite the run's record.
class MeasurementLog {
 public:
  bool forces() const { return !m_.bodies.empty(); }
  bool probes() const { return !m_.probes.empty(); }
  int probe_every() const { return m_.probe_every; }
  bool nusselt() const { return m_.nusselt_every > 0; }
  int nusselt_every() const { return m_.nusselt_every; }

  // With [heat] nusselt_every: the walls nusselt.csv reports on
  // (heated_walls), and each sample's step and their Nusselt numbers then.
  const std::vector<std::string>& nusselt_walls() const { return nusselt_walls_; }
  const std::vector<int>& nusselt_steps() const { return nusselt_steps_; }
  const std::vector<double>& nusselt_series() const { return nusselt_values_; }  // per row: each wall's

  // forces.csv, probes.csv and nusselt.csv (each only when measured); a
  // row's step is the number of steps completed, as in probes.csv.
  void write(std::FILE* forces_csv, std::FILE* probes_csv, std::FILE* nusselt_csv = nullptr) const;
  // The forces over the window of whole periods when there is a Strouhal
  // estimate, else over the last `steady_window` steps when that is > 0 (a
  // run stopped as steady), else over the last 10% of the steps.
  MeasurementSummary summary(int steady_window = 0) const;

  // The forces of every step recorded: per step Fx, Fy of each body; the
  // first is step forces_from() + 1.
  const std::vector<double>& force_series() const { return forces_; }
  int forces_from() const { return forces_from_; }
  const std::vector<std::string>& bodies() const { return m_.bodies; }

  // The probes' samples, as probes.csv holds them but unrounded: the step
  // (steps completed) of each row, and per row the probe_quantities() of
  // each probe of probes(), in the problem's order.
  std::vector<std::string> probe_quantities() const;  // rho, ux, uy, and with heat T
  const std::vector<int>& probe_steps() const { return probe_steps_; }
  const std::vector<double>& probe_series() const { return probe_values_; }
  const std::vector<Probe>& probe_list() const { return m_.probes; }
  // force_series() as coefficients, C = 2 F / (density velocity^2 length),
  // each as forces.csv's Cd and Cl; empty where [forces] gives no velocity
  // and length.
  std::vector<double> coefficient_series() const;
  bool coefficients() const { return m_.coefficients(); }

 private:
  friend class MeasurementRecorder;  // the writing side
  // Empty; its forces start after `first_step` steps.
  MeasurementLog(const Measurements& m, const Params& params, int first_step);
  double coefficient(double force) const;
  Measurements m_;
  Params params_;
  int forces_from_;             // steps completed before forces_'s first step
  std::vector<double> forces_;  // per step: Fx, Fy of each body
  std::vector<int> probe_steps_;
  std::vector<double> probe_values_;  // per row: probe_quantities() of each probe
  std::vector<std::string> nusselt_walls_;
  std::vector<int> nusselt_steps_;
  std::vector<double> nusselt_values_;  // per row: each of nusselt_walls_'s
};

}  // namespace d2q9
