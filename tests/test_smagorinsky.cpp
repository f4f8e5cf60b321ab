// The Smagorinsky subgrid model: the kernels against the reference, bit for
// bit, with each operator; its relaxation rates against the formula,
// computed here independently; an under-resolved flow it keeps bounded where
// plain BGK diverges; C = 0 is no model at all; its settings and errors.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "backend_config.hpp"
#include "device/kernel_source.hpp"
#include "helpers.hpp"
#include "io/output.hpp"
#include "problem/problem_file.hpp"
#include "problem/limits.hpp"
#include "problem/problem_settings.hpp"
#include "problem/stability.hpp"
#include "solver_runs.hpp"
#include "variant_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L motion
TEST_SUITE_BEGIN("motion");

using namespace d2q9;
using d2q9::test::config;
using d2q9::test::contains;
using d2q9::test::problem;
using d2q9::test::RunOutput;

namespace {

// Obstacles, a moving wall, open edges and a body force with a y component,
// at a rate near 2, where the model's share of the viscosity is large.
const char* const kEverything = R"(
[grid]
nx = 24
ny = 15
[flow]
steps = 120
omega = 1.9
accel = 0.002
body_force = [1.0e-5, 2.0e-6]
collision = "COLLISION"
smagorinsky = 0.3
[edges]
left = { inlet_velocity = [0.05, 0.001] }
right = { outlet_density = 1.0 }
bottom = { wall_velocity = [-0.08, 0.0] }
top = "wall"
[[obstacle]]
rectangle = { from = [10, 4], to = [12, 7] }
)";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string with_collision(const std::string& toml, const std::string& op) { return replaced(toml, "COLLISION", op); }

// The bit-for-bit check of one operator: every variant in float and fp16s,
// fp16c's codec with the fused kernel; the model must change the answer.
void check_kernels_match_reference(const std::string& op) {
  const Problem pr = problem(with_collision(kEverything, op));
  const Problem plain = problem(replaced(with_collision(kEverything, op), "smagorinsky = 0.3", ""));
  const std::vector<KernelVariant>& every = d2q9::test::every_variant();
  struct Case {
    Precision precision;
    std::vector<KernelVariant> variants;
  };
  for (const Case& c : {Case{Precision::Float, every}, Case{Precision::Fp16s, every},
                        Case{Precision::Fp16c, {KernelVariant::Fused}}}) {
    CAPTURE(std::string(to_string(c.precision)));
    const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, c.precision);
    REQUIRE(ref.av_vels.back() > 1e-3);
    CHECK(ref.f != d2q9::test::reference(plain.params, plain.mask, c.precision).f);
    d2q9::test::check_variants_against(pr.params, pr.mask, c.precision, ref, c.variants);
  }
}

// A uniform, periodic lattice of density 1 and velocity u whose every cell
// holds feq + a pure shear's non-equilibrium part (Pi_xy = shear) and an odd
// part of third order (odd: no mass, momentum or Pi); one step of the
// reference in double; returns the effective rates (omega, omega_minus) that
// the cell's new state shows.
struct Rates {
  double omega, omega_minus;
};
Rates rates_after_one_step(const std::string& extra, double shear, double odd) {
  const Problem pr = problem("[grid]\nnx = 4\nny = 4\n[flow]\nsteps = 1\nomega = 1.9\n" + extra);
  const double w[9] = {4.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 9, 1.0 / 36, 1.0 / 36, 1.0 / 36, 1.0 / 36};
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  const double ux = 0.02, uy = 0.01;
  double g[9], neq[9];
  for (int k = 0; k < 9; ++k) {
    const double eu = ex[k] * ux + ey[k] * uy;
    const double feq = w[k] * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * (ux * ux + uy * uy));
    // 9/2 w Q_k : Pi with Q_xy = e_x e_y, and w e_x (3 e_y^2 - 1), odd.
    neq[k] = 4.5 * w[k] * 2 * ex[k] * ey[k] * shear + odd * w[k] * ex[k] * (3 * ey[k] * ey[k] - 1);
    g[k] = feq + neq[k];
  }
  const std::size_t n = 16;
  std::vector<double> f(9 * n);
  for (int k = 0; k < 9; ++k) std::fill(f.begin() + k * n, f.begin() + (k + 1) * n, g[k]);
  ReferenceSolver<double> solver(pr.params, pr.mask);
  solver.load_distributions(f);
  std::vector<double> av;
  solver.run(1, av);
  const std::vector<double> out = solver.distributions();
  auto at = [&](int k) { return out[k * n + 5]; };
  // Speed 5's pair (5, 7): its even part relaxes at omega; speed 1's pair
  // (1, 3) carries only the odd part, which relaxes at omega_minus.
  const double even_neq = 0.5 * (neq[5] + neq[7]), odd_neq = 0.5 * (neq[1] - neq[3]);
  const double even_change = 0.5 * ((g[5] + g[7]) - (at(5) + at(7)));
  const double odd_change = 0.5 * ((g[1] - g[3]) - (at(1) - at(3)));
  return {even_change / even_neq, odd == 0 ? 0 : odd_change / odd_neq};
}

