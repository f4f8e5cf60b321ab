// Boundary kinds per cell (cl/cell_kinds.cl, docs/problem-files.md#edges):
// open boundaries on every edge, several of them, free-slip walls, a wall
// velocity per body; the kernels against the reference, and each kind doing
// what it promises.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "io/output.hpp"
#include "problem/problem_file.hpp"
#include "solver_runs.hpp"
#include "variant_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L boundaries
TEST_SUITE_BEGIN("boundaries");

using namespace d2q9;
using d2q9::test::problem;
using d2q9::test::RunOutput;

namespace {

// A channel whose inlet is on `inlet` and outlet on the opposite edge, with
// walls on the other two and an off-centre block, drawn in the frame of the
// left-inlet channel (nx 40, ny 22) and mapped onto the grid by `map`.
struct Frame {
  const char* inlet;
  const char* outlet;
  const char* walls[2];
  bool transposed;  // the grid is ny x nx
  // Cell (i, j) of the left-inlet channel in this grid, and its velocity here.
  int (*i)(int i, int j);
  int (*j)(int i, int j);
  double (*ux)(double ux, double uy);
  double (*uy)(double ux, double uy);
};

constexpr int kNx = 40, kNy = 22;

std::string channel(const Frame& f) {
  const int nx = f.transposed ? kNy : kNx, ny = f.transposed ? kNx : kNy;
  // The block of cells 10..14 x 5..9 of the left-inlet channel, mapped.
  const int i0 = f.i(10, 5), i1 = f.i(14, 9), j0 = f.j(10, 5), j1 = f.j(14, 9);
  std::ostringstream s;
  s << "[grid]\nnx = " << nx << "\nny = " << ny << "\n[flow]\nsteps = 300\nomega = 1.4\n[edges]\n";
  s << f.inlet << " = { inlet_velocity = [" << f.ux(0.05, 0.01) << ", " << f.uy(0.05, 0.01) << "] }\n";
  s << f.outlet << " = { outlet_density = 1.0 }\n" << f.walls[0] << " = \"wall\"\n" << f.walls[1] << " = \"wall\"\n";
  s << "[[obstacle]]\nrectangle = { from = [" << std::min(i0, i1) << ", " << std::min(j0, j1) << "], to = ["
    << std::max(i0, i1) << ", " << std::max(j0, j1) << "] }\n";
  return s.str();
}

const Frame kLeft = {"left", "right", {"bottom", "top"}, false,
                     [](int i, int) { return i; }, [](int, int j) { return j; },
                     [](double ux, double) { return ux; }, [](double, double uy) { return uy; }};
// The mirror image: x -> nx-1-x.
const Frame kRight = {"right", "left", {"bottom", "top"}, false,
                      [](int i, int) { return kNx - 1 - i; }, [](int, int j) { return j; },
                      [](double ux, double) { return -ux; }, [](double, double uy) { return uy; }};
// The transpose: (x, y) -> (y, x).
const Frame kBottom = {"bottom", "top", {"left", "right"}, true,
                       [](int, int j) { return j; }, [](int i, int) { return i; },
                       [](double, double uy) { return uy; }, [](double ux, double) { return ux; }};
// A quarter turn: (x, y) -> (y, nx-1-x).
const Frame kTop = {"top", "bottom", {"left", "right"}, true,
                    [](int, int j) { return j; }, [](int i, int) { return kNx - 1 - i; },
                    [](double, double uy) { return uy; }, [](double ux, double) { return -ux; }};

// The largest difference in velocity between the left-inlet channel's run and
// another frame's, cell by cell through the frame's map.
double largest_velocity_difference(const Frame& f) {
  const Problem left = problem(channel(kLeft)), other = problem(channel(f));
  REQUIRE(other.mask.fluid_cells() == left.mask.fluid_cells());
  const RunOutput a = d2q9::test::reference(left.params, left.mask, Precision::Double);
  const RunOutput b = d2q9::test::reference(other.params, other.mask, Precision::Double);
  double largest = 0.0;
  for (int j = 0; j < kNy; ++j)
    for (int i = 0; i < kNx; ++i) {
      const std::size_t here = static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * kNx;
      const std::size_t there = static_cast<std::size_t>(f.i(i, j)) + static_cast<std::size_t>(f.j(i, j)) * other.params.nx;
      REQUIRE(left.mask.at(i, j) == other.mask.at(f.i(i, j), f.j(i, j)));
      const CellState u = cell_state(left.params, left.mask, a.f, here);
      const CellState v = cell_state(other.params, other.mask, b.f, there);
      largest = std::fmax(largest, std::fabs(f.ux(u.ux, u.uy) - v.ux) + std::fabs(f.uy(u.ux, u.uy) - v.uy));
      largest = std::fmax(largest, std::fabs(u.pressure - v.pressure));
    }
  return largest;
}

// Total density of the fluid cells.
double mass(const Problem& pr, const std::vector<double>& f) {
  const std::size_t n = pr.params.cells();
  double m = 0.0;
  for (std::size_t c = 0; c < n; ++c)
    if (!is_obstacle(pr.mask.kinds[c]))
      for (int k = 0; k < kSpeeds; ++k) m += f[k * n + c];
  return m;
}

}  // namespace

