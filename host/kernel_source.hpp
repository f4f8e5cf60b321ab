// What every backend needs to compile cl/d2q9_bgk.cl: its text and the defines.
#pragma once

#include <optional>
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

// Rows of one slab's local lattice (halo rows 0 and ny-1 around the slab's
// own rows) that propagate_rebound_collide updates, in local numbering;
// accel_row is -1 when the accelerated row lies in another slab.
struct SlabRows {
  int first_row;
  int last_row;
  int accel_row;
};

// NAME=VALUE pairs for the problem's constants (see the header of d2q9_bgk.cl);
// with `slab`, also FIRST_ROW, LAST_ROW and ACCEL_ROW (slabs take one row per item).
std::vector<std::string> kernel_defines(const Params& params, Precision precision, LocalSize local,
                                        int rows_per_item = 1, const std::optional<SlabRows>& slab = std::nullopt);

// How a step is launched (all give bit-identical results):
//   Split:   accelerate_flow and propagate_rebound_collide, two launches per step;
//   Fused:   the next step's acceleration folded into propagate_rebound_collide, one launch per step;
//   FusedX2: propagate_rebound_collide_x2, two fused steps per launch (small grids);
//   FusedRows: propagate_rebound_collide_rows, one row per work-item, no barriers (CPU devices).
enum class KernelVariant { Auto, Split, Fused, FusedX2, FusedRows };

const char* to_string(KernelVariant v);
// "auto", "split", "fused", "fused-x2" or "fused-rows"; std::invalid_argument otherwise.
KernelVariant parse_kernel_variant(const std::string& text);
constexpr std::size_t kTwoStepMaxCells = 256 * 512;
// Auto: on GPUs two steps per launch where launches dominate (small grids),
// else one; on CPU devices a row per work-item (fused-rows).
// A work-group shape given by the user keeps CPU devices on fused.
KernelVariant resolve_kernel_variant(KernelVariant v, const Params& params, bool gpu, bool local_size_given = false);

// Rows per work-item for the one-step kernels: `requested` where given (> 0),
// else several on large grids, where the per-group reduction otherwise costs a
// noticeable share of the step. The other kernels always take 1.
int rows_per_item_for(const Params& params, KernelVariant resolved, int requested = 0);

// Kernels index with 32-bit ints: refuse grids whose arrays would overflow them.
void check_index_range(const Params& params);

}  // namespace d2q9
