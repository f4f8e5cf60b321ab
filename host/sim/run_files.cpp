#include "sim/run_files.hpp"

#include "io/output.hpp"
#include "io/output_guard.hpp"
#include "io/vtk_output.hpp"
#include "problem/stability.hpp"

namespace d2q9 {

void RunFiles::write_outputs(const std::string& dir, std::optional<FinalStateFormat> asked) const {
  const MeasurementLog& log = measurements_.log();
  const FinalStateFormat format = final_state_format(problem_, asked);
  make_output_dir(dir);
  std::vector<std::string> paths = {dir + "/" + kAvVelsFile};
  if (writes_text(format)) paths.push_back(dir + "/" + kFinalStateFile);
  if (writes_vti(format)) paths.push_back(dir + "/" + kFinalStateVtiFile);
  const std::size_t measured = paths.size();
  if (log.forces()) paths.push_back(dir + "/" + kForcesFile);
  if (log.probes()) paths.push_back(dir + "/" + kProbesFile);
  if (log.nusselt()) paths.push_back(dir + "/" + kNusseltFile);
  check_output_targets(paths, problem_.read_files);
  const std::vector<double> f = solver_.distributions();
  check_distributions(problem_.params, problem_.mask, f, av_vels_.empty() ? 0 : av_vels_.size() - 1);
  OutputSet outputs;
  std::size_t next = 0;
  write_av_vels(outputs.add(paths[next++]), av_vels_);
  if (writes_text(format)) write_final_state(outputs.add(paths[next++]), problem_.params, problem_.mask, f);
  if (writes_vti(format))
    write_vti(outputs.add(paths[next++]), problem_.mask, flow_fields(problem_.params, problem_.mask, f),
              vti_real_for(solver_.precision()));
  next = measured;
  std::FILE* forces = log.forces() ? outputs.add(paths[next++]) : nullptr;
  std::FILE* probes = log.probes() ? outputs.add(paths[next++]) : nullptr;
  std::FILE* nusselt = log.nusselt() ? outputs.add(paths[next++]) : nullptr;
  log.write(forces, probes, nusselt);
  outputs.commit();
  tidy_output_dir(dir, paths, problem_.read_files);
}

Checkpoint RunFiles::checkpoint() const {
  Checkpoint c;
  c.params = problem_.params;
  c.mask_hash = obstacle_mask_hash(problem_.mask);
  c.precision = solver_.precision();
  c.av_vels = av_vels_;
  c.series = measurements_.saved_series();
  c.f = solver_.distributions();
  c.thermal_codes = thermal_codes(c.precision, problem_.params);
  return c;
}

void RunFiles::check_checkpoint_target(const std::string& path, bool overwrite) const {
  const Precision precision = solver_.precision();
  d2q9::check_checkpoint_target(
      path, problem_.read_files, overwrite,
      [&](const std::string& p) { return holds_checkpoint_of(p, problem_.params, problem_.mask, precision); }, "",
      "set overwrite");
}

void RunFiles::save_checkpoint(const std::string& path, const RunRecord& run, bool overwrite) const {
  check_checkpoint_target(path, overwrite);
  Checkpoint c = checkpoint();
  c.run = run;
  // Never replace a good checkpoint with a broken state.
  check_distributions(problem_.params, problem_.mask, c.f, c.av_vels.empty() ? 0 : c.av_vels.size() - 1);
  write_checkpoint(path, c);
}

}  // namespace d2q9