TEST_CASE("boundaries: the kernels' cell kinds are the host's") {
  std::ifstream in(std::string(D2Q9_SOURCE_DIR) + "/cl/cell_kinds.cl");
  REQUIRE(in);
  std::map<std::string, int> defined;
  const std::regex define(R"(^#define (\w+) (\d+)\s*$)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, define)) defined[m[1]] = std::stoi(m[2]);
  }
  const std::map<std::string, int> host = {
      {"CELL_FLUID", kFluid},          {"CELL_WALL", kWall},
      {"CELL_MOVING_WALL", kMovingWall}, {"CELL_FREE_SLIP", kFreeSlip},
      {"CELL_NUMBER_SHIFT", kBodyShift}, {"OPEN_LEFT", static_cast<int>(Edge::Left) + 1},
      {"OPEN_RIGHT", static_cast<int>(Edge::Right) + 1}, {"OPEN_BOTTOM", static_cast<int>(Edge::Bottom) + 1},
      {"OPEN_TOP", static_cast<int>(Edge::Top) + 1}, {"FREE_SLIP_ACROSS_X", kFreeSlipAcrossX},
      {"FREE_SLIP_ACROSS_Y", kFreeSlipAcrossY}};
  CHECK(defined == host);
}

TEST_CASE("boundaries: an inlet on each edge gives the left inlet's flow, mirrored or turned") {
  // Double: the moments' sums run in another order in another frame, so the
  // runs agree to rounding, not bit for bit.
  for (const Frame* f : {&kRight, &kBottom, &kTop}) {
    CAPTURE(f->inlet);
    const double d = largest_velocity_difference(*f);
    CHECK(d < 1e-13);
  }
  // The check sees a wrong frame: the left-inlet channel against its mirror
  // image unmirrored.
  Frame unmirrored = kRight;
  unmirrored.ux = kLeft.ux;
  CHECK(largest_velocity_difference(unmirrored) > 1e-3);
}

TEST_CASE("boundaries: two inlets and an outlet reach a steady flow that keeps its mass") {
  const Problem pr = problem(R"(
[grid]
nx = 30
ny = 20
[flow]
steps = 9000
omega = 1.0
[edges]
left = { inlet_velocity = [0.03, 0.0] }
right = { inlet_velocity = [-0.02, 0.0] }
top = { outlet_density = 1.0 }
bottom = "wall"
)");
  // Where two open edges meet, the corner is a static wall.
  CHECK(pr.mask.kinds[0 + 19 * 30] == kWall);
  CHECK(pr.mask.kinds[29 + 19 * 30] == kWall);
  CHECK(pr.mask.kinds[0 + 10 * 30] == cell_byte(kFluid, 1));
  CHECK(pr.mask.kinds[29 + 10 * 30] == cell_byte(kFluid, 2));
  CHECK(pr.mask.kinds[15 + 19 * 30] == cell_byte(kFluid, 4));
  ReferenceSolver<double> s(pr.params, pr.mask);
  std::vector<double> av;
  s.run(8000, av);
  const double before = mass(pr, s.distributions());
  s.run(1000, av);
  const std::vector<double> f = s.distributions();
  const double after = mass(pr, f);
  CHECK(std::fabs(after - before) < 1e-12 * after);
  // What the inlets bring, the outlet takes: rho u.n summed over each edge's open cells.
  double in = 0.0, out = 0.0;
  for (int j = 1; j < 19; ++j) {
    const CellState l = cell_state(pr.params, pr.mask, f, static_cast<std::size_t>(j) * 30);
    const CellState r = cell_state(pr.params, pr.mask, f, 29 + static_cast<std::size_t>(j) * 30);
    in += 3.0 * l.pressure * l.ux - 3.0 * r.pressure * r.ux;
  }
  for (int i = 1; i < 29; ++i) {
    const CellState t = cell_state(pr.params, pr.mask, f, i + static_cast<std::size_t>(19) * 30);
    out += 3.0 * t.pressure * t.uy;
  }
  CHECK(in == doctest::Approx(18 * (0.03 + 0.02)).epsilon(0.02));
  CHECK(out == doctest::Approx(in).epsilon(0.02));
}

