// Runs a problem through the d2q9 library on OpenCL, as a program of one's
// own would: load it, step it in pieces, read its fields between them, write
// its outputs.
//   embed_cylinder PROBLEM [STEPS] [OUTPUT_DIR]
// STEPS: the problem's own when 0 or left out; OUTPUT_DIR: out.
#include <d2q9/d2q9.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s PROBLEM [STEPS] [OUTPUT_DIR]\n", argv[0]);
    return 2;
  }
  try {
    d2q9::Problem problem = d2q9::load_problem(argv[1]);
    // What write_outputs writes the final state as: final_state.vti for a
    // problem file, final_state.dat for a coursework .params file.
    const d2q9::FinalStateFormat format = d2q9::final_state_format(problem);
    d2q9::Simulation sim(std::move(problem), {d2q9::Backend::OpenCL});
    const int wanted = argc > 2 ? std::atoi(argv[2]) : 0;
    const int steps = wanted > 0 ? wanted : sim.params().max_iters;
    const std::string out = argc > 3 ? argv[3] : "out";
    const int nx = sim.params().nx, ny = sim.params().ny;
    while (sim.steps_done() < steps) {
      sim.step(std::min(100, steps - sim.steps_done()));
      const d2q9::FlowFields fields = sim.fields();
      const int centre = nx - 1 + (ny / 2) * nx;  // the outlet's middle cell
      std::printf("step %d: ux at the outlet's middle %.6f\n", sim.steps_done(), fields.ux[centre]);
    }
    sim.write_outputs(out);
    std::printf("wrote %s/av_vels.dat and %s/final_state.%s after %d steps\n", out.c_str(), out.c_str(),
                d2q9::writes_vti(format) ? "vti" : "dat", sim.steps_done());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
