// d2q9-bgk: parses the command line, reads the problem, drives a Solver and
// writes the coursework's output files and summary.
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "kernel_source.hpp"
#include "limits.hpp"
#include "opencl/opencl_solver.hpp"
#include "output.hpp"
#include "problem.hpp"
#include "reference/reference_solver.hpp"
#include "run_loop.hpp"
#include "stability.hpp"

using namespace d2q9;

namespace {

void print_devices() {
  const auto devices = list_opencl_devices();
  std::printf("OpenCL devices:\n");
  if (devices.empty()) std::printf("  (none found: install an OpenCL driver, e.g. pocl-opencl-icd)\n");
  for (const auto& d : devices)
    std::printf("  %d: %s [%s] on %s, %u compute units, %.1f GiB%s\n", d.index, d.name.c_str(), d.type.c_str(),
                d.platform.c_str(), d.compute_units, d.global_mem_bytes / 1073741824.0, d.has_fp64 ? ", fp64" : "");
}

std::unique_ptr<Solver> make_solver(const Options& o, const Params& params, const ObstacleMask& mask) {
  if (o.backend == "reference") {
    if (o.precision == Precision::Float) return std::make_unique<ReferenceSolver<float>>(params, mask);
    return std::make_unique<ReferenceSolver<double>>(params, mask);
  }
  OpenCLOptions cl;
  cl.device_index = o.device;
  cl.local_size = o.local_size;
  cl.precision = o.precision;
  cl.kernels_dir = find_kernels_dir(o.kernels_dir);
  return make_opencl_solver(params, mask, cl);
}

double seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; }

void check_output_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(dir + ": output directory does not exist");
}

int run(const Options& o) {
  const Params params = read_params(o.param_file);
  check_problem_fits(params, o.backend == "reference", o.precision, o.checkpoint_every > 0);
  const ObstacleMask mask = read_obstacles(o.obstacle_file, params);
  check_output_dir(o.output_dir);
  Checkpoint restart;
  if (!o.restart_file.empty())
    restart = load_restart_checkpoint(o.restart_file, params, o.param_file, mask, o.obstacle_file, o.precision);
  auto solver = make_solver(o, params, mask);
  if (!o.restart_file.empty()) {
    solver->load_distributions(restart.f);
    restart.f = std::vector<double>();  // not held through the run
  }

  std::vector<double> av_vels = std::move(restart.av_vels);
  const int first_step = static_cast<int>(av_vels.size());
  av_vels.reserve(params.max_iters);
  RunLoopOptions loop;
  loop.checkpoint_every = o.checkpoint_every;
  loop.checkpoint_path = o.output_dir + "/" + kCheckpointFile;
  const auto tic = std::chrono::steady_clock::now();
  const bool wrote_checkpoint = run_steps(*solver, params, mask, av_vels, loop);
  const auto toc = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(toc - tic).count();
  const std::vector<double> f = solver->distributions();
  check_distributions(params, mask, f, av_vels.size() - 1);

  // Both files are complete before either replaces an older one.
  AtomicFile av_file(o.output_dir + "/av_vels.dat");
  AtomicFile state_file(o.output_dir + "/final_state.dat");
  write_av_vels(av_file.get(), av_vels);
  write_final_state(state_file.get(), params, mask, f);
  av_file.commit();
  state_file.commit();
  // The outputs now hold the finished run; its checkpoint has no further use.
  if (wrote_checkpoint) std::remove(loop.checkpoint_path.c_str());

  if (!o.quiet) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const LocalSize ls = solver->local_size();
    std::printf("==done==\n");
    std::printf("Reynolds number:\t\t%.12E\n", reynolds_number(params, av_vels.back()));
    std::printf("Elapsed time:\t\t\t%.6lf (s)\n", elapsed);
    std::printf("Elapsed user CPU time:\t\t%.6lf (s)\n", seconds(usage.ru_utime));
    std::printf("Elapsed system CPU time:\t%.6lf (s)\n", seconds(usage.ru_stime));
    std::printf("Device:\t\t\t\t%s (%s, %s, local size %dx%d)\n", solver->device_name().c_str(),
                solver->backend().c_str(), to_string(solver->precision()), ls.x, ls.y);
    const double steps_run = params.max_iters - first_step;
    std::printf("MLUPS:\t\t\t\t%.2f\n", elapsed > 0 ? static_cast<double>(params.cells()) * steps_run / elapsed / 1e6 : 0.0);
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  Options options;
  try {
    options = parse_command_line(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s (see --help)\n", e.what());
    return 2;
  }
  try {
    if (options.help) {
      std::cout << usage_text(argv[0]);
      return 0;
    }
    if (options.list_devices) {
      print_devices();
      return 0;
    }
    return run(options);
  } catch (const InterruptedError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
