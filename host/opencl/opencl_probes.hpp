// A lattice's probes on an OpenCL device: the cells sampled, the kernel that
// samples them into a device buffer (or the blocked step kernel, inside its
// launches), and the samples' read on the copy queue, so that probing every
// few steps costs one small read rather than a lattice's.
#pragma once

#include <cstddef>
#include <vector>

#include "device/launch_plan.hpp"
#include "opencl/opencl_lattice.hpp"
#include "opencl/opencl_transfers.hpp"

namespace d2q9 {

class OpenCLProbes {
 public:
  // `halo_depth`: a slab's halo rows each side (0: the whole grid).
  OpenCLProbes(OpenCLLattice& lattice, OpenCLTransfers& transfers, const LaunchPlan& plan, int halo_depth);

  // The cells sampled, for `rows` samplings between reads; the caller has drained the queues.
  void set_cells(const std::vector<std::size_t>& cells, int rows);
  // On the kernel queue: lattice `state`'s cells into samples row `row`.
  void sample(int state, int row);
  // On the copy queue after the kernels so far, which go on meanwhile.
  void read(int first, int rows);
  std::vector<unsigned char> samples_read();

 private:
  OpenCLLattice& lattice_;
  OpenCLTransfers& transfers_;
  LaunchPlan plan_;
  int halo_depth_;
  // read()'s pinned host memory (kept as it grows) and its read.
  unsigned char* sample_host_ = nullptr;
  std::size_t sample_host_bytes_ = 0, sample_read_bytes_ = 0;
  cl::Event samples_read_;
  int sample_count_ = 0;
  cl::Buffer sample_cells_, samples_;
  cl::Buffer sample_index_;  // blocked: the probes by tile (blocked_sample_index)
  cl::Kernel sample_[2];     // from lattices[0] / [1]
};

}  // namespace d2q9
