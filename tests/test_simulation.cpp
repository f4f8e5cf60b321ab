// The embeddable library (sim/simulation.hpp), driven as another C++
// program would drive it: simulations built one after another in a loop on
// one device, stepped in pieces, their fields read between steps.
#include <doctest/doctest.h>

#include "sim/simulation.hpp"
#include "helpers.hpp"
#include "io/output.hpp"

using namespace d2q9;
using d2q9::test::slurp;

TEST_SUITE_BEGIN("kernels");

TEST_CASE("library: simulations driven in a loop reuse the device's context and write d2q9-bgk's bytes") {
  const std::string problem_file = std::string(D2Q9_SOURCE_DIR) + "/tests/problems/cylinder_library.toml";
  d2q9::test::TempDir dir;
  // The command line's run of the same problem and launch.
  const auto cli = d2q9::test::run_program("-b opencl --kernel-variant fused -l 16x1 --no-png -q --kernels-dir '" +
                                           std::string(D2Q9_KERNELS_DIR) + "' -o '" + dir.file("cli") + "' '" +
                                           problem_file + "'");
  REQUIRE_MESSAGE(cli.status == 0, cli.err);

  SimulationOptions options;
  options.backend = Backend::OpenCL;
  options.kernels_dir = D2Q9_KERNELS_DIR;
  options.launch.variant = KernelVariant::Fused;
  options.launch.local = {16, 1};
  for (int run = 0; run < 2; ++run) {
    CAPTURE(run);
    Simulation sim(load_problem(problem_file), options);
    // The context is made once per device for the process: the second
    // simulation reuses it (the first may too, after an earlier case in this process).
    if (run == 1) CHECK(sim.run_info().setup.context_reused);
    const int wake = 25 + 16 * sim.params().nx;  // the probe's cell
    // Pieces that do not fall on the probes' steps (every 10).
    for (int piece : {7, 93, 1, 199}) {
      sim.step(piece);
      const FlowFields fields = sim.fields();
      REQUIRE(fields.ux.size() == sim.params().cells());
      CHECK(std::isfinite(fields.ux[wake]));
    }
    REQUIRE(sim.steps_done() == 300);
    CHECK(sim.average_velocities().size() == 300);
    // Downstream of the cylinder, the flow goes on down the channel.
    const FlowFields fields = sim.fields();
    CHECK(fields.ux[wake] > 0.0);
    CHECK(fields.ux[wake] < 0.12);
    const std::string out = dir.file("lib" + std::to_string(run));
    sim.write_outputs(out);
    // A problem file's final state is final_state.vti, for the library as for d2q9-bgk.
    for (const char* name : {"av_vels.dat", "final_state.vti", "forces.csv", "probes.csv"}) {
      CAPTURE(name);
      const std::string mine = slurp(out + "/" + name);
      CHECK(!mine.empty());
      CHECK(mine == slurp(dir.file("cli") + "/" + name));
    }
  }
}

TEST_SUITE_END();
