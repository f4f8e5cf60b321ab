#include "sim/backend.hpp"

#include <algorithm>

#include "device/lattice_device.hpp"
#include "device/step_loop.hpp"
#include "opencl/cl_common.hpp"
#include "opencl/device_table.hpp"
#include "opencl/driver_check.hpp"
#include "opencl/opencl_backend.hpp"
#include "reference/reference_solver.hpp"
#ifdef D2Q9_HAVE_CUDA
#include "cuda/cuda_driver.hpp"
#include "cuda/cuda_backend.hpp"
#endif
#ifdef D2Q9_WITH_MPI
#include "mpi/mpi_links.hpp"
#include "mpi/mpi_ranks.hpp"
#endif

namespace d2q9 {

namespace {

// The backend's device holding `lattice`.
std::unique_ptr<LatticeDevice> make_device(Backend b, const SolverConfig& config, const LaunchPlan& plan,
                                           const DeviceLattice& lattice) {
  switch (b) {
    case Backend::OpenCL: return make_opencl_device(config.device, plan, lattice);
#ifdef D2Q9_HAVE_CUDA
    case Backend::Cuda: return make_cuda_device(config.device, plan, lattice, config.cuda_graphs);
#endif
    default: require_built(b); throw DeviceError(std::string(to_string(b)) + " has no devices");
  }
}

#ifdef D2Q9_WITH_MPI
// `requested` when given (>= 0); else distinct GPUs for the ranks of a host,
// by node rank; with no OpenCL GPU, the default device (PoCL's CPU device) for all.
int rank_device(Backend b, int requested, int node_rank) {
  if (requested >= 0) return requested;
#ifdef D2Q9_HAVE_CUDA
  if (b == Backend::Cuda) {
    const int count = static_cast<int>(list_cuda_devices().size());
    if (count == 0) throw DeviceError("no CUDA device found");
    return node_rank % count;
  }
#endif
  const auto devices = list_opencl_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device found (is an OpenCL driver such as pocl-opencl-icd installed?)");
  std::vector<int> gpus;
  for (const auto& d : devices)
    if (d.is_gpu) gpus.push_back(d.index);
  if (gpus.empty()) return default_opencl_device(devices);
  return gpus[node_rank % static_cast<int>(gpus.size())];
}

std::unique_ptr<Solver> make_slab(Backend b, const Params& params, const ObstacleMask& mask, SolverConfig config,
                                  MpiRanks& ranks) {
  if (b == Backend::Reference)
    throw DeviceError("--backend reference runs on one process; under mpirun the opencl and cuda backends split the grid");
  MPI_Comm comm = ranks.solver_comm();
  config.launch.slabs = true;  // also for one rank's slab (benchmarks)
  // Nothing asked of the variant or blocked's shape: the slabs may fall back
  // to the one-step kernel below.
  const bool blocked_by_default = config.launch.variant == KernelVariant::Auto && config.launch.block_steps == 0 &&
                                  config.launch.tile.is_auto();
  LaunchPlan plan;
  DeviceLimits limits;
  std::exception_ptr failure;
  try {
    config.device.device = rank_device(b, config.device.device, node_rank(comm));
    limits = device_limits(b, config.device.device);
    plan = decide_launch(params, limits, config.launch, config.device.precision, ranks.size()).plan;
  } catch (...) {
    failure = std::current_exception();
  }
  ranks.agree(failure);  // before the collective below
  // One launch for all (rank 0's): each slab's groups (blocked: tiles, and
  // steps per launch) must be those of the whole grid. A rank whose device
  // decided otherwise is asked for rank 0's.
  const auto variant = static_cast<KernelVariant>(ranks.broadcast(static_cast<int>(plan.variant)));
  const LocalSize shape{ranks.broadcast(plan.local.x), ranks.broadcast(plan.local.y)};
  const LocalSize tile{ranks.broadcast(plan.tile.x), ranks.broadcast(plan.tile.y)};
  const int block_steps = ranks.broadcast(plan.block_steps);
  if (variant != plan.variant || !(shape == plan.local) ||
      (variant == KernelVariant::Blocked && (!(tile == plan.tile) || block_steps != plan.block_steps))) {
    config.launch.variant = variant;
    config.launch.local = shape;
    if (variant == KernelVariant::Blocked) {
      config.launch.tile = tile;
      config.launch.block_steps = block_steps;
    }
    plan = decide_launch(params, limits, config.launch, config.device.precision, ranks.size()).plan;
  }
  const auto lay_out_slabs = [&] {
    std::vector<Slab> s = config.slab_rows.empty()
                              ? split_rows(params.ny, ranks.size(), slab_row_unit(plan))
                              : slabs_from_heights(config.slab_rows, params.ny, ranks.size(), slab_row_unit(plan));
    check_slabs_hold_halos(s, slab_halo_rows(plan));
    return s;
  };
  std::vector<Slab> slabs;
  try {
    slabs = lay_out_slabs();
  } catch (const std::invalid_argument& e) {
    // The default's blocked slabs cannot be whole tile rows as deep as its
    // halo (a small grid on many ranks, or thin --slab-rows): every rank
    // comes here alike and runs the one-step kernel, whose halo is one row.
    if (!blocked_by_default || plan.variant != KernelVariant::Blocked) throw InputError(e.what());
    config.launch.variant = KernelVariant::Fused;
    plan = decide_launch(params, limits, config.launch, config.device.precision, ranks.size()).plan;
    try {
      slabs = lay_out_slabs();
    } catch (const std::invalid_argument& again) {
      throw InputError(again.what());
    }
  }
  const DeviceLattice lattice = device_lattice(params, mask, config.device.precision, plan, slabs.at(ranks.rank()));
  std::unique_ptr<LatticeDevice> device = make_device(b, config, plan, lattice);
  return std::make_unique<StepLoop>(b, config.device.precision, params, mask, plan,
                                    Decomposition{std::move(slabs), make_mpi_links(comm)}, std::move(device));
}
#endif

}  // namespace


DeviceLimits device_limits(Backend b, int device) {
  switch (b) {
    case Backend::OpenCL: return opencl_limits(device);
#ifdef D2Q9_HAVE_CUDA
    case Backend::Cuda: {
      DeviceLimits l = cuda_limits(device);  // fp64 on every CUDA device
      l.platform = "CUDA";
      return l;
    }
#endif
    default: require_built(b); throw DeviceError(std::string(to_string(b)) + " has no devices");
  }
}

std::vector<Backend> built_backends() {
  std::vector<Backend> out = {Backend::Reference, Backend::OpenCL};
#ifdef D2Q9_HAVE_CUDA
  out.push_back(Backend::Cuda);
#endif
  return out;
}

bool built_with_mpi() {
#ifdef D2Q9_WITH_MPI
  return true;
#else
  return false;
#endif
}

void require_built(Backend b) {
  const auto built = built_backends();
  if (std::find(built.begin(), built.end(), b) != built.end()) return;
  throw DeviceError(std::string("this program was built without the ") + to_string(b) +
                    " backend (configure it where the CUDA toolkit is installed)");
}

std::optional<LaunchDecision> decide_for(Backend b, const Params& params, const SolverConfig& config) {
  require_built(b);
  if (b == Backend::Reference) return std::nullopt;
  return decide_launch(params, device_limits(b, config.device.device), config.launch, config.device.precision);
}

std::optional<LaunchPlan> plan_for(Backend b, const Params& params, const SolverConfig& config) {
  const auto d = decide_for(b, params, config);
  if (!d) return std::nullopt;
  return d->plan;
}

std::unique_ptr<Solver> make_planned_solver(Backend b, const Params& params, const ObstacleMask& mask,
                                            const DeviceConfig& device, const LaunchPlan& plan, bool cuda_graphs) {
  require_built(b);
  switch (b) {
    case Backend::Reference:
      if (device.precision == Precision::Double) return std::make_unique<ReferenceSolver<double>>(params, mask);
      if (is_16bit(device.precision)) return std::make_unique<ReferenceSolver<float>>(params, mask, device.precision);
      return std::make_unique<ReferenceSolver<float>>(params, mask);
    default: {
      // One device holds the whole grid, in the same step loop as slabs.
      SolverConfig config;
      config.device = device;
      config.cuda_graphs = cuda_graphs;
      std::unique_ptr<LatticeDevice> lattice_device =
          make_device(b, config, plan, device_lattice(params, mask, device.precision, plan));
      return std::make_unique<StepLoop>(b, device.precision, params, mask, plan, Decomposition{},
                                        std::move(lattice_device));
    }
  }
}

std::unique_ptr<Solver> make_solver(Backend b, const Params& params, const ObstacleMask& mask,
                                    const SolverConfig& config, Ranks* ranks) {
  require_built(b);
  if (ranks && (ranks->size() > 1 || config.slabs_on_one_rank)) {
#ifdef D2Q9_WITH_MPI
    if (auto* mpi = dynamic_cast<MpiRanks*>(ranks)) return make_slab(b, params, mask, config, *mpi);
#endif
    throw DeviceError("several ranks, but this program was built without MPI");
  }
  if (!config.slab_rows.empty() && (config.slab_rows.size() != 1 || config.slab_rows[0] != params.ny))
    throw InputError("--slab-rows splits the grid between MPI ranks: give it under mpirun with one height per rank");
  if (b == Backend::Reference) return make_planned_solver(b, params, mask, config.device, LaunchPlan{});
  return make_planned_solver(b, params, mask, config.device, *plan_for(b, params, config), config.cuda_graphs);
}

DeviceDescription describe_device(Backend b, int device) {
  require_built(b);
  DeviceDescription d;
  if (b == Backend::Reference) {
    d.name = "serial CPU reference";
    return d;
  }
  if (b == Backend::OpenCL) {
    const auto devices = list_opencl_devices();
    if (devices.empty()) throw DeviceError("no OpenCL device found");
    const int index = device < 0 ? default_opencl_device(devices) : device;
    if (index >= static_cast<int>(devices.size()))
      throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " +
                        std::to_string(devices.size()) + " OpenCL device(s), see --list-devices");
    const OpenCLDeviceInfo& o = devices[index];
    // PoCL reports the first shared cache (the L3) on a CPU, and 0 where the
    // system does not describe its caches.
    const unsigned long long cache = opencl_device_at(index).getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>();
    return {o.name, o.platform, o.driver_version, o.opencl_version, o.global_mem_bytes, cache};
  }
#ifdef D2Q9_HAVE_CUDA
  const auto devices = list_cuda_devices();
  const int index = device < 0 ? 0 : device;
  if (index >= static_cast<int>(devices.size()))
    throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " +
                      std::to_string(devices.size()) + " CUDA device(s), see --list-devices");
  const CudaDeviceInfo& c = devices[index];
  const CudaDriver& drv = cuda_driver();
  CUdevice cu_device{};
  check_cuda(drv.cuDeviceGet(&cu_device, index), "cuDeviceGet");
  int l2_bytes = 0;
  check_cuda(drv.cuDeviceGetAttribute(&l2_bytes, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, cu_device), "cuDeviceGetAttribute");
  return {c.name,
          "CUDA",
          cuda_driver_version(),
          "sm_" + std::to_string(c.compute_major) + std::to_string(c.compute_minor),
          c.global_mem_bytes,
          static_cast<unsigned long long>(l2_bytes)};
