#include "mpi_driver.hpp"

#include <mpi.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

#include "../cli.hpp"
#include "../kernel_source.hpp"
#include "../opencl/opencl_solver.hpp"
#include "../output.hpp"
#include "../problem.hpp"
#include "slab_layout.hpp"
#include "slab_solver.hpp"

namespace d2q9 {

namespace {

// Every rank's string, on rank 0 (empty elsewhere).
std::vector<std::string> gather_strings(MPI_Comm comm, const std::string& mine) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size), displs(size);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
  int total = 0;
  for (int r = 0; r < size; ++r) displs[r] = total, total += lengths[r];
  std::string all(rank == 0 ? total : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, 0, comm);
  std::vector<std::string> out;
  if (rank == 0)
    for (int r = 0; r < size; ++r) out.push_back(all.substr(displs[r], lengths[r]));
  return out;
}

std::string broadcast_string(MPI_Comm comm, std::string s) {
  int length = static_cast<int>(s.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, comm);
  s.resize(length);
  MPI_Bcast(s.data(), length, MPI_CHAR, 0, comm);
  return s;
}

// Collective: true when no rank has a failure. Otherwise rank 0 prints each
// distinct message once, naming the ranks unless all of them failed alike (a
// bad input file: every rank reads it), and every rank returns false.
bool all_ranks_succeeded(MPI_Comm comm, const std::string& failure) {
  int failed = failure.empty() ? 0 : 1, any = 0, size = 1;
  MPI_Comm_size(comm, &size);
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, comm);
  if (!any) return true;
  const std::vector<std::string> all = gather_strings(comm, failure);
  std::map<std::string, std::vector<int>> ranks_by_message;
  std::vector<std::string> order;
  for (int r = 0; r < static_cast<int>(all.size()); ++r) {
    if (all[r].empty()) continue;
    if (!ranks_by_message.count(all[r])) order.push_back(all[r]);
    ranks_by_message[all[r]].push_back(r);
  }
  for (const std::string& message : order) {
    const std::vector<int>& ranks = ranks_by_message[message];
    std::string who;
    if (static_cast<int>(ranks.size()) != size) {
      who = ranks.size() == 1 ? "rank " : "ranks ";
      for (std::size_t i = 0; i < ranks.size(); ++i) who += (i ? "," : "") + std::to_string(ranks[i]);
      who += ": ";
    }
    std::fprintf(stderr, "error: %s%s\n", who.c_str(), message.c_str());
  }
  std::fflush(stderr);
  return false;
}

// A failure inside the step loop: the other ranks wait on this one in MPI
// calls, so report it here and take every rank down.
[[noreturn]] void abort_all(MPI_Comm comm, int rank, const std::exception& e) {
  std::fprintf(stderr, "error: rank %d: %s\n", rank, e.what());
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::exit(1);
}

void check_mpi_options(const Options& o) {
  if (o.backend != "opencl")
    throw InputError("--backend " + o.backend + " runs on one process; under mpirun only the opencl backend splits the grid");
  if (o.variant != KernelVariant::Auto && o.variant != KernelVariant::Fused)
    throw InputError(std::string("--kernel-variant ") + to_string(o.variant) +
                     " is not available with several MPI ranks: they run the fused variant (use fused or auto)");
  if (o.tune)
    throw InputError("--tune searches shapes on one device: run it without mpirun, then pass the shape with --local-size");
}

void check_output_dir(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError(dir + ": output directory does not exist");
}

// One-row groups as the single-device default: coalesced on GPUs, long vector loops on CPUs.
LocalSize default_shape(int device, const Params& params) {
  bool gpu = false;
  for (const auto& d : list_opencl_devices())
    if (d.index == device) gpu = d.is_gpu;
  int x = gpu ? 128 : 256;
  while (x > 1 && x / 2 >= params.nx) x /= 2;
  return {x, 1};
}

void print_devices() {
  const auto devices = list_opencl_devices();
  std::printf("OpenCL devices:\n");
  if (devices.empty()) std::printf("  (none found: install an OpenCL driver, e.g. pocl-opencl-icd)\n");
  for (const auto& d : devices)
    std::printf("  %d: %s [%s] on %s, %u compute units, %.1f GiB%s\n", d.index, d.name.c_str(), d.type.c_str(),
                d.platform.c_str(), d.compute_units, d.global_mem_bytes / 1073741824.0, d.has_fp64 ? ", fp64" : "");
}

double seconds(const timeval& tv) { return tv.tv_sec + tv.tv_usec * 1e-6; }

// For the tests only: this rank fails at the start of the step loop, while
// the others wait for its halo rows.
int injected_failure_rank() {
  const char* value = std::getenv("D2Q9_MPI_FAIL_RANK");
  return value && *value ? std::atoi(value) : -1;
}

