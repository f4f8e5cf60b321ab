// The library keeps the promises the command line keeps (issue 56): a
// problem it cannot run is refused when the Simulation is made, outputs and
// checkpoints never land on an input or a file that is not provably theirs,
// and an unstable run writes nothing. On the reference backend: no device.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <functional>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "io/output.hpp"
#include "problem/limits.hpp"
#include "sim/simulation.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;
using d2q9::test::contains;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

SimulationOptions reference() {
  SimulationOptions o;
  o.backend = Backend::Reference;
  return o;
}

const std::string kCavity = "[grid]\nnx = 16\nny = 12\n[flow]\nsteps = 20\nviscosity = 0.1\nbody_force = [1e-5, 0.0]\n";

template <typename Error, typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// Params whose every value the kernels compute with is set and ordinary.
Params every_value_set() {
  Params p;
  p.nx = 16;
  p.ny = 12;
  p.max_iters = 10;
  p.reynolds_dim = 10;
  p.density = 1.0;
  p.accel = 0.001;
  p.omega = 1.5;
  Extensions& e = p.extensions;
  e.wall_velocities = {{0.01, 0.02}};
  e.body_force = {1e-5, 2e-5};
  OpenBoundary inlet, outlet;
  inlet.velocity = {0.03, 0.04};
  outlet.kind = OpenBoundary::Kind::PressureOutlet;
  outlet.edge = Edge::Right;
  e.open_boundaries = {inlet, outlet};
  e.collision = CollisionOperator::Trt;
  e.trt_magic = 0.25;
  e.smagorinsky = 0.1;
  return p;
}

}  // namespace

TEST_CASE("library promises: every key and component float cannot hold is refused, by its name") {
  const std::vector<std::pair<std::string, std::function<void(Params&, double)>>> keys = {
      {"density", [](Params& p, double v) { p.density = v; }},
      {"accel", [](Params& p, double v) { p.accel = v; }},
      {"wall_velocity[0]", [](Params& p, double v) { p.extensions.wall_velocities[0].x = v; }},
      {"wall_velocity[1]", [](Params& p, double v) { p.extensions.wall_velocities[0].y = v; }},
      {"body_force[0]", [](Params& p, double v) { p.extensions.body_force.x = v; }},
      {"body_force[1]", [](Params& p, double v) { p.extensions.body_force.y = v; }},
      {"inlet_velocity[0]", [](Params& p, double v) { p.extensions.open_boundaries[0].velocity.x = v; }},
      {"inlet_velocity[1]", [](Params& p, double v) { p.extensions.open_boundaries[0].velocity.y = v; }},
      {"outlet_density", [](Params& p, double v) { p.extensions.open_boundaries[1].density = v; }},
      {"magic", [](Params& p, double v) { p.extensions.trt_magic = v; }},
  };
  CHECK_NOTHROW(check_params_fit_precision(every_value_set(), Precision::Float, "p.toml"));
  for (const auto& [name, set] : keys)
    for (const double bad : {1e39, -1e39, 1e-300}) {
      CAPTURE(name);
      CAPTURE(bad);
      Params p = every_value_set();
      set(p, bad);
      const std::string e = error_of<InputError>([&] { check_params_fit_precision(p, Precision::Float, "p.toml"); });
      CHECK(e.rfind("p.toml: " + name + " ", 0) == 0);
      CHECK(contains(e, bad == 1e-300 ? "is too small for precision float" : "is too large for precision float"));
      // Double holds them all.
      CHECK_NOTHROW(check_params_fit_precision(p, Precision::Double, "p.toml"));
    }
}

TEST_CASE("library promises: omega is checked as the run's precision holds it") {
  Params p = every_value_set();
  p.omega = 1.99999999;  // 2.0f in float
  for (const Precision precision : {Precision::Float, Precision::Fp16s, Precision::Fp16c}) {
    CAPTURE(to_string(precision));
    CHECK(error_of<InputError>([&] { check_params_fit_precision(p, precision, "p.toml"); }) ==
          std::string("p.toml: omega 1.99999999 is 2 in precision ") + to_string(precision) +
              ", outside (0, 2); lower it or use precision double");
  }
  CHECK_NOTHROW(check_params_fit_precision(p, Precision::Double, "p.toml"));
  p.omega = 1.9999;  // below 2 in float too
  CHECK_NOTHROW(check_params_fit_precision(p, Precision::Float, "p.toml"));
}

