// d2q9-mpi-bench: times the step loop of a closed-box problem of any size,
// one slab per MPI rank, and prints one CSV row from rank 0. No output files
// (final_state.dat of an 8192^2 grid alone is 5 GB), so scaling runs measure
// the solver. With one rank it runs the backend's single-device solver (the
// same variant and work-group shape; fused unless --kernel-variant says
// otherwise): the baseline the slabs must beat.
#include <mpi.h>

#include <boost/program_options.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <vector>

#include "core/printable.hpp"
#include "app/bench_boxes.hpp"
#include "app/cli.hpp"
#include "sim/backend.hpp"
#include "device/kernel_source.hpp"
#include "mpi/mpi_ranks.hpp"

using namespace d2q9;
namespace po = boost::program_options;

namespace {

struct BenchOptions {
  int nx = 8192, ny = 8192, steps = 200, warmup = 20, device = -1;
  Backend backend = Backend::OpenCL;
  LocalSize local;  // auto: the launch decision's shape
  Precision precision = Precision::Float;
  KernelVariant variant = KernelVariant::Auto;
  LocalSize tile;  // blocked: auto unless given
  int block_steps = 0;
  bool header = false;
  bool slabs_on_one_rank = false;
  bool halo_times = false;
  bool heat = false;  // the thermal box (bench_boxes.hpp)
  std::string kernels_dir;
};

BenchOptions parse(int argc, char* argv[]) {
  po::options_description desc("d2q9-mpi-bench options");
  // clang-format off
  desc.add_options()
    ("help,h", "this help")
    ("nx", po::value<int>()->default_value(8192), "grid width")
    ("ny", po::value<int>()->default_value(8192), "grid height (split into one slab per rank)")
    ("steps", po::value<int>()->default_value(200), "timed steps")
    ("warmup", po::value<int>()->default_value(20), "untimed steps first")
    ("local-size,l", po::value<std::string>(), "work-group shape WxH (default: the launch decision's, as d2q9-bgk takes it)")
    ("precision,p", po::value<std::string>()->default_value("float"), "float | double | fp16s | fp16c")
    ("kernel-variant", po::value<std::string>()->default_value("auto"), "auto | fused | fused-rows | blocked (the slabs' kernel; auto: the launch decision's, blocked on GPUs)")
    ("tile", po::value<std::string>(), "blocked: cells each work-group owns, WxH (default: the launch plan's)")
    ("block-steps", po::value<int>(), "blocked: steps per launch (default: the launch plan's)")
    ("backend,b", po::value<std::string>()->default_value("opencl"), backend_choices(false).c_str())
    ("device,d", po::value<int>(), "device for every rank (default: one GPU per rank of a host)")
    ("kernels-dir", po::value<std::string>(), "folder holding d2q9_bgk.cl")
    ("slabs-on-one-rank", "with one rank, run the slab solver (halo exchange with itself) instead of the single-device one")
    ("heat", "the thermal box: a temperature lattice, a hot and a cold wall, buoyancy (d2q9-bench's heatbox_N)")
    ("header", "print the CSV header line first")
    ("halo-times", "staged halos: print where each rank's host time in the timed steps' exchanges went, to stderr");
  // clang-format on
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    throw UsageError(e.what());
  }
  if (vm.count("help")) {
    std::cout << desc;
    std::exit(0);
  }
  BenchOptions o;
  o.nx = vm["nx"].as<int>();
  o.ny = vm["ny"].as<int>();
  o.steps = vm["steps"].as<int>();
  o.warmup = vm["warmup"].as<int>();
  if (o.nx < 2 || o.ny < 2 || o.steps < 1 || o.warmup < 0) throw UsageError("need nx, ny >= 2, steps >= 1, warmup >= 0");
  try {
    o.variant = parse_kernel_variant(vm["kernel-variant"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // Unless given, the plan picks the shape (for blocked, the work-groups that walk its tiles).
  if (vm.count("local-size")) {
    o.local = parse_local_size(vm["local-size"].as<std::string>());
    if (o.local.is_auto()) throw UsageError("--local-size must be given as WxH");
  }
  if (vm.count("tile")) o.tile = parse_shape(vm["tile"].as<std::string>(), "--tile");
  if (vm.count("block-steps")) o.block_steps = vm["block-steps"].as<int>();
  const std::string p = vm["precision"].as<std::string>();
  if (!parse_precision(p, o.precision))
    throw UsageError("--precision must be float, double, fp16s or fp16c, got '" + p + "'");
  const std::string b = vm["backend"].as<std::string>();
  const auto backend = parse_backend(b);
  if (!backend || *backend == Backend::Reference) throw UsageError("--backend must be " + backend_names(true) + ", got '" + b + "'");
  o.backend = *backend;
  if (vm.count("device")) o.device = vm["device"].as<int>();
  if (vm.count("kernels-dir")) o.kernels_dir = vm["kernels-dir"].as<std::string>();
  o.header = vm.count("header") > 0;
  o.slabs_on_one_rank = vm.count("slabs-on-one-rank") > 0;
  o.halo_times = vm.count("halo-times") > 0;
  o.heat = vm.count("heat") > 0;
  return o;
}

// One line per rank, from rank 0: the timed steps' exchanges and the host's
// microseconds per exchange in each part of them.
void print_halo_times(const HaloTimes& before, const HaloTimes& after, double seconds, MpiRanks& ranks) {
  const double n = static_cast<double>(after.exchanges - before.exchanges);
  const double mine[6] = {n,
                          seconds,
                          after.read_wait_s - before.read_wait_s,
                          after.copies_s - before.copies_s,
                          after.neighbour_wait_s - before.neighbour_wait_s,
                          after.write_queue_s - before.write_queue_s};
  std::vector<double> all(ranks.is_root() ? 6 * ranks.size() : 0);
  MPI_Gather(mine, 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, 0, ranks.solver_comm());
  if (!ranks.is_root()) return;
  for (int r = 0; r < ranks.size(); ++r) {
    const double* t = &all[6 * r];
    const double per = t[0] > 0 ? 1e6 / t[0] : 0;
    std::fprintf(stderr,
                 "halo times, rank %d: %.0f exchanges, us each: launch %.1f, read wait %.1f, copies %.1f, "
                 "neighbour wait %.1f, write queue %.1f\n",
                 r, t[0], t[1] * per, t[2] * per, t[3] * per, t[4] * per, t[5] * per);
  }
}

}  // namespace

int main(int argc, char* argv[]) {
  MpiRanks ranks(argc, argv);
  BenchOptions o;
  try {
    o = parse(argc, argv);
  } catch (const UsageError& e) {
    if (ranks.is_root()) std::fprintf(stderr, "error: %s (see --help)\n", printable(e.what()).c_str());
    return 2;
  }
  try {
    const Params params = o.heat ? heat_box_params(o.nx, o.ny, o.warmup + o.steps, o.nx)
                                 : box_params(o.nx, o.ny, o.warmup + o.steps, o.nx);
    const ObstacleMask mask = o.heat ? heat_box_mask(o.nx, o.ny) : box_mask(o.nx, o.ny);
    SolverConfig config;
    config.device = {o.device, o.precision, find_kernels_dir(o.kernels_dir)};
    config.launch.variant = o.variant;
    config.launch.local = o.local;
    config.launch.tile = o.tile;
    config.launch.block_steps = o.block_steps;
    config.slabs_on_one_rank = o.slabs_on_one_rank;
    const std::unique_ptr<Solver> solver = make_solver(o.backend, params, mask, config, &ranks);
    std::vector<double> av_vels;
    solver->run(o.warmup, av_vels);
    MPI_Barrier(ranks.solver_comm());
    const HaloTimes before = solver->halo_times();
    const auto tic = std::chrono::steady_clock::now();
    solver->run(o.steps, av_vels);
    MPI_Barrier(ranks.solver_comm());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count();
    if (o.halo_times) print_halo_times(before, solver->halo_times(), seconds, ranks);
    if (ranks.is_root()) {
      if (o.header)
        std::printf("ranks,nx,ny,steps,seconds,mlups,final_av_velocity,device,local_size,precision,solver,launch,halos\n");
      const auto plan = solver->launch_plan();
      // halos: how the slabs' halo rows travel (device-to-device, host-staging); "none" on one device.
      const std::string halos = solver->halo_path().empty() ? "none" : solver->halo_path();
      std::printf("%d,%d,%d,%d,%.6f,%.2f,%.12E,%s,%s,%s,%s,%s,%s\n", ranks.size(), o.nx, o.ny, o.steps, seconds,
                  static_cast<double>(params.cells()) * o.steps / seconds / 1e6, av_vels.back(),
                  solver->device_name().c_str(), solver->local_size().text().c_str(), to_string(o.precision),
                  solver->backend_name().c_str(), plan ? variant_text(*plan).c_str() : "", halos.c_str());
    }
  } catch (...) {
    ranks.abort(std::current_exception());
  }
  return 0;
}
