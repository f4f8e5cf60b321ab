// Command-line options (Boost.Program_options), parsed apart from main() so
// tests can drive them.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "device/solver.hpp"
#include "io/picture.hpp"
#include "problem/problem_file.hpp"
#include "core/printable.hpp"
#include "core/ranks.hpp"
#include "serve/live_view.hpp"

namespace d2q9 {

// One line, whatever the arguments held.
class UsageError : public StatusError {
 public:
  explicit UsageError(const std::string& what) : StatusError(printable(what), 2) {}
};

// --collision: the operator, and TRT's magic parameter.
struct CollisionChoice {
  CollisionOperator op = CollisionOperator::Bgk;
  std::optional<double> trt_magic;  // trt:LAMBDA; none: the problem file's, else 1/4
};
// "bgk", "trt", "trt:LAMBDA" or "regularised"; UsageError otherwise.
CollisionChoice parse_collision(const std::string& text);
// --smagorinsky C: the subgrid model's constant, in [0, 1].
double parse_smagorinsky(const std::string& text);

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
  std::optional<CollisionChoice> collision;  // --collision, over the problem's
  std::optional<double> smagorinsky;         // --smagorinsky, over the problem's
  int block_steps = 0;  // --block-steps (0: the plan's choice)
  LocalSize tile;       // --tile (auto: the plan's choice)
  bool tune = false;            // --tune: search work-group sizes afresh
  std::vector<int> slab_rows;   // --slab-rows: rows per MPI rank, bottom to top (empty: even split)
  // Pictures and other views of the result (host/picture.*, vtk_output.*, summary.*).
  // Relative output names are inside output_dir.
  std::string png_file;  // empty: final_state.png in output_dir, unless no_png
  bool no_png = false;
  std::vector<PictureField> fields{PictureField::Speed};  // --field: speed before vorticity
  PictureScale scale;                                      // --scale
  int snapshot_every = 0;  // 0: no snapshots
  bool snapshot_png = true;   // --snapshot-format
  bool snapshot_vti = false;
  std::string vtk_file;  // .vtk legacy, .vti XML
  // --final-state: final_state.dat, final_state.vti or both; none: the
  // problem's default (final_state_format).
  std::optional<FinalStateFormat> final_state;
  std::string summary_json_file;
  int checkpoint_every = 0;  // 0: no checkpoints
  // --overwrite-checkpoint: a fresh run may replace another run's checkpoint.d2q9.
  bool overwrite_checkpoint = false;
  // --until-steady TOL: stop once the run is steady to TOL (sim/steady.hpp),
  // over the problem file's [flow] until_steady.
  std::optional<double> until_steady;
  std::string restart_file;  // empty: start from rest
  // --serve [HOST:]PORT: the live view's page while the run steps (docs/live-view.md).
  std::optional<ServeAddress> serve;
  // The options as given on the command line, long names, in order ("" for a
  // flag's value): what a checkpoint records and a restart overrides.
  std::vector<std::pair<std::string, std::string>> given;
};

// Throws UsageError with a one-line message for anything malformed.
Options parse_command_line(int argc, const char* const argv[]);
std::string usage_text(const std::string& program);

// The options of a run resumed from a checkpoint that recorded `recorded`
// (see RunRecord): the recorded ones, then those given now, which win;
// the recorded input files unless files are given now. Parsed like a command
// line, so every check applies.
Options resume_options(const Options& given, const std::vector<std::pair<std::string, std::string>>& recorded,
                       const std::string& param_file, const std::string& obstacle_file);

// "WxH" or "auto"; UsageError otherwise.
LocalSize parse_local_size(const std::string& text);
// A WxH shape (or auto) given to `option`; UsageError naming it otherwise.
LocalSize parse_shape(const std::string& text, const std::string& option);

}  // namespace d2q9
