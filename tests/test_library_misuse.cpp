// The library's answers to misuse by a program that has no command line:
// a negative step count, steps past the problem's, kernels not found.
#include <doctest/doctest.h>

#include <cstdlib>

#include "sim/simulation.hpp"
#include "device/kernel_source.hpp"
#include "helpers.hpp"

using namespace d2q9;

namespace {

constexpr const char* kSmallCavity = R"([grid]
nx = 16
ny = 16
[flow]
steps = 100
viscosity = 0.1
[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = { wall_velocity = [0.05, 0.0] }
)";

SimulationOptions reference() {
  SimulationOptions options;
  options.backend = Backend::Reference;
  return options;
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  ScopedEnv(const char* n, const std::string& value) : name(n) { ::setenv(n, value.c_str(), 1); }
  ~ScopedEnv() { ::unsetenv(name.c_str()); }
};

}  // namespace

TEST_SUITE_BEGIN("unit");

TEST_CASE("library: a negative step count is an error and steps nothing") {
  Simulation sim(parse_problem_file(kSmallCavity, "cavity.toml"), reference());
  sim.step(3);
  try {
    sim.step(-5);
    FAIL("step(-5) was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "step(-5): the number of steps is negative");
  }
  CHECK(sim.steps_done() == 3);
  sim.step(0);
  CHECK(sim.steps_done() == 3);
}

TEST_CASE("library: a Simulation steps past the problem's steps, and its outputs hold every step") {
  Simulation sim(parse_problem_file(kSmallCavity, "cavity.toml"), reference());
  REQUIRE(sim.params().max_iters == 100);
  sim.step(250);
  CHECK(sim.steps_done() == 250);
  CHECK(sim.average_velocities().size() == 250);
  d2q9::test::TempDir dir;
  sim.write_outputs(dir.file("out"));
  CHECK(d2q9::test::count_lines(d2q9::test::slurp(dir.file("out/av_vels.dat"))) == 250);
}

TEST_CASE("library: kernels not found name what to set, with no command line to point at") {
  d2q9::test::TempDir dir;
  try {
    find_kernels_dir("", {dir.file("cl"), dir.file("share/d2q9-bgk/cl")});
    FAIL("an empty folder was taken for the kernels");
  } catch (const DeviceError& e) {
    const std::string why = e.what();
    CHECK(why == "cannot find the kernels (d2q9_bgk.cl) in " + dir.file("cl") + ", " + dir.file("share/d2q9-bgk/cl") +
                     "; set SimulationOptions::kernels_dir or the environment variable D2Q9_KERNELS_DIR"
                     " (d2q9-bgk: pass --kernels-dir)");
  }
  // The environment's folder is taken before the places searched, and named when it is wrong.
  {
    ScopedEnv env("D2Q9_KERNELS_DIR", D2Q9_KERNELS_DIR);
    CHECK(find_kernels_dir("", {dir.path}) == D2Q9_KERNELS_DIR);
  }
  ScopedEnv env("D2Q9_KERNELS_DIR", dir.path);
  try {
    find_kernels_dir("", {D2Q9_KERNELS_DIR});
    FAIL("an empty D2Q9_KERNELS_DIR was taken for the kernels");
  } catch (const DeviceError& e) {
    CHECK(std::string(e.what()) ==
          dir.path + ": no d2q9_bgk.cl in the kernels directory given by D2Q9_KERNELS_DIR");
  }
  // An OpenCL Simulation says the same.
  SimulationOptions options;
  options.backend = Backend::OpenCL;
  CHECK_THROWS_WITH_AS(Simulation(parse_problem_file(kSmallCavity, "cavity.toml"), options),
                       (dir.path + ": no d2q9_bgk.cl in the kernels directory given by D2Q9_KERNELS_DIR").c_str(),
                       DeviceError);
}

TEST_SUITE_END();
