// One backend as the registry (sim/backend.cpp) reaches it: what a program
// asks of a backend, as functions. Each backend's folder defines its own
// entry (opencl/opencl_backend.hpp, cuda/cuda_backend.hpp,
// reference/reference_solver.hpp) and the registry's table lists those
// built, so a new backend is a folder plus one line of that table.
#pragma once

#include <cstddef>
#include <cstdio>
#include <memory>
#include <string>

#include "device/launch_plan.hpp"
#include "device/solver.hpp"

namespace d2q9 {

class LatticeDevice;
struct DeviceLattice;

struct DeviceDescription {
  std::string name, platform, driver, version;
  unsigned long long memory_bytes = 0;
  unsigned long long cache_bytes = 0;  // last-level (global memory) cache; 0: unknown
};

// A function a backend lacks is null: the reference has a serial solver and
// no devices, the device backends devices and no serial solver. Its name
// is to_string(id), which also names the backends not built.
struct BackendEntry {
  Backend id;
  // The whole grid in one serial solver of `precision` (the reference).
  std::unique_ptr<Solver> (*make_serial_solver)(const Params& params, const ObstacleMask& mask, Precision precision);
  // A device holding `lattice`, launched as `plan` (a decide_launch plan
  // for that device).
  std::unique_ptr<LatticeDevice> (*make_device)(const DeviceConfig& config, const LaunchPlan& plan,
                                                const DeviceLattice& lattice);
  // What device `device` (-1: the default) allows, all the launch decision reads of it.
  DeviceLimits (*limits)(int device);
  DeviceDescription (*describe)(int device);
  // Its section of --list-devices.
  void (*print_devices)(std::FILE* out);
  // Device-to-device copy bandwidth in bytes/s (read + write counted).
  double (*copy_bandwidth)(int device, const std::string& kernels_dir, std::size_t bytes);
  // Under mpirun with no --device: the device of the rank numbered
  // `node_rank` among those of its host.
  int (*rank_device)(int node_rank);
};

}  // namespace d2q9
