#include "app/summary.hpp"

#include <nlohmann/json.hpp>

#include "core/shortest_text.hpp"
#include "io/output.hpp"

namespace d2q9 {

double RunSummary::reynolds_number() const { return d2q9::reynolds_number(params, final_average_velocity); }

double RunSummary::mlups() const {
  const int steps = (steps_run > 0 ? steps_run : params.max_iters) - first_step;
  return elapsed_s > 0 ? static_cast<double>(params.cells()) * steps / elapsed_s / 1e6 : 0.0;
}

void print_summary(std::FILE* out, const RunSummary& s) {
  std::fprintf(out, "==done==\n");
  std::fprintf(out, "Reynolds number:\t\t%.12E\n", s.reynolds_number());
  std::fprintf(out, "Elapsed time:\t\t\t%.6lf (s)\n", s.elapsed_s);
  std::fprintf(out, "Elapsed user CPU time:\t\t%.6lf (s)\n", s.user_cpu_s);
  std::fprintf(out, "Elapsed system CPU time:\t%.6lf (s)\n", s.system_cpu_s);
  std::string variant = s.kernel_variant.empty() ? "" : ", " + s.kernel_variant;
  if (s.block_steps > 0)
    variant += " (" + std::to_string(s.block_steps) + " steps per launch, tile " + s.tile.text() + ")";
  std::fprintf(out, "Device:\t\t\t\t%s (%s, %s, local size %dx%d%s)\n", s.device.c_str(), s.backend.c_str(),
               to_string(s.precision), s.local_size.x, s.local_size.y, variant.c_str());
  if (!s.launch_reason.empty()) std::fprintf(out, "Launch:\t\t\t\t%s\n", s.launch_reason.c_str());
  std::fprintf(out, "MLUPS:\t\t\t\t%.2f\n", s.mlups());
  if (!s.decomposition.empty()) std::fprintf(out, "MPI ranks:\t\t\t%s\n", s.decomposition.c_str());
  const Extensions& x = s.params.extensions;
  if (x.collision != CollisionOperator::Bgk || x.subgrid())
    std::fprintf(out, "Collision:\t\t\t%s%s\n", to_string(x.collision),
                 x.subgrid() ? (", Smagorinsky C = " + shortest_text(x.smagorinsky)).c_str() : "");
  if (x.heat)
    std::fprintf(out, "Heat:\t\t\t\tdiffusivity %s, %s on the temperature lattice\n", shortest_text(x.diffusivity).c_str(),
                 to_string(x.thermal_collision));
  for (const WallHeat& w : s.heat_walls)
    std::fprintf(out, "Nusselt number (%s):\t%.6f (heat in %.6E a step over %d faces)\n", w.name.c_str(), w.nusselt,
                 w.heat_in, w.faces);
  if (s.steady) {
    std::fprintf(out, "Steady state:\t\t\t%s\n",
                 steady_text(s.steady->rule, s.steady->check, s.steps_run).c_str());
    if (s.steps_run < s.params.max_iters)
      std::fprintf(out, "Steps run:\t\t\t%d of %d (av_vels.dat has %d lines)\n", s.steps_run, s.params.max_iters,
                   s.steps_run);
  }
  if (!s.measured) return;
  const ForceWindow& w = s.measured->window;
  if (!s.measured->bodies.empty() && w.last_step >= w.first_step && w.first_step > 0)
    std::fprintf(out, "Forces over:\t\t\tsteps %d-%d (%s): mean (min, max, amplitude)\n", w.first_step, w.last_step,
                 w.rule.c_str());
  for (const BodyForce& b : s.measured->bodies) {
    auto stats = [&](const char* format, const WindowStats& st) {
      std::string text;
      char buf[160];
      std::snprintf(buf, sizeof buf, format, st.mean, st.min, st.max, st.amplitude());
      return std::string(buf);
    };
    std::fprintf(out, "Force on %s:\t\tFx %s; Fy %s\n", b.name.c_str(), stats("%.6E (%.6E, %.6E, %.3E)", b.fx_window).c_str(),
                 stats("%.6E (%.6E, %.6E, %.3E)", b.fy_window).c_str());
    if (b.cd_window)
      std::fprintf(out, "Cd, Cl of %s:\t\tCd %s; Cl %s\n", b.name.c_str(),
                   stats("%.6f (%.6f, %.6f, %.6f)", *b.cd_window).c_str(), stats("%.6f (%.6f, %.6f, %.6f)", *b.cl_window).c_str());
  }
  if (s.measured->strouhal)
    std::fprintf(out, "Strouhal number:\t\t%.4f +/- %.4f (from the %s, %d periods, steps %d-%d)\n",
                 s.measured->strouhal->value, s.measured->strouhal->uncertainty, s.measured->strouhal->source.c_str(),
                 s.measured->strouhal->periods, s.measured->strouhal->first_step, s.measured->strouhal->last_step);
  else if (!s.measured->bodies.empty() || !s.measured->strouhal_note.empty())
    std::fprintf(out, "Strouhal number:\t\t%s\n", s.measured->strouhal_note.c_str());
}

namespace {

using Json = nlohmann::ordered_json;

Json times_json(const RunSummary& s) {
  const SetupTimes& t = s.times.setup;
  Json times = {{"inputs_s", s.times.inputs_s},
                {"setup_s", s.times.setup_s},
                {"context_s", t.context_s},
                {"compile_s", t.compile_s},
                {"kernels_cached", t.kernels_cached},
                {"upload_s", t.upload_s},
                {"search_s", s.times.search_s},
                {"loop_s", s.times.loop_s},
                {"final_state_s", s.times.final_state_s},
                {"outputs_s", s.times.outputs_s},
                {"wall_s", s.times.wall_s}};
  // Where the loop went, each part named; `other_s` is what none of them
  // accounts for (the loop's own bookkeeping), so that the parts sum to loop_s.
  const RunTimes::Loop& l = s.times.loop;
  const double named = l.steps_s + l.measurements_s + s.times.search_s + l.checkpoints_s + l.snapshots_s +
                       l.steady_checks_s + l.progress_s;
  times["loop"] = {{"steps_s", l.steps_s},
                   {"measurements_s", l.measurements_s},
                   {"search_s", s.times.search_s},
                   {"checkpoints_s", l.checkpoints_s},
                   {"snapshots_s", l.snapshots_s},
                   {"steady_checks_s", l.steady_checks_s},
                   {"progress_s", l.progress_s},
                   {"other_s", s.times.loop_s - named}};
  if (s.halos.exchanges > 0)
    times["halos"] = {{"exchanges", s.halos.exchanges},
                      {"read_wait_s", s.halos.read_wait_s},
                      {"copies_s", s.halos.copies_s},
                      {"neighbour_wait_s", s.halos.neighbour_wait_s},
                      {"write_queue_s", s.halos.write_queue_s}};
  return times;
}

Json steady_json(const SteadyOutcome& st, int steps_run, int max_iters) {
  Json steady = {{"tolerance", st.rule.tolerance},
                 {"window_steps", st.rule.window},
                 {"check_every", st.rule.every},
                 {"steady", st.check.steady},
                 {"stopped_early", st.check.steady && steps_run < max_iters}};
  if (st.check.checked)
    steady["change"] = st.check.change, steady["changed_most"] = st.check.quantity;
  else
    steady["change"] = nullptr;
  steady["message"] = steady_text(st.rule, st.check, steps_run > 0 ? steps_run : max_iters);
  return steady;
}

Json window_stats_json(const WindowStats& st) {
  return Json{{"mean", st.mean}, {"min", st.min}, {"max", st.max}, {"amplitude", st.amplitude()}};
}

// Fx, Fy, Cd, Cl: the last step's, as forces.csv's last row; "window": over the summary's window.
Json body_json(const BodyForce& b) {
  Json body = {{"Fx", b.fx}, {"Fy", b.fy}};
  if (b.cd) body["Cd"] = *b.cd, body["Cl"] = *b.cl;
  Json over = {{"Fx", window_stats_json(b.fx_window)}, {"Fy", window_stats_json(b.fy_window)}};
  if (b.cd_window) over["Cd"] = window_stats_json(*b.cd_window), over["Cl"] = window_stats_json(*b.cl_window);
  body["window"] = over;
  return body;
}

// Adds "forces", "forces_window" (where bodies are measured) and "strouhal" to j.
void add_measurements(Json& j, const MeasurementSummary& m) {
  Json bodies = Json::object();
  for (const BodyForce& b : m.bodies) bodies[b.name] = body_json(b);
  j["forces"] = bodies;
  const ForceWindow& w = m.window;
  if (!m.bodies.empty())
    j["forces_window"] = {{"first_step", w.first_step}, {"last_step", w.last_step}, {"rule", w.rule}};
  if (m.strouhal)
    j["strouhal"] = {{"value", m.strouhal->value},
                     {"uncertainty", m.strouhal->uncertainty},
                     {"from", m.strouhal->source},
                     {"periods", m.strouhal->periods},
                     {"first_step", m.strouhal->first_step},
                     {"last_step", m.strouhal->last_step}};
  else
    j["strouhal"] = {{"value", nullptr}, {"note", m.strouhal_note}};
}

// "heat": the temperature lattice's settings and each thermal wall's Nusselt number.
void add_heat(Json& j, const RunSummary& s) {
  const Extensions& x = s.params.extensions;
  Json walls = Json::object();
  for (const WallHeat& w : s.heat_walls)
    walls[w.name] = {{"heat_in", w.heat_in}, {"faces", w.faces}, {"nusselt", w.nusselt},
                     {"kind", w.wall.kind == ThermalWall::Kind::Temperature ? "temperature" : "heat_flux"},
                     {"value", w.wall.value}};
  j["heat"] = {{"diffusivity", x.diffusivity},
               {"thermal_collision", to_string(x.thermal_collision)},
               {"buoyancy", {x.buoyancy.x, x.buoyancy.y}},
               {"reference_temperature", x.reference_temperature},
               {"length", x.heat_length},
               {"temperature_difference", x.temperature_difference},
               {"walls", walls}};
}

}  // namespace

std::string summary_json(const RunSummary& s) {
  const Params& p = s.params;
  Json j;
  j["program"] = {{"name", "d2q9-bgk"}, {"version", s.version}, {"commit", s.commit}};
  j["param_file"] = s.param_file;
  j["obstacle_file"] = s.obstacle_file;
  j["params"] = {{"nx", p.nx},           {"ny", p.ny},         {"max_iters", p.max_iters},
                 {"reynolds_dim", p.reynolds_dim}, {"density", p.density}, {"accel", p.accel},
                 {"omega", p.omega}};
  j["fluid_cells"] = s.fluid_cells;
  j["device"] = s.device;
  j["backend"] = s.backend;
  j["precision"] = to_string(s.precision);
  j["local_size"] = {s.local_size.x, s.local_size.y};
  j["kernel_variant"] = s.kernel_variant;
  if (s.block_steps > 0) {
    j["block_steps"] = s.block_steps;
    j["tile"] = {s.tile.x, s.tile.y};
  }
  j["launch_reason"] = s.launch_reason;
  if (!s.decomposition.empty()) j["mpi_ranks"] = s.decomposition;
  j["setup_s"] = s.times.setup_s;
  j["times"] = times_json(s);
  j["elapsed_s"] = s.elapsed_s;
  j["user_cpu_s"] = s.user_cpu_s;
  j["system_cpu_s"] = s.system_cpu_s;
  j["mlups"] = s.mlups();
  j["reynolds_number"] = s.reynolds_number();
  j["final_average_velocity"] = s.final_average_velocity;
  j["steps_run"] = s.steps_run > 0 ? s.steps_run : p.max_iters;  // av_vels.dat's lines
  if (s.steady) j["until_steady"] = steady_json(*s.steady, s.steps_run, p.max_iters);
  j["collision"] = to_string(p.extensions.collision);
  if (p.extensions.collision == CollisionOperator::Trt) j["trt_magic"] = p.extensions.trt_magic;
  j["smagorinsky"] = p.extensions.smagorinsky;
  if (s.measured) add_measurements(j, *s.measured);
  if (p.extensions.heat) add_heat(j, s);
  return j.dump(2) + "\n";
}

}  // namespace d2q9
