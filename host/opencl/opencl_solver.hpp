// OpenCL backend: builds cl/d2q9_bgk.cl for the chosen device at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "../kernel_source.hpp"
#include "../solver.hpp"

namespace d2q9 {

struct OpenCLDeviceInfo {
  int index;  // flat index over all platforms, as --device takes it
  std::string platform;
  std::string name;
  std::string type;  // "GPU", "CPU", "accelerator", ...
  unsigned compute_units;
  unsigned long long global_mem_bytes;
  bool is_gpu;
  bool has_fp64;
  std::string driver_version;  // CL_DRIVER_VERSION
  std::string opencl_version;  // CL_DEVICE_VERSION
};

std::vector<OpenCLDeviceInfo> list_opencl_devices();
// The default device: the first GPU, else the first device.
int default_opencl_device(const std::vector<OpenCLDeviceInfo>& devices);

struct OpenCLOptions {
  int device_index = -1;  // -1: default device
  LocalSize local_size;   // auto: chosen for the device
  Precision precision = Precision::Float;
  std::string kernels_dir;
  KernelVariant variant = KernelVariant::Auto;
  // Rows each work-item updates in one-step launches; 0: rows_per_item_for().
  int rows_per_item = 0;
  // Steps whose per-group partial sums are kept on the device before they are
  // read back; 0 picks a bound of about 4M values.
  int max_chunk_steps = 0;
};

// Device-to-device copy bandwidth in bytes/s (bytes read + bytes written),
// measured with cl/bandwidth.cl over two buffers of `bytes` each.
double measure_opencl_copy_bandwidth(const OpenCLOptions& options, std::size_t bytes);

std::unique_ptr<Solver> make_opencl_solver(const Params& params, const ObstacleMask& mask, const OpenCLOptions& options);

}  // namespace d2q9
