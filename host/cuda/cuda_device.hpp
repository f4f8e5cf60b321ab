// What both CUDA solvers (one device, one MPI slab) share: finding and
// describing a device, the NVRTC target for it, and filling a lattice at rest.
#pragma once

#include <cuda.h>

#include <string>

#include "cuda/cuda_driver.hpp"
#include "cuda/cuda_solver.hpp"
#include "cuda/nvrtc_compile.hpp"

namespace d2q9 {

int cuda_device_attribute(const CudaDriver& drv, CUdevice device, CUdevice_attribute attribute);
CudaDeviceInfo describe_cuda_device(const CudaDriver& drv, int index);

// Device `requested` (-1: device 0); DeviceError naming --device when there
// is no such device. `index_out` gets the index used.
CUdevice cuda_device_at(const CudaDriver& drv, int requested, int* index_out = nullptr);

// CUBIN for the device's own architecture when this NVRTC knows it, else PTX
// for the newest older one, which the driver compiles when it loads it.
NvrtcTarget pick_nvrtc_target(int major, int minor, const std::string& device_name);

// Every cell of the `cells`-cell lattice at `lattice` at rest with `density`,
// filled on the device (blocking, on `stream`): a large grid's worth of
// doubles on the host would cost more memory than the device holds.
void fill_cuda_lattice_at_rest(const CudaDriver& drv, CUdeviceptr lattice, std::size_t cells, double density,
                               Precision precision, CUstream stream);

}  // namespace d2q9
