// The collision operators problems may choose (TRT, regularised BGK): the
// kernels against the reference, bit for bit, and TRT's analytic property,
// the exact Poiseuille profile at the magic parameter 3/16.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

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

// Everything a collision meets: a body force with a y component, an inlet,
// an outlet, a moving wall, an obstacle and the coursework's push.
const char* const kEverything = R"(
[grid]
nx = 24
ny = 15
[flow]
steps = 120
omega = 1.6
accel = 0.002
body_force = [1.0e-5, 2.0e-6]
collision = "COLLISION"
[edges]
left = { inlet_velocity = [0.03, 0.001] }
right = { outlet_density = 1.0 }
bottom = { wall_velocity = [-0.05, 0.0] }
top = "wall"
[[obstacle]]
rectangle = { from = [10, 4], to = [12, 7] }
)";

// A closed, lid-driven box: no body force.
const char* const kCavity = R"(
[grid]
nx = 21
ny = 18
[flow]
steps = 120
viscosity = 0.02
collision = "COLLISION"
[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = { wall_velocity = [0.1, -0.01] }
)";

std::string with_collision(std::string toml, const std::string& op) {
  toml.replace(toml.find("COLLISION"), 9, op);
  return toml;
}

// A channel between walls at rows 0 and ny-1, driven by a body force: its
// steady profile, with full-way bounce-back walls half-way between the wall
// rows and the fluid, is u(y) = F / (2 nu) y (H - y), y = j - 1/2, H = ny - 2.
Problem poiseuille(const std::string& collision, int ny, double omega, double magic) {
  char text[512];
  std::snprintf(text, sizeof text, R"(
[grid]
nx = 3
ny = %d
[flow]
steps = 1
omega = %.17g
body_force = [1.0e-6, 0.0]
collision = "%s"
%s
[edges]
bottom = "wall"
top = "wall"
)",
                ny, omega, collision.c_str(), collision == "trt" ? ("magic = " + std::to_string(magic)).c_str() : "");
  return problem(text);
}

// Largest relative difference between the steady profile and the analytic one.
double poiseuille_error(const Problem& pr) {
  const Params& p = pr.params;
  ReferenceSolver<double> solver(p, pr.mask);
  const double nu = (1.0 / p.omega - 0.5) / 3.0, force = p.extensions.body_force.x, h = p.ny - 2;
  std::vector<double> av;
  // Steady to rounding: many viscous times h^2 / nu.
  const int steps = static_cast<int>(40 * h * h / nu);
  solver.run(steps, av);
  const std::vector<double> f = solver.distributions();
  double worst = 0;
  for (int j = 1; j < p.ny - 1; ++j) {
    const double y = j - 0.5;
    const double exact = force / (2 * nu) * y * (h - y);
    // final_state.dat's velocity: Guo's, half the force added to the momentum.
    const double u = cell_state(p, pr.mask, f, static_cast<std::size_t>(j) * p.nx + 1).ux;
    worst = std::max(worst, std::fabs(u - exact) / exact);
  }
  return worst;
}

}  // namespace

TEST_CASE("collision: each operator is compiled in only when chosen") {
  auto defines = [](const std::string& op) {
    return kernel_defines(problem(with_collision(kCavity, op)).params, Precision::Float, {8, 1}, 1, {});
  };
  auto has = [](const std::vector<std::string>& d, const std::string& name) {
    return std::any_of(d.begin(), d.end(), [&](const std::string& x) { return x.rfind(name, 0) == 0; });
  };
  const auto bgk = defines("bgk"), trt = defines("trt"), reg = defines("regularised");
  CHECK_FALSE(has(bgk, "COLLISION_"));
  CHECK_FALSE(has(bgk, "OMEGA_MINUS"));
  CHECK(has(trt, "COLLISION_TRT=1"));
  CHECK(has(trt, "OMEGA_MINUS="));
  CHECK_FALSE(has(trt, "COLLISION_REGULARISED"));
  CHECK(has(reg, "COLLISION_REGULARISED=1"));
  CHECK_FALSE(has(reg, "COLLISION_TRT"));
}

