#include "app/summary.hpp"

#include <nlohmann/json.hpp>

#include "io/output.hpp"

namespace d2q9 {

double RunSummary::reynolds_number() const { return d2q9::reynolds_number(params, final_average_velocity); }

double RunSummary::mlups() const {
  const int steps = params.max_iters - first_step;
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
  if (s.params.extensions.collision != CollisionOperator::Bgk)
    std::fprintf(out, "Collision:\t\t\t%s\n", to_string(s.params.extensions.collision));
  if (!s.measured) return;
  for (const BodyForce& b : s.measured->bodies) {
    std::fprintf(out, "Force on %s:\t\t%.6E, %.6E (last step)", b.name.c_str(), b.fx, b.fy);
    if (b.cd) std::fprintf(out, "; Cd %.6f, Cl %.6f", *b.cd, *b.cl);
    std::fprintf(out, "\n");
  }
  if (s.measured->strouhal)
    std::fprintf(out, "Strouhal number:\t\t%.4f (from the %s, %d periods)\n", s.measured->strouhal->value,
                 s.measured->strouhal->source.c_str(), s.measured->strouhal->periods);
}

std::string summary_json(const RunSummary& s) {
  const Params& p = s.params;
  nlohmann::ordered_json j;
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
  const SetupTimes& t = s.times.setup;
  j["times"] = {{"inputs_s", s.times.inputs_s},
                {"setup_s", s.times.setup_s},
                {"context_s", t.context_s},
                {"compile_s", t.compile_s},
                {"kernels_cached", t.kernels_cached},
                {"upload_s", t.upload_s},
                {"search_s", s.times.search_s},
                {"loop_s", s.times.loop_s},
                {"outputs_s", s.times.outputs_s},
                {"wall_s", s.times.wall_s}};
  j["elapsed_s"] = s.elapsed_s;
  j["user_cpu_s"] = s.user_cpu_s;
  j["system_cpu_s"] = s.system_cpu_s;
  j["mlups"] = s.mlups();
  j["reynolds_number"] = s.reynolds_number();
  j["final_average_velocity"] = s.final_average_velocity;
  j["collision"] = to_string(p.extensions.collision);
  if (p.extensions.collision == CollisionOperator::Trt) j["trt_magic"] = p.extensions.trt_magic;
  if (s.measured) {
    nlohmann::ordered_json bodies = nlohmann::ordered_json::object();
    for (const BodyForce& b : s.measured->bodies) {
      nlohmann::ordered_json body = {{"Fx", b.fx}, {"Fy", b.fy}};
      if (b.cd) body["Cd"] = *b.cd, body["Cl"] = *b.cl;
      bodies[b.name] = body;
    }
    j["forces"] = bodies;
    if (s.measured->strouhal)
      j["strouhal"] = {{"value", s.measured->strouhal->value},
                       {"from", s.measured->strouhal->source},
                       {"periods", s.measured->strouhal->periods}};
    else
      j["strouhal"] = {{"value", nullptr}, {"note", s.measured->strouhal_note}};
  }
  return j.dump(2) + "\n";
}

}  // namespace d2q9
