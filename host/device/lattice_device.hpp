// What the step loop (device/step_loop.hpp) asks of one device, whatever its
// backend: one lattice, the whole grid or an MPI rank's slab of it, in two
// copies (the state and the next), worked through two in-order streams.
// Kernels go on one, copies on the other, so that a slab's halo rows travel
// while its interior is updated; marks between the streams order them only
// where the data demand. Each backend implements this one interface.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "device/solver.hpp"
#include "problem/lattice.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// Planes a slab's top row sends up (into the upper neighbour's bottom halo
// row) and its bottom row sends down: exactly what the pull stencil reads
// across a slab edge, in the order they sit in the edge buffers. D2Q9's
// three, then with heat the temperature lattice's (planes 9-13, D2Q5's
// speeds 0 rest, 1 E, 2 N, 3 W, 4 S: cl/heat.cl) north- or south-going one.
inline constexpr int kHeatNorth = kSpeeds + 2, kHeatSouth = kSpeeds + 4;
static_assert(kEy[2] == 1 && kEy[4] == -1, "D2Q5's speeds 2 and 4 are D2Q9's north and south");
inline constexpr int kNorthGoing[4] = {2, 5, 6, kHeatNorth};
inline constexpr int kSouthGoing[4] = {4, 7, 8, kHeatSouth};
inline constexpr int kAllPlanes[kSpeeds + kHeatSpeeds] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};

// The planes a slab's edge rows send to the halo rows of its neighbours,
// given its halo depth (slab_halo_rows) and the lattice's planes
// (Extensions::planes: 9, or 14 with heat): with one halo row, which the
// one-step kernels only pull from, those crossing the edge; with several,
// whose cells the blocked kernel steps itself, every plane. In the edge
// buffers, plane up[i] (or down[i]) holds `depth` rows from offset
// i * depth rows, bottom row first, as a plane of the lattice holds them.
struct HaloSpeeds {
  const int* up;
  const int* down;
  int count;
};
inline HaloSpeeds halo_speeds(int depth, int planes) {
  if (planes != kSpeeds && planes != kSpeeds + kHeatSpeeds)
    throw std::invalid_argument("halo_speeds: a lattice has 9 or 14 planes, not " + std::to_string(planes));
  if (depth > 1) return {kAllPlanes, kAllPlanes, planes};
  return {kNorthGoing, kSouthGoing, planes == kSpeeds ? 3 : 4};
}
// Bytes of each edge buffer for rows of `row_bytes` (one plane's row).
inline std::size_t edge_buffer_bytes(int depth, int planes, std::size_t row_bytes) {
  return static_cast<std::size_t>(halo_speeds(depth, planes).count) * depth * row_bytes;
}

// The lattice one device holds: the whole grid (periodic across its edges in
// the kernels), or a slab, whose rows have halo_depth halo rows below (from
// row 0) and above (from row halo_depth + rows) that its neighbours fill.
struct DeviceLattice {
  Params lattice;                    // nx by ny: the grid, or a slab's rows + 2 * halo_depth
  std::vector<std::string> defines;  // the kernel build's (FIRST_ROW, LAST_ROW, ACCEL_ROW ... for a slab)
  ObstacleMask obstacles;            // the lattice's cells', halo rows included
  std::size_t partial_values = 0;    // size of the partial-sum buffer
  std::size_t chunk_values = 0;      // the most one read_partials takes
  int halo_depth = 0;                // a slab's halo rows each side (slab_halo_rows); 0: the whole grid
  std::vector<int> tile_order;       // the whole grid's blocked launches' (blocked_tile_order); empty: row by row
  bool halo_rows() const { return halo_depth > 0; }
  int rows() const { return lattice.ny - 2 * halo_depth; }
  // Row index of the lattice's first own row.
  int first_own_row() const { return halo_depth; }
  std::string what() const {
    return halo_rows() ? "slab " + std::to_string(lattice.nx) + "x" + std::to_string(rows()) + " (with its halo rows)"
                       : "grid " + std::to_string(lattice.nx) + "x" + std::to_string(lattice.ny);
  }
};

// Where the live view's picture (cl/render.cl) meets one device's lattice:
// the picture's layout over the whole grid, the lattice's own rows of that
// grid and where they lie in it, and the picture's pixel rows they show.
struct RenderPart {
  FieldImageLayout layout;
  int grid_ny = 0;              // the whole grid's rows
  int first_row = 0, rows = 0;  // the lattice's own rows of the grid (all of them for the whole grid)
  int first_local = 0;          // the lattice's row of first_row: a slab's halo depth, else 0
  PixelRows pixels;             // the picture's rows whose cells lie in the own rows
  // Whether the lattice is the whole grid, whose rows wrap around onto themselves.
  bool whole() const { return rows == grid_ny; }
};

