// Command-line options (Boost.Program_options), parsed apart from main() so
// tests can drive them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "device/solver.hpp"
#include "model/printable.hpp"

namespace d2q9 {

// One line, whatever the arguments held.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& what) : std::runtime_error(printable(what)) {}
};

struct Options {
  std::string param_file;
  std::string obstacle_file;
  bool help = false;
  bool version = false;
  bool list_devices = false;
  bool quiet = false;
  Backend backend = Backend::OpenCL;
  int device = -1;  // -1: default device
  LocalSize local_size;
  std::string output_dir = ".";
  std::string kernels_dir;
  Precision precision = Precision::Float;
  KernelVariant variant = KernelVariant::Auto;
  bool tune = false;            // --tune: search work-group sizes afresh
  std::vector<int> slab_rows;   // --slab-rows: rows per MPI rank, bottom to top (empty: even split)
  // Pictures and other views of the result (host/picture.*, vtk_output.*, summary.*).
  std::string png_file;  // empty: final_state.png in output_dir, unless no_png
  bool no_png = false;
  int snapshot_every = 0;  // 0: no snapshots
  std::string vtk_file;
  std::string summary_json_file;
  int checkpoint_every = 0;  // 0: no checkpoints
  std::string restart_file;  // empty: start from rest
};

// Throws UsageError with a one-line message for anything malformed.
Options parse_command_line(int argc, const char* const argv[]);
std::string usage_text(const std::string& program);

// "WxH" or "auto"; UsageError otherwise.
LocalSize parse_local_size(const std::string& text);

}  // namespace d2q9
