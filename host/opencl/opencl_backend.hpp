// OpenCL backend: its entry in the registry of backends (sim/backend.cpp),
// and what the entry reaches: its LatticeDevice (device/lattice_device.hpp,
// built in opencl_device.cpp), its devices, their limits and copy bandwidth.
// Builds cl/d2q9_bgk.cl for the chosen device at run time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/backend_entry.hpp"
#include "device/solver.hpp"

namespace d2q9 {

// This backend in the registry's table (opencl_entry.cpp).
const BackendEntry& opencl_backend_entry();

// A device holding `lattice` (DeviceError when it cannot hold it or build its kernels).
std::unique_ptr<LatticeDevice> make_opencl_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                  const DeviceLattice& lattice);

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

// The limits of device `device_index` (-1: the default device) for decide_launch.
DeviceLimits opencl_limits(int device_index);

// Device-to-device copy bandwidth in bytes/s (bytes read + bytes written),
// measured with cl/bandwidth.cl over two buffers of `bytes` each.
double measure_opencl_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes);

}  // namespace d2q9
