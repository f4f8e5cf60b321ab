// CUDA backend: compiles the same cl/d2q9_bgk.cl through NVRTC (with
// cl/cuda_prelude.h) and runs it with the driver API, loaded at run time.
// Its entry in the registry of backends (sim/backend.cpp), and what the
// entry reaches: its LatticeDevice (cuda_lattice_device.cpp), its devices,
// their limits and copy bandwidth.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/backend_entry.hpp"
#include "device/solver.hpp"

namespace d2q9 {

// This backend in the registry's table (cuda_entry.cpp).
const BackendEntry& cuda_backend_entry();

// A device holding `lattice` (DeviceError when it cannot hold it or build its
// kernels). With config.launch_graphs it replays each prepared sequence as
// a CUDA graph (a kernel's launch costs less than with plain launches).
std::unique_ptr<LatticeDevice> make_cuda_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                const DeviceLattice& lattice);

struct CudaDeviceInfo {
  int index;  // as --device takes it with --backend cuda
  std::string name;
  int compute_major;
  int compute_minor;
  int multiprocessors;
  unsigned long long global_mem_bytes;
};

// DeviceError when the driver is missing or fails.
std::vector<CudaDeviceInfo> list_cuda_devices();

// The limits of CUDA device `device_index` (-1: device 0) for decide_launch.
DeviceLimits cuda_limits(int device_index);

// Device-to-device copy bandwidth in bytes/s (bytes read + bytes written),
// measured with cl/bandwidth.cl through NVRTC over two buffers of `bytes` each.
double measure_cuda_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes);

// "CUDA driver 13.0" and the like.
std::string cuda_driver_version();

}  // namespace d2q9

