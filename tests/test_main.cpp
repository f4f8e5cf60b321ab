#define DOCTEST_CONFIG_IMPLEMENT
#include <dlfcn.h>
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "opencl/opencl_backend.hpp"

namespace {

// With D2Q9_TEST_PLATFORM set (CTest's rusticl registration: see
// tests/CMakeLists.txt), the OpenCL tests are meant for that platform's
// device: why there is none here, or empty where the default device is one.
std::string missing_platform(const std::string& platform) {
  const auto devices = d2q9::list_opencl_devices();
  if (!devices.empty() && devices[d2q9::default_opencl_device(devices)].platform == platform) return {};
  std::string why = "the OpenCL ICD loader shows no " + platform + " device";
  if (platform == "rusticl") {
    if (!::dlopen("libRusticlOpenCL.so.1", RTLD_NOW | RTLD_LOCAL))
      why += ": libRusticlOpenCL.so.1 cannot be loaded (install mesa-opencl-icd, Debian 12 or later)";
    else if (const char* enable = std::getenv("RUSTICL_ENABLE"); !enable || !*enable)
      why += ": rusticl is installed but exposes no device unless RUSTICL_ENABLE names a driver (llvmpipe)";
    else
      why += std::string(": rusticl is installed but exposes no device with RUSTICL_ENABLE=") + enable;
  }
  return why;
}

}  // namespace

int main(int argc, char** argv) {
  if (const char* platform = std::getenv("D2Q9_TEST_PLATFORM"); platform && *platform) {
#ifdef D2Q9_RUSTICL_ICD_DIR
    if (std::string(platform) == "rusticl") {
      // Before the ICD loader first looks (and for the programs the tests start).
      ::setenv("OCL_ICD_VENDORS", D2Q9_RUSTICL_ICD_DIR, 1);
      ::setenv("RUSTICL_ENABLE", "llvmpipe", 0);
    }
#endif
    if (const std::string why = missing_platform(platform); !why.empty()) {
      std::printf("SKIPPED: %s\n", why.c_str());  // CTest: skipped, and why
      return 0;
    }
  }
  // Keep the work-group tuning cache of this run (and of the programs it
  // starts) away from the user's own.
  char dir[] = "/tmp/d2q9-test-cache-XXXXXX";
  if (::mkdtemp(dir)) ::setenv("D2Q9_CACHE_DIR", dir, 1);
  doctest::Context context(argc, argv);
  const int status = context.run();
  std::system(("rm -rf '" + std::string(dir) + "'").c_str());
  return status;
}
