#include "opencl/cl_common.hpp"

#include <algorithm>

#include <fcntl.h>
#include <unistd.h>

#include <sstream>

#include <optional>

#include "device/kernel_cache.hpp"
#include "device/kernel_source.hpp"
#include "core/stopwatch.hpp"

namespace d2q9 {

namespace {

// Points file descriptor 2 at /dev/null for its lifetime.
class StderrSilencer {
 public:
  StderrSilencer() : saved_(::dup(2)) {
    const int null_fd = ::open("/dev/null", O_WRONLY);
    if (saved_ >= 0 && null_fd >= 0) ::dup2(null_fd, 2);
    if (null_fd >= 0) ::close(null_fd);
  }
  ~StderrSilencer() {
    if (saved_ >= 0) {
      ::dup2(saved_, 2);
      ::close(saved_);
    }
  }
  StderrSilencer(const StderrSilencer&) = delete;
  StderrSilencer& operator=(const StderrSilencer&) = delete;

 private:
  int saved_;
};

bool is_out_of_memory(cl_int code) {
  return code == CL_MEM_OBJECT_ALLOCATION_FAILURE || code == CL_OUT_OF_RESOURCES || code == CL_OUT_OF_HOST_MEMORY;
}

}  // namespace

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

const char* cl_error_name(cl_int code) {
  switch (code) {
    case CL_DEVICE_NOT_FOUND: return "CL_DEVICE_NOT_FOUND";
    case CL_DEVICE_NOT_AVAILABLE: return "CL_DEVICE_NOT_AVAILABLE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE: return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_OUT_OF_RESOURCES: return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY: return "CL_OUT_OF_HOST_MEMORY";
    case CL_BUILD_PROGRAM_FAILURE: return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_VALUE: return "CL_INVALID_VALUE";
    case CL_INVALID_BUFFER_SIZE: return "CL_INVALID_BUFFER_SIZE";
    case CL_INVALID_KERNEL_ARGS: return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_WORK_GROUP_SIZE: return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_WORK_ITEM_SIZE: return "CL_INVALID_WORK_ITEM_SIZE";
    case CL_INVALID_GLOBAL_WORK_SIZE: return "CL_INVALID_GLOBAL_WORK_SIZE";
    case CL_PLATFORM_NOT_FOUND_KHR: return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform is installed)";
    default: return "OpenCL error";
  }
}

[[noreturn]] void rethrow_cl(const cl::Error& e, const std::string& context) {
  std::ostringstream msg;
  msg << context << ": " << e.what() << " failed with " << cl_error_name(e.err()) << " (" << e.err() << ")";
  if (is_out_of_memory(e.err())) msg << ": the device is out of memory";
  throw DeviceError(msg.str());
}

std::vector<FlatDevice> all_opencl_devices() {
  std::vector<cl::Platform> platforms;
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& e) {
    if (e.err() == CL_PLATFORM_NOT_FOUND_KHR) return {};
    throw;
  }
  std::vector<FlatDevice> out;
  for (const auto& p : platforms) {
    std::vector<cl::Device> devices;
    try {
      p.getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error& e) {
      if (e.err() == CL_DEVICE_NOT_FOUND) continue;
      throw;
    }
    for (const auto& d : devices) out.push_back({p, d});
  }
  return out;
}

cl::Device opencl_device_at(int index) {
  const auto devices = all_opencl_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device found (is an OpenCL driver such as pocl-opencl-icd installed?)");
  if (index < 0) {
    for (const auto& d : devices)
      if (d.device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) return d.device;
    return devices.front().device;
  }
  if (index >= static_cast<int>(devices.size()))
    throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " +
                      std::to_string(devices.size()) + " OpenCL device(s), see --list-devices");
  return devices[index].device;
}

void check_opencl_local_size(const cl::Device& device, LocalSize local) {
  const auto max_items = device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>();
  const auto max_wg = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  if (local.x < 1 || local.y < 1 || static_cast<std::size_t>(local.x) > max_items[0] ||
      static_cast<std::size_t>(local.y) > max_items[1] ||
      static_cast<std::size_t>(local.x) * static_cast<std::size_t>(local.y) > max_wg)
    throw DeviceError("local size " + std::to_string(local.x) + "x" + std::to_string(local.y) + " is not valid on " +
                      trimmed(device.getInfo<CL_DEVICE_NAME>()) + " (at most " + std::to_string(max_items[0]) + "x" +
                      std::to_string(max_items[1]) + " and " + std::to_string(max_wg) + " work-items in all)");
}

