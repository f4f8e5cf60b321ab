// The backends built into this program and what the programs ask of one:
// a launch plan, a solver, its devices, its copy bandwidth. backend.cpp is
// the one file that knows which backends (and MPI) were built: its table
// holds one entry (device/backend_entry.hpp) per backend, and a new backend
// is a folder that defines its entry plus a line of that table.
#pragma once

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/ranks.hpp"
#include "device/backend_entry.hpp"
#include "device/launch_plan.hpp"
#include "device/solver.hpp"
#include "device/tuning.hpp"

namespace d2q9 {

// The backends this program was built with, reference first.
std::vector<Backend> built_backends();
// Whether runs can split the grid across MPI ranks.
bool built_with_mpi();
// DeviceError saying how to get `b` when it was not built in.
void require_built(Backend b);

struct SolverConfig {
  DeviceConfig device;
  LaunchRequest launch;
  std::vector<int> slab_rows;  // split across ranks: rows per rank, bottom to top (empty: even split)
  bool slabs_on_one_rank = false;  // one rank still runs a slab, exchanging halos with itself (benchmarks)
};

// The launch decision (decide_launch) for `b` on the configured device, one
// rank and no cache (none for the reference), made without building anything.
std::optional<LaunchDecision> decide_for(Backend b, const Params& params, const SolverConfig& config);
// Its plan.
std::optional<LaunchPlan> plan_for(Backend b, const Params& params, const SolverConfig& config);

// A solver of `b` for the whole grid on one device, launched as `plan` (a
// decide_launch plan for that device; ignored by the reference).
std::unique_ptr<Solver> make_planned_solver(Backend b, const Params& params, const ObstacleMask& mask,
                                            const DeviceConfig& device, const LaunchPlan& plan);

// A solver of `b` for the whole grid on one device; with `ranks` of more
// than one process, this rank's slab of it (DeviceError for the reference).
std::unique_ptr<Solver> make_solver(Backend b, const Params& params, const ObstacleMask& mask,
                                    const SolverConfig& config, Ranks* ranks = nullptr);

// What device `device` of `b` allows, all the launch decision reads of it
// (DeviceError for the reference).
DeviceLimits device_limits(Backend b, int device);

// What device `device` of `b` is (DeviceDescription: device/backend_entry.hpp).
DeviceDescription describe_device(Backend b, int device);

// --list-devices: every built backend's devices.
void print_devices(std::FILE* out);

// Device-to-device copy bandwidth in bytes/s (read + write counted).
double copy_bandwidth(Backend b, int device, const std::string& kernels_dir, std::size_t bytes);

// The rank context of this process: MPI ranks when an MPI launcher started
// several, else one process. Lives until the program ends.
std::unique_ptr<Ranks> start_ranks(int& argc, char**& argv);

}  // namespace d2q9
