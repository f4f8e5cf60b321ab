// Finds GPU vendors' OpenCL driver libraries that are installed but not
// registered with the ICD loader (no /etc/OpenCL/vendors/*.icd names them),
// a common reason for "no GPU" when the driver is in fact there.
#pragma once

#include <string>
#include <vector>

namespace d2q9 {

struct UnregisteredDriver {
  std::string vendor;   // "NVIDIA", "AMD", "Intel"
  std::string library;  // full path of the library found
  std::string icd_name; // suggested registration file name, e.g. "nvidia.icd"
};

// Searches `library_dirs` (not recursively) for the vendors' OpenCL libraries
// and returns those, one per vendor, that no .icd file in `vendors_dir` names.
std::vector<UnregisteredDriver> find_unregistered_drivers(const std::vector<std::string>& library_dirs,
                                                          const std::string& vendors_dir);

// Where drivers usually live, plus $LD_LIBRARY_PATH.
std::vector<std::string> default_driver_dirs();
// $OCL_ICD_VENDORS when it names a directory, else /etc/OpenCL/vendors.
std::string default_vendors_dir();

}  // namespace d2q9
