// What every backend needs to compile cl/d2q9_bgk.cl: its text and the defines.
#pragma once

#include <string>
#include <vector>

#include "problem.hpp"
#include "solver.hpp"

namespace d2q9 {

constexpr const char* kKernelFile = "d2q9_bgk.cl";

// The folder holding the kernel sources: `requested` if given, else cl/ next
// to the executable (build tree) or ../share/d2q9-bgk/cl (installed).
std::string find_kernels_dir(const std::string& requested);

// Source text of `file` in `dir`; DeviceError naming the path if it is missing.
std::string read_kernel_source(const std::string& dir, const std::string& file);

// NAME=VALUE pairs for the problem's constants (see the header of d2q9_bgk.cl).
std::vector<std::string> kernel_defines(const Params& params, Precision precision, LocalSize local,
                                        int rows_per_item = 1);


// How a step is launched (all give bit-identical results):
//   Split:   accelerate_flow and propagate_rebound_collide, two launches per step;
//   Fused:   the next step's acceleration folded into propagate_rebound_collide, one launch per step;
//   FusedX2: propagate_rebound_collide_x2, two fused steps per launch (small grids).
enum class KernelVariant { Auto, Split, Fused, FusedX2 };

const char* to_string(KernelVariant v);
// "auto", "split", "fused" or "fused-x2"; std::invalid_argument otherwise.
KernelVariant parse_kernel_variant(const std::string& text);
constexpr std::size_t kTwoStepMaxCells = 256 * 512;
// Auto: two steps per launch where launches dominate (small grids on GPUs),
// else one. CPU devices always do better with one step per launch.
KernelVariant resolve_kernel_variant(KernelVariant v, const Params& params, bool gpu);

// Rows per work-item for the one-step kernels: several on large grids, where
// the per-group reduction otherwise costs a noticeable share of the step.
int rows_per_item_for(const Params& params, KernelVariant resolved);

// Kernels index with 32-bit ints: refuse grids whose arrays would overflow them.
void check_index_range(const Params& params);

}  // namespace d2q9