TEST_CASE("library promises: a Simulation refuses what the command line refuses, with the same message") {
  // A viscosity this large leaves omega below float's range: no collision.
  CHECK(contains(error_of<InputError>([&] {
          Simulation(parse_problem_file("[grid]\nnx = 16\nny = 12\n[flow]\nsteps = 2\nviscosity = 1e300\n", "big.toml"),
                     reference());
        }),
        "big.toml: omega 3.33333e-301 is too small for precision float"));
  CHECK(error_of<InputError>([&] {
          Simulation(parse_problem_file("[grid]\nnx = 16\nny = 12\n[flow]\nsteps = 2\nviscosity = 0.1\naccel = 1e39\n",
                                        "a.toml"),
                     reference());
        }) == "a.toml: accel 1e+39 is too large for precision float (at most 3.40282e+38); use precision double");
  // Memory: refused from the params alone, before any lattice is allocated.
  Problem huge;
  huge.name = "huge.toml";
  huge.params.nx = huge.params.ny = 400000;
  huge.params.max_iters = 10;
  huge.params.reynolds_dim = 10;
  huge.params.density = 1;
  huge.params.omega = 1;
  const auto t0 = std::chrono::steady_clock::now();
  CHECK(contains(error_of<DeviceError>([&] { Simulation(huge, reference()); }), "of host memory"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
}

TEST_CASE("library promises: a .params problem without its obstacle file says so, naming the file") {
  TempDir dir;
  const std::string pf = dir.write("in.params", "12\n10\n40\n10\n0.1\n0.02\n1.7\n");
  CHECK(error_of<InputError>([&] { load_problem(pf); }) ==
        pf + ": a .params file needs its obstacle file (a problem file, .toml, describes its obstacles itself)");
}

TEST_CASE("library promises: write_outputs checks every target first and never writes over an input") {
  TempDir dir;
  const std::string problem = dir.write("p.toml", kCavity);
  Simulation sim(load_problem(problem), reference());
  sim.step(5);
  // A directory where final_state.vti goes: refused before av_vels.dat is written.
  REQUIRE(::mkdir(dir.file("out").c_str(), 0755) == 0);
  REQUIRE(::mkdir(dir.file("out/final_state.vti").c_str(), 0755) == 0);
  CHECK(error_of<InputError>([&] { sim.write_outputs(dir.file("out")); }) ==
        dir.file("out/final_state.vti") + ": is a directory, not a file");
  CHECK(test::TempDir::listing_of(dir.file("out")) == "final_state.vti\n");
  // A read-only output is the user's: refused.
  REQUIRE(::rmdir(dir.file("out/final_state.vti").c_str()) == 0);
  dir.write("out/av_vels.dat", "mine");
  REQUIRE(::chmod(dir.file("out/av_vels.dat").c_str(), 0444) == 0);
  if (::access(dir.file("out/av_vels.dat").c_str(), W_OK) != 0) {  // root writes anyway
    CHECK(contains(error_of<InputError>([&] { sim.write_outputs(dir.file("out")); }), "av_vels.dat"));
    CHECK(slurp(dir.file("out/av_vels.dat")) == "mine");
  }
  REQUIRE(::chmod(dir.file("out/av_vels.dat").c_str(), 0644) == 0);
  // The problem's own file under an output's name is an input.
  TempDir other;
  const std::string named = other.write("final_state.vti", kCavity);
  Simulation from_named(parse_problem_file(kCavity, named), reference());
  Problem read = load_problem(other.write("q.toml", kCavity));
  read.read_files.push_back(named);
  Simulation reading(std::move(read), reference());
  CHECK(error_of<InputError>([&] { reading.write_outputs(other.path); }) ==
        named + ": is an input of this run; the run would overwrite it");
  CHECK(slurp(named) == kCavity);
  // Written whole: the set and the folder's manifest.
  sim.write_outputs(dir.file("out"));
  CHECK(test::TempDir::listing_of(dir.file("out"), true) == ".d2q9-outputs.json\nav_vels.dat\nfinal_state.vti\n");
  CHECK(test::count_lines(slurp(dir.file("out/av_vels.dat"))) == 5);
}

TEST_CASE("library promises: save_checkpoint replaces only this problem's own checkpoints") {
  TempDir dir;
  const std::string problem = dir.write("p.toml", kCavity);
  Simulation sim(load_problem(problem), reference());
  sim.step(3);
  // Over its own problem file, a directory, a user's file: refused, untouched.
  CHECK(error_of<InputError>([&] { sim.save_checkpoint(problem); }) ==
        problem + ": is an input of this run; a checkpoint would overwrite it");
  CHECK(slurp(problem) == kCavity);
  REQUIRE(::mkdir(dir.file("d").c_str(), 0755) == 0);
  CHECK(error_of<InputError>([&] { sim.save_checkpoint(dir.file("d")); }) ==
        dir.file("d") + ": is a directory, not a checkpoint file");
  const std::string notes = dir.write("notes.txt", "mine");
  CHECK(contains(error_of<InputError>([&] { sim.save_checkpoint(notes); }), ": is not a checkpoint"));
  CHECK(slurp(notes) == "mine");
  // Its own, again and again; then read back at the step it was saved.
  sim.save_checkpoint(dir.file("ck"));
  sim.step(2);
  sim.save_checkpoint(dir.file("ck"));
  CHECK(read_checkpoint(dir.file("ck")).step() == 5);
  // Another problem's checkpoint: refused unless asked.
  Simulation other(parse_problem_file(kCavity + "density = 1.1\n", dir.file("other.toml")), reference());
  CHECK(error_of<InputError>([&] { other.save_checkpoint(dir.file("ck")); }) ==
        dir.file("ck") + ": holds the checkpoint of another run, which this run would overwrite; set overwrite to "
                         "start afresh and lose it");
  CHECK(read_checkpoint(dir.file("ck")).step() == 5);
  other.save_checkpoint(dir.file("ck"), {}, true);
  CHECK(read_checkpoint(dir.file("ck")).params.density == 1.1);
}

TEST_CASE("library promises: a run that went unstable refuses to step on or write its state") {
  TempDir dir;
  Simulation sim(parse_problem_file("[grid]\nnx = 16\nny = 16\n[flow]\nsteps = 500\nomega = 1.99\n"
                                    "body_force = [0.05, 0.0]\n", "u.toml"),
                 reference());
  const std::string first = error_of<InstabilityError>([&] { sim.step(500); });
  REQUIRE(contains(first, "unstable at step"));
  const int done = sim.steps_done();
  REQUIRE(sim.unstable() != nullptr);
  CHECK(error_of<InstabilityError>([&] { sim.step(100); }) == first);
  CHECK(sim.steps_done() == done);
  CHECK(error_of<InstabilityError>([&] { sim.write_outputs(dir.file("out")); }) == first);
  CHECK(error_of<InstabilityError>([&] { sim.save_checkpoint(dir.file("ck")); }) == first);
  CHECK(dir.listing() == "");
}

TEST_CASE("library promises: step counts that would overflow are refused") {
  Simulation sim(parse_problem_file(kCavity, "p.toml"), reference());
  sim.step(5);
  CHECK(error_of<InputError>([&] { sim.step(INT_MAX); }) ==
        "step(2147483647): 5 steps are done, and a simulation holds at most 2147483647 steps");
  CHECK(sim.steps_done() == 5);
  CHECK(error_of<InputError>([&] { sim.step(-1); }) == "step(-1): the number of steps is negative");
}

TEST_CASE("library promises: the reference refuses a device and a kernels folder it would ignore") {
  TempDir dir;
  SimulationOptions o = reference();
  o.device = 7;
  CHECK(error_of<InputError>([&] { Simulation(parse_problem_file(kCavity, "p.toml"), o); }) ==
        "--device 7: the reference backend runs on the CPU and has no devices (give none, or 0)");
  o.device = -2;
  CHECK(error_of<InputError>([&] { Simulation(parse_problem_file(kCavity, "p.toml"), o); }) ==
        "--device -2: a device index is 0 or more");
  o.device = 0;
  o.kernels_dir = dir.path;  // no kernels in it
  CHECK(contains(error_of<DeviceError>([&] { Simulation(parse_problem_file(kCavity, "p.toml"), o); }),
                 dir.path + ": no d2q9_bgk.cl in the kernels directory"));
  o.kernels_dir.clear();
  CHECK(Simulation(parse_problem_file(kCavity, "p.toml"), o).steps_done() == 0);
}

TEST_CASE("library promises: forces.csv's coefficients are the log's, for every way in") {
  Simulation sim(parse_problem_file("[grid]\nnx = 40\nny = 20\n[flow]\nsteps = 10\nviscosity = 0.1\n"
                                    "body_force = [1e-5, 0.0]\n[[obstacle]]\nname = \"box\"\n"
                                    "rectangle = { from = [10, 8], to = [13, 11] }\n"
                                    "[forces]\nvelocity = 0.01\nlength = 4\n", "f.toml"),
                 reference());
  sim.step(3);
  const std::vector<double> f = sim.measurements().force_series(), c = sim.measurements().coefficient_series();
  REQUIRE(f.size() == 6);
  REQUIRE(c.size() == 6);
  for (std::size_t i = 0; i < f.size(); ++i) CHECK(c[i] == 2.0 * f[i] / (1.0 * 0.01 * 0.01 * 4));
}

TEST_CASE("library promises: two files for one path in one process get their own temporaries") {
  TempDir dir;
  AtomicFile a(dir.file("x")), b(dir.file("x"));
  CHECK(a.temp_path() != b.temp_path());
}

TEST_SUITE_END();
