// Forces on named bodies (momentum exchange), probes, the Strouhal estimate
// and the parabolic inlet: momentum balances computed by hand, the kernels
// against the reference, and the files a run writes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/measurements.hpp"
#include "backend_config.hpp"
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
using d2q9::test::reference_forces;
using d2q9::test::RunOutput;

namespace {

// A channel driven by a body force, its walls and a block measured apart.
const char* const kChannel = R"(
[grid]
nx = 24
ny = 14
[flow]
steps = STEPS
omega = 1.2
body_force = [1.0e-5, 2.0e-7]
[[obstacle]]
name = "walls"
rectangle = { from = [0, 0], to = [23, 0] }
[[obstacle]]
name = "walls"
rectangle = { from = [0, 13], to = [23, 13] }
[[obstacle]]
name = "block"
rectangle = { from = [8, 4], to = [10, 7] }
[forces]
velocity = 0.01
length = 3
)";

std::string with_steps(const std::string& toml, int steps) {
  std::string s = toml;
  s.replace(s.find("STEPS"), 5, std::to_string(steps));
  return s;
}

// Inflow with a parabolic profile, a moving bottom wall, an unmeasured
// obstacle and a measured cylinder, TRT: every path the force takes.
const char* const kInflow = R"(
[grid]
nx = 30
ny = 16
[flow]
steps = 120
viscosity = 0.04
collision = "trt"
[edges]
left = { inlet_velocity = { parabolic = 0.06 } }
right = { outlet_density = 1.0 }
bottom = { wall_velocity = [0.01, 0.0] }
top = "wall"
[[obstacle]]
name = "cylinder"
circle = { center = [9.0, 7.5], radius = 3.0 }
[[obstacle]]
rectangle = { from = [20, 1], to = [21, 3] }
[forces]
velocity = 0.04
length = 6
)";

}  // namespace

TEST_CASE("forces: in a steady channel the bodies take exactly the momentum the body force gives the fluid") {
  // Each step the body force adds F to every fluid cell's momentum; once the
  // flow is steady all of it goes into the obstacles: the sum over the
  // bodies is F times the fluid cells, in x and in y.
  const Problem pr = problem(with_steps(kChannel, 6000));
  const double fluid = static_cast<double>(pr.mask.fluid_cells());
  REQUIRE(fluid == 24 * 12 - 12);
  const std::vector<double> f = reference_forces(pr, Precision::Double);
  REQUIRE(f.size() == 4u * pr.params.max_iters);
  const double* last = f.data() + f.size() - 4;
  const double fx = last[0] + last[2], fy = last[1] + last[3];
  CHECK(fx == doctest::Approx(1.0e-5 * fluid).epsilon(1e-6));
  CHECK(fy == doctest::Approx(2.0e-7 * fluid).epsilon(1e-4));
  // Both bodies take a real share, the block pushed downstream.
  CHECK(last[0] > 0.3 * fx);
  CHECK(last[2] > 0.3 * fx);
}

