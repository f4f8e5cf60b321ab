#include "cuda/nvrtc_compile.hpp"

#include <nvrtc.h>

#include "device/kernel_cache.hpp"
#include "device/kernel_source.hpp"
#include "core/stopwatch.hpp"
#include "device/solver.hpp"

namespace d2q9 {

namespace {

void check_nvrtc(nvrtcResult result, const char* call) {
  if (result != NVRTC_SUCCESS)
    throw DeviceError(std::string(call) + " failed: " + nvrtcGetErrorString(result));
}

// Owns an nvrtcProgram.
class Program {
 public:
  Program(const std::string& source, const std::string& name) {
    check_nvrtc(nvrtcCreateProgram(&program_, source.c_str(), name.c_str(), 0, nullptr, nullptr),
                "nvrtcCreateProgram");
  }
  ~Program() { nvrtcDestroyProgram(&program_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return program_; }

 private:
  nvrtcProgram program_ = nullptr;
};

std::string program_log(nvrtcProgram program) {
  std::size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return {};
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, &log[0]) != NVRTC_SUCCESS) return {};
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

}  // namespace

CompiledKernels compile_kernels_nvrtc(const std::string& kernels_dir, const std::string& kernel_file,
                                      const std::vector<std::string>& defines, const NvrtcTarget& target) {
  const std::string kernel_path = kernels_dir + "/" + kernel_file;
  const std::string prelude = read_kernel_source(kernels_dir, kCudaPreludeFile);
  const std::string kernels = read_kernel_source(kernels_dir, kernel_file);
  // #line keeps the log's line numbers those of the .cl file.
  const std::string source = prelude + "\n#line 1 \"" + kernel_path + "\"\n" + kernels;

  const std::string arch = std::to_string(target.major) + std::to_string(target.minor);
  std::vector<std::string> options = {
      std::string("--gpu-architecture=") + (target.cubin ? "sm_" : "compute_") + arch,
      // The OpenCL build has FP_CONTRACT OFF: no fused multiply-adds, and IEEE
      // division, square root and denormals, so both backends round alike.
      "--fmad=false",
      "--prec-div=true",
      "--prec-sqrt=true",
      "--ftz=false",
      "--std=c++17",
      // The kernels' helper functions carry no __device__ (see ALWAYS_INLINE).
      "--device-as-default-execution-space",
  };
  for (const auto& d : defines) options.push_back("-D" + d);
  std::vector<const char*> argv;
  std::string joined;
  for (const auto& o : options) {
    argv.push_back(o.c_str());
    joined += (joined.empty() ? "" : " ") + o;
  }

  // The image depends on nothing else: NVRTC's version, the target, the text, the options.
  const KernelBuild build = {"cuda", (target.cubin ? "sm_" : "compute_") + arch, nvrtc_version(), source, joined};
  if (auto image = load_kernel_image(build)) {
    CompiledKernels cached;
    cached.image = std::move(image->image);
    cached.compile_s = image->compile_s;
    cached.options = joined;
    cached.from_cache = true;
    return cached;
  }

  Stopwatch watch;
  Program program(source, kernel_path);
  const nvrtcResult built = nvrtcCompileProgram(program.get(), static_cast<int>(argv.size()), argv.data());
  CompiledKernels out;
  out.log = program_log(program.get());
  out.options = joined;
  if (built != NVRTC_SUCCESS)
    throw DeviceError(build_failure_message(kernel_path + ": kernel build failed for CUDA " +
                                                (target.cubin ? "sm_" : "compute_") + arch + " (" +
                                                nvrtcGetErrorString(built) + ")",
                                            joined, out.log));

  std::size_t size = 0;
  if (target.cubin) {
    check_nvrtc(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize");
    out.image.assign(size, '\0');
    check_nvrtc(nvrtcGetCUBIN(program.get(), &out.image[0]), "nvrtcGetCUBIN");
  } else {
    check_nvrtc(nvrtcGetPTXSize(program.get(), &size), "nvrtcGetPTXSize");
    out.image.assign(size, '\0');
    check_nvrtc(nvrtcGetPTX(program.get(), &out.image[0]), "nvrtcGetPTX");
  }
  out.compile_s = watch.lap();
  store_kernel_image(build, out.image, out.compile_s);
  return out;
}

std::string nvrtc_version() {
  int major = 0, minor = 0;
  check_nvrtc(nvrtcVersion(&major, &minor), "nvrtcVersion");
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

std::vector<int> nvrtc_supported_architectures() {
  int count = 0;
  check_nvrtc(nvrtcGetNumSupportedArchs(&count), "nvrtcGetNumSupportedArchs");
  std::vector<int> archs(static_cast<std::size_t>(count));
  if (count > 0) check_nvrtc(nvrtcGetSupportedArchs(archs.data()), "nvrtcGetSupportedArchs");
  return archs;
}

}  // namespace d2q9