// One kernel launch: from lattice `state` into the other, over `group_rows`
// work-group rows from `first_group_row`, running `steps` steps (the plan's
// step kernel), their partial sums
// from group `partial_offset` on. `step` is the number of the first step from
// the run's start (the kernels' `step`, which an inlet's ramp reads).
struct StepLaunch {
  int state = 0;
  int first_group_row = 0;
  int group_rows = 0;
  int steps = 1;
  bool accelerate_before = false;  // split: accelerate_flow on `state` first
  bool accelerate_next = false;    // fused: the next step's acceleration inside
  int partial_offset = 0;
  int step = 0;
  // Blocked: probes sampled inside the launch after step sample_first (from
  // 1; 0: none) and every sample_every steps after it, its last included,
  // into the samples' rows from sample_row (set_sample_cells' buffer); the
  // other variants after the launch into row sample_after_row (-1: none).
  int sample_first = 0;
  int sample_every = 1;
  int sample_row = 0;
  int sample_after_row = -1;

  // Whether the blocked kernel samples inside this launch; the others run
  // the kernel built without the sampling code (defines_without_probes).
  bool samples_inside() const { return sample_first > 0 && sample_first <= steps; }
};

class LatticeDevice {
 public:
  virtual ~LatticeDevice() = default;
  virtual std::string device_name() const = 0;
  // Where its set-up went.
  virtual SetupTimes setup_times() const = 0;
  // How it submits launches, where it has a choice ("graphs" ...); else empty.
  virtual std::string launch_mode() const { return ""; }

  // Staging for a slab's halo exchange in host memory the device copies to
  // and from directly (pinned): edge_buffer_bytes each, speeds and rows as
  // halo_speeds lays them out. send_up: the top own rows' up planes;
  // send_down: the bottom own rows' down planes; from_below / from_above:
  // what the neighbours sent, for the bottom / top halo rows.
  struct EdgeBuffers {
    unsigned char* send_up = nullptr;
    unsigned char* send_down = nullptr;
    unsigned char* from_below = nullptr;
    unsigned char* from_above = nullptr;
  };
  virtual EdgeBuffers edge_buffers() = 0;

  // Blocking, after everything queued: lattice `state` at rest (on the
  // device: a large lattice's worth of doubles would cost the host
  // gigabytes), or given (every plane of the lattice, Extensions::planes,
  // halo rows included), or read (rows [first_row, first_row + rows) of
  // every plane, as stored), or read at a few cells (lattice indices; every
  // plane's cells.size() values, as stored).
  virtual void fill_at_rest(int state) = 0;
  virtual void upload(int state, const std::vector<double>& f) = 0;
  virtual std::vector<unsigned char> read_rows(int state, int first_row, int rows) = 0;
  virtual std::vector<unsigned char> read_cells(int state, const std::vector<std::size_t>& cells) = 0;

  // Probes sampled on the device: set_sample_cells(cells, rows) makes room
  // for `rows` samples of `cells` (lattice indices); sample(state, row), on
  // the kernel stream, copies lattice `state`'s values at those cells into
  // sample `row` (every plane's cells.size() values, as stored), so that a
  // run samples between launches without waiting; read_samples(first, rows)
  // starts the read of samples [first, first + rows), after everything
  // queued, without waiting (the kernels go on); samples_read() waits for it
  // and gives its bytes, one sample after another. One read at a time.
  virtual void set_sample_cells(const std::vector<std::size_t>& cells, int rows) = 0;
  virtual void sample(int state, int row) = 0;
  virtual void read_samples(int first, int rows) = 0;
  virtual std::vector<unsigned char> samples_read() = 0;

  // Kernel stream: accelerate_flow on lattice `state`; launches in order.
  virtual void accelerate(int state) = 0;
  virtual void launch(const std::vector<StepLaunch>& launches) = 0;
  // The launch sequences a run will submit whole (a single device's chunks),
  // for a backend that records them before the timed loop; default: nothing.
  virtual void prepare(const std::vector<std::vector<StepLaunch>>& sequences) { (void)sequences; }