TEST_CASE("collision: OpenCL stores the reference's values bit for bit, every operator, variant and storage") {
  // Every variant in float and fp16s on the problem that has everything; the
  // closed cavity and fp16c's codec with the fused kernel (the collision is
  // the same function in every variant).
  struct Case {
    const char* base;
    Precision precision;
    std::vector<KernelVariant> variants;
  };
  const std::vector<KernelVariant>& every = d2q9::test::every_variant();
  const Case cases[] = {{kEverything, Precision::Float, every},
                        {kEverything, Precision::Fp16s, every},
                        {kEverything, Precision::Fp16c, {KernelVariant::Fused}},
                        {kCavity, Precision::Float, {KernelVariant::Fused}}};
  for (const char* op : {"trt", "regularised"}) {
    for (const Case& c : cases) {
      const Problem pr = problem(with_collision(c.base, op));
      CAPTURE(std::string(op));
      CAPTURE(pr.params.nx);
      CAPTURE(std::string(to_string(c.precision)));
      const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, c.precision);
      REQUIRE(ref.av_vels.back() > 1e-4);
      d2q9::test::check_variants_against(pr.params, pr.mask, c.precision, ref, c.variants);
    }
  }
}

TEST_CASE("collision: double precision agrees with the reference to rounding") {
  if (d2q9::test::no_fp64(Backend::OpenCL, Precision::Double)) D2Q9_SKIP("this case runs in double only");
  for (const char* op : {"trt", "regularised"}) {
    CAPTURE(std::string(op));
    const Problem pr = problem(with_collision(kEverything, op));
    const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, Precision::Double);
    auto solver = make_solver(Backend::OpenCL, pr.params, pr.mask, config(Precision::Double, {8, 2}, KernelVariant::Fused));
    const RunOutput got = d2q9::test::run(*solver, pr.params.max_iters);
    CHECK(d2q9::test::max_relative_difference(got.f, ref.f, 1e-9) < 1e-12);
  }
}

TEST_CASE("collision: TRT at the magic parameter 3/16 gives the Poiseuille profile exactly, on any grid") {
  // The analytic property (Ginzburg & d'Humieres 2003): with Lambda = 3/16
  // bounce-back walls sit exactly half-way, whatever the viscosity, so even
  // four fluid rows carry the parabola to rounding. At Lambda = 1/4 the wall
  // is off by the same amount for every viscosity; BGK's error depends on it.
  for (int ny : {6, 10, 23}) {
    for (double omega : {0.6, 1.0, 1.7}) {
      CAPTURE(ny);
      CAPTURE(omega);
      CHECK(poiseuille_error(poiseuille("trt", ny, omega, 0.1875)) < 1e-9);
    }
  }
  const double quarter_thick = poiseuille_error(poiseuille("trt", 6, 0.6, 0.25));
  const double quarter_thin = poiseuille_error(poiseuille("trt", 6, 1.7, 0.25));
  CHECK(quarter_thick > 1e-3);
  CHECK(quarter_thin == doctest::Approx(quarter_thick).epsilon(1e-6));
  const double bgk_thick = poiseuille_error(poiseuille("bgk", 6, 0.6, 0));
  const double bgk_thin = poiseuille_error(poiseuille("bgk", 6, 1.7, 0));
  CHECK(bgk_thick > 3 * bgk_thin);
  // Regularised BGK converges with the grid, more closely than BGK.
  const double reg_coarse = poiseuille_error(poiseuille("regularised", 6, 1.7, 0));
  const double reg_fine = poiseuille_error(poiseuille("regularised", 10, 1.7, 0));
  CHECK(reg_fine < 0.6 * reg_coarse);
  CHECK(reg_coarse < bgk_thin);
}

TEST_SUITE_END();
