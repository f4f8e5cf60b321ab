// How a backend launches its steps, decided once, before any solver exists,
// from the problem, the device's limits and the user's requests. Backends
// take the plan as given; none of them resolves "auto" on its own.
#pragma once

#include <string>
#include <vector>

#include "core/types.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// How a step is launched (all give bit-identical distributions):
//   Split:     accelerate_flow and propagate_rebound_collide, two launches per step;
//   Fused:     the next step's acceleration folded into propagate_rebound_collide, one launch per step;
//   FusedX2:   propagate_rebound_collide_x2, two fused steps per launch (small grids);
//   FusedRows: propagate_rebound_collide_rows, a row per work-item, no barriers (CPU devices);
//   Blocked:   propagate_rebound_collide_blocked, several steps per launch on
//              tiles held in local memory (temporal blocking, small grids).
enum class KernelVariant { Auto, Split, Fused, FusedX2, FusedRows, Blocked };

const char* to_string(KernelVariant v);
// "auto", "split", "fused", "fused-x2", "fused-rows" or "blocked"; std::invalid_argument otherwise.
KernelVariant parse_kernel_variant(const std::string& text);

// What a device allows, as its backend reports it.
struct DeviceLimits {
  std::string name;
  bool gpu = true;
  int max_x = 1024, max_y = 1024;  // per work-group dimension
  int max_threads = 1024;          // per work-group
  long long max_groups_y = 1LL << 31;
  bool has_rows_kernel = true;     // propagate_rebound_collide_rows can be built (OpenCL)
  long long local_mem_bytes = 48 * 1024;  // local (shared) memory a work-group may use
  int compute_units = 1;                  // work-groups that run at once, at least
};

// What the user asked for; zeros and Auto leave the choice to the plan.
struct LaunchRequest {
  KernelVariant variant = KernelVariant::Auto;
  LocalSize local;
  int rows_per_item = 0;
  int chunk_steps = 0;
  int block_steps = 0;  // blocked: steps per launch
  LocalSize tile;       // blocked: cells each work-group owns
  bool slabs = false;  // the grid is split across MPI ranks: only the fused one-step kernel
};

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

  int num_groups() const { return groups_x * groups_y; }
  int group_height() const { return local.y * rows_per_item; }
  bool fused() const { return variant != KernelVariant::Split; }
  // The kernel of the plan's launches, apart from the two-step launches of
  // fused-x2: propagate_rebound_collide, or its _rows or _blocked form.
  const char* step_kernel() const {
    return variant == KernelVariant::FusedRows ? "propagate_rebound_collide_rows"
           : variant == KernelVariant::Blocked ? "propagate_rebound_collide_blocked"
                                               : "propagate_rebound_collide";
  }
  // Most steps one launch advances.
  int steps_per_launch() const {
    return variant == KernelVariant::FusedX2 ? 2 : variant == KernelVariant::Blocked ? block_steps : 1;
  }
  // Kernel launches for `steps` steps; each swaps the two lattices once.
  int launches(int steps) const { return (steps + steps_per_launch() - 1) / steps_per_launch(); }
};

// Partial sums kept per chunk: at most this many steps and this many values.
constexpr int kMaxChunkSteps = 512;
constexpr int kMaxChunkValues = 1 << 22;

// The plan; DeviceError naming the device for a shape or variant it cannot run.
// The precision sets how many cells the blocked kernel's local memory holds.
LaunchPlan plan_launch(const Params& params, const DeviceLimits& device, const LaunchRequest& request,
                       Precision precision = Precision::Float);

// Local memory the blocked kernel needs for `steps` steps on `tile` with
// work-groups of `items`: two copies of nine distributions and the mask per
// region cell (the tile and its halo of `steps` cells), a flag per region row.
// `sums_per_group`: values each step's reduction sums (Extensions::sums_per_group).
long long blocked_local_bytes(LocalSize tile, int steps, int items, Precision precision, int sums_per_group = 1);

// Steps per launch the blocked kernel runs unless asked otherwise: 4 up to
// 256x256 cells, 3 above, where the halo's extra arithmetic weighs more.
int default_block_steps(const Params& params);

// The plan's variant for records: its name, with steps per launch and tile
// for blocked ("blocked-4-17x17").
std::string variant_text(const LaunchPlan& plan);

// The default on GPUs follows the data (d2q9-bench, blocked against fused,
// 128^2 to 8192^2, every precision, CUDA and OpenCL on an H100:
// results/nvidia-h100/launch-decision/): in float and double the blocked
// kernel wins from 128^2 up (1.3-1.6x above 1024^2, where one step per
// launch meets the memory's bound); in 16 bits one step per launch moves so
// few bytes that it wins from 1024^2 (CUDA from 512^2), and blocked only
// while launches dominate. kBlocked16MaxCells is where 16-bit storage
// changes over.
constexpr std::size_t kBlocked16MaxCells = 256 * 256;

// The variant "auto" stands for: on CPU devices a row per work-item (fused
// unless the user gave a shape, which that kernel cannot use); on GPUs
// several steps per launch (blocked), except for 16-bit storage above
// kBlocked16MaxCells, which runs one (fused).
KernelVariant resolve_kernel_variant(KernelVariant v, const Params& params, bool gpu, Precision precision,
                                     bool local_size_given = false);

// Why resolve_kernel_variant chose as it did, for the run's summary.
std::string variant_reason(KernelVariant requested, const Params& params, bool gpu, Precision precision,
                           bool local_size_given = false);

// The variants a device runs; with several MPI ranks only the one-step ones.
std::vector<KernelVariant> runnable_variants(const DeviceLimits& device, bool slabs = false);

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
