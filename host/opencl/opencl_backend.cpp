#include "opencl/opencl_backend.hpp"

#include <algorithm>
#include <chrono>

#include "opencl/cl_common.hpp"
#include "opencl/opencl_lattice.hpp"

namespace d2q9 {

namespace {

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

}  // namespace

std::vector<OpenCLDeviceInfo> list_opencl_devices() {
  std::vector<OpenCLDeviceInfo> out;
  try {
    int index = 0;
    for (const auto& fd : all_opencl_devices()) {
      OpenCLDeviceInfo info;
      info.index = index++;
      info.platform = fd.platform.getInfo<CL_PLATFORM_NAME>();
      info.name = fd.device.getInfo<CL_DEVICE_NAME>();
      info.platform = trimmed(info.platform);
      info.name = trimmed(info.name);
      const auto type = fd.device.getInfo<CL_DEVICE_TYPE>();
      info.type = device_type_name(type);
      info.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
      info.compute_units = fd.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
      info.global_mem_bytes = fd.device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
      info.has_fp64 = fd.device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
      info.driver_version = fd.device.getInfo<CL_DRIVER_VERSION>();
      info.opencl_version = fd.device.getInfo<CL_DEVICE_VERSION>();
      info.driver_version = trimmed(info.driver_version);
      info.opencl_version = trimmed(info.opencl_version);
      out.push_back(info);
    }
  } catch (const cl::Error& e) {
    rethrow_cl(e, "listing OpenCL devices");
  }
  return out;
}

int default_opencl_device(const std::vector<OpenCLDeviceInfo>& devices) {
  for (const auto& d : devices)
    if (d.is_gpu) return d.index;
  return 0;
}

double measure_opencl_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes) {
  const cl::Device device = opencl_device_at(device_index);
  bytes -= bytes % 16;
  try {
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program = build_opencl_program(context, device, kernels_dir, "bandwidth.cl", {});
    cl::Kernel copy(program, "copy_float4");
    cl::Buffer a(context, CL_MEM_READ_WRITE, bytes), b(context, CL_MEM_READ_WRITE, bytes);
    queue.enqueueFillBuffer(a, 1.0f, 0, bytes);
    copy.setArg(0, a);
    copy.setArg(1, b);
    const cl::NDRange global(bytes / 16);
    for (int i = 0; i < 2; ++i) queue.enqueueNDRangeKernel(copy, cl::NullRange, global, cl::NullRange);
    queue.finish();
    // Best of several timed batches: the machine is shared and noisy.
    double best = 0.0;
    for (int batch = 0; batch < 5; ++batch) {
      const int reps = 5;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; ++i) queue.enqueueNDRangeKernel(copy, cl::NullRange, global, cl::NullRange);
      queue.finish();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 2.0 * bytes * reps / t);
    }
    return best;
  } catch (const cl::Error& e) {
    rethrow_cl(e, "measuring copy bandwidth");
  }
}

DeviceLimits opencl_limits(int device_index) { return opencl_device_limits(opencl_device_at(device_index)); }

}  // namespace d2q9