// The relaxation time of the model with constant c for a pure shear, in double:
// |Pi| = sqrt(2) |Pi_xy|, tau = (tau0 + sqrt(tau0^2 + 18 sqrt(2) C^2 |Pi| / rho)) / 2.
double expected_tau(double c, double shear) {
  const double tau0 = 1 / 1.9, pi_norm = std::sqrt(2.0) * std::fabs(shear);
  return 0.5 * (tau0 + std::sqrt(tau0 * tau0 + 18 * std::sqrt(2.0) * c * c * pi_norm));
}

}  // namespace

TEST_CASE("smagorinsky: each cell relaxes at the rate the eddy viscosity of its own shear gives") {
  const double shear = 1e-2;
  const Rates plain = rates_after_one_step("", shear, 0);
  CHECK(plain.omega == doctest::Approx(1.9).epsilon(1e-9));
  for (const double c : {0.1, 0.17}) {
    CAPTURE(c);
    const std::string model = "smagorinsky = " + std::to_string(c) + "\n";
    const Rates r = rates_after_one_step(model, shear, 0);
    CHECK(r.omega == doctest::Approx(1 / expected_tau(c, shear)).epsilon(1e-9));
    CHECK(r.omega < 1.9 * (1 - 1e-3));
    // More shear, more viscosity.
    CHECK(rates_after_one_step(model, 4 * shear, 0).omega < r.omega);
    // TRT: the even part at the same rate, the odd part at the rate that
    // keeps Lambda = (tau - 1/2)(1/omega_minus - 1/2) in the cell.
    const Rates trt = rates_after_one_step(model + "collision = \"trt\"\nmagic = 0.1875\n", shear, 1e-4);
    const double tau = expected_tau(c, shear);
    CHECK(trt.omega == doctest::Approx(1 / tau).epsilon(1e-9));
    CHECK(trt.omega_minus == doctest::Approx(1 / (0.5 + 0.1875 / (tau - 0.5))).epsilon(1e-8));
    CHECK(rates_after_one_step(model + "collision = \"regularised\"\n", shear, 0).omega ==
          doctest::Approx(1 / tau).epsilon(1e-9));
  }
}

TEST_CASE("smagorinsky: C = 0 is no model: the same kernels, the same bytes and the same checkpoint settings") {
  const std::string base = with_collision(kEverything, "trt");
  const Problem off = problem(replaced(base, "smagorinsky = 0.3", ""));
  const Problem zero = problem(replaced(base, "smagorinsky = 0.3", "smagorinsky = 0"));
  const Problem on = problem(base);
  auto defines = [](const Problem& p) { return kernel_defines(p.params, Precision::Float, {8, 1}, 1, {}); };
  CHECK(defines(zero) == defines(off));
  const std::vector<std::string> with = defines(on);
  for (const char* name : {"SMAGORINSKY=1", "SMAGORINSKY_TAU0=", "SMAGORINSKY_FACTOR=", "TRT_MAGIC="})
    CHECK(std::any_of(with.begin(), with.end(), [&](const std::string& d) { return d.rfind(name, 0) == 0; }));
  CHECK(extensions_fingerprint(zero.params.extensions) == extensions_fingerprint(off.params.extensions));
  // A problem without the model keeps the fingerprint it had before the model existed.
  CHECK(extensions_fingerprint(off.params.extensions) == 0x74028e4eb27453daULL);
  CHECK(extensions_fingerprint(on.params.extensions) != extensions_fingerprint(off.params.extensions));
  Extensions other = on.params.extensions;
  other.smagorinsky = 0.17;
  CHECK(extensions_fingerprint(other) != extensions_fingerprint(on.params.extensions));
  CHECK(problem_setting_values(zero.params.extensions, {}) == problem_setting_values(off.params.extensions, {}));
  CHECK(first_setting_mismatch(problem_setting_values(on.params.extensions, {}), other, {})->name == "smagorinsky");
  CHECK(d2q9::test::reference(zero.params, zero.mask, Precision::Float).f ==
        d2q9::test::reference(off.params, off.mask, Precision::Float).f);
}

TEST_CASE("smagorinsky: OpenCL stores the reference's values bit for bit with BGK, every variant and storage") {
  check_kernels_match_reference("bgk");
}

TEST_CASE("smagorinsky: OpenCL stores the reference's values bit for bit with TRT, every variant and storage") {
  check_kernels_match_reference("trt");
}