TEST_CASE("boundaries: a free-slip channel driven by a body force accelerates as a whole") {
  const auto channel = [](const char* walls) {
    return problem(std::string("[grid]\nnx = 6\nny = 18\n[flow]\nsteps = 1\nomega = 1.2\nbody_force = [1e-6, 0]\n"
                               "[edges]\nbottom = ") + walls + "\ntop = " + walls + "\n");
  };
  const int steps = 3000;
  for (const char* walls : {"\"free_slip\"", "\"wall\""}) {
    CAPTURE(walls);
    const Problem pr = channel(walls);
    ReferenceSolver<double> s(pr.params, pr.mask);
    std::vector<double> av;
    s.run(steps, av);
    const std::vector<double> f = s.distributions();
    double lowest = 1.0, highest = 0.0, mean = 0.0;
    for (int j = 1; j < 17; ++j) {
      const double u = cell_state(pr.params, pr.mask, f, 3 + static_cast<std::size_t>(j) * 6).ux;
      lowest = std::fmin(lowest, u);
      highest = std::fmax(highest, u);
      mean += u / 16;
    }
    const double free = 1e-6 * steps;  // F t / rho: no friction anywhere
    if (std::string(walls) == "\"free_slip\"") {
      CHECK(mean == doctest::Approx(free).epsilon(0.01));
      CHECK(highest - lowest < 0.01 * mean);
      CHECK(pr.mask.kinds[3] == cell_byte(kFreeSlip, kFreeSlipAcrossY));
    } else {
      CHECK(mean < 0.8 * free);  // the walls' friction holds the flow back
      CHECK(highest - lowest > 0.3 * mean);
    }
  }
}

TEST_CASE("boundaries: every kind on OpenCL is the reference's, bit for bit, every variant") {
  const char* const problems[] = {
      // Parabolic inlet at the bottom, outlet at the top, both with sponges; a ramp; TRT.
      R"([grid]
nx = 26
ny = 40
[flow]
steps = 120
omega = 1.6
collision = "trt"
inlet_ramp = 40
[edges]
bottom = { inlet_velocity = { parabolic = 0.06 }, sponge = 4 }
top = { outlet_density = 1.0, sponge = 6 }
left = "wall"
right = "wall"
[[obstacle]]
name = "post"
circle = { center = [12.3, 15.2], radius = 3.4 }
[probes]
every = 10
wake = [13, 24]
)",
      // A T-junction: in at the left, out at the top and the bottom; a measured box.
      R"([grid]
nx = 36
ny = 30
[flow]
steps = 120
omega = 1.5
[edges]
left = { inlet_velocity = [0.04, 0.0] }
right = "wall"
bottom = { outlet_density = 1.0 }
top = { outlet_density = 1.0 }
[[obstacle]]
rectangle = { from = [0, 0], to = [20, 9] }
[[obstacle]]
rectangle = { from = [0, 20], to = [20, 29] }
[[obstacle]]
name = "box"
rectangle = { from = [26, 13], to = [29, 16] }
[forces]
velocity = 0.04
length = 4
)",
      // Free-slip sides, a lid, two bodies of their own wall velocities (one measured), a body force.
      R"([grid]
nx = 30
ny = 24
[flow]
steps = 120
omega = 1.3
body_force = [1e-6, -2e-6]
[edges]
left = "free_slip"
right = "free_slip"
bottom = "wall"
top = { wall_velocity = [0.05, 0.0] }
[[obstacle]]
name = "belt"
wall_velocity = [0.0, 0.03]
rectangle = { from = [8, 6], to = [10, 15] }
[[obstacle]]
wall_velocity = [-0.02, 0.01]
circle = { center = [20.5, 11.0], radius = 3.0 }
)",
      // In at the right, out at the left, with sponges, past an interpolated
      // circle and beside another on the inlet; the coursework's push on row
      // ny-2 reaches the open cells too.
      R"([grid]
