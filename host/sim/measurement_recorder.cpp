#include "sim/measurement_recorder.hpp"

#include <stdexcept>

#include "io/output.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

namespace {
// The series' names in a checkpoint (io/checkpoint.hpp).
constexpr const char* kForcesSeries = "forces";
constexpr const char* kProbeStepsSeries = "probe_steps";
constexpr const char* kProbeValuesSeries = "probe_values";
constexpr const char* kNusseltStepsSeries = "nusselt_steps";
constexpr const char* kNusseltValuesSeries = "nusselt_values";
}  // namespace

MeasurementRecorder::MeasurementRecorder(const Measurements& m, const Params& params, int first_step,
                                         std::vector<std::string> nusselt_walls)
    : log_(m, params, first_step), first_step_(first_step), whole_history_(first_step == 0) {
  log_.nusselt_walls_ = std::move(nusselt_walls);
}

void MeasurementRecorder::add_forces(const std::vector<double>& forces) {
  log_.forces_.insert(log_.forces_.end(), forces.begin(), forces.end());
}

void MeasurementRecorder::add_nusselt(int step, const std::vector<double>& nusselt) {
  if (nusselt.size() != log_.nusselt_walls_.size())
    throw std::logic_error("add_nusselt: " + std::to_string(nusselt.size()) + " numbers for " +
                           std::to_string(log_.nusselt_walls_.size()) + " walls");
  log_.nusselt_steps_.push_back(step);
  log_.nusselt_values_.insert(log_.nusselt_values_.end(), nusselt.begin(), nusselt.end());
}

void MeasurementRecorder::add_probe_cells(int step, const double* f) {
  const Params& params = log_.params_;
  log_.probe_steps_.push_back(step);
  const int planes = params.extensions.planes();
  for (std::size_t c = 0; c < log_.m_.probes.size(); ++c) {
    const double* cell = f + planes * c;
    const CellState s = fluid_cell_state(params, cell, params.extensions.heat ? cell + kSpeeds : nullptr);
    log_.probe_values_.insert(log_.probe_values_.end(), {3.0 * s.pressure, s.ux, s.uy});
    if (params.extensions.heat) log_.probe_values_.push_back(s.temperature);
  }
}

MeasurementRecorder::Series MeasurementRecorder::saved_series() const {
  Series s;
  if (!whole_history_) return s;  // one that does not start at step 0 is not one to continue
  if (log_.forces()) s.emplace_back(kForcesSeries, log_.forces_);
  if (log_.probes()) {
    s.emplace_back(kProbeStepsSeries, std::vector<double>(log_.probe_steps_.begin(), log_.probe_steps_.end()));
    s.emplace_back(kProbeValuesSeries, log_.probe_values_);
  }
  if (log_.nusselt()) {
    s.emplace_back(kNusseltStepsSeries, std::vector<double>(log_.nusselt_steps_.begin(), log_.nusselt_steps_.end()));
    s.emplace_back(kNusseltValuesSeries, log_.nusselt_values_);
  }
  return s;
}

void MeasurementRecorder::restore(const Series& series, const std::string& checkpoint) {
  const std::vector<double>* forces = nullptr;
  const std::vector<double>* steps = nullptr;
  const std::vector<double>* values = nullptr;
  const std::vector<double>* nusselt_steps = nullptr;
  const std::vector<double>* nusselt_values = nullptr;
  for (const auto& [name, v] : series) {
    if (name == kForcesSeries) forces = &v;
    if (name == kProbeStepsSeries) steps = &v;
    if (name == kProbeValuesSeries) values = &v;
    if (name == kNusseltStepsSeries) nusselt_steps = &v;
    if (name == kNusseltValuesSeries) nusselt_values = &v;
  }
  auto mismatch = [&](const char* what) {
    return InputError(checkpoint + ": checkpoint does not match the run: its " + what + " series does not fit " +
                      std::to_string(first_step_) + " steps of this problem's measurements");
  };
  const Measurements& m = log_.m_;
  if (forces && log_.forces()) {
    if (forces->size() != 2 * m.bodies.size() * static_cast<std::size_t>(first_step_)) throw mismatch(kForcesSeries);
    log_.forces_ = *forces;
    log_.forces_from_ = 0;
  }
  if (steps && values && log_.probes()) {
    if (values->size() != log_.probe_quantities().size() * m.probes.size() * steps->size())
      throw mismatch(kProbeValuesSeries);
    log_.probe_steps_.assign(steps->begin(), steps->end());
    log_.probe_values_ = *values;
  }
  if (nusselt_steps && nusselt_values && log_.nusselt()) {
    if (nusselt_values->size() != log_.nusselt_walls_.size() * nusselt_steps->size())
      throw mismatch(kNusseltValuesSeries);
    log_.nusselt_steps_.assign(nusselt_steps->begin(), nusselt_steps->end());
    log_.nusselt_values_ = *nusselt_values;
  }
  if (!series.empty() && (log_.forces_from_ == 0 || !log_.forces())) whole_history_ = true;
}

}  // namespace d2q9
