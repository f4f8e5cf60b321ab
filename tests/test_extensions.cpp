// What problem files add to the coursework's model (moving walls, body force,
// Zou/He inlet and outlet): the kernels against the reference, which does the
// same float operations in the same order, and the boundary conditions doing
// what they promise.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "backend_config.hpp"
#include "device/kernel_source.hpp"
#include "helpers.hpp"
#include "io/output.hpp"
#include "problem/problem_file.hpp"
#include "solver_runs.hpp"
#include "variant_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::config;
using d2q9::test::problem;
using d2q9::test::RunOutput;

namespace {

// A lid-driven cavity whose lid also pushes down a little, so both wall
// velocity components count.
const char* const kCavity = R"(
[grid]
nx = 21
ny = 18
[flow]
steps = 150
viscosity = 0.05
[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = { wall_velocity = [0.1, -0.01] }
)";

// A channel driven by a body force with a y component and an obstacle.
const char* const kForced = R"(
[grid]
nx = 19
ny = 16
[flow]
steps = 150
omega = 1.3
body_force = [2.0e-4, 1.0e-5]
[edges]
bottom = "wall"
top = "wall"
[[obstacle]]
rectangle = { from = [6, 5], to = [8, 9] }
)";

// Inflow on the left, outflow on the right, a cylinder in between.
const char* const kInflow = R"(
[grid]
nx = 30
ny = 14
[flow]
steps = 150
viscosity = 0.04
[edges]
left = { inlet_velocity = [0.05, 0.002] }
right = { outlet_density = 1.0 }
bottom = "wall"
top = "wall"
[[obstacle]]
circle = { center = [9.0, 7.0], radius = 3.0 }
)";

// Everything at once, the coursework's push included.
const char* const kAll = R"(
[grid]
nx = 24
ny = 15
[flow]
steps = 150
omega = 1.6
accel = 0.002
body_force = [1.0e-5, 0.0]
[edges]
left = { inlet_velocity = [0.03, 0.0] }
right = { outlet_density = 1.0 }
bottom = { wall_velocity = [-0.05, 0.0] }
top = "wall"
[[obstacle]]
rectangle = { from = [10, 4], to = [12, 7] }
)";

bool has_define(const std::vector<std::string>& defines, const std::string& name) {
  return std::any_of(defines.begin(), defines.end(),
                     [&](const std::string& d) { return d.compare(0, name.size() + 1, name + "=") == 0; });
}

}  // namespace

TEST_CASE("extensions: a force component that is +0 on every cell is left out of the forcing's products") {
  // Guo's term is exact up to the sign of a zero without them (cl/cell_physics.cl:
  // FORCE_X_ZERO); the bit-for-bit tests below run forces along an axis and off it.
  const auto defines = [](const std::string& force) {
    std::string toml = kForced;
    toml.replace(toml.find("[2.0e-4, 1.0e-5]"), 16, force);
    return kernel_defines(problem(toml.c_str()).params, Precision::Float, {8, 1}, 1, {});
  };
  const auto both = defines("[2.0e-4, 1.0e-5]"), along_x = defines("[2.0e-4, 0.0]"),
             along_y = defines("[0.0, 1.0e-5]"), negative_zero = defines("[-0.0, 1.0e-5]");
  CHECK_FALSE(has_define(both, "FORCE_X_ZERO"));
  CHECK_FALSE(has_define(both, "FORCE_Y_ZERO"));
  CHECK(has_define(along_x, "FORCE_Y_ZERO"));
  CHECK_FALSE(has_define(along_x, "FORCE_X_ZERO"));
  CHECK(has_define(along_y, "FORCE_X_ZERO"));
  CHECK_FALSE(has_define(along_y, "FORCE_Y_ZERO"));
  // -0 shifts the velocity by -0, not +0: its products stay.
  CHECK_FALSE(has_define(negative_zero, "FORCE_X_ZERO"));
  // Buoyancy along a component keeps it, whatever the body force.
  Params heated = problem(kForced).params;
  heated.extensions.body_force = {0.0, 0.0};
  heated.extensions.heat = true;
  heated.extensions.buoyancy = {1e-4, 0.0};
  const auto buoyant = kernel_defines(heated, Precision::Float, {8, 1}, 1, {});
  CHECK_FALSE(has_define(buoyant, "FORCE_X_ZERO"));
  CHECK(has_define(buoyant, "FORCE_Y_ZERO"));
}