nx = 48
ny = 22
[flow]
steps = 120
omega = 1.7
accel = 0.0005
[edges]
right = { inlet_velocity = [-0.05, 0.005], sponge = 5 }
left = { outlet_density = 1.0, sponge = 7 }
[[obstacle]]
name = "cyl"
boundary = "interpolated"
circle = { center = [27.4, 10.6], radius = 3.7 }
[[obstacle]]
boundary = "interpolated"
circle = { center = [46.6, 6.2], radius = 2.1 }   # over the inlet: its open cells have curved links
[forces]
velocity = 0.05
length = 7.4
)",
      // A measured rotor, turning and sliding, in a ring: interpolated moving walls.
      R"([grid]
nx = 40
ny = 40
[flow]
steps = 120
omega = 1.2
collision = "trt"
[[obstacle]]
name = "rotor"
boundary = "interpolated"
wall_velocity = [0.01, -0.004]
angular_velocity = 0.005
circle = { center = [17.3, 19.6], radius = 5.2 }
[[obstacle]]
boundary = "interpolated"
circle = { center = [19.5, 19.5], radius = 18.2, fill = "outside" }
[forces]
velocity = 0.03
length = 10.4
)"};
  for (const char* toml : problems) {
    const Problem pr = problem(toml);
    CAPTURE(std::string(toml));
    for (Precision precision : {Precision::Float, Precision::Fp16s}) {
      CAPTURE(std::string(to_string(precision)));
      RunOutput ref;
      const std::vector<double> forces = d2q9::test::reference_forces(pr, precision, &ref);
      REQUIRE(ref.av_vels.back() > 1e-4);
      double scale = 0;
      for (double x : forces) scale = std::max(scale, std::fabs(x));
      // 16-bit storage shares the float arithmetic: two variants suffice there.
      const std::vector<KernelVariant> variants =
          precision == Precision::Float ? d2q9::test::every_variant()
                                        : std::vector<KernelVariant>{KernelVariant::Fused, KernelVariant::Blocked};
      d2q9::test::check_variants_against(pr.params, pr.mask, precision, ref, variants, [&](Solver& s) {
        const std::vector<double> got = s.take_body_forces();
        REQUIRE(got.size() == forces.size());
        // Summed in another order: within the sums' rounding of the largest force.
        double worst = 0;
        for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - forces[i]));
        CHECK(worst <= 1e-5 * scale);
      });
    }
  }
}

TEST_CASE("boundaries: bodies of their own wall velocities get numbers of their own") {
  const Problem pr = problem(R"([grid]
nx = 20
ny = 12
[flow]
steps = 1
omega = 1.0
[edges]
bottom = { wall_velocity = [0.01, 0] }
top = { wall_velocity = [-0.01, 0] }
[[obstacle]]
name = "a"
rectangle = { from = [3, 3], to = [4, 4] }
[[obstacle]]
name = "b"
wall_velocity = [0, 0.02]
rectangle = { from = [8, 3], to = [9, 4] }
[[obstacle]]
wall_velocity = [0, 0.02]
rectangle = { from = [12, 3], to = [13, 4] }
)");
  // Number 0: the first moving edge; 1 and 2: the measured bodies; 3: top; the
  // unnamed rectangle shares b's velocity but is no body, so it takes its own.
  const std::vector<Vec2> expected = {{0.01, 0}, {}, {0, 0.02}, {-0.01, 0}, {0, 0.02}};
  CHECK(pr.params.extensions.wall_velocities == expected);
  const auto at = [&](int i, int j) { return pr.mask.kinds[static_cast<std::size_t>(i + j * 20)]; };
  CHECK(at(5, 0) == cell_byte(kMovingWall, 0));
  CHECK(at(5, 11) == cell_byte(kMovingWall, 3));
  CHECK(at(3, 3) == cell_byte(kWall, 1));
  CHECK(at(8, 3) == cell_byte(kMovingWall, 2));
  CHECK(at(12, 3) == cell_byte(kMovingWall, 4));
  CHECK(cell_body(at(8, 3), 2) == 2);
  CHECK(cell_body(at(12, 3), 2) == 0);
}