#else
  return d;
#endif
}

void print_devices(std::FILE* out) {
  const auto devices = list_opencl_devices();
  std::fprintf(out, "OpenCL devices:\n");
  if (devices.empty()) std::fprintf(out, "  (none found: install an OpenCL driver, e.g. pocl-opencl-icd)\n");
  else print_device_table(out, devices, default_opencl_device(devices));
  const bool any_gpu = std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.is_gpu; });
  const std::string vendors = default_vendors_dir();
  if (!any_gpu)
    for (const auto& u : find_unregistered_drivers(default_driver_dirs(), vendors))
      std::fprintf(out,
                   "\nNo GPU found, but the %s OpenCL driver %s is installed without an ICD registration\n"
                   "(no file in %s names it). Register it, as root, with:\n"
                   "  mkdir -p %s && echo %s > %s/%s\n",
                   u.vendor.c_str(), u.library.c_str(), vendors.c_str(), vendors.c_str(), u.library.c_str(),
                   vendors.c_str(), u.icd_name.c_str());
#ifdef D2Q9_HAVE_CUDA
  std::fprintf(out, "CUDA devices:\n");
  const std::string no_driver = cuda_driver_unavailable_reason();
  if (!no_driver.empty()) {
    std::fprintf(out, "  (none: %s)\n", no_driver.c_str());
    return;
  }
  const auto cuda_devices = list_cuda_devices();
  if (cuda_devices.empty()) std::fprintf(out, "  (none found)\n");
  for (const auto& d : cuda_devices)
    std::fprintf(out, "  %d: %s, compute capability %d.%d, %d multiprocessors, %.1f GiB\n", d.index, d.name.c_str(),
                 d.compute_major, d.compute_minor, d.multiprocessors, d.global_mem_bytes / 1073741824.0);
#endif
}

double copy_bandwidth(Backend b, int device, const std::string& kernels_dir, std::size_t bytes) {
  require_built(b);
  switch (b) {
    case Backend::OpenCL: return measure_opencl_copy_bandwidth(device, kernels_dir, bytes);
#ifdef D2Q9_HAVE_CUDA
    case Backend::Cuda: return measure_cuda_copy_bandwidth(device, kernels_dir, bytes);
#endif
    default: throw DeviceError(std::string("--backend ") + to_string(b) + " has no copy bandwidth to measure");
  }
}

std::unique_ptr<Ranks> start_ranks(int& argc, char**& argv) {
#ifdef D2Q9_WITH_MPI
  // Several ranks under mpirun split the grid between them; one runs as usual.
  if (mpi_launch_size() > 1) return std::make_unique<MpiRanks>(argc, argv);
#endif
  (void)argc;
  (void)argv;
  return std::make_unique<Ranks>();
}

}  // namespace d2q9
