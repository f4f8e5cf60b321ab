// What every backend needs to compile cl/d2q9_bgk.cl: its text and the defines.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

constexpr const char* kKernelFile = "d2q9_bgk.cl";

// The folder holding the kernel sources: `requested` if given, else the
// environment's D2Q9_KERNELS_DIR, else the first of default_kernels_dirs()
// that holds them; DeviceError naming the places tried and what to set.
std::string find_kernels_dir(const std::string& requested);
std::string find_kernels_dir(const std::string& requested, const std::vector<std::string>& places);
// cl/ next to the executable (build tree) or its ../share/d2q9-bgk/cl
// (installed), then the same beside the d2q9 shared library.
std::vector<std::string> default_kernels_dirs();

// The kernels' `obstacles` buffer for `mask`: its kinds; with curved links,
// then their 8 planes and a plane of 1 where a cell has any link (which the
// blocked kernel reads alone to find its curved cells: a byte per cell
// instead of eight, cl/d2q9_bgk.cl).
std::vector<std::uint8_t> obstacle_buffer(const ObstacleMask& mask);

// Source text of `file` in `dir`, its `#include "part.cl"` lines replaced by
// those parts (from `dir`, each after a #line naming it): the program
// d2q9_bgk.cl joins the cell physics and the launch schemes this way.
// DeviceError naming the path of any file that is missing.
std::string read_kernel_source(const std::string& dir, const std::string& file);

// Rows of one slab's local lattice (halo rows below and above the slab's own
// rows: one for the one-step kernels, block_steps for blocked) that the step
// kernels update, in local numbering; accel_row is -1 when the accelerated
// row lies in another slab.
struct SlabRows {
  int first_row;
  int last_row;
  int accel_row;
  int row_offset;  // the whole grid's row of local row 0
  int grid_ny;     // the whole grid's rows
};

// NAME=VALUE pairs for the problem's constants and the plan's shape (see the
// header of d2q9_bgk.cl); with `slab`, also FIRST_ROW, LAST_ROW and ACCEL_ROW
// (and for blocked BLOCKED_SLAB, GRID_NY and SLAB_ROW0).
// The build holds only the plan's step kernels (STEP_KERNELS), unless
// `every_kernel`: each kernel costs compile time before the first step.
std::vector<std::string> kernel_defines(const Params& params, Precision precision, const LaunchPlan& plan,
                                        const std::optional<SlabRows>& slab = std::nullopt,
                                        bool every_kernel = false);
// The defines of the blocked kernel's twin without PROBES_IN_LAUNCH, which
// runs the launches that sample no probe (StepLaunch::samples_inside); empty
// where `defines` hold none. The twin exists because the sampling code (its
// registers, its reads at each launch's start) slows every launch it is
// built into, sampling or not.
std::vector<std::string> defines_without_probes(const std::vector<std::string>& defines);

// The defines of a one-step plan of that shape, every one-step kernel built
// (for tests and tools).
inline std::vector<std::string> kernel_defines(const Params& params, Precision precision, LocalSize local,
                                               int rows_per_item = 1,
                                               const std::optional<SlabRows>& slab = std::nullopt) {
  LaunchPlan plan;
  plan.local = local;
  plan.rows_per_item = rows_per_item;
  return kernel_defines(params, precision, plan, slab, true);
}

// The one-line message for a kernel build that failed at `where`: the
// compiler's first diagnostic, and the file the whole log (with the options)
// was saved to, since a log is many lines and an error is one.
std::string build_failure_message(const std::string& where, const std::string& options, const std::string& log);

// Whether the kernels need 64-bit indices (INDEX64): the lattice's values
// (9 a cell, 14 with heat) do not fit an int. Smaller grids keep int
// indices, which cost less.
bool needs_64bit_indices(const Params& params);

}  // namespace d2q9
