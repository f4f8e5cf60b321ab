// CUDA backend: compiles the same cl/d2q9_bgk.cl through NVRTC (with
// cl/cuda_prelude.h) and runs it with the driver API, loaded at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/solver.hpp"

namespace d2q9 {

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

// The limits of CUDA device `device_index` (-1: device 0) for plan_launch.
DeviceLimits cuda_limits(int device_index);

// Device-to-device copy bandwidth in bytes/s (bytes read + bytes written),
// measured with cl/bandwidth.cl through NVRTC over two buffers of `bytes` each.
double measure_cuda_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes);

// "CUDA driver 13.0" and the like.
std::string cuda_driver_version();

// `use_graphs`: replay each chunk of steps as a CUDA graph (launch overhead
// ~1 us per kernel instead of ~4 us); false launches kernels one by one.
std::unique_ptr<Solver> make_cuda_solver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                                         const LaunchPlan& plan, bool use_graphs = true);

}  // namespace d2q9

namespace d2q9 {

// How a CUDA solver launches its steps: "graphs", or "plain launches" followed
// by why graphs are not used. Empty for other backends.
std::string cuda_launch_mode(const Solver& solver);

}  // namespace d2q9
