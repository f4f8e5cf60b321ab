// A slab's halo exchange: its edge rows read from its device and its halo
// rows written from the neighbours', along the path every rank chose alike
// (straight between the devices, or through host memory the ranks share or
// pass as MPI messages), and the host's time in it.
#pragma once

#include <cstddef>
#include <string>

#include "device/lattice_device.hpp"
#include "device/rank_links.hpp"
#include "device/solver.hpp"

namespace d2q9 {

class HaloExchange {
 public:
  // `edge_bytes`: each edge buffer's, as stored (edge_buffer_bytes).
  HaloExchange(LatticeDevice& device, RankLinks& links, std::size_t edge_bytes);

  // With every rank, at the first run(): halo rows straight from the
  // neighbours' devices where every rank's device can open its neighbours'
  // lattices (CUDA IPC, one host), else through pinned host memory, from
  // which they cross between the ranks through shared memory (every rank on
  // one host; pinned by each device where it can, else copied by threads)
  // or MPI messages. D2Q9_HALOS=host in the environment asks for host
  // memory, D2Q9_HALOS=copied for copies, D2Q9_HALOS=mpi for MPI messages.
  void choose_path();
  bool chosen() const { return !path_.empty(); }
  // "cuda-ipc", "host-shared", "host-shared-copied" or "host-staging"; empty until choose_path.
  const std::string& path() const { return path_; }
  const std::string& note() const { return note_; }  // the summary's words for it

  // Queues the read (staged) or the mark (direct) of lattice `state`'s edge
  // rows, after the kernel stream's work so far.
  void read_edges(int state);
  // Sends lattice `state`'s edge rows (read into the edge buffers) to the
  // neighbours and queues what they sent into its halo rows; direct: queues
  // the copies of the neighbours' edge rows into them.
  void exchange(int state);
  HaloTimes times() const;

  // Direct: every rank closes its neighbours' lattices before any rank frees
  // its own (CUDA: freeing memory another process has open is undefined). A
  // rank unwinding alone from a failure does not wait: MPI_Abort follows.
  // The caller has drained the device.
  void close();

 private:
  LatticeDevice& device_;
  RankLinks& links_;
  std::size_t edge_bytes_;
  LatticeDevice::EdgeBuffers edges_;
  std::string path_;
  std::string note_;
  bool direct_ = false;    // cuda-ipc
  bool in_place_ = false;  // host-shared: edge rows read into, and halo rows written from, the ranks' shared memory
  LatticeDevice::EdgeBuffers in_place_edges_;  // there: this exchange's (RankLinks::next_edges_in_place)
  long long exchanges_ = 0;  // direct: exchanges so far, numbered alike on every rank
  HaloTimes times_;          // staged: the host's time in the exchanges (neighbour_wait_s from links_)
};

}  // namespace d2q9
