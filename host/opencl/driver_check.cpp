#include "opencl/driver_check.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace d2q9 {

namespace {

struct VendorLibrary {
  const char* vendor;
  const char* stem;  // file name up to ".so"
  const char* icd_name;
};

constexpr VendorLibrary kVendorLibraries[] = {
    {"NVIDIA", "libnvidia-opencl", "nvidia.icd"},
    {"AMD", "libamdocl64", "amdocl64.icd"},
    {"AMD", "libamdocl-orca64", "amdocl-orca64.icd"},
    {"Intel", "libigdrcl", "intel.icd"},
};

// "libnvidia-opencl.so.1" -> "libnvidia-opencl"; "" when it is no shared library.
std::string library_stem(const std::string& name) {
  const auto so = name.find(".so");
  if (so == std::string::npos) return "";
  const auto rest = name.substr(so + 3);
  if (!rest.empty() && rest[0] != '.') return "";
  return name.substr(0, so);
}

// Stems of every library the .icd files in `vendors_dir` name.
std::vector<std::string> registered_stems(const std::string& vendors_dir) {
  std::vector<std::string> stems;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(vendors_dir, ec)) {
    if (entry.path().extension() != ".icd") continue;
    std::ifstream in(entry.path());
    std::string line;
    std::getline(in, line);
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    stems.push_back(library_stem(fs::path(line).filename().string()));
  }
  return stems;
}

}  // namespace

std::vector<UnregisteredDriver> find_unregistered_drivers(const std::vector<std::string>& library_dirs,
                                                          const std::string& vendors_dir) {
  const auto registered = registered_stems(vendors_dir);
  std::vector<UnregisteredDriver> found;
  for (const auto& vl : kVendorLibraries) {
    if (std::find(registered.begin(), registered.end(), vl.stem) != registered.end()) continue;
    std::string best;  // the shortest name: the soname link rather than the versioned file
    for (const auto& dir : library_dirs) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (library_stem(name) != vl.stem) continue;
        const std::string path = entry.path().string();
        if (best.empty() || fs::path(path).filename().string().size() < fs::path(best).filename().string().size())
          best = path;
      }
      if (!best.empty()) break;
    }
    const bool vendor_listed = std::any_of(found.begin(), found.end(), [&](const auto& u) { return u.vendor == vl.vendor; });
    if (!best.empty() && !vendor_listed) found.push_back({vl.vendor, best, vl.icd_name});
  }
  return found;
}

std::vector<std::string> default_driver_dirs() {
  std::vector<std::string> dirs;
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
    std::istringstream in(ld);
    for (std::string d; std::getline(in, d, ':');)
      if (!d.empty()) dirs.push_back(d);
  }
  for (const char* d : {"/usr/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu/nvidia/current",
                        "/usr/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu/nvidia/current", "/usr/lib64",
                        "/usr/lib64/nvidia", "/usr/lib", "/usr/lib/nvidia", "/usr/local/lib", "/usr/local/nvidia/lib64",
                        "/opt/rocm/lib", "/opt/rocm/opencl/lib", "/opt/amdgpu-pro/lib/x86_64-linux-gnu",
                        "/usr/lib/x86_64-linux-gnu/intel-opencl"})
    dirs.push_back(d);
  return dirs;
}

std::string default_vendors_dir() {
  if (const char* env = std::getenv("OCL_ICD_VENDORS")) {
    std::error_code ec;
    if (fs::is_directory(env, ec)) return env;
  }
  return "/etc/OpenCL/vendors";
}

}  // namespace d2q9
