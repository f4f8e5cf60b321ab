#include "sim/backend.hpp"

#include "device/lattice_device.hpp"
#include "device/step_loop.hpp"
#include "opencl/opencl_backend.hpp"
#include "reference/reference_solver.hpp"
#ifdef D2Q9_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#endif
#ifdef D2Q9_WITH_MPI
#include "mpi/mpi_links.hpp"
#include "mpi/mpi_ranks.hpp"
#endif

namespace d2q9 {

namespace {

// The backends built into this program, one entry each, reference first
// (the order of built_backends and --list-devices).
const std::vector<const BackendEntry*>& backend_table() {
  static const std::vector<const BackendEntry*> table = {
      &reference_backend_entry(),
      &opencl_backend_entry(),
#ifdef D2Q9_HAVE_CUDA
      &cuda_backend_entry(),
#endif
  };
  return table;
}

// The entry of `b`; DeviceError saying how to get it when it was not built in.
const BackendEntry& entry_of(Backend b) {
  for (const BackendEntry* e : backend_table())
    if (e->id == b) return *e;
  throw DeviceError(std::string("this program was built without the ") + to_string(b) +
                    " backend (configure it where the CUDA toolkit is installed)");
}

[[noreturn]] void no_devices(Backend b) { throw DeviceError(std::string(to_string(b)) + " has no devices"); }

// The backend's device holding `lattice`.
std::unique_ptr<LatticeDevice> make_device(Backend b, const SolverConfig& config, const LaunchPlan& plan,
                                           const DeviceLattice& lattice) {
  const BackendEntry& e = entry_of(b);
  if (!e.make_device) no_devices(b);
  return e.make_device(config.device, plan, lattice);
}

#ifdef D2Q9_WITH_MPI
// `requested` when given (>= 0); else the backend's pick for this rank of
// its host (distinct GPUs by node rank where there are several).
int rank_device(Backend b, int requested, int node_rank) {
  if (requested >= 0) return requested;
  return entry_of(b).rank_device(node_rank);
}

std::unique_ptr<Solver> make_slab(Backend b, const Params& params, const ObstacleMask& mask, SolverConfig config,
                                  MpiRanks& ranks) {
  if (!entry_of(b).make_device)
    throw DeviceError(std::string("--backend ") + to_string(b) +
                      " runs on one process; under mpirun the opencl and cuda backends split the grid");
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
                                    Decomposition{std::move(slabs), make_mpi_links(comm)}, std::move(device),
                                    config.device.sample_buffer_bytes);
}
#endif

}  // namespace


DeviceLimits device_limits(Backend b, int device) {
  const BackendEntry& e = entry_of(b);
  if (!e.limits) no_devices(b);
  return e.limits(device);
}

std::vector<Backend> built_backends() {
  std::vector<Backend> out;
  for (const BackendEntry* e : backend_table()) out.push_back(e->id);
  return out;
}

bool built_with_mpi() {
#ifdef D2Q9_WITH_MPI
  return true;
#else
  return false;
#endif
}

void require_built(Backend b) { entry_of(b); }

std::optional<LaunchDecision> decide_for(Backend b, const Params& params, const SolverConfig& config) {
  if (!entry_of(b).make_device) return std::nullopt;  // the serial reference: nothing to launch
  return decide_launch(params, device_limits(b, config.device.device), config.launch, config.device.precision);
}

std::optional<LaunchPlan> plan_for(Backend b, const Params& params, const SolverConfig& config) {
  const auto d = decide_for(b, params, config);
  if (!d) return std::nullopt;
  return d->plan;
}

std::unique_ptr<Solver> make_planned_solver(Backend b, const Params& params, const ObstacleMask& mask,
                                            const DeviceConfig& device, const LaunchPlan& plan) {
  const BackendEntry& e = entry_of(b);
  if (e.make_serial_solver) return e.make_serial_solver(params, mask, device.precision);
  // One device holds the whole grid, in the same step loop as slabs.
  SolverConfig config;
  config.device = device;
  std::unique_ptr<LatticeDevice> lattice_device =
      make_device(b, config, plan, device_lattice(params, mask, device.precision, plan));
  return std::make_unique<StepLoop>(b, device.precision, params, mask, plan, Decomposition{},
                                    std::move(lattice_device), device.sample_buffer_bytes);
}

std::unique_ptr<Solver> make_solver(Backend b, const Params& params, const ObstacleMask& mask,
                                    const SolverConfig& config, Ranks* ranks) {
  const BackendEntry& e = entry_of(b);
  if (ranks && (ranks->size() > 1 || config.slabs_on_one_rank)) {
#ifdef D2Q9_WITH_MPI
    if (auto* mpi = dynamic_cast<MpiRanks*>(ranks)) return make_slab(b, params, mask, config, *mpi);
#endif
    throw DeviceError("several ranks, but this program was built without MPI");
  }
  if (!config.slab_rows.empty() && (config.slab_rows.size() != 1 || config.slab_rows[0] != params.ny))
    throw InputError("--slab-rows splits the grid between MPI ranks: give it under mpirun with one height per rank");
  if (e.make_serial_solver) return make_planned_solver(b, params, mask, config.device, LaunchPlan{});
  return make_planned_solver(b, params, mask, config.device, *plan_for(b, params, config));
}

DeviceDescription describe_device(Backend b, int device) { return entry_of(b).describe(device); }

void print_devices(std::FILE* out) {
  for (const BackendEntry* e : backend_table())
    if (e->print_devices) e->print_devices(out);
}

double copy_bandwidth(Backend b, int device, const std::string& kernels_dir, std::size_t bytes) {
  const BackendEntry& e = entry_of(b);
  if (!e.copy_bandwidth)
    throw DeviceError(std::string("--backend ") + to_string(b) + " has no copy bandwidth to measure");
  return e.copy_bandwidth(device, kernels_dir, bytes);
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
