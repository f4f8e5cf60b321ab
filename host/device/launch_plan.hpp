// How a backend launches its steps, decided once, before any solver exists,
// from the problem, the device's limits and the user's requests. Backends
// take the plan as given; none of them resolves "auto" on its own.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/run_types.hpp"
#include "core/types.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// What a device allows, as its backend reports it: everything the launch
// decision reads of the device.
struct DeviceLimits {
  std::string name;
  // The implementation: the OpenCL platform's name ("Portable Computing
  // Language" for PoCL, "rusticl", "NVIDIA CUDA", ...), "CUDA" for the CUDA
  // backend. CPU defaults differ between implementations (see cpu_default_variant).
  std::string platform;
  bool gpu = true;
  int max_x = 1024, max_y = 1024;  // per work-group dimension
  // Work-items per work-group: the device's limit, and where a backend can
  // tell (OpenCL: CL_KERNEL_WORK_GROUP_SIZE of a probe kernel) the smaller
  // limit its compiled kernels have (rusticl's llvmpipe: 32 of 1024).
  int max_threads = 1024;
  long long max_groups_y = 1LL << 31;
  bool has_rows_kernel = true;     // propagate_rebound_collide_rows can be built (OpenCL)
  long long local_mem_bytes = 48 * 1024;  // local (shared) memory a work-group may use
  // More that a kernel may ask for at launch (CUDA's opt-in shared memory;
  // 0: none): an explicit blocked tile may use it.
  long long opt_in_local_mem_bytes = 0;
  int compute_units = 1;                  // work-groups that run at once, at least
  bool fp64 = true;                       // double precision (cl_khr_fp64; every CUDA device)
};

// The OpenCL CPU implementations whose defaults were measured
// (docs/performance.md): Mesa's rusticl (llvmpipe), and PoCL, whose
// rule every other CPU implementation takes.
bool is_rusticl(const DeviceLimits& device);

// One way to launch the steps: a variant (never Auto) and its work-group
// shape (auto for fused-rows, which takes none).
struct LaunchCandidate {
  KernelVariant variant = KernelVariant::Fused;
  LocalSize local;
  std::string text() const;  // "fused 128x2", "fused-rows"
};

// Where a run's launch came from.
enum class LaunchSource { Given, Cached, Tuned, Default };

struct LaunchPlan {
  KernelVariant variant = KernelVariant::Fused;  // never Auto
  LocalSize local;
  int rows_per_item = 1;  // rows each work-item of a one-step launch updates
  int groups_x = 0, groups_y = 0;
  // Steps whose per-group partial sums stay on the device before they are
  // read back (one half of a double buffer); even where more than one, so
  // that every chunk starts from the same buffer.
  int chunk_steps = 1;
  // Blocked: at most block_steps steps per launch, each work-group owning a
  // tile of cells (groups_x x groups_y tiles cover the grid).
  int block_steps = 1;
  LocalSize tile;
  // Curved walls: slots of the side buffer for curved cells (0: two region copies).
  int curved_slots = 0;
  // Blocked: bytes of the region's array, sized at launch (blocked_region_bytes).
  long long region_bytes = 0;

  int num_groups() const { return groups_x * groups_y; }
  // Rows of cells one row of work-groups covers (blocked: a tile's).
  int group_height() const { return variant == KernelVariant::Blocked ? tile.y : local.y * rows_per_item; }
  bool fused() const { return variant != KernelVariant::Split; }
  // The kernel of the plan's launches: propagate_rebound_collide, or its
  // _rows or _blocked form.
  const char* step_kernel() const {
    return variant == KernelVariant::FusedRows ? "propagate_rebound_collide_rows"
           : variant == KernelVariant::Blocked ? "propagate_rebound_collide_blocked"
                                               : "propagate_rebound_collide";
  }
  // Most steps one launch advances.
  int steps_per_launch() const {
    return variant == KernelVariant::Blocked ? block_steps : 1;
  }
  // Kernel launches for `steps` steps; each swaps the two lattices once.
  int launches(int steps) const { return (steps + steps_per_launch() - 1) / steps_per_launch(); }
};

