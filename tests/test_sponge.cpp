// Absorbing layers (sponges) beside the inlet and the outlet: compiled in
// only when a problem asks, the kernels' bits are the reference's in every
// variant, and sound that rings between a velocity inlet and a pressure
// outlet without them leaves the domain with them.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backend_config.hpp"
#include "device/kernel_source.hpp"
#include "helpers.hpp"
#include "problem/problem_file.hpp"
#include "reference/reference_solver.hpp"
#include "solver_runs.hpp"
#include "variant_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::problem;
using d2q9::test::RunOutput;

namespace {

// A body in open flow: periodic bottom and top, a ramped uniform inlet with
// a cross-flow component, TRT, a curved and measured cylinder, both sponges.
const char* const kOpenFlow = R"(
[grid]
nx = 40
ny = 14
[flow]
steps = 120
viscosity = 0.03
collision = "trt"
inlet_ramp = 40
[edges]
left = { inlet_velocity = [0.06, 0.004], sponge = 5 }
right = { outlet_density = 1.01, sponge = 9 }
[[obstacle]]
name = "cylinder"
boundary = "interpolated"
circle = { center = [14.3, 6.6], radius = 3.1 }
[forces]
velocity = 0.06
length = 6.2
)";

// A channel between walls: the sponge's far field is the parabolic profile.
const char* const kChannel = R"(
[grid]
nx = 36
ny = 12
[flow]
steps = 120
viscosity = 0.04
[edges]
left = { inlet_velocity = { parabolic = 0.08 } }
right = { outlet_density = 1.0, sponge = 8 }
bottom = "wall"
top = "wall"
[[obstacle]]
rectangle = { from = [10, 4], to = [12, 6] }
)";

bool has_define(const std::vector<std::string>& defines, const std::string& name) {
  return std::any_of(defines.begin(), defines.end(),
                     [&](const std::string& d) { return d.compare(0, name.size() + 1, name + "=") == 0; });
}

// The density of cell (i, j) from a structure-of-arrays state.
double density(const std::vector<double>& f, const Params& p, int i, int j) {
  double rho = 0;
  for (int k = 0; k < kSpeeds; ++k) rho += f[k * p.cells() + i + static_cast<std::size_t>(j) * p.nx];
  return rho;
}

// A 1D open channel started impulsively: the inlet's sudden velocity sends a
// pressure wave that a velocity inlet and a pressure outlet reflect back and
// forth (the quarter-wave resonance, period 4 nx / c_s = 1,109 steps). The
// swing (max - min) of the density mid-channel over steps [from, to).
double density_swing(int sponge, int from, int to) {
  const std::string sponge_key = sponge > 0 ? ", sponge = " + std::to_string(sponge) : "";
  const Problem pr = problem(R"(
[grid]
nx = 160
ny = 2
[flow]
steps = 3000
viscosity = 0.01
[edges]
left = { inlet_velocity = [0.02, 0.0] }
right = { outlet_density = 1.0)" + sponge_key + R"( }
)");
  ReferenceSolver<double> solver(pr.params, pr.mask);
  std::vector<double> av_vels;
  double lo = 1e300, hi = -1e300;
  for (int t = 0; t < to; ++t) {
    solver.run(1, av_vels);
    if (t < from) continue;
    const double rho = density(solver.distributions(), pr.params, 80, 0);
    lo = std::min(lo, rho);
    hi = std::max(hi, rho);
  }
  return hi - lo;
}

}  // namespace

TEST_CASE("sponge: compiled in only when a problem asks for one") {
  const auto defines = [](const char* toml) { return kernel_defines(problem(toml).params, Precision::Float, {8, 1}, 1, {}); };
  const auto open = defines(kOpenFlow);
  CHECK(has_define(open, "SPONGE"));
  CHECK(std::find(open.begin(), open.end(), "SPONGE_LEFT=5") != open.end());
  CHECK(std::find(open.begin(), open.end(), "SPONGE_RIGHT=9") != open.end());
  CHECK(std::find(defines(kChannel).begin(), defines(kChannel).end(), "SPONGE_LEFT=0") != defines(kChannel).end());
  const Params coursework = d2q9::test::make_params(16, 16, 10);
  CHECK_FALSE(has_define(kernel_defines(coursework, Precision::Float, {8, 1}, 1, {}), "SPONGE"));
}

TEST_CASE("sponge: OpenCL stores the reference's values bit for bit, every variant, float and 16-bit") {
  for (const char* toml : {kOpenFlow, kChannel}) {
    const Problem pr = problem(toml);
    CAPTURE(std::string(toml));
    for (Precision precision : {Precision::Float, Precision::Fp16s}) {
      if (toml == kChannel && precision == Precision::Fp16s) continue;  // the profile's arithmetic is float's
      CAPTURE(std::string(to_string(precision)));
      const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, precision);
      REQUIRE(ref.av_vels.back() > 1e-3);
      d2q9::test::check_variants_against(pr.params, pr.mask, precision, ref, d2q9::test::every_variant());
    }
  }
}

