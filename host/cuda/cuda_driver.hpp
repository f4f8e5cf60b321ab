// The CUDA driver API, loaded at run time from libcuda.so.1 so that the
// program still starts (and its other backends run) where no NVIDIA driver
// is installed, e.g. on CI machines that only have the toolkit.
#pragma once

#include <cuda.h>

#include <string>

namespace d2q9 {

// The driver functions the CUDA backend calls. Each member is named as cuda.h
// names the function, so `driver.cuMemAlloc(...)` resolves, through cuda.h's
// own macros, to the same versioned entry point (cuMemAlloc_v2) a link
// against libcuda would use.
#define D2Q9_CUDA_DRIVER_FUNCTIONS(X) \
  X(cuInit)                          \
  X(cuDriverGetVersion)              \
  X(cuGetErrorName)                  \
  X(cuGetErrorString)                \
  X(cuDeviceGetCount)                \
  X(cuDeviceGet)                     \
  X(cuDeviceGetName)                 \
  X(cuDeviceGetAttribute)            \
  X(cuDeviceTotalMem)                \
  X(cuDevicePrimaryCtxRetain)        \
  X(cuDevicePrimaryCtxRelease)       \
  X(cuCtxSetCurrent)                 \
  X(cuMemGetInfo)                    \
  X(cuModuleLoadData)                \
  X(cuModuleUnload)                  \
  X(cuModuleGetFunction)             \
  X(cuFuncGetAttribute)              \
  X(cuFuncSetAttribute)              \
  X(cuMemAlloc)                      \
  X(cuMemFree)                       \
  X(cuMemAllocHost)                  \
  X(cuMemFreeHost)                   \
  X(cuMemcpyHtoD)                    \
  X(cuMemcpyHtoDAsync)               \
  X(cuMemcpyDtoHAsync)               \
  X(cuMemsetD16Async)                \
  X(cuMemsetD32Async)                \
  X(cuStreamCreate)                  \
  X(cuStreamDestroy)                 \
  X(cuStreamSynchronize)             \
  X(cuEventCreate)                   \
  X(cuEventDestroy)                  \
  X(cuEventRecord)                   \
  X(cuEventSynchronize)              \
  X(cuEventQuery)                    \
  X(cuStreamWaitEvent)               \
  X(cuLaunchKernel)                  \
  X(cuStreamBeginCapture)            \
  X(cuStreamEndCapture)              \
  X(cuGraphInstantiate)              \
  X(cuGraphLaunch)                   \
  X(cuGraphDestroy)                  \
  X(cuGraphExecDestroy)              \
  X(cuMemcpyDtoDAsync)               \
  X(cuIpcGetMemHandle)               \
  X(cuIpcOpenMemHandle)              \
  X(cuIpcCloseMemHandle)             \
  X(cuIpcGetEventHandle)             \
  X(cuIpcOpenEventHandle)            \
  X(cuDeviceGetPCIBusId)             \
  X(cuDeviceGetByPCIBusId)           \
  X(cuDeviceCanAccessPeer)

struct CudaDriver {
#define D2Q9_CUDA_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  D2Q9_CUDA_DRIVER_FUNCTIONS(D2Q9_CUDA_DRIVER_MEMBER)
#undef D2Q9_CUDA_DRIVER_MEMBER
  int version = 0;  // cuDriverGetVersion, e.g. 13000
};

// The loaded and initialised driver; DeviceError "no CUDA driver found ..."
// when libcuda.so.1 is missing, or naming the call that failed.
const CudaDriver& cuda_driver();

// Empty when cuda_driver() would succeed, else the reason it cannot.
std::string cuda_driver_unavailable_reason();

// Throws DeviceError "<call> failed with CUDA_ERROR_... (<code>): <description>"
// unless `result` is CUDA_SUCCESS.
void check_cuda(CUresult result, const char* call);

}  // namespace d2q9
