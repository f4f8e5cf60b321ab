#include "cuda/cuda_driver.hpp"

#include <dlfcn.h>

#include "device/solver.hpp"

namespace d2q9 {

namespace {

#define D2Q9_STRINGIFY_EXPANDED(x) D2Q9_STRINGIFY(x)
#define D2Q9_STRINGIFY(x) #x

struct LoadedDriver {
  CudaDriver driver;
  std::string error;  // empty when loaded
};

LoadedDriver load_driver() {
  LoadedDriver out;
  // Never unloaded: the driver stays mapped for the life of the process.
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = ::dlerror();
    out.error = std::string("no CUDA driver found (") + (why ? why : "libcuda.so.1 cannot be loaded") +
                "): the CUDA backend needs an NVIDIA GPU and its driver";
    return out;
  }
  CudaDriver& d = out.driver;
#define D2Q9_CUDA_DRIVER_LOAD(name)                                                                           \
  d.name = reinterpret_cast<decltype(d.name)>(::dlsym(lib, D2Q9_STRINGIFY_EXPANDED(name)));                    \
  if (!d.name) {                                                                                               \
    out.error = std::string("the CUDA driver (libcuda.so.1) lacks " D2Q9_STRINGIFY_EXPANDED(name) ": it is too " \
                            "old for this program; update the NVIDIA driver");                                 \
    return out;                                                                                                \
  }
  D2Q9_CUDA_DRIVER_FUNCTIONS(D2Q9_CUDA_DRIVER_LOAD)
#undef D2Q9_CUDA_DRIVER_LOAD

  CUresult r = d.cuInit(0);
  if (r == CUDA_SUCCESS) r = d.cuDriverGetVersion(&d.version);
  if (r != CUDA_SUCCESS) {
    const char* name = nullptr;
    const char* text = nullptr;
    d.cuGetErrorName(r, &name);
    d.cuGetErrorString(r, &text);
    out.error = std::string("cuInit failed with ") + (name ? name : "an unknown error") + " (" + std::to_string(r) +
                ")" + (text ? std::string(": ") + text : std::string());
  }
  return out;
}

const LoadedDriver& loaded_driver() {
  static const LoadedDriver loaded = load_driver();
  return loaded;
}

}  // namespace

const CudaDriver& cuda_driver() {
  const LoadedDriver& l = loaded_driver();
  if (!l.error.empty()) throw DeviceError(l.error);
  return l.driver;
}

std::string cuda_driver_unavailable_reason() { return loaded_driver().error; }

void check_cuda(CUresult result, const char* call) {
  if (result == CUDA_SUCCESS) return;
  const CudaDriver& d = loaded_driver().driver;
  const char* name = nullptr;
  const char* text = nullptr;
  if (d.cuGetErrorName) d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString) d.cuGetErrorString(result, &text);
  std::string msg = std::string(call) + " failed with " + (name ? name : "CUDA error") + " (" +
                    std::to_string(static_cast<int>(result)) + ")";
  if (text) msg += std::string(": ") + text;
  throw DeviceError(msg);
}

}  // namespace d2q9