TEST_CASE("smagorinsky: regularised BGK in float, and double to rounding") {
  const Problem pr = problem(with_collision(kEverything, "regularised"));
  const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, Precision::Float);
  d2q9::test::check_variants_against(pr.params, pr.mask, Precision::Float, ref, {KernelVariant::Fused});
  if (d2q9::test::no_fp64(Backend::OpenCL, Precision::Double)) return;
  for (const char* op : {"bgk", "trt", "regularised"}) {
    CAPTURE(std::string(op));
    const Problem p = problem(with_collision(kEverything, op));
    const RunOutput want = d2q9::test::reference(p.params, p.mask, Precision::Double);
    auto solver = make_solver(Backend::OpenCL, p.params, p.mask, config(Precision::Double, {8, 2}, KernelVariant::Fused));
    const RunOutput got = d2q9::test::run(*solver, p.params.max_iters);
    CHECK(d2q9::test::max_relative_difference(got.f, want.f, 1e-9) < 1e-12);
  }
}

TEST_CASE("smagorinsky: keeps an under-resolved cavity bounded where plain BGK diverges") {
  // Re 20000 on 32 x 32 fluid cells: omega = 1.998, far too little
  // viscosity for the grid. Plain BGK goes supersonic within 400 steps
  // (measured: step 398); with C = 0.17 the flow stays below the lid's speed.
  const std::string cavity = R"(
[grid]
nx = 34
ny = 34
[flow]
steps = 4000
reynolds = 20000
velocity = 0.1
length = 32
[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = { wall_velocity = [0.1, 0.0] }
)";
  const Problem plain = problem(cavity);
  CHECK_THROWS_AS(d2q9::test::reference(plain.params, plain.mask, Precision::Float), InstabilityError);
  const Problem model = problem(replaced(cavity, "length = 32", "length = 32\nsmagorinsky = 0.17"));
  const RunOutput out = d2q9::test::reference(model.params, model.mask, Precision::Float);
  CHECK_NOTHROW(check_distributions(model.params, model.mask, out.f, 4000));
  double fastest = 0;
  for (std::size_t i = 0; i < model.mask.kinds.size(); ++i) {
    if (is_obstacle(model.mask.kinds[i])) continue;
    const CellState s = cell_state(model.params, model.mask, out.f, i);
    fastest = std::max(fastest, std::hypot(s.ux, s.uy));
  }
  CHECK(fastest < 0.1);
  CHECK(out.av_vels.back() > 0.01);
}

TEST_CASE("smagorinsky: a constant outside [0, 1] is an error naming the file and line") {
  auto error = [](const std::string& text) {
    try {
      parse_problem_file(text, "p.toml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string flow = "[grid]\nnx = 20\nny = 10\n[flow]\nsteps = 10\nomega = 1.0\n";
  CHECK(error(flow + "smagorinsky = -0.1\n") ==
        "p.toml:7: smagorinsky = -0.1 is outside [0, 1]: C is the filter width in grid spacings; 0 turns the model "
        "off and the usual constants are 0.1 to 0.17 (docs/collision.md)");
  CHECK(contains(error(flow + "smagorinsky = 1.5\n"), "p.toml:7: smagorinsky = 1.5 is outside [0, 1]"));
  CHECK(error(flow + "smagorinsky = \"high\"\n") == "p.toml:7: smagorinsky must be a number, got \"high\"");
  CHECK(error(flow + "smagorinsky = 0.15\n") == "no error");
  // A library user's Params are checked alike, and against float's range.
  Params p = parse_problem_file(flow + "smagorinsky = 0.15\n", "p.toml").params;
  auto fit_error = [&](double c, Precision precision) {
    p.extensions.smagorinsky = c;
    try {
      check_params_fit_precision(p, precision, "p.toml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(fit_error(0.15, Precision::Float) == "no error");
  CHECK(contains(fit_error(-0.1, Precision::Double), "p.toml: smagorinsky = -0.1 is outside [0, 1]"));
  CHECK(contains(fit_error(1e-300, Precision::Float), "p.toml: smagorinsky 1e-300 is too small for precision float"));
}

TEST_CASE("smagorinsky: --smagorinsky outside [0, 1] or not a number is a one-line error") {
  for (const auto& [value, message] : std::vector<std::pair<std::string, std::string>>{
           {"-0.1", "error: --smagorinsky -0.1: C is outside [0, 1]"},
           {"2", "error: --smagorinsky 2: C is outside [0, 1]"},
           {"0.1x", "error: --smagorinsky needs a number C, got '0.1x'"}}) {
    CAPTURE(value);
    const d2q9::test::Result r =
        d2q9::test::run_shell(std::string("'") + D2Q9_EXE + "' none.toml -b reference --smagorinsky=" + value);
    CHECK(r.status == 2);
    CHECK(d2q9::test::count_lines(r.err) == 1);
    CHECK_MESSAGE(r.err.rfind(message, 0) == 0, r.err);
  }
}

TEST_SUITE_END();
