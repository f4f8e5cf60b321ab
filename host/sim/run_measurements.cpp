#include "sim/run_measurements.hpp"

#include <algorithm>

namespace d2q9 {

RunMeasurements::RunMeasurements(const Problem& problem, Ranks* ranks)
    : problem_(problem), ranks_(ranks), recorder_(recorder_from(0)) {}

MeasurementRecorder RunMeasurements::recorder_from(int first_step) const {
  std::vector<std::string> walls;
  if (problem_.measure.nusselt_every > 0)
    for (const WallHeat& w : heated_walls(problem_.params, problem_.mask)) walls.push_back(w.name);
  return MeasurementRecorder(problem_.measure, problem_.params, first_step, std::move(walls));
}

int RunMeasurements::probe_every() const {
  return problem_.measure.probes.empty() ? 0 : problem_.measure.probe_every;
}

int RunMeasurements::nusselt_every() const { return log().nusselt() ? log().nusselt_every() : 0; }

void RunMeasurements::sample_probes_on(Solver& solver) const {
  if (problem_.measure.probes.empty()) return;
  solver.sample_cells_every(probe_cells(problem_.measure, problem_.params), problem_.measure.probe_every);
}

int RunMeasurements::next_stop(const Solver& solver, int done, int end) const {
  const auto next_multiple = [&](int of) { return of > 0 ? std::min(end, (done / of + 1) * of) : end; };
  return std::min(solver.samples_cells() ? end : next_multiple(probe_every()), next_multiple(nusselt_every()));
}

void RunMeasurements::take(Solver& solver, int done) {
  recorder_.add_forces(solver.take_body_forces());  // a candidate's too: its steps are the run's
  const Measurements& measure = problem_.measure;
  if (solver.samples_cells()) {
    const Solver::CellSamples samples = solver.take_cell_samples();  // collective across ranks
    const std::size_t per_sample = solver.values_per_cell() * measure.probes.size();
    for (std::size_t r = 0; r < samples.steps.size() && !samples.values.empty(); ++r)
      recorder_.add_probe_cells(samples.steps[r], samples.values.data() + r * per_sample);
  } else if (probe_every() > 0 && done % probe_every() == 0) {
    // Collective across ranks (every rank reads); the values on rank 0 alone.
    const std::vector<double> f = solver.cell_distributions(probe_cells(measure, problem_.params));
    if (!f.empty()) recorder_.add_probe_cells(done, f.data());
  }
  if (nusselt_every() > 0 && done % nusselt_every() == 0) add_nusselt_row(solver, done);
}

void RunMeasurements::add_nusselt_row(Solver& solver, int done) {
  const std::vector<WallHeat> walls = heat_at_walls(solver);
  if (ranks_ && !ranks_->is_root()) return;  // rank 0 keeps the log
  std::vector<double> nusselt;
  for (const WallHeat& w : walls) nusselt.push_back(w.nusselt);
  recorder_.add_nusselt(done, nusselt);
}

std::vector<WallHeat> RunMeasurements::heat_at_walls(Solver& solver) {
  const Params& params = problem_.params;
  if (!params.extensions.heat) return {};
  if (ranks_ && ranks_->size() > 1) return wall_heat(*ranks_, params, problem_.mask, own_rows(solver, params));
  if (!heat_cells_) heat_cells_ = std::make_unique<WallHeatCells>(params, problem_.mask);
  return heat_cells_->heat(solver.cell_distributions(heat_cells_->cells()));
}

void RunMeasurements::resume(int first_step, const MeasurementRecorder::Series& series, const std::string& path) {
  recorder_ = recorder_from(first_step);
  recorder_.restore(series, path);
}

StateRows own_rows(Solver& solver, const Params& params) {
  if (auto* rows = dynamic_cast<HoldsRows*>(&solver)) return rows->own_rows();
  return {0, params.ny, solver.distributions()};
}

}  // namespace d2q9
