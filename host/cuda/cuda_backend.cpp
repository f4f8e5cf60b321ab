#include "cuda/cuda_backend.hpp"

#include <algorithm>
#include <chrono>

#include "cuda/cuda_device.hpp"

namespace d2q9 {

std::vector<CudaDeviceInfo> list_cuda_devices() {
  const CudaDriver& drv = cuda_driver();
  int count = 0;
  check_cuda(drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < count; ++i) out.push_back(describe_cuda_device(drv, i));
  return out;
}

std::string cuda_driver_version() {
  int version = 0;
  check_cuda(cuda_driver().cuDriverGetVersion(&version), "cuDriverGetVersion");
  return "CUDA driver " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

DeviceLimits cuda_limits(int device_index) {
  const CudaDriver& drv = cuda_driver();
  int index = 0;
  const CUdevice device = cuda_device_at(drv, device_index, &index);
  DeviceLimits l;
  l.name = describe_cuda_device(drv, index).name;
  l.gpu = true;
  l.max_x = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l.max_y = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l.max_threads = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  l.max_groups_y = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l.has_rows_kernel = false;
  // Static shared arrays: 48 KB per block whatever the device has.
  l.local_mem_bytes =
      cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  // Past that, the blocked kernel's region (dynamic shared memory) on request.
  l.opt_in_local_mem_bytes =
      cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  l.compute_units = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  return l;
}

double measure_cuda_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes) {
  const CudaDriver& drv = cuda_driver();
  const int index = device_index < 0 ? 0 : device_index;
  const CudaDeviceInfo info = describe_cuda_device(drv, index);
  bytes -= bytes % 16;
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  CUcontext context = nullptr;
  check_cuda(drv.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  CUmodule module = nullptr;
  CUdeviceptr a = 0, b = 0;
  CUstream stream = nullptr;
  auto release = [&] {
    if (stream) drv.cuStreamDestroy(stream);
    if (b) drv.cuMemFree(b);
    if (a) drv.cuMemFree(a);
    if (module) drv.cuModuleUnload(module);
    drv.cuDevicePrimaryCtxRelease(device);
  };
  try {
    check_cuda(drv.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    const CompiledKernels compiled = compile_kernels_nvrtc(kernels_dir, "bandwidth.cl", {},
                                                           pick_nvrtc_target(info.compute_major, info.compute_minor, info.name));
    check_cuda(drv.cuModuleLoadData(&module, compiled.image.data()), "cuModuleLoadData");
    CUfunction copy = nullptr;
    check_cuda(drv.cuModuleGetFunction(&copy, module, "copy_float4"), "cuModuleGetFunction");
    check_cuda(drv.cuMemAlloc(&a, bytes), "cuMemAlloc");
    check_cuda(drv.cuMemAlloc(&b, bytes), "cuMemAlloc");
    check_cuda(drv.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    void* args[] = {&a, &b};
    const unsigned block = 256;
    const unsigned blocks = static_cast<unsigned>(bytes / 16 / block);
    auto launch = [&] {
      check_cuda(drv.cuLaunchKernel(copy, blocks, 1, 1, block, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel");
    };
    for (int i = 0; i < 2; ++i) launch();
    check_cuda(drv.cuStreamSynchronize(stream), "cuStreamSynchronize");
    // Best of several timed batches: the machine is shared and noisy.
    double best = 0.0;
    for (int batch = 0; batch < 5; ++batch) {
      const int reps = 5;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; ++i) launch();
      check_cuda(drv.cuStreamSynchronize(stream), "cuStreamSynchronize");
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 2.0 * static_cast<double>(bytes / (16 * block) * 16 * block) * reps / t);
    }
    release();
    return best;
  } catch (...) {
    release();
    throw;
  }
}

}  // namespace d2q9
