#include "cuda/cuda_device.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "model/lattice.hpp"

namespace d2q9 {

int cuda_device_attribute(const CudaDriver& drv, CUdevice device, CUdevice_attribute attribute) {
  int value = 0;
  check_cuda(drv.cuDeviceGetAttribute(&value, attribute, device), "cuDeviceGetAttribute");
  return value;
}

CudaDeviceInfo describe_cuda_device(const CudaDriver& drv, int index) {
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  char name[256] = {};
  check_cuda(drv.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  std::size_t bytes = 0;
  check_cuda(drv.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem");
  CudaDeviceInfo info;
  info.index = index;
  info.name = name;
  info.compute_major = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.compute_minor = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.global_mem_bytes = bytes;
  return info;
}

CUdevice cuda_device_at(const CudaDriver& drv, int requested, int* index_out) {
  int count = 0;
  check_cuda(drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw DeviceError("no CUDA device found");
  const int index = requested < 0 ? 0 : requested;
  if (index >= count)
    throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " + std::to_string(count) +
                      " CUDA device(s), see --list-devices");
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  if (index_out) *index_out = index;
  return device;
}

NvrtcTarget pick_nvrtc_target(int major, int minor, const std::string& device_name) {
  const int wanted = 10 * major + minor;
  const auto archs = nvrtc_supported_architectures();
  if (std::find(archs.begin(), archs.end(), wanted) != archs.end()) return {major, minor, true};
  int best = 0;
  for (int a : archs)
    if (a <= wanted) best = std::max(best, a);
  if (best == 0)
    throw DeviceError(device_name + " has compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                      ", which " + nvrtc_version() + " cannot compile for");
  return {best / 10, best % 10, false};
}

void fill_cuda_lattice_at_rest(const CudaDriver& drv, CUdeviceptr lattice, std::size_t cells, double density,
                               Precision precision, CUstream stream) {
  Params one_cell;
  one_cell.nx = one_cell.ny = 1;
  one_cell.density = density;
  const std::vector<double> rest = initial_distributions(one_cell);
  const std::size_t plane_bytes = cells * stored_size(precision);
  for (int k = 0; k < kSpeeds; ++k) {
    const CUdeviceptr plane = lattice + k * plane_bytes;
    if (is_16bit(precision)) {  // a value at rest is stored as 0 in both formats
      check_cuda(drv.cuMemsetD16Async(plane, 0, cells, stream), "cuMemsetD16Async");
    } else if (precision == Precision::Float) {
      const float value = static_cast<float>(rest[k]);
      unsigned bits = 0;
      std::memcpy(&bits, &value, sizeof bits);
      check_cuda(drv.cuMemsetD32Async(plane, bits, cells, stream), "cuMemsetD32Async");
    } else {  // no 64-bit memset: copies of a block of values
      const std::vector<double> block(std::min<std::size_t>(cells, 1 << 20), rest[k]);
      for (std::size_t done = 0; done < cells; done += block.size()) {
        const std::size_t n = std::min(block.size(), cells - done);
        check_cuda(drv.cuMemcpyHtoDAsync(plane + done * sizeof(double), block.data(), n * sizeof(double), stream),
                   "cuMemcpyHtoDAsync");
      }
    }
    check_cuda(drv.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
}

}  // namespace d2q9