int run_ranks(int argc, char* argv[], MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const int host_rank = node_rank(comm);

  Options o;
  try {
    o = parse_command_line(argc, argv);  // same arguments everywhere: every rank agrees
  } catch (const UsageError& e) {
    if (rank == 0) std::fprintf(stderr, "error: %s (see --help)\n", e.what());
    return 2;
  }
  if (o.help || o.list_devices) {
    if (rank == 0 && o.help) std::cout << usage_text(argv[0]);
    if (rank == 0 && o.list_devices) print_devices();
    return 0;
  }

  // Set-up: every rank reads the inputs; nobody enters a collective alone.
  std::string failure;
  Params params;
  ObstacleMask mask;
  int device = 0;
  LocalSize local = o.local_size;
  try {
    check_mpi_options(o);
    params = read_params(o.param_file);
    mask = read_obstacles(o.obstacle_file, params);
    device = choose_device(o.device, host_rank);
    if (local.is_auto()) local = default_shape(device, params);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::string dir_failure;
  if (rank == 0) {
    try {
      check_output_dir(o.output_dir);
    } catch (const std::exception& e) {
      dir_failure = e.what();
    }
  }
  dir_failure = broadcast_string(comm, dir_failure);
  if (failure.empty()) failure = dir_failure;
  if (!all_ranks_succeeded(comm, failure)) return 1;

  // One shape for all: each slab's groups must be groups of the whole grid.
  int shape[2] = {local.x, local.y};
  MPI_Bcast(shape, 2, MPI_INT, 0, comm);
  local = {shape[0], shape[1]};
  std::vector<Slab> slabs;
  std::unique_ptr<Solver> solver;
  try {
    // Slab edges on whole rows of work-groups, each ROWS_PER_ITEM rows per item high.
    const int group_height = local.y * rows_per_item_for(params, KernelVariant::Fused);
    slabs = o.slab_rows.empty() ? split_rows(params.ny, size, group_height)
                                : slabs_from_heights(o.slab_rows, params.ny, size, group_height);
    SlabSolverOptions so;
    so.device_index = device;
    so.local_size = local;
    so.precision = o.precision;
    so.kernels_dir = find_kernels_dir(o.kernels_dir);
    so.slabs = slabs;
    solver = make_slab_solver(params, mask, so, comm);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!all_ranks_succeeded(comm, failure)) return 1;
  const std::vector<std::string> device_names =
      gather_strings(comm, solver->device_name() + " [device " + std::to_string(device) + "]");

  std::vector<double> av_vels;
  av_vels.reserve(params.max_iters);
  std::vector<double> f;
  MPI_Barrier(comm);
  const auto tic = std::chrono::steady_clock::now();
  try {
    if (injected_failure_rank() == rank) throw DeviceError("failure injected by D2Q9_MPI_FAIL_RANK");
    solver->run(params.max_iters, av_vels);
  } catch (const std::exception& e) {
    abort_all(comm, rank, e);
  }
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count();
  try {
    f = solver->distributions();
  } catch (const std::exception& e) {
    abort_all(comm, rank, e);
  }
  if (rank != 0) return 0;

  try {
    // Both files are complete before either replaces an older one.
    AtomicFile av_file(o.output_dir + "/av_vels.dat");
    AtomicFile state_file(o.output_dir + "/final_state.dat");
    write_av_vels(av_file.get(), av_vels);
    write_final_state(state_file.get(), params, mask, f);
    av_file.commit();
    state_file.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }

  if (!o.quiet) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    bool same = true;
    for (const auto& name : device_names) same = same && name == device_names[0];
    std::string devices = same ? device_names[0] + " on each of " + std::to_string(size) + " ranks" : "";
    for (int r = 0; !same && r < size; ++r) devices += (r ? ", " : "") + ("rank " + std::to_string(r) + ": ") + device_names[r];
    std::printf("==done==\n");
    std::printf("Reynolds number:\t\t%.12E\n", reynolds_number(params, av_vels.back()));
    std::printf("Elapsed time:\t\t\t%.6lf (s)\n", elapsed);
    std::printf("Elapsed user CPU time:\t\t%.6lf (s)\n", seconds(usage.ru_utime));
    std::printf("Elapsed system CPU time:\t%.6lf (s)\n", seconds(usage.ru_stime));
    std::printf("Device:\t\t\t\t%s (%s, %s, local size %dx%d)\n", devices.c_str(), solver->backend().c_str(),
                to_string(solver->precision()), local.x, local.y);
    std::printf("MLUPS:\t\t\t\t%.2f\n", static_cast<double>(params.cells()) * params.max_iters / elapsed / 1e6);
    std::printf("MPI ranks:\t\t\t%d (slab rows, bottom to top: %s)\n", size, heights_text(slabs).c_str());
  }
  return 0;
}

}  // namespace

int node_rank(MPI_Comm comm) {
  int rank = 0, local = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

int choose_device(int requested, int node_rank) {
  if (requested >= 0) return requested;
  const auto devices = list_opencl_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device found (is an OpenCL driver such as pocl-opencl-icd installed?)");
  std::vector<int> gpus;
  for (const auto& d : devices)
    if (d.is_gpu) gpus.push_back(d.index);
  if (gpus.empty()) return default_opencl_device(devices);
  return gpus[node_rank % static_cast<int>(gpus.size())];
}

int mpi_launch_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value && std::atoi(value) > 0) return std::atoi(value);
  }
  return 1;
}

int run_mpi(int argc, char* argv[]) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  int status = 0;
  try {
    status = run_ranks(argc, argv, comm);
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    abort_all(comm, rank, e);
  }
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return status;
}

}  // namespace d2q9
