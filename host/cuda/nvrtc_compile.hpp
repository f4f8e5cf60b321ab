// Compiles the OpenCL kernel files in cl/ for CUDA through NVRTC: the prelude
// cl/cuda_prelude.h goes first, the problem's defines as -D options. Needs no
// GPU and no driver, so CI can check the translation.
#pragma once

#include <string>
#include <vector>

namespace d2q9 {

constexpr const char* kCudaPreludeFile = "cuda_prelude.h";

struct NvrtcTarget {
  int major = 9;  // compute capability, e.g. 9.0 for H100/H200
  int minor = 0;
  // true: device code for exactly this GPU (a CUBIN, no JIT at load time);
  // false: PTX for the virtual architecture compute_XY.
  bool cubin = false;
};

struct CompiledKernels {
  std::string image;  // PTX text or CUBIN bytes, as loaded by cuModuleLoadData
  std::string log;    // NVRTC's log (warnings), possibly empty
  std::string options;  // the options it was compiled with, space separated
  bool from_cache = false;  // the image came from the kernel cache (no log then)
  double compile_s = 0;     // what compiling it took (then or, from the cache, when it was cached)
};

// Compiles `kernel_file` from `kernels_dir` with `defines` (NAME=VALUE, see
// kernel_defines()), or takes the image from the kernel cache
// (device/kernel_cache.hpp) where an earlier compile left it. Throws
// DeviceError with the NVRTC log on failure.
CompiledKernels compile_kernels_nvrtc(const std::string& kernels_dir, const std::string& kernel_file,
                                      const std::vector<std::string>& defines, const NvrtcTarget& target);

// "NVRTC 13.0"
std::string nvrtc_version();

// Architectures this NVRTC can emit CUBINs for, as 10*major+minor.
std::vector<int> nvrtc_supported_architectures();

}  // namespace d2q9
