// The CUDA backend's entry in the registry of backends (device/backend_entry.hpp).
#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_driver.hpp"
#include "device/lattice_device.hpp"

namespace d2q9 {

namespace {

DeviceLimits limits(int device) {
  DeviceLimits l = cuda_limits(device);  // fp64 on every CUDA device
  l.platform = "CUDA";
  return l;
}

DeviceDescription describe(int device) {
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
}

void print_devices(std::FILE* out) {
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
}

// The ranks of a host take its devices in turn.
int rank_device(int node_rank) {
  const int count = static_cast<int>(list_cuda_devices().size());
  if (count == 0) throw DeviceError("no CUDA device found");
  return node_rank % count;
}

}  // namespace

const BackendEntry& cuda_backend_entry() {
  static const BackendEntry entry{Backend::Cuda,  nullptr,       make_cuda_device,
                                  limits,         describe,      print_devices,
                                  measure_cuda_copy_bandwidth, rank_device};
  return entry;
}

}  // namespace d2q9