// Partial sums kept per chunk: at most this many steps and this many values.
constexpr int kMaxChunkSteps = 512;
constexpr int kMaxChunkValues = 1 << 22;

// A launch found fastest by an earlier search, and where it is cached.
struct CachedLaunch {
  LaunchCandidate launch;
  std::string where;  // the cache file, for the reason
};

// The launch decision and why it was made (for the run's summary).
struct LaunchDecision {
  LaunchPlan plan;
  std::string reason;
  LaunchSource how = LaunchSource::Default;
};

// THE launch decision, a pure function of the problem, the device's limits,
// the user's request, the precision, the number of MPI ranks sharing the
// grid and the launch cached for this problem (if any): the plan and its
// reason. Every launch the program makes comes from here; backends take the
// plan and never re-plan. What it chooses by itself is legal on the device
// (work-group limits, local memory); an explicit request the device cannot
// run is a DeviceError naming the device (so is double on a device without
// fp64). A cached launch is taken only where nothing was asked of the shape
// and one rank runs the grid, and only if the device can still run it.
// The precision sets how many cells the blocked kernel's local memory holds.
LaunchDecision decide_launch(const Params& params, const DeviceLimits& device, const LaunchRequest& request,
                             Precision precision = Precision::Float, int ranks = 1,
                             const std::optional<CachedLaunch>& cached = std::nullopt);

// Local memory the blocked kernel needs for `steps` steps on `tile` with
// work-groups of `items`: `region_copies` copies of a cell's `planes` values
// (nine distributions; fourteen with heat) and the mask per region cell (the
// tile and its halo of `steps` cells), a flag per region row.
// `sums_per_group`: values each step's reduction sums (Extensions::sums_per_group).
// With `curved_slots`, also the curved cells' side buffer (cl/d2q9_bgk.cl, CURVED_SLOTS);
// `extra_planes` more values per region cell (blocked_region_extra_planes).
long long blocked_local_bytes(LocalSize tile, int steps, int items, Precision precision, int sums_per_group = 1,
                              int region_copies = 1, int curved_slots = 0, int planes = 9, int extra_planes = 0);
// Of those, the region's own (its values sharing their memory with the
// reduction's sums, rounded up to a real): the array CUDA sizes at launch
// (LaunchPlan::region_bytes, cl/launch_blocked.cl).
long long blocked_region_bytes(LocalSize tile, int steps, int items, Precision precision, int sums_per_group,
                               int region_copies, int planes, int extra_planes);

// Copies of its region the blocked kernel keeps: one, updated in place,
// except with curved links and no slots for their cells, whose cells read
// their own state of the step before (cl/launch_blocked.cl, REGION_COPIES).
int blocked_region_copies(const Extensions& extensions, int curved_slots = 0);
// Values per region cell beside the copies: a heated outlet's cells' own
// temperature of the step before (cl/launch_blocked.cl, OUTLET_OWN).
int blocked_region_extra_planes(const Extensions& extensions);

// The side buffer's slots for curved cells a tile's region (the tile and
// `steps` cells round it) needs: the problem's bound per window
// (Extensions::curved_window_cells) for each window the region spans; 0
// (two copies instead) without curved walls, without a bound (a mask made
// in code), or where slots would take as much local memory as a second copy.
// An MPI slab's regions are windows of the grid too (the kernel gives rows
// clamped past its lattice no slot: they feed no exact cell).
int blocked_curved_slots(const Params& params, LocalSize tile, int steps, Precision precision);

// Whether a blocked kernel (the whole grid's or a slab's) samples probes in its launches
// (PROBES_IN_LAUNCH): wherever the problem has probes, between its steps and
// after its last, so that no launch of sample_cells follows (a launch of its
// own after each blocked launch costs a small grid much of its loop).
// Only the tiles holding probes carry the sampling code
// (the kernel's tile classes): problems without probes compile none of it.
bool blocked_samples_inside(const Params& params, const LaunchPlan& plan);

