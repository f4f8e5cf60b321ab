// The OpenCL backend's entry in the registry of backends (device/backend_entry.hpp).
#include <algorithm>

#include "device/lattice_device.hpp"
#include "opencl/cl_common.hpp"
#include "opencl/device_table.hpp"
#include "opencl/driver_check.hpp"
#include "opencl/opencl_backend.hpp"

namespace d2q9 {

namespace {

std::unique_ptr<LatticeDevice> make_device(const DeviceConfig& config, const LaunchPlan& plan,
                                           const DeviceLattice& lattice) {
  return make_opencl_device(config, plan, lattice);
}

DeviceDescription describe(int device) {
  const auto devices = list_opencl_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device found");
  const int index = device < 0 ? default_opencl_device(devices) : device;
  if (index >= static_cast<int>(devices.size()))
    throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " +
                      std::to_string(devices.size()) + " OpenCL device(s), see --list-devices");
  const OpenCLDeviceInfo& o = devices[index];
  // PoCL reports the first shared cache (the L3) on a CPU, and 0 where the
  // system does not describe its caches.
  const unsigned long long cache = opencl_device_at(index).getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>();
  return {o.name, o.platform, o.driver_version, o.opencl_version, o.global_mem_bytes, cache};
}

void print_devices(std::FILE* out) {
  const auto devices = list_opencl_devices();
  std::fprintf(out, "OpenCL devices:\n");
  if (devices.empty()) std::fprintf(out, "  (none found: install an OpenCL driver, e.g. pocl-opencl-icd)\n");
  else print_device_table(out, devices, default_opencl_device(devices));
  const bool any_gpu = std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.is_gpu; });
  const std::string vendors = default_vendors_dir();
  if (!any_gpu)
    for (const auto& u : find_unregistered_drivers(default_driver_dirs(), vendors))
      std::fprintf(out,
                   "\nNo GPU found, but the %s OpenCL driver %s is installed without an ICD registration\n"
                   "(no file in %s names it). Register it, as root, with:\n"
                   "  mkdir -p %s && echo %s > %s/%s\n",
                   u.vendor.c_str(), u.library.c_str(), vendors.c_str(), vendors.c_str(), u.library.c_str(),
                   vendors.c_str(), u.icd_name.c_str());
}

// Distinct GPUs for the ranks of a host, by node rank; with no GPU, the
// default device (PoCL's CPU device) for all.
int rank_device(int node_rank) {
  const auto devices = list_opencl_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device found (is an OpenCL driver such as pocl-opencl-icd installed?)");
  std::vector<int> gpus;
  for (const auto& d : devices)
    if (d.is_gpu) gpus.push_back(d.index);
  if (gpus.empty()) return default_opencl_device(devices);
  return gpus[node_rank % static_cast<int>(gpus.size())];
}

}  // namespace

const BackendEntry& opencl_backend_entry() {
  static const BackendEntry entry{Backend::OpenCL, nullptr,       make_device,
                                  opencl_limits,   describe,      print_devices,
                                  measure_opencl_copy_bandwidth, rank_device};
  return entry;
}

}  // namespace d2q9
