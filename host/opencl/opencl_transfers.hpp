// The copy queue beside a lattice's kernel queue on an OpenCL device (both in
// order; markers and barriers order them), so that a slab's edge and halo
// rows and the partial sums move while the kernels go on, to and from host
// memory the device copies directly.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "device/lattice_device.hpp"
#include "opencl/opencl_lattice.hpp"

namespace d2q9 {

class OpenCLTransfers {
 public:
  // `halo_depth`: a slab's halo rows each side (0: the whole grid, no edge
  // buffers); `partials_bytes`: the host memory of one read of partial sums.
  OpenCLTransfers(OpenCLLattice& lattice, int halo_depth, std::size_t partials_bytes);
  // Unmaps the pinned memory; the caller has drained both queues.
  ~OpenCLTransfers();
  OpenCLTransfers(const OpenCLTransfers&) = delete;
  OpenCLTransfers& operator=(const OpenCLTransfers&) = delete;

  cl::CommandQueue& queue() { return copies_; }
  // Host memory the device copies to and from directly (allocated by the
  // driver, mapped for this object's life).
  unsigned char* pinned(std::size_t bytes);
  // The kernel queue's work so far, for the copy queue to wait on.
  std::vector<cl::Event> kernels_so_far();
  // The kernel queue's later work waits for `event`.
  void kernels_wait_for(const cl::Event& event);

  // A slab's edge buffers in pinned memory (none for the whole grid), made once.
  void make_edge_buffers();
  LatticeDevice::EdgeBuffers edge_buffers() const { return edges_; }
  void read_edges(int state, const LatticeDevice::EdgeBuffers& into);
  void wait_edges();
  void write_halos(int state, const LatticeDevice::EdgeBuffers& from);
  bool pin_host_memory(unsigned char* p, std::size_t bytes);

  int read_partials(std::size_t first, std::size_t count);
  const void* partials(int slot, bool wait);
  void release_partials(int slot) { slots_.at(slot).in_use = false; }
  void reuse_partials(std::size_t first);

 private:
  // Rows [row, row + halo_depth_) of `count` speeds of lattice `state` to
  // (read) or from `host` (an edge buffer, speed after speed), after
  // `after`; `done` marks the last copy.
  void copy_edge_rows(bool read, int state, int row, const int* speeds, int count, unsigned char* host,
                      const std::vector<cl::Event>* after, cl::Event* done);

  OpenCLLattice& lattice_;
  int halo_depth_;
  std::size_t row_bytes_;  // one plane's row
  cl::CommandQueue copies_;
  struct Pinned {
    cl::Buffer buffer;
    unsigned char* host = nullptr;
  };
  std::vector<Pinned> pinned_;
  LatticeDevice::EdgeBuffers edges_;
  cl::Event edges_read_;
  std::vector<cl::Buffer> host_memory_;  // pin_host_memory's
  struct PartialsSlot {
    unsigned char* host = nullptr;
    cl::Event read;
    bool in_use = false;
  };
  std::vector<PartialsSlot> slots_;
  std::size_t slot_bytes_;
  std::map<std::size_t, cl::Event> last_read_from_;  // by first value
};

}  // namespace d2q9