// The probes each tile of a blocked launch owns, for sampling inside it
// (cl/d2q9_bgk.cl, sample_index): the first of group g's probes at [g]
// (groups + 1 values), then each probe's column in the samples and, in the
// same order, its cell in its tile's region, group by group; last, the base
// the launches' sample rows count from (0 here). `cells` are lattice indices
// of a lattice `nx` wide whose own rows, `rows` of them, start at row
// `halo_depth` (a slab's; the whole grid: 0 and ny), all in its own rows.
std::vector<int> blocked_sample_index(const LaunchPlan& plan, int nx, int halo_depth, int rows,
                                     const std::vector<std::size_t>& cells);

// The order in which a whole grid's blocked launch takes its tiles (the
// kernel's tile_order: work-group g takes tile order[g], tiles numbered row
// by row): the tiles whose region holds a fluid cell with curved links or a
// measured body's cell first, then those holding an open edge's or a
// sponge's column, then the rest, each row by row. Those regions take the
// kernel's slower path (cl/d2q9_bgk.cl, TILE_CLASSES); started first, they
// no longer end a small grid's launch late. Empty (row by row) where the
// problem has none of those cells, or the plan is not blocked.
std::vector<int> blocked_tile_order(const Params& params, const ObstacleMask& mask, const LaunchPlan& plan);

// Steps per launch the blocked kernel runs unless asked otherwise: with its
// region in one copy, 4 is the fastest at every size and precision measured
// (docs/performance.md, Kernel variants).
constexpr int kDefaultBlockSteps = 4;
// With heat (14 values a cell) the tile is smaller, and fewer steps on a
// tile 32 cells wide (rows of 128 bytes in float), as tall as fits, waste
// less of it on halo than the largest square (docs/heat.md, Speed).
constexpr int kHeatBlockSteps = 3;
constexpr int kHeatTileWidth = 32;

// The plan's variant for records: its name, with steps per launch and tile
// for blocked ("blocked-4-17x17").
std::string variant_text(const LaunchPlan& plan);

// GPUs run blocked everywhere, because blocked (its region in one copy, its
// steps unrolled) is faster than fused, or level with it, at every size and
// precision measured on CUDA and OpenCL (docs/performance.md, Kernel variants).

// The variant "auto" stands for on a CPU device without a shape given, per
// implementation, from the measurements (docs/performance.md):
// fused-rows (a row per work-item, no barriers) on PoCL and any other,
// blocked on rusticl's llvmpipe, whose work-groups of at most 32 items each
// run as one SIMD loop.
KernelVariant cpu_default_variant(const DeviceLimits& device);

// The variants the launch search times on a device: fused, and blocked
// (several steps per launch) where launches cost more than steps (GPUs) or on
// rusticl, fused-rows where the device has it. Not split: it is the plain
// oracle the tests compare the fused kernels with, never faster than fused
// (docs/performance.md), and slabs have no kernel for it: one process and
// MPI slabs search the same variants.
std::vector<KernelVariant> runnable_variants(const DeviceLimits& device);

// Rows per work-item of the one-step kernels: `requested` where given (> 0),
// else several on large grids, where the per-group reduction otherwise costs a
// noticeable share of the step. The other kernels always take 1.
int rows_per_item_for(const Params& params, KernelVariant resolved, int requested = 0);

// DeviceError unless a compiled kernel takes work-groups of the plan's size.
void check_kernel_group_limit(const LaunchPlan& plan, long long kernel_max, const std::string& kernel,
                              const std::string& device);

// DeviceError ("... out of memory<hint>") unless `needed` bytes in all, with
// `largest_buffer` in one buffer, fit a device with `capacity` bytes
// (`max_buffer` in one); `what` names the lattice.
void check_device_memory(const std::string& what, unsigned long long needed, unsigned long long largest_buffer,
                         unsigned long long capacity, unsigned long long max_buffer, const std::string& device,
                         const std::string& hint = "");

// Device bytes a single-device run of `plan` needs: two lattices, the
// obstacle mask and both halves of the partial sums.
unsigned long long device_bytes_needed(const Params& params, const LaunchPlan& plan, Precision precision);

}  // namespace d2q9
