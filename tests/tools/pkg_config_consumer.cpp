// A program built with nothing but pkg-config's flags for the installed
// library (tests/tools/pkg_config_consumer.sh): steps a problem on OpenCL and
// on the serial reference and checks that their distributions agree bit for
// bit (docs/arithmetic.md), and that the flow moves where the lid drags it.
//   pkg_config_consumer PROBLEM STEPS   (a lid-driven cavity: inputs/examples/cavity.toml)
#include <d2q9/d2q9.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PROBLEM STEPS\n", argv[0]);
    return 2;
  }
  try {
    const int steps = std::atoi(argv[2]);
    d2q9::Simulation device(d2q9::load_problem(argv[1]), {d2q9::Backend::OpenCL});
    d2q9::Simulation serial(d2q9::load_problem(argv[1]), {d2q9::Backend::Reference});
    device.step(steps);
    serial.step(steps);
    std::printf("steps done: %d\n", device.steps_done());
    const std::vector<double> f = device.distributions();
    if (f.empty() || f != serial.distributions()) {
      std::fprintf(stderr, "error: the OpenCL distributions differ from the reference's\n");
      return 1;
    }
    std::printf("distributions equal the reference's bit for bit\n");
    const d2q9::FlowFields fields = device.fields();
    const double ux = fields.ux[fields.nx / 2 + (fields.ny - 2) * fields.nx];  // just below the lid's middle
    std::printf("ux below the lid's middle: %.6e\n", ux);
    if (!(ux > 0)) {
      std::fprintf(stderr, "error: the lid drags the flow below it to the right, but ux = %g there\n", ux);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