void check_opencl_memory(const cl::Device& device, const std::string& what, unsigned long long needed,
                         unsigned long long largest_buffer, const std::string& hint) {
  const auto global_mem = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  const auto max_alloc = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  if (needed > global_mem || largest_buffer > max_alloc)
    throw DeviceError(what + " needs " + std::to_string(needed >> 20) + " MiB on the device (largest buffer " +
                      std::to_string(largest_buffer >> 20) + " MiB) but " + trimmed(device.getInfo<CL_DEVICE_NAME>()) +
                      " has " + std::to_string(global_mem >> 20) + " MiB (largest buffer " +
                      std::to_string(max_alloc >> 20) + " MiB): out of memory" + hint);
}

namespace {

// The program of `build` from a cached image, or none where the driver
// refuses it (another driver build, say): then it is compiled as usual.
std::optional<cl::Program> program_from_cache(const cl::Context& context, const cl::Device& device,
                                              const KernelBuild& build, SetupTimes* setup) {
  const std::optional<CachedImage> cached = load_kernel_image(build);
  if (!cached) return std::nullopt;
  if (setup) setup->compile_cost_s = cached->compile_s;
  try {
    const std::string& image = cached->image;
    const cl::Program::Binaries binaries = {std::vector<unsigned char>(image.begin(), image.end())};
    cl::Program program(context, {device}, binaries);
    StderrSilencer quiet;
    program.build({device}, build.options.c_str());
    return program;
  } catch (const cl::Error&) {
    return std::nullopt;
  }
}

}  // namespace

cl::Program build_opencl_program(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                                 const std::string& file, const std::vector<std::string>& defines, SetupTimes* setup) {
  std::string flags = "-cl-std=CL1.2";
  // OpenCL C lets float division and sqrt be off by ulps unless asked
  // (NVIDIA's are); the arithmetic contract needs them rounded as IEEE says.
  try {
    if (device.getInfo<CL_DEVICE_SINGLE_FP_CONFIG>() & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
      flags += " -cl-fp32-correctly-rounded-divide-sqrt";
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading the device's floating-point support");
  }
  for (const auto& d : defines) flags += " -D" + d;
  // The blocked kernel's register cap on NVIDIA (cl/d2q9_bgk.cl, BLOCKED_KERNEL),
  // which OpenCL C cannot say per kernel; a blocked build holds no other step kernel.
  const auto defined = [&](const std::string& name) {
    return std::any_of(defines.begin(), defines.end(), [&](const std::string& d) { return d.rfind(name, 0) == 0; });
  };
  try {
    if (defined("BLOCK_STEPS=") && !defined("REAL_IS_DOUBLE") &&
        device.getInfo<CL_DEVICE_EXTENSIONS>().find("cl_nv_compiler_options") != std::string::npos)
      flags += " -cl-nv-maxrregcount=64";
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading the device's extensions");
  }
  // CPU devices get barriers outside branches (cl/d2q9_bgk.cl,
  // UNIFORM_BARRIERS): PoCL's compile of the blocked kernel took minutes
  // with a barrier under a test in each of its unrolled steps.
  try {
    if (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) flags += " -DUNIFORM_BARRIERS=1";
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading the device's type");
  }
  const std::string source = read_kernel_source(kernels_dir, file);
  KernelBuild build;
  try {
    const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
    build = {"opencl",
             trimmed(platform.getInfo<CL_PLATFORM_NAME>()) + "|" + trimmed(device.getInfo<CL_DEVICE_NAME>()),
             trimmed(platform.getInfo<CL_PLATFORM_VERSION>()) + "|" + trimmed(device.getInfo<CL_DRIVER_VERSION>()),
             source, flags};
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading the device's names");
  }
  if (auto cached = program_from_cache(context, device, build, setup)) {
    if (setup) setup->kernels_cached = true;
    return *cached;
  }
  if (setup) setup->kernels_cached = false;
  Stopwatch watch;
  cl::Program program(context, source);
  const std::string where = kernels_dir + "/" + file + ": kernel build failed on " + trimmed(device.getInfo<CL_DEVICE_NAME>());
  try {
    // Some drivers (PoCL) also print compiler diagnostics straight to stderr;
    // the saved build log already holds them, so keep stderr to our one line.
    StderrSilencer quiet;
    program.build({device}, flags.c_str());
  } catch (const cl::BuildError& e) {
    std::string log;
    for (const auto& entry : e.getBuildLog()) log += entry.second;
    throw DeviceError(build_failure_message(where, flags, log));
  } catch (const cl::Error& e) {
    std::string log;
    try {
      log = program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(device);
    } catch (const cl::Error&) {
    }
    throw DeviceError(build_failure_message(where + " (" + cl_error_name(e.err()) + ")", flags, log));
  }
  const double compile_s = watch.lap();
  if (setup) setup->compile_cost_s = compile_s;
  try {
    const auto binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    if (binaries.size() == 1) store_kernel_image(build, std::string(binaries[0].begin(), binaries[0].end()), compile_s);
  } catch (const cl::Error&) {
    // A driver that keeps no binaries: nothing to cache.
  }
  return program;
}

}  // namespace d2q9