TEST_CASE("forces: a body in a closed box at rest feels nothing, and obstacles named alike are one body") {
  const Problem pr = problem(R"(
[grid]
nx = 12
ny = 10
[flow]
steps = 50
omega = 1.0
[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = "wall"
[[obstacle]]
name = "a"
rectangle = { from = [3, 3], to = [4, 4] }
[[obstacle]]
name = "a"
circle = { center = [8.0, 6.0], radius = 1.0 }
)");
  // Naming without [forces]: the named bodies are measured.
  CHECK(pr.measure.bodies == std::vector<std::string>{"a"});
  CHECK(pr.params.extensions.measured_bodies == 1);
  CHECK(cell_body(pr.mask.kinds[3 + 3 * 12], 1) == 1);
  CHECK(cell_body(pr.mask.kinds[8 + 6 * 12], 1) == 1);
  CHECK(cell_body(pr.mask.kinds[0], 1) == 0);  // the edge walls are not measured
  CHECK(cell_kind(pr.mask.kinds[3 + 3 * 12]) == kWall);
  const std::vector<double> f = reference_forces(pr, Precision::Double);
  for (double v : f) CHECK(std::fabs(v) < 1e-15);
}

TEST_CASE("forces: OpenCL gives the reference's distributions bit for bit and its forces to summation order, every variant") {
  const Problem inflow = problem(kInflow);
  const Problem channel = problem(with_steps(kChannel, 150));
  for (const Problem* pr : {&inflow, &channel}) {
    CAPTURE(pr->params.nx);
    for (Precision precision : {Precision::Float, Precision::Fp16s}) {
      CAPTURE(std::string(to_string(precision)));
      RunOutput ref;
      const std::vector<double> ref_forces = reference_forces(*pr, precision, &ref);
      REQUIRE(ref_forces.size() == 2u * pr->measure.bodies.size() * pr->params.max_iters);
      d2q9::test::check_variants_against(pr->params, pr->mask, precision, ref, d2q9::test::every_variant(), [&](Solver& solver) {
        const std::vector<double> forces = solver.take_body_forces();
        REQUIRE(forces.size() == ref_forces.size());
        // Summed in another order: within the sums' rounding of the largest force.
        double scale = 0;
        for (double x : ref_forces) scale = std::max(scale, std::fabs(x));
        double worst = 0;
        for (std::size_t i = 0; i < forces.size(); ++i) worst = std::max(worst, std::fabs(forces[i] - ref_forces[i]));
        CHECK(worst < 1e-5 * scale);
        CHECK(solver.take_body_forces().empty());  // taken
      });
    }
  }
}

TEST_CASE("forces: a parabolic inlet sets Poiseuille's profile on column 0") {
  std::string text = kInflow;
  const std::string moving = "bottom = { wall_velocity = [0.01, 0.0] }";
  text.replace(text.find(moving), moving.size(), "bottom = \"wall\"");
  const Problem pr = problem(text);
  CHECK(pr.params.extensions.inlet()->parabolic);
  const RunOutput out = d2q9::test::reference(pr.params, pr.mask, Precision::Double);
  const double h = pr.params.ny - 2;
  for (int j = 1; j < pr.params.ny - 1; ++j) {
    const double y = j - 0.5;
    const CellState c = cell_state(pr.params, pr.mask, out.f, static_cast<std::size_t>(j) * pr.params.nx);
    CHECK(c.ux == doctest::Approx(4 * 0.06 * y * (h - y) / (h * h)).epsilon(1e-9));
    CHECK(std::fabs(c.uy) < 1e-12);
  }
}

TEST_CASE("forces: the Strouhal estimate finds a sine's frequency and ignores rounding noise") {
  std::vector<double> lift;
  for (int t = 0; t < 4000; ++t) lift.push_back(0.3 + 0.5 * std::sin(2 * M_PI * t / 237.0 + 0.4));
  const Oscillation found = analyse_oscillation(lift, 1, 1.0);
  REQUIRE(found.stationary);
  CHECK(found.frequency == doctest::Approx(1 / 237.0).epsilon(1e-3));
  CHECK(found.periods >= 7);
  std::vector<double> sampled;
  for (int t = 0; t < 4000; t += 10) sampled.push_back(lift[t]);
  REQUIRE(analyse_oscillation(sampled, 10, 1.0).stationary);
  CHECK(analyse_oscillation(sampled, 10, 1.0).frequency == doctest::Approx(1 / 237.0).epsilon(1e-2));
  std::vector<double> noise;
  for (int t = 0; t < 4000; ++t) noise.push_back(1.0 + 1e-7 * std::sin(2 * M_PI * t / 7.0));
  CHECK_FALSE(analyse_oscillation(noise, 1, 1.0).stationary);
  CHECK_FALSE(analyse_oscillation(std::vector<double>(lift.begin(), lift.begin() + 300), 1, 1.0).stationary);
}

TEST_CASE("forces: a run writes forces.csv, probes.csv and the summary's forces") {
  d2q9::test::TempDir dir;
  std::string text = with_steps(kChannel, 200) + "[probes]\nevery = 50\nbehind = [14, 6]\nabove = [9, 10]\n";
  const std::string toml = dir.write("channel.toml", text);
  const auto r = d2q9::test::run_program("'" + toml + "' -o '" + dir.path + "' --summary-json '" + dir.file("s.json") + "'");
  REQUIRE(r.status == 0);
  const std::string forces = d2q9::test::slurp(dir.file("forces.csv"));
  CHECK(forces.rfind("step,walls_Fx,walls_Fy,walls_Cd,walls_Cl,block_Fx,block_Fy,block_Cd,block_Cl\n1,", 0) == 0);
  CHECK(d2q9::test::count_lines(forces) == 201);
  const std::string probes = d2q9::test::slurp(dir.file("probes.csv"));
  CHECK(probes.rfind("step,behind_rho,behind_ux,behind_uy,above_rho,above_ux,above_uy\n50,", 0) == 0);
  CHECK(d2q9::test::count_lines(probes) == 5);
  const std::string json = d2q9::test::slurp(dir.file("s.json"));
  CHECK(d2q9::test::contains(json, "\"forces\""));
  CHECK(d2q9::test::contains(json, "\"block\""));
  CHECK(d2q9::test::contains(json, "\"Cd\""));
  CHECK(d2q9::test::contains(r.out, "Force on block:"));
  CHECK(d2q9::test::contains(r.out, "Forces over:\t\t\tsteps 181-200 (the last 10% of the steps)"));
  // The last row of forces.csv is the JSON's Fx, Fy, Cd, Cl (the last step's).
  const std::string last = forces.substr(forces.rfind('\n', forces.size() - 2) + 1);
  CHECK(last.rfind("200,", 0) == 0);
}

TEST_CASE("forces: problem-file errors name the line") {
  auto error = [](const std::string& text) {
    try {
      parse_problem_file(text, "p.toml");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string grid = "[grid]\nnx = 20\nny = 10\n[flow]\nsteps = 10\nomega = 1.0\n";
  CHECK(error(grid + "[forces]\nvelocity = 0.1\n") == "p.toml:7: [forces] needs length as well for the coefficients C = 2 F / (density velocity^2 length)");
  CHECK(error(grid + "[forces]\n") == "p.toml:7: [forces] measures the force on obstacles, but there is no [[obstacle]]");
  CHECK(error(grid + "[[obstacle]]\nname = \"a b\"\ncircle = { center = [5.0, 5.0], radius = 2.0 }\n") ==
        "p.toml:8: name 'a b' must be 1 to 64 letters, digits, '_' or '-' (it heads CSV columns)");
  CHECK(error(grid + "[[obstacle]]\ncircle = { center = [5.0, 5.0], radius = 2.0 }\n[probes]\nevery = 5\nin = [5, 5]\n") ==
        "p.toml:11: probe in at [5, 5] is inside an obstacle: a probe measures the fluid");
  CHECK(error(grid + "[probes]\nevery = 5\nfar = [50, 5]\n") ==
        "p.toml:9: probe far = [50, 5] is outside the grid: i must lie in [0, 19] and j in [0, 9]");
  CHECK(error(grid + "[probes]\nx = [1, 1]\n") == "p.toml:7: [probes] needs every = N: the steps between two rows of probes.csv");
  CHECK(error(grid + "magic = 0.2\n") == "p.toml:7: magic is TRT's parameter: it goes with collision = \"trt\"");
  CHECK(error(grid + "[edges]\nleft = { inlet_velocity = { parabolic = 0.05 } }\nright = { outlet_density = 1.0 }\n") ==
        "p.toml:8: a parabolic inlet flows between walls: bottom and top must be walls, not periodic");
  CHECK(error(grid + "[edges]\nleft = { inlet_velocity = { parabolic = 0.7 } }\nright = { outlet_density = 1.0 }\n"
                     "bottom = \"wall\"\ntop = \"wall\"\n") ==
        "p.toml:8: parabolic 0.7 is not below the lattice speed of sound 1/sqrt(3) = 0.57735");
  CHECK(error(grid + "[edges]\nleft = { inlet_velocity = { parabolc = 0.1 } }\n") ==
        "p.toml:8: unknown key 'parabolc' in inlet_velocity = { ... }; did you mean 'parabolic'?");
  CHECK(error(grid + "inlet_ramp = 100\n") ==
        "p.toml:7: inlet_ramp ramps up an inlet, but no edge has an inlet_velocity");
  CHECK(error(grid + "inlet_ramp = 0\n") == "p.toml:7: inlet_ramp must be positive (steps), got 0");
  CHECK(error(grid + "collision = \"mrt\"\n") == "p.toml:7: collision must be \"bgk\", \"trt\" or \"regularised\", got \"mrt\"");
}

TEST_CASE("forces: the examples in --help, docs/forces-and-probes.md and inputs/examples/ are complete problems") {
  // --help's example: the indented lines after its introduction.
  const std::string help = d2q9::test::run_program("--help").out;
  const auto start = help.find("    [grid]");
  REQUIRE(start != std::string::npos);
  std::string example;
  for (std::size_t at = start; at < help.size() && help.compare(at, 4, "    ") == 0;) {
    const auto end = help.find('\n', at);
    example += help.substr(at + 4, end - at - 3);
    at = end + 1;
  }
  // The docs' first ```toml block, and the example file.
  const std::string doc = d2q9::test::slurp(std::string(D2Q9_SOURCE_DIR) + "/docs/forces-and-probes.md");
  const auto block = doc.find("```toml\n") + 8;
  const std::string documented = doc.substr(block, doc.find("```", block) - block);
  const std::string file = d2q9::test::slurp(std::string(D2Q9_SOURCE_DIR) + "/inputs/examples/cylinder-forces.toml");
  for (const std::string& text : {example, documented, file}) {
    const Problem pr = problem(text);
    CHECK(pr.measure.bodies == std::vector<std::string>{"cylinder"});
    CHECK(pr.measure.coefficients());
    CHECK(pr.measure.probes.size() == 2);
    CHECK(pr.params.extensions.inlet()->parabolic);
    CHECK(pr.params.extensions.collision == CollisionOperator::Trt);
    CHECK(pr.params.extensions.curved_walls);
  }
}

TEST_CASE("forces: a backend's probe read gives the values of its whole read-back") {
  const Problem pr = problem(kInflow);
  const std::vector<std::size_t> cells = {0, 31, 7 * 30 + 14, pr.params.cells() - 1};
  for (Precision precision : {Precision::Float, Precision::Fp16c, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    auto solver = make_solver(Backend::OpenCL, pr.params, pr.mask, config(precision, {8, 2}, KernelVariant::Fused));
    std::vector<double> av;
    solver->run(37, av);
    const std::vector<double> all = solver->distributions();
    const std::vector<double> some = solver->cell_distributions(cells);
    REQUIRE(some.size() == kSpeeds * cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c)
      for (int k = 0; k < kSpeeds; ++k) CHECK(some[c * kSpeeds + k] == all[k * pr.params.cells() + cells[c]]);
  }
}

TEST_CASE("forces: probes sampled on the device are the values of a run stopped at each probe's step, every variant") {
  // An accelerated row as well as an inlet: the state sampled must be the
  // one a run() ending at the probe leaves (no next step's acceleration in it).
  std::string text = kInflow;
  text.replace(text.find("collision"), 0, "accel = 0.002\n");
  const Problem pr = problem(text);
  const std::vector<std::size_t> cells = {0, 31, 14 * 30 + 14, 7 * 30 + 25, pr.params.cells() - 1};
  const int every = 6, steps = 45;
  for (Precision precision : {Precision::Float, Precision::Fp16s, Precision::Double}) {
    for (KernelVariant variant : {KernelVariant::Fused, KernelVariant::Blocked, KernelVariant::Split}) {
      CAPTURE(std::string(to_string(precision)));
      CAPTURE(std::string(to_string(variant)));
      auto sampling = make_solver(Backend::OpenCL, pr.params, pr.mask, config(precision, {8, 2}, variant));
      auto stopping = make_solver(Backend::OpenCL, pr.params, pr.mask, config(precision, {8, 2}, variant));
      CHECK_FALSE(sampling->samples_cells());
      REQUIRE(sampling->sample_cells_every(cells, every));
      CHECK(sampling->samples_cells());
      std::vector<double> av_sampling, av_stopping;
      sampling->run(20, av_sampling);  // two calls: the second continues the first's numbering
      sampling->run(steps - 20, av_sampling);
      const Solver::CellSamples taken = sampling->take_cell_samples();
      std::vector<double> read;
      std::vector<int> read_steps;
      // Stopped where the sampling run's calls and probes end its chunks (so
      // that 16-bit blocked tiles sum |u| in the same order: its last step of
      // a launch walks another window).
      for (int done = 0; done < steps;) {
        const int n = std::min({every - done % every, steps - done, done < 20 ? 20 - done : steps});
        stopping->run(n, av_stopping);
        done += n;
        if (done % every == 0) {
          const std::vector<double> f = stopping->cell_distributions(cells);
          read.insert(read.end(), f.begin(), f.end());
          read_steps.push_back(done);
        }
      }
      CHECK(taken.steps == read_steps);
      CHECK(taken.values == read);
      CHECK(av_sampling == av_stopping);
      CHECK(sampling->distributions() == stopping->distributions());
    }
  }
}

TEST_CASE("forces: probes off the accelerated row are sampled in the launches, the run unchanged") {
  // Every step and every 6 (blocked: mid-launch and at a launch's end), an accelerated
  // row and an inlet: each sample is the state a run() stopped at its step
  // leaves, and sampling moves no chunk end (16-bit tiles would sum |u| in
  // another order, so av_vels would change with them).
  std::string text = kInflow;
  text.replace(text.find("collision"), 0, "accel = 0.002\n");
  const Problem pr = problem(text);
  const std::vector<std::size_t> cells = {0, 31, 7 * 30 + 25, 9 * 30 + 3, 13 * 30 + 29, pr.params.cells() - 1};
  const int steps = 45;
  struct Case {
    KernelVariant variant;
    int every;
    bool in_problem;  // the problem's own probes: blocked's kernel then samples between its steps
  };
  for (Precision precision : {Precision::Float, Precision::Fp16s, Precision::Double}) {
    for (const Case c : {Case{KernelVariant::Blocked, 1, true}, Case{KernelVariant::Blocked, 6, true},
                         Case{KernelVariant::Blocked, 6, false}, Case{KernelVariant::Fused, 6, false}}) {
      const int every = c.every;
      CAPTURE(std::string(to_string(precision)));
      CAPTURE(std::string(to_string(c.variant)));
      CAPTURE(every);
      CAPTURE(c.in_problem);
      Params params = pr.params;
      params.extensions.probe_every = c.in_problem ? every : 0;
      const SolverConfig cfg = config(precision, {8, 2}, c.variant);
      REQUIRE(blocked_samples_inside(params, *plan_for(Backend::OpenCL, params, cfg)) == c.in_problem);
      auto sampling = make_solver(Backend::OpenCL, params, pr.mask, cfg);
      auto plain = make_solver(Backend::OpenCL, params, pr.mask, cfg);
      REQUIRE(sampling->sample_cells_every(cells, every));
      std::vector<double> av_sampling, av_plain;
      sampling->run(20, av_sampling);
      sampling->run(steps - 20, av_sampling);
      plain->run(20, av_plain);
      plain->run(steps - 20, av_plain);
      // Launches ending at probes' steps change a 16-bit tile's |u| sums'
      // order (its last step walks a smaller window); float and double walk
      // the same cells in the same order.
      if (c.in_problem || c.variant != KernelVariant::Blocked || precision != Precision::Fp16s)
        CHECK(av_sampling == av_plain);
      CHECK(sampling->distributions() == plain->distributions());
      const Solver::CellSamples taken = sampling->take_cell_samples();
      std::vector<int> expected_steps;
      for (int t = every; t <= steps; t += every) expected_steps.push_back(t);
      CHECK(taken.steps == expected_steps);
      // Each sample against a run stopped there.
      auto stopping = make_solver(Backend::OpenCL, params, pr.mask, cfg);
      std::vector<double> av_stopping, read;
      for (int done = every; done <= steps; done += every) {
        stopping->run(every, av_stopping);
        const std::vector<double> f = stopping->cell_distributions(cells);
        read.insert(read.end(), f.begin(), f.end());
      }
      CHECK(taken.values == read);
    }
  }
}

namespace {

// The reference's cell_distributions of `cells` after every `every` steps
// up to `steps`: what a run sampling them every `every` steps takes.
std::vector<double> reference_samples(const Params& params, const ObstacleMask& mask,
                                      const std::vector<std::size_t>& cells, int every, int steps) {
  ReferenceSolver<float> ref(params, mask);
  std::vector<double> av, read;
  for (int done = every; done <= steps; done += every) {
    ref.run(every, av);
    const std::vector<double> f = ref.cell_distributions(cells);
    read.insert(read.end(), f.begin(), f.end());
  }
  return read;
}

// Every sample's every value equal, saying where the first differs.
void check_samples_equal(const std::vector<double>& got, const std::vector<double>& expected, std::size_t probes) {
  const auto first_difference = std::mismatch(got.begin(), got.end(), expected.begin(), expected.end()).first;
  const std::size_t at = static_cast<std::size_t>(first_difference - got.begin());
  CAPTURE(at / (kSpeeds * probes));  // the sample
  CAPTURE(at / kSpeeds % probes);    // the probe's column
  CAPTURE(at < got.size() ? got[at] : 0.0);
  CAPTURE(at < got.size() ? expected[at] : 0.0);
  CHECK(got == expected);
}

}  // namespace

TEST_CASE("forces: a tile past the first with more probes than its work-group's items samples each into its column") {
  // Issue 56: the blocked kernel reads the probes of a tile past its first
  // WG_SIZE from sample_index, at the tile's first probe plus j; read
  // without the tile's first, a tile but the first wrote other probes' cells
  // into columns, left its own unwritten (probes.csv's rho 1.3E+10). Work-
  // groups of 8 items, tiles of 8x8 on a 16x16 grid: 12 probes in tile 0,
  // 12 in tile 1 and 10 in tile 3, listed last tile first.
  Params params = d2q9::test::make_params(16, 16, 12);
  const ObstacleMask mask = d2q9::test::test_obstacles(params);
  const int every = 2, steps = 12;
  params.extensions.probe_every = every;  // the problem's own: the kernel samples between its steps
  std::vector<std::size_t> cells;
  const auto add = [&](int x0, int y0, int n) {
    for (int i = 0; i < n; ++i) {
      const int y = y0 + i / 4 * 2;  // rows y0, y0 + 2, y0 + 4 (none the accelerated row, 14)
      cells.push_back(static_cast<std::size_t>(y * params.nx + x0 + i % 4 * 2 - i / 4 % 2));
    }
  };
  add(9, 9, 10);   // tile 3 (x 8-15, y 8-15): rows 9, 11, 13
  add(9, 1, 12);   // tile 1 (x 8-15, y 0-7)
  add(1, 2, 12);   // tile 0
  SolverConfig cfg = config(Precision::Float, {4, 2}, KernelVariant::Blocked);
  cfg.launch.tile = {8, 8};
  const LaunchPlan plan = *plan_for(Backend::OpenCL, params, cfg);
  REQUIRE(plan.local.x * plan.local.y == 8);
  REQUIRE(plan.tile.x == 8);
  REQUIRE(plan.tile.y == 8);
  REQUIRE(blocked_samples_inside(params, plan));
  // The tiles' probes as laid out for the kernel: 12, 12, none and 10.
  const std::vector<int> index = blocked_sample_index(plan, params.nx, 0, params.ny, cells);
  REQUIRE(std::vector<int>(index.begin(), index.begin() + 5) == std::vector<int>{0, 12, 24, 24, 34});
  auto solver = make_solver(Backend::OpenCL, params, mask, cfg);
  REQUIRE(solver->sample_cells_every(cells, every));
  std::vector<double> av;
  solver->run(steps, av);
  const Solver::CellSamples taken = solver->take_cell_samples();
  CHECK(taken.steps == std::vector<int>{2, 4, 6, 8, 10, 12});
  const std::vector<double> expected = reference_samples(params, mask, cells, every, steps);
  REQUIRE(taken.values.size() == expected.size());
  check_samples_equal(taken.values, expected, cells.size());
}

TEST_CASE("forces: probes through halves of a few rows each are the reference's, to the last sample") {
  // Issue 56: halves of rows * every steps, not (rows - 1) * every, let a
  // chunk write one sample past its half (with 30,000 probes, past the
  // device's buffer). A buffer of 3 rows a half and chunks of up to 16 steps
  // fill and read the halves many times in a short run.
  std::string text = kInflow;
  text.replace(text.find("collision"), 0, "accel = 0.002\n");
  const Problem pr = problem(text);
  const std::vector<std::size_t> cells = {31, 7 * 30 + 25, 9 * 30 + 3};
  const int every = 2, steps = 45;
  const std::vector<double> expected = reference_samples(pr.params, pr.mask, cells, every, steps);
  std::vector<int> expected_steps;
  for (int t = every; t <= steps; t += every) expected_steps.push_back(t);
  const auto check = [&](KernelVariant variant) {
    Params params = pr.params;
    params.extensions.probe_every = every;  // blocked: its kernel samples between its steps
    SolverConfig cfg = config(Precision::Float, {8, 2}, variant, 16);
    cfg.device.sample_buffer_bytes = 2 * 3 * kSpeeds * cells.size() * sizeof(float);
    auto solver = make_solver(Backend::OpenCL, params, pr.mask, cfg);
    REQUIRE(solver->sample_cells_every(cells, every));
    std::vector<double> av;
    solver->run(steps, av);
    const Solver::CellSamples taken = solver->take_cell_samples();
    CHECK(taken.steps == expected_steps);
    REQUIRE(taken.values.size() == expected.size());
    check_samples_equal(taken.values, expected, cells.size());
  };
  // One subcase each (-sc picks one).
  SUBCASE("fused: sampled after its launches") { check(KernelVariant::Fused); }
  SUBCASE("blocked: sampled between its steps") { check(KernelVariant::Blocked); }
}

TEST_CASE("forces: an inlet's ramp raises its velocity smoothly, the same in every variant, across run() calls") {
  std::string text = kInflow;
  text.replace(text.find("collision = \"trt\""), 17, "collision = \"trt\"\ninlet_ramp = 60");
  const Problem pr = problem(text);
  REQUIRE(pr.params.extensions.inlet_ramp_steps == 60);
  SUBCASE("the inlet's velocity follows the smoothstep, then the profile") {
    const double h = pr.params.ny - 2, y = 7 - 0.5;
    const double full = 4 * 0.06 * y * (h - y) / (h * h);
    for (int steps : {1, 20, 45, 60, 61, 90}) {
      CAPTURE(steps);
      ReferenceSolver<double> s(pr.params, pr.mask);
      std::vector<double> av;
      s.run(steps, av);
      const double x = std::min(1.0, static_cast<double>(steps) / 60);  // the last step is number steps - 1
      const CellState c = cell_state(pr.params, pr.mask, s.distributions(), 7 * static_cast<std::size_t>(pr.params.nx));
      CHECK(c.ux == doctest::Approx(full * x * x * (3 - 2 * x)).epsilon(1e-9));
    }
  }
  SUBCASE("OpenCL against the reference, every variant, float and fp16s") {
    for (Precision precision : {Precision::Float, Precision::Fp16s}) {
      CAPTURE(std::string(to_string(precision)));
      const RunOutput ref = d2q9::test::reference(pr.params, pr.mask, precision);
      d2q9::test::check_variants_against(pr.params, pr.mask, precision, ref, d2q9::test::every_variant());
    }
  }
  SUBCASE("two run() calls continue the ramp where the first stopped") {
    const RunOutput whole = d2q9::test::reference(pr.params, pr.mask, Precision::Float);
    auto solver = make_solver(Backend::OpenCL, pr.params, pr.mask, config(Precision::Float, {8, 2}, KernelVariant::Fused));
    std::vector<double> av;
    solver->run(37, av);
    solver->run(pr.params.max_iters - 37, av);
    CHECK(solver->distributions() == whole.f);
  }
}

TEST_SUITE_END();
