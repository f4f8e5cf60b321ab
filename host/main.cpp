// d2q9-bgk: parses the command line, reads the problem, drives a Solver and
// writes the coursework's output files and summary.
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "driver_check.hpp"
#include "extra_outputs.hpp"
#ifdef D2Q9_HAVE_CUDA
#include "cuda/cuda_driver.hpp"
#include "cuda/cuda_solver.hpp"
#endif
#include "kernel_source.hpp"
#include "opencl/device_table.hpp"
#include "limits.hpp"
#include "opencl/opencl_solver.hpp"
#include "output.hpp"
#include "picture.hpp"
#include "problem.hpp"
#include "reference/reference_solver.hpp"
#include "summary.hpp"
#include "vtk_output.hpp"
#include "tuning.hpp"
#ifdef D2Q9_WITH_MPI
#include "mpi/mpi_driver.hpp"
#endif
#include "run_loop.hpp"
#include "stability.hpp"

using namespace d2q9;

namespace {

void print_devices() {
  const auto devices = list_opencl_devices();
  std::printf("OpenCL devices:\n");
  if (devices.empty()) std::printf("  (none found: install an OpenCL driver, e.g. pocl-opencl-icd)\n");
  else print_device_table(stdout, devices, default_opencl_device(devices));
  const bool any_gpu = std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.is_gpu; });
  const std::string vendors = default_vendors_dir();
  if (!any_gpu)
    for (const auto& u : find_unregistered_drivers(default_driver_dirs(), vendors))
      std::printf("\nNo GPU found, but the %s OpenCL driver %s is installed without an ICD registration\n"
                  "(no file in %s names it). Register it, as root, with:\n"
                  "  mkdir -p %s && echo %s > %s/%s\n",
                  u.vendor.c_str(), u.library.c_str(), vendors.c_str(), vendors.c_str(), u.library.c_str(),
                  vendors.c_str(), u.icd_name.c_str());
#ifdef D2Q9_HAVE_CUDA
  std::printf("CUDA devices:\n");
  const std::string no_driver = cuda_driver_unavailable_reason();
  if (!no_driver.empty()) {
    std::printf("  (none: %s)\n", no_driver.c_str());
    return;
  }
  const auto cuda_devices = list_cuda_devices();
  if (cuda_devices.empty()) std::printf("  (none found)\n");
  for (const auto& d : cuda_devices)
    std::printf("  %d: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n", d.index, d.name.c_str(),
                d.compute_major, d.compute_minor, d.multiprocessors, d.global_mem_bytes / 1073741824.0);
#endif
}

void print_tuning_table(const LocalSizeChoice& choice) {
  std::printf("Work-group size search on %s (%s, %s):\n", choice.solver->device_name().c_str(),
              choice.solver->backend().c_str(), to_string(choice.solver->precision()));
  std::printf("  %-10s %12s\n", "local size", "us per step");
  for (const auto& r : choice.table) {
    const std::string shape = std::to_string(r.local.x) + "x" + std::to_string(r.local.y);
    if (r.seconds_per_step > 0)
      std::printf("  %-10s %12.2f\n", shape.c_str(), r.seconds_per_step * 1e6);
    else
      std::printf("  %-10s %12s  (%s)\n", shape.c_str(), "-", r.note.c_str());
  }
  const LocalSize l = choice.solver->local_size();
  std::printf("Chosen: %dx%d, cached in %s\n", l.x, l.y, tuning_cache_path().c_str());
}

