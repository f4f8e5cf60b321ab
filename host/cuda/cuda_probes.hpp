// A lattice's probes on a CUDA device: the cells sampled, the kernel that
// samples them into a device buffer (or the blocked step kernel, inside its
// launches), and the samples' read on the copy stream, so that probing every
// few steps costs one small read rather than a lattice's.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <vector>

#include "cuda/cuda_device.hpp"
#include "cuda/cuda_transfers.hpp"

namespace d2q9 {

class CudaProbes {
 public:
  // `halo_depth`: a slab's halo rows each side (0: the whole grid) of its
  // `rows` own rows. The lattice's context is current.
  CudaProbes(CudaLattice& lattice, CudaTransfers& transfers, int halo_depth, int rows);
  // Frees what exists; the caller has drained both streams.
  ~CudaProbes() { release(); }
  CudaProbes(const CudaProbes&) = delete;
  CudaProbes& operator=(const CudaProbes&) = delete;

  // The cells sampled, for `rows` samplings between reads; the caller has
  // synchronized the streams.
  void set_cells(const std::vector<std::size_t>& cells, int rows);
  // On the kernel stream: lattice `state`'s cells into samples row `row`.
  void sample(int state, int row);
  // On the copy stream after the kernels so far, which go on meanwhile.
  void read(int first, int rows);
  std::vector<unsigned char> samples_read();

  // What launch `l` of the step kernel samples (StepLaunch's sample_*).
  StepSamples step_samples(const StepLaunch& l) const {
    return {samples_, sample_index_, sample_count_, l.sample_first, l.sample_every, l.sample_row, l.samples_inside()};
  }
  // On the kernel stream: the blocked kernel's sample rows count from
  // `base` in the launches after it, so that sequences alike but for their
  // rows replay one graph.
  void set_row_base(int base);

 private:
  void release() noexcept;

  CudaLattice& lattice_;
  CudaTransfers& transfers_;
  const CudaDriver& drv_;
  int halo_depth_;
  int rows_;
  int sample_count_ = 0;
  CUdeviceptr sample_cells_ = 0, samples_ = 0;
  CUdeviceptr sample_index_ = 0;  // blocked: the probes by tile (blocked_sample_index)
  CUdeviceptr sample_base_ = 0;   // its last value: the base of the launches' sample rows
  unsigned char* sample_host_ = nullptr;  // pinned: where read() copies to
  std::size_t sample_read_bytes_ = 0;
  CUevent samples_read_ = nullptr;
};

}  // namespace d2q9
