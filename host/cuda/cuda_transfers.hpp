// The two streams of a lattice on a CUDA device, kernels on one and copies on
// the other with events between them, and what moves on the copy stream
// while the kernels go on: a slab's edge and halo rows through pinned edge
// buffers, and the partial sums into pinned slots, so that every copy is
// asynchronous.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <map>
#include <vector>

#include "cuda/cuda_device.hpp"
#include "device/lattice_device.hpp"

namespace d2q9 {

class CudaTransfers {
 public:
  // `halo_depth`: a slab's halo rows each side (0: the whole grid, no edge
  // buffers) above and below its `rows` own rows; `slot_bytes`: the host
  // memory of one read of partial sums. The lattice's context is current.
  CudaTransfers(const CudaLattice& lattice, int halo_depth, int rows, std::size_t slot_bytes);
  // Frees what exists; the caller has drained both streams.
  ~CudaTransfers() { release(); }
  CudaTransfers(const CudaTransfers&) = delete;
  CudaTransfers& operator=(const CudaTransfers&) = delete;

  CUstream kernels() const { return kernels_; }
  CUstream copies() const { return copies_; }
  // The copy stream's later work waits for the kernel stream's work so far.
  void copies_after_kernels();
  // The kernel stream's later work waits for the copy stream's work so far
  // (halo rows written).
  void kernels_after_copies();
  // Both streams finished, errors reported; drain() reports none.
  void synchronize();
  void drain() noexcept;

  LatticeDevice::EdgeBuffers edge_buffers() const { return edges_; }
  // Each plane's halo_depth rows are consecutive in it: one copy each, on the
  // copy stream after the kernels so far.
  void read_edges(int state, const LatticeDevice::EdgeBuffers& into);
  void wait_edges();
  void write_halos(int state, const LatticeDevice::EdgeBuffers& from);

  int read_partials(std::size_t first, std::size_t count);
  const void* partials(int slot, bool wait);
  void release_partials(int slot) { slots_.at(slot).in_use = false; }
  void reuse_partials(std::size_t first);

 private:
  void setup();
  void release() noexcept;

  const CudaLattice& lattice_;
  const CudaDriver& drv_;
  int halo_depth_;
  int rows_;  // the lattice's own, halo rows not counted
  std::size_t row_bytes_;
  std::size_t slot_bytes_;
  CUstream kernels_ = nullptr;
  CUstream copies_ = nullptr;
  unsigned char* staging_ = nullptr;  // pinned: the edge buffers
  LatticeDevice::EdgeBuffers edges_;
  struct PartialsSlot {
    void* host = nullptr;  // pinned
    CUevent read = nullptr;
    bool in_use = false;
  };
  std::vector<PartialsSlot> slots_;
  std::map<std::size_t, CUevent> last_read_from_;  // by first value: the slot event recorded after it
  CUevent kernels_done_ = nullptr;  // re-recorded whenever the copy stream must wait for the kernels
  CUevent edges_read_ = nullptr;
  CUevent halos_written_ = nullptr;
};

}  // namespace d2q9
