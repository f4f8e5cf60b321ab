// What every OpenCL host file needs: CLHPP with exceptions, device lookup by
// the flat index --list-devices shows, kernel builds that report their log,
// and OpenCL errors turned into DeviceError messages.
#pragma once

#define CL_HPP_ENABLE_EXCEPTIONS
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>

#include <string>
#include <vector>

#include "device/solver.hpp"

namespace d2q9 {

struct FlatDevice {
  cl::Platform platform;
  cl::Device device;
};

// Every device of every platform, in --list-devices order; empty without a platform.
std::vector<FlatDevice> all_opencl_devices();

// The device at flat index `index`, or (index < 0) the default device: the
// first GPU, else the first device. DeviceError when there is none.
cl::Device opencl_device_at(int index);

// Name of an OpenCL error code, for messages.
const char* cl_error_name(cl_int code);

// Rethrows `e` as a DeviceError: "<context>: <call> failed with <error>".
[[noreturn]] void rethrow_cl(const cl::Error& e, const std::string& context);

// Builds `file` from `kernels_dir` for `device` with OpenCL C 1.2 and the
// given NAME=VALUE defines; DeviceError with the compiler's log on failure.
// The program comes from the kernel cache (device/kernel_cache.hpp) when it
// holds this build, and goes there when compiled; `setup` (if given) learns
// which, and what the compile took or took when it was cached.
cl::Program build_opencl_program(const cl::Context& context, const cl::Device& device, const std::string& kernels_dir,
                                 const std::string& file, const std::vector<std::string>& defines,
                                 SetupTimes* setup = nullptr);

// DeviceError unless `device` can run work-groups of this shape.
void check_opencl_local_size(const cl::Device& device, LocalSize local);

// DeviceError ("... out of memory<hint>") unless `needed` bytes in all, with
// `largest_buffer` in one buffer, fit the device; `what` names the lattice.
void check_opencl_memory(const cl::Device& device, const std::string& what, unsigned long long needed,
                         unsigned long long largest_buffer, const std::string& hint = "");

// A device string without the padding some drivers leave at its end.
std::string trimmed(std::string s);

}  // namespace d2q9
