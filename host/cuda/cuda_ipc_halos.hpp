// A slab's halo rows copied straight from its neighbours' lattices, where
// they run on the same host: CUDA IPC handles of their lattices and of their
// marks (interprocess events recorded where their edge rows are written),
// opened once, so that the halo bytes never pass through the host.
#pragma once

#include <cuda.h>

#include <string>
#include <vector>

#include "cuda/cuda_device.hpp"
#include "cuda/cuda_transfers.hpp"
#include "device/lattice_device.hpp"

namespace d2q9 {

class CudaIpcHalos {
 public:
  // `halo_depth`: the slab's halo rows each side (0: the whole grid, which
  // shares nothing) of its `rows` own rows.
  CudaIpcHalos(const CudaLattice& lattice, CudaTransfers& transfers, int halo_depth, int rows);
  // Closes the neighbours' lattices (draining both streams) and frees the marks.
  ~CudaIpcHalos();
  CudaIpcHalos(const CudaIpcHalos&) = delete;
  CudaIpcHalos& operator=(const CudaIpcHalos&) = delete;

  // LatticeDevice's calls of the same names.
  LatticeDevice::SharedLattice share_lattice();
  std::string open_neighbours(const std::vector<unsigned char>& below, const std::vector<unsigned char>& above);
  void pull_halos(int state);
  void close_neighbours() noexcept;
  // Whether the neighbours' lattices are open: read_edges then marks the edge rows.
  bool direct() const { return direct_; }
  // On the kernel stream: this exchange's mark; the neighbours copy the edge
  // rows themselves once it is reached.
  void mark();

 private:
  // A neighbour's lattice as this device reaches it.
  struct Neighbour {
    CUdeviceptr cells[2] = {0, 0};
    CUevent marks[2] = {nullptr, nullptr};
    std::size_t cell_count = 0;
    int rows = 0;
    bool opened = false;  // opened here, so closed here (not this device's own, nor a copy of the other neighbour)
  };
  Neighbour open_neighbour(const std::vector<unsigned char>& shared);
  void close_neighbour(Neighbour& n) noexcept;
  CUdeviceptr neighbour_row(const Neighbour& n, int state, int speed, int row) const;

  const CudaLattice& lattice_;
  CudaTransfers& transfers_;
  const CudaDriver& drv_;
  int halo_depth_;
  int rows_;
  std::size_t row_bytes_;
  // read_edges records marks_[exchange % 2] where the edge rows are
  // written; the neighbours' copies wait on it. Two, so that a mark is never
  // re-recorded before the neighbours have queued their wait on it (they
  // have, once the next exchange's MPI handshake is done).
  CUevent marks_[2] = {nullptr, nullptr};
  bool direct_ = false;
  long long marks_made_ = 0;
  long long halos_pulled_ = 0;
  Neighbour below_, above_;
};

}  // namespace d2q9
