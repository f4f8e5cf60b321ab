// --list-devices as a table, one row per device.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "opencl/opencl_backend.hpp"

namespace d2q9 {

// Columns: the index --device takes (the default marked '*'), type, compute
// units, memory, fp64, device name and platform.
std::string device_table(const std::vector<OpenCLDeviceInfo>& devices, int default_index);
inline void print_device_table(std::FILE* out, const std::vector<OpenCLDeviceInfo>& devices, int default_index) {
  std::fputs(device_table(devices, default_index).c_str(), out);
}

}  // namespace d2q9
