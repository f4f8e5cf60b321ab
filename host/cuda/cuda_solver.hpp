// CUDA backend: compiles the same cl/d2q9_bgk.cl through NVRTC (with
// cl/cuda_prelude.h) and runs it with the driver API, loaded at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../kernel_source.hpp"
#include "../solver.hpp"

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

struct CudaOptions {
  int device_index = -1;  // -1: device 0
  LocalSize local_size;   // auto: chosen for the grid
  Precision precision = Precision::Float;
  std::string kernels_dir;
  KernelVariant variant = KernelVariant::Auto;
  // Rows each work-item updates in one-step launches; 0: rows_per_item_for().
  int rows_per_item = 0;
  // Steps whose per-group partial sums are kept on the device before they are
  // read back; 0 picks at most 512 steps and about 1M values.
  int max_chunk_steps = 0;
  // Replay each chunk of steps as a CUDA graph (launch overhead ~1 us per
  // kernel instead of ~4 us); false launches kernels one by one.
  bool use_graphs = true;
};

// Device-to-device copy bandwidth in bytes/s (bytes read + bytes written),
// measured with cl/bandwidth.cl through NVRTC over two buffers of `bytes` each.
double measure_cuda_copy_bandwidth(const CudaOptions& options, std::size_t bytes);

// "CUDA driver 13.0" and the like.
std::string cuda_driver_version();

std::unique_ptr<Solver> make_cuda_solver(const Params& params, const ObstacleMask& mask, const CudaOptions& options);

}  // namespace d2q9

namespace d2q9 {

// How a CUDA solver launches its steps: "graphs", or "plain launches" followed
// by why graphs are not used. Empty for other backends.
std::string cuda_launch_mode(const Solver& solver);

}  // namespace d2q9
