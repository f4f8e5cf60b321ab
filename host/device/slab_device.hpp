// What the slab solver (host/mpi/) asks of one device, whatever its backend:
// a slab's two lattices, each its own rows plus a halo row below (row 0) and
// above (row rows+1), worked through two in-order streams. Kernels go on one,
// copies on the other, so that the halo rows travel while the interior is
// updated; marks between the streams order them only where the data demand.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "device/solver.hpp"

namespace d2q9 {

// Speeds a slab's top row sends up (into the upper neighbour's bottom halo
// row) and its bottom row sends down: exactly what the pull stencil reads
// across a slab edge, in the order they sit in the edge buffers.
inline constexpr int kNorthGoing[3] = {2, 5, 6};
inline constexpr int kSouthGoing[3] = {4, 7, 8};

// The slab's lattice as one device holds it.
struct SlabLattice {
  Params lattice;                    // nx by rows + 2 (the halo rows)
  std::vector<std::string> defines;  // the kernel build's (FIRST_ROW, LAST_ROW, ACCEL_ROW ...)
  ObstacleMask obstacles;            // the lattice's cells', halo rows included
  std::size_t partial_values = 0;    // size of the partial-sum buffer
  std::size_t chunk_values = 0;      // the most one read_partials takes
  int rows() const { return lattice.ny - 2; }
};

class SlabDevice {
 public:
  virtual ~SlabDevice() = default;
  virtual std::string device_name() const = 0;

  // Staging for the halo exchange in host memory the device copies to and
  // from directly (pinned): three rows each, speeds in kNorthGoing /
  // kSouthGoing order. send_up: the top row's north-going speeds; send_down:
  // the bottom row's south-going ones; from_below / from_above: what the
  // neighbours sent, for the bottom / top halo row.
  struct EdgeBuffers {
    unsigned char* send_up = nullptr;
    unsigned char* send_down = nullptr;
    unsigned char* from_below = nullptr;
    unsigned char* from_above = nullptr;
  };
  virtual EdgeBuffers edge_buffers() = 0;

  // Blocking, after everything queued: lattice `state` at rest (on the
  // device: a large slab's worth of doubles would cost the host gigabytes),
  // or given (all nine planes of the lattice, halo rows included), or read
  // (rows [first_row, first_row + rows) of all nine planes, as stored).
  virtual void fill_at_rest(int state) = 0;
  virtual void upload(int state, const std::vector<double>& f) = 0;
  virtual std::vector<unsigned char> read_rows(int state, int first_row, int rows) = 0;

  // Kernel stream. collide: one step of lattice `state` into the other over
  // `group_rows` work-group rows from `first_group_row`, whose groups' partial
  // sums go from `partial_offset` on; the step is number `step` of the run.
  virtual void accelerate(int state) = 0;
  virtual void collide(int state, int first_group_row, int group_rows, int partial_offset, bool accelerate_next,
                       int step) = 0;

  // Copy stream, after the kernel stream's work so far: the edge rows of
  // lattice `state` into send_up / send_down. wait_edges: until they are there.
  virtual void read_edges(int state) = 0;
  virtual void wait_edges() = 0;
  // Copy stream: from_below / from_above into lattice `state`'s halo rows;
  // the kernel stream's later work waits for them.
  virtual void write_halos(int state) = 0;

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

  // Submits what is queued on both streams.
  virtual void flush() = 0;
  // Waits for everything queued (errors swallowed: for unwinding).
  virtual void drain() noexcept = 0;
};

// The backends' slab devices, defined where each backend is built (DeviceError when the device cannot hold the
// slab or build its kernels).
std::unique_ptr<SlabDevice> make_opencl_slab_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                    const SlabLattice& slab);
std::unique_ptr<SlabDevice> make_cuda_slab_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                  const SlabLattice& slab);

}  // namespace d2q9