TEST_CASE("sponge: the layer changes the state, and only within it and downstream of its light-cone") {
  // Same problem without the sponge: cells farther than `steps` columns from
  // the layer cannot know it is there; those inside it differ.
  const Problem with = problem(kChannel);
  std::string text = kChannel;
  text.replace(text.find(", sponge = 8"), 12, "");
  const Problem without = problem(text.c_str());
  const int steps = 20;
  Params p = with.params;
  p.max_iters = steps;
  Params q = without.params;
  q.max_iters = steps;
  const RunOutput a = d2q9::test::reference(p, with.mask, Precision::Double);
  const RunOutput b = d2q9::test::reference(q, without.mask, Precision::Double);
  const int first_sponge_column = p.nx - 8;
  int differ_inside = 0, differ_outside_cone = 0;
  for (int j = 0; j < p.ny; ++j)
    for (int i = 0; i < p.nx; ++i)
      for (int k = 0; k < kSpeeds; ++k) {
        const std::size_t at = k * p.cells() + i + static_cast<std::size_t>(j) * p.nx;
        // Obstacle cells at the open edges hold what the wrapped pull brought
        // from the other edge, and give it back there: fluid cells only.
        if (a.f[at] == b.f[at] || with.mask.at(i, j)) continue;
        if (i >= first_sponge_column) ++differ_inside;
        if (i < first_sponge_column - steps) ++differ_outside_cone;
      }
  CHECK(differ_inside > 0);
  CHECK(differ_outside_cone == 0);
}

TEST_CASE("sponge: a layer's rate rises as the depth squared, 0.1 at its outer edge") {
  // A fluid at rest at density 1 whose far field is at 1.1: collision and
  // streaming leave the uniform state as it is, so after one step each
  // column of the layer has moved kSpongeStrength * depth^2 of the way to
  // the far field (depth = (column - first + 1) / width). A linear profile
  // would give twice the change at depth 0.5.
  const Problem pr = problem(R"(
[grid]
nx = 60
ny = 4
[flow]
steps = 1
viscosity = 0.05
[edges]
left = { inlet_velocity = [0.0, 0.0] }
right = { outlet_density = 1.1, sponge = 20 }
)");
  ReferenceSolver<double> solver(pr.params, pr.mask);
  std::vector<double> av_vels;
  solver.run(1, av_vels);
  const std::vector<double> f = solver.distributions();
  for (const int column : {44, 49, 54}) {  // depths 0.25, 0.5, 0.75
    const double depth = (column - 40 + 1) / 20.0;
    CAPTURE(column);
    CHECK(density(f, pr.params, column, 1) - 1.0 ==
          doctest::Approx(Extensions::kSpongeStrength * depth * depth * 0.1).epsilon(1e-9));
  }
  // Outside the layer (and away from the open edges) nothing moved.
  CHECK(density(f, pr.params, 30, 1) == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("sponge: sound that rings between the inlet and the outlet leaves through the layer") {
  // Measured (reference, double): the density swing mid-channel over steps
  // 1200-3000 is 7.0e-2 without a sponge, 3.9e-6 with 40 columns.
  const double ringing = density_swing(0, 1200, 3000);
  const double absorbed = density_swing(40, 1200, 3000);
  MESSAGE("density swing mid-channel, steps 1200-3000: ", ringing, " without a sponge, ", absorbed, " with 40 columns");
  CHECK(ringing > 1e-3);
  CHECK(absorbed < 1e-3 * ringing);
}

TEST_CASE("sponge: a killed run restarts from its checkpoint to the uninterrupted bytes, mid-ramp") {
  // The layer's far field follows the inlet's ramp, so the restarted kernels
  // must know the step they resume at.
  d2q9::test::TempDir dir;
  std::string text = kOpenFlow;
  text.replace(text.find("steps = 120"), 11, "steps = 40000");
  text.replace(text.find("inlet_ramp = 40"), 15, "inlet_ramp = 30000");
  dir.write("p.toml", text);
  const std::string exe = D2Q9_EXE;
  const std::string options = " -q --no-png -l 8x1";
  const d2q9::test::Result killed = d2q9::test::run_shell(
      "cd '" + dir.path + "' && { '" + exe + "' p.toml -o killed --checkpoint-every 2000" + options +
      " & pid=$!; while [ ! -e killed/checkpoint.d2q9 ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; "
      "kill -9 $pid; wait $pid; }");
  REQUIRE_MESSAGE(killed.status == 128 + 9, "the run ended before it was killed: give it more steps");
  const d2q9::test::Result restarted = d2q9::test::run_shell("'" + exe + "' --restart '" + dir.file("killed/checkpoint.d2q9") + "'");
  REQUIRE_MESSAGE(restarted.status == 0, restarted.err);
  const d2q9::test::Result whole = d2q9::test::run_shell("cd '" + dir.path + "' && '" + exe + "' p.toml -o whole" + options);
  REQUIRE_MESSAGE(whole.status == 0, whole.err);
  for (const char* name : {"/final_state.vti", "/av_vels.dat", "/forces.csv"}) {
    CAPTURE(name);
    CHECK(!d2q9::test::slurp(dir.path + "/whole" + name).empty());
    CHECK(d2q9::test::slurp(dir.path + "/killed" + name) == d2q9::test::slurp(dir.path + "/whole" + name));
  }
}