  // Copy stream, after the kernel stream's work so far: the edge rows of
  // lattice `state` (as many as its halo rows) into `into`'s send_up /
  // send_down (edge_buffers(), or host memory pin_host_memory took).
  // wait_edges: until they are there, and every copy queued before them done.
  virtual void read_edges(int state, const EdgeBuffers& into) = 0;
  virtual void wait_edges() = 0;
  // Copy stream: `from`'s from_below / from_above into lattice `state`'s
  // halo rows; the kernel stream's later work waits for them.
  virtual void write_halos(int state, const EdgeBuffers& from) = 0;
  // Host memory the ranks of one host share (the halo exchange's window),
  // made memory this device copies to and from as it does its own edge
  // buffers (pinned), so that edge rows reach the neighbours with no host
  // copy; false where the backend cannot. Kept until the device goes.
  virtual bool pin_host_memory(unsigned char* p, std::size_t bytes) {
    (void)p, (void)bytes;
    return false;
  }

  // Halo rows copied straight from the neighbours' devices, where the
  // backend can map another process's device memory (CUDA IPC, ranks of one
  // host). The step loop tries it once, with every rank, before the first
  // exchange; where any rank cannot, all stage halos through the edge
  // buffers as above. Once open_neighbours has succeeded, read_edges(state)
  // only marks (on the kernel stream) that the edge rows of `state` are
  // written, and pull_halos(state) replaces wait_edges / write_halos.
  //
  // share_lattice: what a neighbouring rank needs to open this lattice and
  // its marks (opaque bytes, the same size on every rank); empty bytes (and
  // the reason, where there is one) where the backend or device cannot.
  struct SharedLattice {
    std::vector<unsigned char> bytes;
    std::string why_not;
  };
  virtual SharedLattice share_lattice() { return {}; }  // no reason to give: the backend never shares
  // Opens the neighbours' shared lattices (empty bytes: that neighbour is
  // this rank itself). Empty on success; else why not, with nothing left open.
  virtual std::string open_neighbours(const std::vector<unsigned char>& below, const std::vector<unsigned char>& above) {
    (void)below;
    (void)above;
    return "this backend stages halo rows through host memory";
  }
  // Copy stream, once the neighbours' marks of their read_edges for this
  // exchange are reached: their edge rows of lattice `state` into this
  // lattice's halo rows; the kernel stream's later work waits for them. Call
  // it only after both neighbours have queued those marks (the step loop
  // hears so over MPI: a mark queued later is one this copy must not wait for).
  virtual void pull_halos(int state) { (void)state; }
  // Closes what open_neighbours opened, after waiting for this device's
  // copies; every rank must do so before any rank frees its lattice.
  virtual void close_neighbours() noexcept {}

  // Copy stream, after the kernel stream's work so far: `count` partial sums
  // from value `first` into host memory of their own (pinned, so the host
  // sums them where they land); returns the slot they go to, which stays
  // theirs until release_partials. partials: the slot's values once they
  // have arrived (nullptr while they have not, unless `wait`).
  // reuse_partials(first): the kernel stream's later work waits until the
  // last read that started at value `first` is done, so that kernels may
  // overwrite what it read.
  virtual int read_partials(std::size_t first, std::size_t count) = 0;
  virtual const void* partials(int slot, bool wait) = 0;
  virtual void release_partials(int slot) = 0;
  virtual void reuse_partials(std::size_t first) = 0;

  // The live view's picture of lattice `state`, after everything queued:
  // the sampled values (NaN: obstacle) of `part`'s pixel rows, top row first.
  // The vorticity at a slab's first and last own rows reads ux of the rows
  // beyond them from `edge_ux` (the row below's at the picture's columns,
  // then the row above's: 2 * width values, as the neighbours' render_edges
  // made them); the whole grid wraps around and needs none. None where the
  // backend cannot make it (the host then does).
  virtual std::optional<std::vector<float>> render(int state, const FieldImageRequest& request,
                                                   const RenderPart& part, const std::vector<float>& edge_ux) {
    (void)state, (void)request, (void)part, (void)edge_ux;
    return std::nullopt;
  }
  // ux at the picture's columns of lattice `state`'s first own row, then of
  // its last (2 * width values; 0 on obstacles), as render() reads a
  // neighbour's: what the slabs below and above need for their vorticity.
  virtual std::optional<std::vector<float>> render_edges(int state, const FieldImageRequest& request,
                                                         const RenderPart& part) {
    (void)state, (void)request, (void)part;
    return std::nullopt;
  }

  // Submits what is queued on both streams.
  virtual void flush() = 0;
  // Waits for everything queued (errors swallowed: for unwinding).
  virtual void drain() noexcept = 0;
};

}  // namespace d2q9