TEST_CASE("extensions: each is compiled in only when a problem uses it") {
  const char* const names[] = {"MOVING_WALL", "BODY_FORCE", "LEFT_INLET", "RIGHT_OUTLET"};
  const Params coursework = d2q9::test::make_params(16, 16, 10);
  for (const char* name : names) CHECK_FALSE(has_define(kernel_defines(coursework, Precision::Float, {8, 1}, 1, {}), name));

  const auto defines = [](const char* toml) { return kernel_defines(problem(toml).params, Precision::Float, {8, 1}, 1, {}); };
  const auto cavity = defines(kCavity), forced = defines(kForced), inflow = defines(kInflow), all = defines(kAll);
  CHECK(has_define(cavity, "MOVING_WALL"));
  CHECK_FALSE(has_define(cavity, "BODY_FORCE"));
  CHECK_FALSE(has_define(cavity, "LEFT_INLET"));
  CHECK(has_define(forced, "BODY_FORCE"));
  CHECK_FALSE(has_define(forced, "MOVING_WALL"));
  CHECK_FALSE(has_define(forced, "RIGHT_OUTLET"));
  CHECK(has_define(inflow, "LEFT_INLET"));
  CHECK(has_define(inflow, "RIGHT_OUTLET"));
  CHECK_FALSE(has_define(inflow, "BODY_FORCE"));
  for (const char* name : names) CHECK(has_define(all, name));
}

TEST_CASE("extensions: the blocked kernel's twin without probes differs from its build by PROBES_IN_LAUNCH alone") {
  const std::vector<std::string> with = {"NX=16", "PROBES_IN_LAUNCH=1", "NY=8"};
  CHECK(defines_without_probes(with) == std::vector<std::string>{"NX=16", "NY=8"});
  CHECK(defines_without_probes({"NX=16", "NY=8"}).empty());  // no twin to build
}

TEST_CASE("extensions: OpenCL stores the reference's values bit for bit, every variant, float and 16-bit") {
  for (const char* toml : {kCavity, kForced, kInflow, kAll}) {
    const Problem pr = problem(toml);
    CAPTURE(std::string(toml));
    for (Precision precision : {Precision::Float, Precision::Fp16s}) {
      CAPTURE(std::string(to_string(precision)));
      const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, precision);
      REQUIRE(ref.av_vels.back() > 1e-4);
      d2q9::test::check_variants_against(pr.params, pr.mask, precision, ref, d2q9::test::every_variant());
    }
  }
}

TEST_CASE("extensions: double precision agrees with the reference to rounding") {
  if (d2q9::test::no_fp64(Backend::OpenCL, Precision::Double)) D2Q9_SKIP("this case runs in double only");
  const Problem pr = problem(kAll);
  const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, Precision::Double);
  auto solver = make_solver(Backend::OpenCL, pr.params, pr.mask, config(Precision::Double, {8, 2}, KernelVariant::Fused));
  const RunOutput got = d2q9::test::run(*solver, pr.params.max_iters);
  CHECK(d2q9::test::max_relative_difference(got.f, ref.f, 1e-9) < 1e-12);
  CHECK(d2q9::test::max_relative_difference(got.av_vels, ref.av_vels, 1e-9) < 1e-12);
}

TEST_CASE("extensions: the inlet holds its velocity, the outlet its density, the lid drags the fluid") {
  SUBCASE("inlet and outlet") {
    const Problem pr = problem(kInflow);
    const RunOutput out = d2q9::test::reference(pr.params, pr.mask, Precision::Double);
    const Params& p = pr.params;
    int checked = 0;
    for (int jj = 0; jj < p.ny; ++jj) {
      if (pr.mask.at(0, jj)) continue;
      // Collision keeps density and momentum, so the stored state shows what Zou/He set.
      const CellState in = cell_state(p, pr.mask, out.f, static_cast<std::size_t>(jj) * p.nx);
      CHECK(in.ux == doctest::Approx(0.05).epsilon(1e-9));
      CHECK(in.uy == doctest::Approx(0.002).epsilon(1e-7));
      const CellState outlet = cell_state(p, pr.mask, out.f, p.nx - 1 + static_cast<std::size_t>(jj) * p.nx);
      CHECK(outlet.pressure == doctest::Approx(1.0 / 3.0).epsilon(1e-12));
      CHECK(outlet.ux > 0.0);
      ++checked;
    }
    CHECK(checked == p.ny - 2);
  }
  SUBCASE("moving lid") {
    const Problem pr = problem(kCavity);
    const RunOutput out = d2q9::test::reference(pr.params, pr.mask, Precision::Double);
    const Params& p = pr.params;
    double below_lid = 0.0, bottom = 0.0;
    for (int ii = 1; ii < p.nx - 1; ++ii) {
      below_lid += cell_state(p, pr.mask, out.f, ii + static_cast<std::size_t>(p.ny - 2) * p.nx).ux;
      bottom += cell_state(p, pr.mask, out.f, ii + static_cast<std::size_t>(1) * p.nx).ux;
    }
    below_lid /= p.nx - 2;
    CHECK(below_lid > 0.02);  // dragged along by the lid at 0.1
    CHECK(below_lid < 0.1);
    CHECK(std::fabs(bottom / (p.nx - 2)) < 0.2 * below_lid);
  }
  SUBCASE("a static lid leaves the cavity at rest") {
    std::string still = kCavity;
    still.replace(still.find("top = { wall_velocity = [0.1, -0.01] }"), 38, "top = \"wall\"");
    const Problem pr = problem(still);
    const RunOutput out = d2q9::test::reference(pr.params, pr.mask, Precision::Double);
    CHECK(*std::max_element(out.av_vels.begin(), out.av_vels.end()) < 1e-12);
  }
}

TEST_SUITE_END();
