// Heat: the temperature lattice on the kernels against the reference, bit
// for bit, with every thermal boundary; pure conduction's linear profile;
// checkpoints that carry it, so that a restart continues bit for bit; what
// the library refuses of a problem with heat.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "io/output.hpp"
#include "io/output_guard.hpp"
#include "problem/lattice.hpp"
#include "sim/simulation.hpp"
#include "sim/wall_heat.hpp"
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

namespace {

// Every thermal boundary (a box, a channel), with each of `thermals`, on
// every variant in `precision`: OpenCL's lattice is the reference's, bit for bit.
void check_every_boundary(Precision precision, const std::vector<CollisionOperator>& thermals) {
  for (CollisionOperator thermal : thermals) {
    for (const Problem& pr : {heated_box(thermal), heated_channel(thermal)}) {
      CAPTURE(std::string(to_string(thermal)));
      CAPTURE(pr.params.nx);
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

}  // namespace

TEST_CASE("heat: every thermal boundary on OpenCL is the reference's, bit for bit, every variant") {
  for (Precision precision : {Precision::Float, Precision::Double})
    check_every_boundary(precision, {CollisionOperator::Bgk, CollisionOperator::Trt});
}

TEST_CASE("heat: 16-bit storage carries the temperature, bit for bit the reference's, every variant, fp16s and fp16c") {
  // The collision's arithmetic is float's, tested above; what 16 bits add is
  // how each variant stores: one thermal operator per format halves the
  // builds (PoCL compiles a 16-bit program about 2.5 times slower).
  check_every_boundary(Precision::Fp16s, {CollisionOperator::Bgk});
  check_every_boundary(Precision::Fp16c, {CollisionOperator::Trt});
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
  for (Precision precision : {Precision::Float, Precision::Double, Precision::Fp16s, Precision::Fp16c}) {
    SimulationOptions options(Backend::Reference);
    options.precision = precision;
    check_problem_runs(pr.params, "box.toml", options, true);  // every precision and checkpoints hold heat
  }
  // A checkpoint of the flow alone does not resume it: the solver would read a temperature lattice it lacks.
  Simulation sim(pr, SimulationOptions(Backend::Reference));
  Checkpoint flow = sim.checkpoint();
  REQUIRE(flow.planes() == 14);
  flow.f.resize(9 * pr.params.cells());
  CHECK_THROWS_WITH_AS(sim.resume(flow, "ck"),
                       "ck: checkpoint does not match the inputs: it holds 3564 values, but test.toml needs 14 per cell "
                       "of its 22x18 grid",
                       InputError);
}

namespace {

// A differentially heated cavity, buoyant: 400 steps.
const std::string kHeatedCavity = R"([grid]
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
)";

}  // namespace

TEST_CASE("heat: a run checkpointed and resumed ends bit for bit where the run straight through ends") {
  struct Case {
    Backend backend;
    Precision precision;
  };
  for (const Case& on : {Case{Backend::Reference, Precision::Float}, Case{Backend::Reference, Precision::Double},
                         Case{Backend::OpenCL, Precision::Float}, Case{Backend::Reference, Precision::Fp16s},
                         Case{Backend::OpenCL, Precision::Fp16c}}) {
    // A box of every thermal wall (TRT), and a channel with a warm inlet and a hot measured post (BGK).
    for (const Problem& pr : {heated_box(CollisionOperator::Trt), heated_channel(CollisionOperator::Bgk)}) {
      CAPTURE(std::string(to_string(on.backend)));
      CAPTURE(std::string(to_string(on.precision)));
      CAPTURE(pr.params.nx);
      d2q9::test::TempDir dir;
      SimulationOptions options(on.backend);
      options.precision = on.precision;
      if (on.backend == Backend::OpenCL) options.launch.variant = KernelVariant::FusedRows;
      const int steps = pr.params.max_iters, cut = 70;
      Simulation whole(pr, options);
      whole.step(steps);
      whole.write_outputs(dir.file("whole"), FinalStateFormat::Both);

      const std::string checkpoint = dir.file("ck");
      {
        Simulation first(pr, options);
        first.step(cut);
        first.save_checkpoint(checkpoint);
      }
      const Checkpoint c = read_checkpoint(checkpoint);
      REQUIRE(c.planes() == 14);
      REQUIRE(c.step() == cut);
      // The temperature lattice is there: not the initial temperature everywhere.
      const std::size_t n = pr.params.cells();
      double t_low = 1e9, t_high = -1e9;
      for (std::size_t i = 0; i < n; ++i) {
        if (is_obstacle(pr.mask.kinds[i])) continue;
        double t = 0;
        for (int k = 9; k < 14; ++k) t += c.f[k * n + i];
        t_low = std::min(t_low, t);
        t_high = std::max(t_high, t);
      }
      CHECK(t_high - t_low > 0.01);
      Simulation resumed(pr, options);
      resumed.resume(read_checkpoint(checkpoint), checkpoint);
      resumed.step(steps - cut);
      resumed.write_outputs(dir.file("resumed"), FinalStateFormat::Both);
      for (const std::string name : {kAvVelsFile, kFinalStateFile, kFinalStateVtiFile}) {
        CAPTURE(name);
        const std::string straight = d2q9::test::slurp(dir.file("whole/" + name));
        REQUIRE(!straight.empty());
        CHECK(d2q9::test::slurp(dir.file("resumed/" + name)) == straight);
      }
      CHECK(resumed.heat_at_walls().size() == whole.heat_at_walls().size());
    }
  }
}

TEST_CASE("heat: the command line restarts a heated cavity where its checkpoint left it, and no other problem") {
  d2q9::test::TempDir dir;
  dir.write("cavity.toml", kHeatedCavity);
  const std::string exe = std::string("cd '") + dir.path + "' && '" + D2Q9_EXE + "' ";
  // The text final state: its size is what the file-size limits below are set by.
  const std::string options = " -b reference -q --no-png --final-state text";
  REQUIRE(d2q9::test::run_shell(exe + "cavity.toml -o whole" + options).status == 0);
  // ulimit -f 64, 512-byte blocks (32 kB): the checkpoint (400 cells of 14 floats, 26 kB with its steps and
  // record) fits, final_state.dat (41 kB) does not, so the run fails after its last checkpoint (step 300) and
  // leaves it.
  const d2q9::test::Result cut = d2q9::test::run_shell("cd '" + dir.path + "' && ulimit -f 64 && '" + D2Q9_EXE +
                                                       "' cavity.toml -o cut --checkpoint-every 150" + options);
  REQUIRE_MESSAGE(cut.status != 0, cut.err);
  const std::string checkpoint = dir.file("cut/checkpoint.d2q9");
  const Checkpoint c = read_checkpoint(checkpoint);
  REQUIRE(c.step() == 300);
  CHECK(c.planes() == 14);
  const d2q9::test::Result restarted = d2q9::test::run_shell(exe + "--restart cut/checkpoint.d2q9 -o resumed");
  REQUIRE_MESSAGE(restarted.status == 0, restarted.err);
  for (const std::string name : {kAvVelsFile, kFinalStateFile}) {
    CAPTURE(name);
    const std::string straight = d2q9::test::slurp(dir.file("whole/" + name));
    REQUIRE(!straight.empty());
    CHECK(d2q9::test::slurp(dir.file("resumed/" + name)) == straight);
  }
  // The same cavity without [heat]: its checkpoint holds no temperature, this one's a temperature it lacks.
  dir.write("cavity.toml", kHeatedCavity.substr(0, kHeatedCavity.find("[edges]")) +
                               "[edges]\nleft = \"wall\"\nright = \"wall\"\nbottom = \"wall\"\ntop = \"wall\"\n");
  const d2q9::test::Result refused = d2q9::test::run_shell(exe + "--restart cut/checkpoint.d2q9 -o other");
  CHECK(refused.status == 1);
  CHECK(refused.err == "error: cut/checkpoint.d2q9: checkpoint does not match the inputs: it was written for a problem "
                       "with [heat] (14 values per cell), but " + dir.file("cavity.toml") +
                       " gives one without [heat] (9 values per cell)\n");
  // As above: 24 kB holds its checkpoint (9 floats a cell), not its final_state.dat (36 kB).
  REQUIRE(d2q9::test::run_shell("cd '" + dir.path + "' && ulimit -f 48 && '" + D2Q9_EXE +
                                "' cavity.toml -o plain --checkpoint-every 150" + options).status == 1);
  dir.write("cavity.toml", kHeatedCavity);
  const d2q9::test::Result refused_too = d2q9::test::run_shell(exe + "--restart plain/checkpoint.d2q9 -o other");
  CHECK(refused_too.status == 1);
  CHECK(refused_too.err == "error: plain/checkpoint.d2q9: checkpoint does not match the inputs: it was written for a "
                           "problem without [heat] (9 values per cell), but " + dir.file("cavity.toml") +
                           " gives one with [heat] (14 values per cell)\n");
  CHECK(dir.listing_of(dir.file("other")).empty());
}

TEST_CASE("heat: nusselt.csv holds each heated wall's Nusselt number every nusselt_every steps, through a restart") {
  Problem pr = problem(kHeatedCavity + "nusselt_every = 100\n");
  d2q9::test::TempDir dir;
  Simulation whole(pr, SimulationOptions(Backend::Reference));
  whole.step(250);
  whole.save_checkpoint(dir.file("ck"));
  whole.step(150);
  whole.write_outputs(dir.file("whole"));
  const std::string csv = d2q9::test::slurp(dir.file("whole/nusselt.csv"));
  REQUIRE(csv.rfind("step,left_Nu,right_Nu\n100,", 0) == 0);
  CHECK(d2q9::test::count_lines(csv) == 5);
  // The last row is the summary's Nusselt numbers after 400 steps, the series' own doubles.
  const std::vector<WallHeat> now = whole.heat_at_walls();
  REQUIRE(now.size() == 2);
  const MeasurementLog& log = whole.measurements();
  REQUIRE(log.nusselt_steps() == std::vector<int>{100, 200, 300, 400});
  CHECK(log.nusselt_series()[6] == now[0].nusselt);
  CHECK(log.nusselt_series()[7] == now[1].nusselt);
  CHECK(now[0].nusselt > 1.0);                          // convection: more heat than conduction's
  CHECK(log.nusselt_series()[0] != log.nusselt_series()[6]);  // it changes as the flow starts
  // A restart carries the rows before it.
  Simulation resumed(pr, SimulationOptions(Backend::Reference));
  resumed.resume(read_checkpoint(dir.file("ck")), dir.file("ck"));
  resumed.step(150);
  resumed.write_outputs(dir.file("resumed"));
  CHECK(d2q9::test::slurp(dir.file("resumed/nusselt.csv")) == csv);
  // What cannot be recorded is refused at its line.
  CHECK_THROWS_WITH_AS(problem(kHeatedCavity + "nusselt_every = 0\n"),
                       doctest::Contains("test.toml:17: nusselt_every must be a number of steps from 1 to the run's 400, got 0"),
                       InputError);
  std::string adiabatic = kHeatedCavity;
  for (const char* side : {"left = { temperature = 0.5 }", "right = { temperature = -0.5 }"})
    adiabatic.replace(adiabatic.find(side), std::string(side).size(), std::string(side).substr(0, 4) == "left" ? "left = \"wall\"" : "right = \"wall\"");
  CHECK_THROWS_WITH_AS(problem(adiabatic + "initial = 0.5\nnusselt_every = 10\n"),
                       doctest::Contains("nusselt_every: no wall or obstacle holds a temperature or a heat flux"), InputError);
}

TEST_CASE("heat: a Nusselt row read from the walls' cells alone is the whole lattice's, to the bit") {
  // A hot circle, a heat flux through the bottom, the cold right wall; OpenCL (PoCL) and the reference.
  Problem pr = problem(kHeatedCavity + "nusselt_every = 10\n[[obstacle]]\ncircle = { center = [9.5, 9.5], radius = 3 }\n"
                                       "temperature = 0.25\n");
  for (Backend b : {Backend::Reference, Backend::OpenCL}) {
    CAPTURE(to_string(b));
    Simulation sim(pr, SimulationOptions(b));
    sim.step(60);
    const std::vector<WallHeat> cells = sim.heat_at_walls();
    const std::vector<WallHeat> whole = wall_heat(sim.params(), sim.mask(), sim.distributions());
    REQUIRE(cells.size() == 3);
    REQUIRE(whole.size() == cells.size());
    for (std::size_t w = 0; w < whole.size(); ++w) {
      CAPTURE(whole[w].name);
      CHECK(cells[w].name == whole[w].name);
      CHECK(cells[w].faces == whole[w].faces);
      CHECK(cells[w].heat_in == whole[w].heat_in);
      CHECK(cells[w].nusselt == whole[w].nusselt);
      CHECK(cells[w].heat_in != 0.0);
    }
    // The log's last row is those numbers.
    CHECK(sim.measurements().nusselt_series().back() == whole.back().nusselt);
  }
}

TEST_CASE("heat: the command line runs a heated cavity end to end, in float and fp16s, and refuses --field temperature without heat") {
  d2q9::test::TempDir dir;
  // Both final-state files, the text's eighth column read below.
  dir.write("cavity.toml", kHeatedCavity + "nusselt_every = 100\n[probes]\nevery = 100\nmid = [10, 10]\n"
                           "[output]\nfinal_state = \"both\"\n");
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
  CHECK(d2q9::test::count_lines(d2q9::test::slurp(dir.file("run/nusselt.csv"))) == 5);
  // The probe's temperature is a fifth column, at the last step the final state's.
  const std::string probes = d2q9::test::slurp(dir.file("run/probes.csv"));
  CHECK(probes.rfind("step,mid_rho,mid_ux,mid_uy,mid_T\n", 0) == 0);
  const std::size_t mid_line = state.find("\n10 10 ") + 1;
  const std::string mid = state.substr(mid_line, state.find('\n', mid_line) - mid_line);
  const std::string last = probes.substr(probes.rfind("\n400,") + 1);
  CHECK(last.substr(last.rfind(',') + 1) == mid.substr(mid.rfind(' ') + 1) + "\n");
  // OpenCL samples the probes on the device (sample_cells; blocked: inside its launches): the same bytes.
  for (const char* variant : {"fused-rows", "blocked"}) {
    CAPTURE(variant);
    const std::string out = std::string("cl-") + variant;
    const d2q9::test::Result cl = d2q9::test::run_shell(exe + "cavity.toml -b opencl -o " + out + " --no-png --kernel-variant " + variant);
    REQUIRE_MESSAGE(cl.status == 0, cl.err);
    CHECK(d2q9::test::slurp(dir.file(out + "/probes.csv")) == probes);
    CHECK(d2q9::test::slurp(dir.file(out + "/nusselt.csv")) == d2q9::test::slurp(dir.file("run/nusselt.csv")));
    CHECK(d2q9::test::slurp(dir.file(out + "/final_state.dat")) == state);
    CHECK(d2q9::test::slurp(dir.file(out + "/final_state.vti")) == d2q9::test::slurp(dir.file("run/final_state.vti")));
  }
  // In fp16s the probes' rows are 16-bit codes until the host converts them: the reference's bytes too.
  for (const char* backend : {"reference", "opencl --kernel-variant blocked"}) {
    CAPTURE(backend);
    const std::string out = std::string("fp16s-") + (backend[0] == 'r' ? "reference" : "blocked");
    const d2q9::test::Result half = d2q9::test::run_shell(exe + "cavity.toml -p fp16s -o " + out + " --no-png -b " + backend);
    REQUIRE_MESSAGE(half.status == 0, half.err);
  }
  CHECK(d2q9::test::slurp(dir.file("fp16s-blocked/probes.csv")) == d2q9::test::slurp(dir.file("fp16s-reference/probes.csv")));
  CHECK(d2q9::test::slurp(dir.file("fp16s-blocked/final_state.dat")) ==
        d2q9::test::slurp(dir.file("fp16s-reference/final_state.dat")));
  CHECK(d2q9::test::slurp(dir.file("fp16s-blocked/final_state.vti")) ==
        d2q9::test::slurp(dir.file("fp16s-reference/final_state.vti")));
  CHECK(d2q9::test::slurp(dir.file("fp16s-blocked/probes.csv")) != probes);  // rounded otherwise than float
  const d2q9::test::Result r = d2q9::test::run_shell(exe + "plain.toml -b reference -o d --field temperature");
  CHECK(r.status != 0);
  CHECK(d2q9::test::count_lines(r.err) == 1);
  CHECK_MESSAGE(r.err.rfind("error: --field temperature draws the temperature", 0) == 0, r.err);
  CHECK(dir.listing_of(dir.file("d")).empty());
}

TEST_CASE("heat: fp16s and fp16c give the heated cavity's Nusselt number within 0.25% of float's") {
  // De Vahl Davis's cavity at Ra 1e4 on L = 16 (buoyancy velocity 0.1), steady after 20 L^2 steps; on the
  // reference, which the kernels match bit for bit in 16 bits too. A step's Nu in 16 bits wanders by about 1%
  // (the wall links' values round to 2^-11 of 0.08), so it is averaged over 100 steps, as a steady run's would be.
  const int n = 18, length = n - 2, steps = 20 * length * length;
  const double viscosity = 0.1 * length / std::sqrt(1e4 / 0.71);
  const std::string cavity = "[grid]\nnx = " + std::to_string(n) + "\nny = " + std::to_string(n) +
                             "\n[flow]\nsteps = " + std::to_string(steps + 100) + "\nviscosity = " +
                             std::to_string(viscosity) + "\ncollision = \"trt\"\n[edges]\nleft = { temperature = 0.5 }\n"
                             "right = { temperature = -0.5 }\nbottom = \"wall\"\ntop = \"wall\"\n[heat]\nprandtl = 0.71\n"
                             "rayleigh = 1e4\nlength = " + std::to_string(length) + "\ntemperature_difference = 1.0\n";
  const auto mean_nusselt = [&](Precision precision) {
    SimulationOptions options(Backend::Reference);
    options.precision = precision;
    Simulation sim(problem(cavity), options);
    sim.step(steps);
    double sum = 0.0;
    for (int s = 0; s < 100; ++s) {
      sim.step(1);
      sum += sim.heat_at_walls().at(0).nusselt;  // the hot wall's
    }
    return sum / 100.0;
  };
  const double in_float = mean_nusselt(Precision::Float);
  CHECK(in_float == doctest::Approx(2.3045).epsilon(1e-4));  // de Vahl Davis: 2.243, +2.7% on this coarse grid
  for (Precision precision : {Precision::Fp16s, Precision::Fp16c}) {
    CAPTURE(std::string(to_string(precision)));
    const double nusselt = mean_nusselt(precision);
    CAPTURE(nusselt);
    CAPTURE(in_float);
    CHECK(std::fabs(nusselt - in_float) < 2.5e-3 * in_float);  // measured: fp16s +0.043%, fp16c -0.010%
  }
}

TEST_SUITE_END();
