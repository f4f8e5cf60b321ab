// The measurements a run gathers from its chunks' partial sums (per group
// and step: |u|, then Fx, Fy per measured body): each chunk's read back into
// a slot of host memory while the device runs the next, and added in the
// grid's group order, as one device adds them; every rank continues the
// running sums of the ranks below over its own groups and passes them up,
// so that a split run's average velocities and forces are byte-identical to
// one device's.
#pragma once

#include <cstddef>
#include <deque>
#include <utility>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/rank_links.hpp"

namespace d2q9 {

class RunningSums {
 public:
  // `num_groups`: this lattice's; `links`: none on one device (rank 0 of 1).
  RunningSums(LatticeDevice& device, RankLinks* links, int rank, int ranks, Precision precision, int num_groups,
              int sums_per_group, std::size_t fluid_cells);

  // A run() call's sums go into `av_vels` (and the body forces), each step's
  // appended after those there.
  void start_run(std::vector<double>& av_vels);
  // Queues the read of a chunk of `steps` steps' partial sums from buffer
  // offset `base` (in groups), and on a slab the receive of the running sums from below.
  void read_chunk(int base, int steps);
  // Continues the oldest chunks' sums over this lattice's groups, in group
  // order: a little at a time between steps (`poll`), or waiting for every
  // chunk but the newest `keep`.
  // While polling, it adds as many steps as the device runs per launch
  // (`pace`), twice that while older chunks wait.
  void continue_sums(bool poll, std::size_t keep, int pace = 1);
  // Every chunk summed and every send up finished.
  void finish_chunks();
  // Split: the top rank's sums of this call's `steps` steps onto every rank,
  // appended there alike, so that every rank stops at the same step.
  // Ends the call.
  void end_run(int steps);
  // After a failure: the slots released and the chunks forgotten. The
  // caller has drained the device.
  void abandon_run();

  std::vector<double> take_body_forces() { return std::exchange(body_forces_, {}); }

 private:
  struct ChunkSums {
    int slot = 0;  // the device's host slot for this lattice's partial sums, steps x num_groups_
    int steps = 0;
    const void* partials = nullptr;  // the slot's values, once they have arrived
    std::vector<double> sums;        // running, in from the rank below (zeros on the first)
    int incoming = -1;               // the receive from below, while it is pending
    int continued = 0;               // steps whose sums include this lattice's groups
  };
  // Adds this lattice's groups to chunk `c`'s sums, `budget` steps at most
  // while polling; returns the budget left.
  int add_groups(ChunkSums& c, bool poll, int budget) const;
  // A finished chunk's sums: into the run's average velocities at once on one
  // device (which so stops at the first unstable chunk), else kept for the
  // broadcast at the end of run().
  void finish_sums(std::vector<double>& sums);
  void append(const double* sums, int steps);

  LatticeDevice& device_;
  RankLinks* links_;
  int rank_;
  int ranks_;
  Precision precision_;
  int num_groups_;
  int sums_;                  // per group and step
  std::size_t fluid_cells_;   // of the whole grid
  std::deque<ChunkSums> chunks_;  // oldest first
  std::deque<std::pair<int, std::vector<double>>> outgoing_sums_;
  std::vector<double> finished_sums_;  // the top of several ranks: this run() call's, in step order
  std::vector<double>* av_vels_ = nullptr;  // run()'s, on one device
  std::vector<double> body_forces_;         // the whole grid's, since take_body_forces()
};

}  // namespace d2q9
