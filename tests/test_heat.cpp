// Heat: the temperature lattice on the kernels against the reference, bit
// for bit, with every thermal boundary; pure conduction's linear profile;
// what the library refuses of a problem with heat.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "io/output.hpp"
#include "problem/lattice.hpp"
#include "sim/simulation.hpp"
#include "solver_runs.hpp"
#include "variant_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L heat
TEST_SUITE_BEGIN("heat");

using namespace d2q9;
using d2q9::test::problem;
using d2q9::test::RunOutput;

namespace {

using Kind = ThermalWall::Kind;

// The cells of column ii (or, with `row`, of row ii) take wall number n.
void number_wall_cells(ObstacleMask& mask, int ii, int n, bool row = false) {
  const int count = row ? mask.nx : mask.ny;
  for (int s = 0; s < count; ++s) {
    const std::size_t cell = row ? static_cast<std::size_t>(s) + static_cast<std::size_t>(ii) * mask.nx
                                 : static_cast<std::size_t>(ii) + static_cast<std::size_t>(s) * mask.nx;
    if (cell_kind(mask.kinds[cell]) == kWall) mask.kinds[cell] = cell_byte(kWall, n);
  }
}

// A closed box: hot left wall, cold right wall, a heat flux in at the
// bottom, an adiabatic top; buoyant, so the flow turns.
Problem heated_box(CollisionOperator thermal) {
  Problem pr = problem(R"([grid]
nx = 22
ny = 18
[flow]
steps = 150
omega = 1.3
[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = "wall"
)");
  Extensions& x = pr.params.extensions;
  x.heat = true;
  x.diffusivity = 0.04;
  x.thermal_collision = thermal;
  x.buoyancy = {0.0, 2e-3};
  x.reference_temperature = 0.1;
  x.initial_temperature = 0.1;
  x.thermal_walls = {{}, {Kind::Temperature, 0.6}, {Kind::Temperature, -0.4}, {Kind::HeatFlux, 2e-3}};
  number_wall_cells(pr.mask, 0, 1);
  number_wall_cells(pr.mask, pr.params.nx - 1, 2);
  number_wall_cells(pr.mask, 0, 3, true);
  return pr;
}

// A channel: warm inflow at the left past a hot measured post, out at the
// right; a body force and TRT for the flow too.
Problem heated_channel(CollisionOperator thermal) {
  Problem pr = problem(R"([grid]
nx = 40
ny = 16
[flow]
steps = 150
omega = 1.5
collision = "trt"
body_force = [1e-6, 0.0]
[edges]
left = { inlet_velocity = [0.04, 0.0] }
right = { outlet_density = 1.0 }
bottom = "wall"
top = "wall"
[[obstacle]]
name = "post"
circle = { center = [12.3, 7.6], radius = 3.2 }
)");
  Extensions& x = pr.params.extensions;
  x.heat = true;
  x.diffusivity = 0.02;
  x.thermal_collision = thermal;
  x.buoyancy = {0.0, 5e-4};
  x.thermal_walls = {{}, {Kind::Temperature, 1.0}};
  x.open_boundaries[0].temperature = 0.25;
  return pr;
}

}  // namespace

TEST_CASE("heat: every thermal boundary on OpenCL is the reference's, bit for bit, every variant") {
  for (CollisionOperator thermal : {CollisionOperator::Bgk, CollisionOperator::Trt}) {
    for (const Problem& pr : {heated_box(thermal), heated_channel(thermal)}) {
      CAPTURE(std::string(to_string(thermal)));
      CAPTURE(pr.params.nx);
      for (Precision precision : {Precision::Float, Precision::Double}) {
        CAPTURE(std::string(to_string(precision)));
        RunOutput ref;
        d2q9::test::reference_forces(pr, precision, &ref);
        REQUIRE(ref.f.size() == 14 * pr.params.cells());
        // The temperature moved: heat came in through the walls or the inlet.
        const std::size_t n = pr.params.cells();
        double t_low = 1e9, t_high = -1e9;
        for (std::size_t i = 0; i < n; ++i) {
          if (is_obstacle(pr.mask.kinds[i])) continue;
          double t = 0;
          for (int k = 9; k < 14; ++k) t += ref.f[k * n + i];
          t_low = std::min(t_low, t);
          t_high = std::max(t_high, t);
        }
        CHECK(t_high - t_low > 0.1);
        d2q9::test::check_variants_against(pr.params, pr.mask, precision, ref, d2q9::test::every_variant());
      }
    }
  }
}

TEST_CASE("heat: conduction between a hot and a cold wall is linear to rounding, BGK and TRT, at any rate") {
  for (CollisionOperator thermal : {CollisionOperator::Bgk, CollisionOperator::Trt}) {
    for (double alpha : {1.0 / 6.0, 0.02, 0.5}) {
      Problem pr = heated_box(thermal);
      Extensions& x = pr.params.extensions;
      x.buoyancy = {};
      x.diffusivity = alpha;
      x.thermal_walls = {{}, {Kind::Temperature, 1.0}, {Kind::Temperature, 0.0}};
      number_wall_cells(pr.mask, 0, 0, true);  // the bottom adiabatic again
      CAPTURE(std::string(to_string(thermal)));
      CAPTURE(alpha);
      ReferenceSolver<double> solver(pr.params, pr.mask);
      std::vector<double> av_vels;
      // Steady to rounding: the slowest mode decays as exp(-pi^2 alpha t / L^2).
      const double length = pr.params.nx - 2;
      const int steps = static_cast<int>(40.0 * length * length / (M_PI * M_PI * alpha));
      solver.run(steps, av_vels);
      const std::vector<double> f = solver.distributions();
      const std::size_t n = pr.params.cells();
      double worst = 0;
      for (int jj = 1; jj < pr.params.ny - 1; ++jj)
        for (int ii = 1; ii < pr.params.nx - 1; ++ii) {
          const std::size_t i = ii + static_cast<std::size_t>(jj) * pr.params.nx;
          double t = 0;
          for (int k = 9; k < 14; ++k) t += f[k * n + i];
          // The walls lie half-way between their cells and the fluid's.
          const double expected = 1.0 - (ii - 0.5) / length;
          worst = std::max(worst, std::fabs(t - expected));
        }
      CHECK(worst < 1e-12);
      CHECK(av_vels.back() == 0.0);  // no buoyancy: the fluid stays at rest
    }
  }
}

TEST_CASE("heat: what the library does not run with heat is refused, naming the problem") {
  const Problem pr = heated_box(CollisionOperator::Bgk);
  SimulationOptions fp16(Backend::Reference);
  fp16.precision = Precision::Fp16s;
  CHECK_THROWS_WITH_AS(check_problem_runs(pr.params, "box.toml", fp16),
                       doctest::Contains("box.toml: a problem with [heat] runs in float or double"), InputError);
  CHECK_THROWS_WITH_AS(check_problem_runs(pr.params, "box.toml", SimulationOptions(Backend::Reference), true),
                       doctest::Contains("cannot be checkpointed"), InputError);
}

TEST_CASE("heat: the command line runs a heated cavity end to end, and refuses what heat does not reach in one line") {
  d2q9::test::TempDir dir;
  dir.write("cavity.toml", R"([grid]
nx = 20
ny = 20
[flow]
steps = 400
viscosity = 0.05
[edges]
left = { temperature = 0.5 }
right = { temperature = -0.5 }
bottom = "wall"
top = "wall"
[heat]
prandtl = 0.71
rayleigh = 1e4
length = 18
temperature_difference = 1.0
)");
  dir.write("plain.toml", "[grid]\nnx = 8\nny = 8\n[flow]\nsteps = 10\nviscosity = 0.1\n");
  const std::string exe = std::string("cd '") + dir.path + "' && '" + D2Q9_EXE + "' ";
  const d2q9::test::Result ok =
      d2q9::test::run_shell(exe + "cavity.toml -b reference -o run --field temperature --summary-json s.json");
  REQUIRE_MESSAGE(ok.status == 0, ok.err);
  CHECK(d2q9::test::contains(ok.out, "Nusselt number (left):"));
  const std::string state = d2q9::test::slurp(dir.file("run/final_state.dat"));
  CHECK(d2q9::test::count_lines(state) == 400);
  // An eighth column: the wall cell (0, 5) holds 0.5, the fluid cell (5, 5) is warmer than the cold side.
  CHECK(d2q9::test::contains(state, "\n0 5 0.000000000000E+00 0.000000000000E+00 0.000000000000E+00"));
  CHECK(d2q9::test::contains(state, " 1 5.000000000000E-01\n"));
  CHECK(d2q9::test::contains(dir.listing_of(dir.file("run")), "final_state_temperature.png"));
  CHECK(d2q9::test::contains(d2q9::test::slurp(dir.file("run/s.json")), "\"nusselt\""));
  const std::pair<std::string, std::string> refused[] = {
      {"cavity.toml -b reference -o a --checkpoint-every 100", "error: cavity.toml: a problem with [heat] cannot be checkpointed"},
      {"cavity.toml -b reference -o b -p fp16s", "error: cavity.toml: a problem with [heat] runs in float or double"},
      {"plain.toml -b reference -o d --field temperature", "error: --field temperature draws the temperature"},
  };
  for (const auto& [args, message] : refused) {
    CAPTURE(args);
    const d2q9::test::Result r = d2q9::test::run_shell(exe + args);
    CHECK(r.status != 0);
    CHECK(d2q9::test::count_lines(r.err) == 1);
    CHECK_MESSAGE(r.err.rfind(message, 0) == 0, r.err);
  }
  for (const char* out : {"a", "b", "d"}) CHECK(dir.listing_of(dir.file(out)).empty());
}

TEST_SUITE_END();