std::unique_ptr<Solver> make_solver(const Options& o, const Params& params, const ObstacleMask& mask) {
  if (o.backend == "reference") {
    if (o.precision == Precision::Float) return std::make_unique<ReferenceSolver<float>>(params, mask);
    return std::make_unique<ReferenceSolver<double>>(params, mask);
  }
  const KernelVariant variant = o.variant;  // auto is resolved by the solver, which knows the device
  const std::string kernels_dir = find_kernels_dir(o.kernels_dir);
  SolverFactory factory;
  if (o.backend == "cuda") {
#ifdef D2Q9_HAVE_CUDA
    factory = [&](LocalSize local) {
      CudaOptions cuda;
      cuda.device_index = o.device;
      cuda.local_size = local;
      cuda.precision = o.precision;
      cuda.variant = variant;
      cuda.kernels_dir = kernels_dir;
      return make_cuda_solver(params, mask, cuda);
    };
#else
    throw DeviceError("this d2q9-bgk was built without the CUDA backend (configure it where the CUDA toolkit is installed)");
#endif
  } else {
    factory = [&](LocalSize local) {
      OpenCLOptions cl;
      cl.device_index = o.device;
      cl.local_size = local;
      cl.precision = o.precision;
      cl.variant = variant;
      cl.kernels_dir = kernels_dir;
      return make_opencl_solver(params, mask, cl);
    };
  }
  LocalSizeChoice choice = choose_local_size(factory, params, o.local_size, o.tune, to_string(variant));
  if (o.tune && !o.quiet) print_tuning_table(choice);
  return std::move(choice.solver);
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
  const ExtraOutputs extra = plan_extra_outputs(o, params.max_iters);
  Checkpoint restart;
  if (!o.restart_file.empty())
    restart = load_restart_checkpoint(o.restart_file, params, o.param_file, mask, o.obstacle_file, o.precision);
  const auto setup_tic = std::chrono::steady_clock::now();
  auto solver = make_solver(o, params, mask);
  if (!o.restart_file.empty()) {
    solver->load_distributions(restart.f);
    restart.f = std::vector<double>();  // not held through the run
  }
  const double setup_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_tic).count();

  std::vector<double> av_vels = std::move(restart.av_vels);
  const int first_step = static_cast<int>(av_vels.size());
  av_vels.reserve(params.max_iters);
  ProgressLine progress(stderr, params.max_iters, params.cells(), !o.quiet);
  RunLoopOptions loop;
  loop.checkpoint_every = o.checkpoint_every;
  loop.checkpoint_path = o.output_dir + "/" + kCheckpointFile;
  loop.progress = &progress;
  loop.snapshot_every = extra.snapshot_every;
  loop.snapshot = [&](int step) {
    const std::string path = snapshot_path(extra.snapshot_dir, step, params.max_iters);
    AtomicFile frame(path);
    write_png(frame.get(), render_speed_picture(params, mask, solver->distributions(), "step " + std::to_string(step)),
              path);
    frame.commit();
  };
  const RunLoopResult result = run_steps(*solver, params, mask, av_vels, loop);
  const double elapsed = result.compute_seconds;
  const std::vector<double> f = solver->distributions();
  check_distributions(params, mask, f, av_vels.size() - 1);

  // Every file is complete before any replaces an older one.
  AtomicFile av_file(o.output_dir + "/av_vels.dat");
  AtomicFile state_file(o.output_dir + "/final_state.dat");
  write_av_vels(av_file.get(), av_vels);
  write_final_state(state_file.get(), params, mask, f);
  std::vector<std::unique_ptr<AtomicFile>> views;
  if (!extra.png.empty()) {
    views.push_back(std::make_unique<AtomicFile>(extra.png));
    write_png(views.back()->get(), render_speed_picture(params, mask, f), extra.png);
  }
  if (!extra.vtk.empty()) {
    views.push_back(std::make_unique<AtomicFile>(extra.vtk));
    write_vtk(views.back()->get(), params, mask, f);
  }

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  RunSummary summary;
  summary.param_file = o.param_file;
  summary.obstacle_file = o.obstacle_file;
  summary.params = params;
  summary.fluid_cells = mask.fluid_cells();
  summary.device = solver->device_name();
  summary.backend = solver->backend();
  summary.precision = solver->precision();
  summary.local_size = solver->local_size();
  summary.kernel_variant = solver->kernel_variant();
  summary.setup_s = setup_s;
  summary.elapsed_s = elapsed;
  summary.first_step = first_step;
  summary.user_cpu_s = seconds(usage.ru_utime);
  summary.system_cpu_s = seconds(usage.ru_stime);
  summary.final_average_velocity = av_vels.back();
  if (!extra.summary_json.empty()) {
    views.push_back(std::make_unique<AtomicFile>(extra.summary_json));
    std::fputs(summary_json(summary).c_str(), views.back()->get());
  }

  av_file.commit();
  state_file.commit();
  for (auto& view : views) view->commit();
  // The outputs now hold the finished run; its checkpoint has no further use.
  if (result.wrote_checkpoint) std::remove(loop.checkpoint_path.c_str());
  if (!o.quiet) print_summary(stdout, summary);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
#ifdef D2Q9_WITH_MPI
  // Several ranks under mpirun split the grid between them; one runs as usual.
  if (mpi_launch_size() > 1) return run_mpi(argc, argv);
#endif
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
