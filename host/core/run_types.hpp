// The value types a run's options and its report name: which backend, the
// launch asked for, where the set-up and the halo exchanges' time went. They
// sit here, under the device layer that reads them, so that the library's
// public header (sim/simulation.hpp) can name them without the device layer.
#pragma once

#include <optional>
#include <string>

#include "core/types.hpp"

namespace d2q9 {

enum class Backend { Reference, OpenCL, Cuda };
// Every backend, built or not, in the order the programs list them.
constexpr Backend kBackends[] = {Backend::OpenCL, Backend::Cuda, Backend::Reference};

const char* to_string(Backend b);
// "reference", "opencl" or "cuda" (built or not); nullopt otherwise.
std::optional<Backend> parse_backend(const std::string& text);
// The backends' names for a message: "opencl, cuda or reference"; with
// `devices_only`, "opencl or cuda".
std::string backend_names(bool devices_only = false);

// How a step is launched (all give bit-identical distributions):
//   Split:     accelerate_flow and propagate_rebound_collide, two launches per step;
//   Fused:     the next step's acceleration folded into propagate_rebound_collide, one launch per step;
//   FusedRows: propagate_rebound_collide_rows, a row per work-item, no barriers (CPU devices);
//   Blocked:   propagate_rebound_collide_blocked, several steps per launch on
//              tiles held in local memory (temporal blocking, small grids).
enum class KernelVariant { Auto, Split, Fused, FusedRows, Blocked };

const char* to_string(KernelVariant v);
// "auto", "split", "fused", "fused-rows" or "blocked"; std::invalid_argument otherwise.
KernelVariant parse_kernel_variant(const std::string& text);

// What the user asked of the launch; zeros and Auto leave the choice to the
// launch plan (which may refuse a request the device cannot run: DeviceError).
struct LaunchRequest {
  KernelVariant variant = KernelVariant::Auto;
  LocalSize local;
  int rows_per_item = 0;
  int chunk_steps = 0;
  int block_steps = 0;  // blocked: steps per launch
  LocalSize tile;       // blocked: cells each work-group owns
  // Set by the library where the grid is split across MPI ranks (no split
  // variant then); a user leaves it false.
  bool slabs = false;
  // Where a variant or local size named here came from, for the launch's
  // reason: the user ("as given") or a restarted run's checkpoint.
  std::string origin = "as given";
};

// Where a solver's set-up went (seconds), for the run's summary: the
// device's context, the kernels' compile (or load from the kernel cache),
// and the buffers with the initial state.
struct SetupTimes {
  double context_s = 0, compile_s = 0, upload_s = 0;
  bool kernels_cached = false;  // the compiled kernels came from the cache
  bool context_reused = false;  // the device's context was made for an earlier solver of this process
  // What compiling these kernels takes (now, or when they were cached):
  // compile_s is only the part the run waited for.
  double compile_cost_s = 0;
  // What building a solver of another launch would take.
  double build_estimate_s() const { return context_s + compile_cost_s + upload_s; }
};

// Staged halos (a split grid whose rows cross through host memory): where
// the host's time in the exchanges went so far, seconds. For diagnosis
// (d2q9-mpi-bench --halo-times, the summary's times.halos); zeros elsewhere.
struct HaloTimes {
  long long exchanges = 0;
  double read_wait_s = 0;       // waiting for the edge rows' read from the device
  double copies_s = 0;          // copying them across (exchange_edges less the wait below)
  double neighbour_wait_s = 0;  // waiting for the neighbours (MPI messages: their transfer too)
  double write_queue_s = 0;     // queueing the halo rows' write to the device
};

}  // namespace d2q9