namespace {

// Circular Couette flow: fluid between an inner cylinder of radius r1
// turning with surface speed 0.02 and a fixed outer ring of radius r2 (every
// cell beyond it a wall, fill = "outside"), both walls staircase or
// interpolated, run to steady on the double reference. The L2 error of
// u_theta over the gap against the analytic A r + B / r, relative to the
// surface speed.
double couette_error(double r1, double r2, const char* boundary, double turning = 1.0) {
  const int n = static_cast<int>(2 * r2) + 4;
  const double c = 0.5 * (n - 1), speed = 0.02, omega = speed / r1;
  const double nu = 1.0 / 6.0;  // omega = 1
  const int steps = static_cast<int>(5.0 * (r2 - r1) * (r2 - r1) / nu);
  std::ostringstream toml;
  toml.precision(17);
  toml << "[grid]\nnx = " << n << "\nny = " << n << "\n[flow]\nsteps = " << steps << "\nomega = 1.0\naccel = 0.0\n"
       << "[[obstacle]]\nboundary = \"" << boundary << "\"\nangular_velocity = " << turning * omega
       << "\ncircle = { center = [" << c << ", " << c << "], radius = " << r1 << " }\n"
       << "[[obstacle]]\nboundary = \"" << boundary << "\"\ncircle = { center = [" << c << ", " << c
       << "], radius = " << r2 << ", fill = \"outside\" }\n";
  const Problem pr = problem(toml.str());
  ReferenceSolver<double> s(pr.params, pr.mask);
  std::vector<double> av;
  s.run(steps, av);
  const std::vector<double> f = s.distributions();
  const double a = -omega * r1 * r1 / (r2 * r2 - r1 * r1), b = omega * r1 * r1 * r2 * r2 / (r2 * r2 - r1 * r1);
  double squares = 0.0;
  int cells = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const double x = i - c, y = j - c, r = std::hypot(x, y);
      if (pr.mask.at(i, j)) continue;
      const CellState u = cell_state(pr.params, pr.mask, f, static_cast<std::size_t>(i + j * n));
      const double theta = (-u.ux * y + u.uy * x) / r;
      squares += (theta - (a * r + b / r)) * (theta - (a * r + b / r));
      ++cells;
    }
  return std::sqrt(squares / cells) / speed;
}

}  // namespace

TEST_CASE("boundaries: a turning curved cylinder's force does not swing from step to step") {
  // Off the lattice's rows by a quarter cell: the values its cells pass among
  // themselves gained its momentum at every rebound, and counted, they made
  // Cd jump between about 2.06 and -0.02 on alternate steps.
  const Problem pr = problem(R"([grid]
nx = 96
ny = 64
[flow]
steps = 600
viscosity = 0.004
collision = "trt"
inlet_ramp = 100
[edges]
left = { inlet_velocity = [0.05, 0.0] }
right = { outlet_density = 1.0, sponge = 10 }
top = "free_slip"
bottom = "free_slip"
[[obstacle]]
name = "cylinder"
boundary = "interpolated"
angular_velocity = 0.0125
circle = { center = [24.0, 32.25], radius = 4.0 }
)");
  ReferenceSolver<double> s(pr.params, pr.mask);
  std::vector<double> av;
  s.run(pr.params.max_iters, av);
  const std::vector<double> f = s.take_body_forces();  // Fx, Fy per step
  REQUIRE(f.size() == 2 * static_cast<std::size_t>(pr.params.max_iters));
  // The flow is still starting (Fx grows by up to 1e-3 a step), so a swing
  // shows in the second difference: 1.0e-4 now, 0.042 when it swung.
  double largest_swing = 0, mean_fx = 0;
  for (std::size_t t = 400; t < 600; ++t) {
    largest_swing = std::max(largest_swing, std::fabs(f[2 * t] - 2 * f[2 * t - 2] + f[2 * t - 4]));
    mean_fx += f[2 * t] / 200;
  }
  CHECK(mean_fx > 1e-3);  // drag, downstream
  CHECK(largest_swing < 1e-3);
}

TEST_CASE("boundaries: a turning cylinder in a fixed ring gives circular Couette flow") {
  // Interpolated walls moving where their links meet them: second order, the
  // error a quarter at twice the cells (validation/couette.py --circular
  // shows three grids).
  const double coarse = couette_error(4.0, 10.0, "interpolated"), fine = couette_error(8.0, 20.0, "interpolated");
  MESSAGE("circular Couette, interpolated: L2/U " << coarse << " (r1 = 4), " << fine << " (r1 = 8), order "
                                                  << std::log2(coarse / fine));
  CHECK(std::log2(coarse / fine) > 1.7);
  CHECK(fine < 0.01);
  // Staircase walls moving at their cells' centres lie somewhere within half
  // a cell of the circle: within 2% of U, but no clean order.
  CHECK(couette_error(8.0, 20.0, "staircase") < 0.02);
  CHECK(couette_error(8.0, 20.0, "interpolated", 0.0) > 0.3);  // a cylinder at rest is nowhere near
}

TEST_SUITE_END();
