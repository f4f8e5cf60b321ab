// What a run measures besides the flow: the force on named bodies
// (forces.csv, one row per step) and probes (probes.csv, every N steps), and
// the Strouhal number estimated from them (docs/forces-and-probes.md).
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "device/solver.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

struct BodyForce {
  std::string name;
  double fx = 0, fy = 0;           // the last step's, lattice units
  std::optional<double> cd, cl;    // with [forces] velocity and length
};

// St = f L / U from the dominant period of a signal: the mean spacing of the
// upward crossings of its mean, over the second half of the series, once
// that half holds at least two whole periods.
struct StrouhalEstimate {
  double value = 0;
  std::string source;  // "lift of <body>" or "uy at probe <name>"
  int periods = 0;     // whole periods the estimate spans
};

struct MeasurementSummary {
  std::vector<BodyForce> bodies;
  std::optional<StrouhalEstimate> strouhal;
  std::string strouhal_note;  // why there is none, when there is none
};

// Frequency (per step) of `signal` sampled every `spacing` steps, and the
// whole periods it spans; nullopt with fewer than two whole periods in its
// second half, or when that half varies by less than 1% of `scale`.
std::optional<std::pair<double, int>> dominant_frequency(const std::vector<double>& signal, int spacing, double scale);

class MeasurementLog {
 public:
  MeasurementLog(const Measurements& m, const Params& params, int first_step);
  bool forces() const { return !m_.bodies.empty(); }
  bool probes() const { return !m_.probes.empty(); }
  int probe_every() const { return m_.probe_every; }

  // Fx, Fy per body of the steps run since the last call (Solver::take_body_forces).
  void add_forces(const std::vector<double>& forces);
  // The probes after `step` steps; collective across ranks (every rank calls).
  void add_probes(int step, Solver& solver);

  // What a checkpoint keeps of the log, by name, and takes back on a
  // restart: the forces of every step so far and the probes' rows, so the
  // files and the Strouhal estimate cover the whole run. A checkpoint
  // without them (an older version) leaves the log starting at first_step.
  using Series = std::vector<std::pair<std::string, std::vector<double>>>;
  Series saved_series() const;
  // InputError naming `checkpoint` when its series do not fit this run.
  void restore(const Series& series, const std::string& checkpoint);

  // forces.csv and probes.csv (each only when measured); a row's step is
  // the number of steps completed, as in probes.csv.
  void write(std::FILE* forces_csv, std::FILE* probes_csv) const;
  MeasurementSummary summary() const;

 private:
  double coefficient(double force) const;
  Measurements m_;
  Params params_;
  int first_step_;
  int forces_from_ = 0;         // steps completed before forces_'s first step
  bool whole_history_ = false;  // the series hold every step from step 0
  std::vector<double> forces_;  // per step: Fx, Fy of each body
  std::vector<int> probe_steps_;
  std::vector<double> probe_values_;  // per row: rho, ux, uy of each probe
};

}  // namespace d2q9
