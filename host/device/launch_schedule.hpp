// The launches the step loop hands one device for a chunk of steps: the
// plan's kernel over the lattice's work-group rows, each launch's partial
// sums at its place in the buffer, and on a slab the bands the launches are
// cut into, so that the edge rows the neighbours need are updated first.
#pragma once

#include <optional>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/slab_layout.hpp"

namespace d2q9 {

class LaunchSchedule {
 public:
  // A range of whole work-group rows of the lattice.
  struct Band {
    int first_group_row = 0;
    int group_rows = 0;
  };

  // `slab`: this rank's rows of the grid, whose lattice has slab_halo_rows
  // halo rows each side; none: the whole grid (the plan's group rows).
  LaunchSchedule(const LaunchPlan& plan, const std::optional<Slab>& slab);

  int group_rows() const { return group_rows_; }
  int num_groups() const { return num_groups_; }

  // The launches of a chunk of `steps` steps on one device, from lattice
  // `state`, partial sums into half `half` of the buffer, the first step
  // being number `first_step`; `ends_call`: its last step leaves the state
  // unaccelerated, so that distributions() between calls sees the model's state;
  // launches also end after each step numbered a multiple of `end_every` (> 0).
  std::vector<StepLaunch> chunk_launches(int state, int half, int steps, int first_step, bool ends_call,
                                         int end_every = 0) const;
  // The chunks a whole run of `steps` steps from lattice `state` submits,
  // each distinct one once: a long run's chunks repeat after four at most
  // (the state's parity and the half of the partial buffer), so the list
  // stays a few sequences long however many steps the run has.
  std::vector<std::vector<StepLaunch>> run_sequences(int state, int steps) const;

  // Slabs: the group rows holding the rows the neighbours' halos take (one
  // band where they meet), and the rest, which needs no halo, so it runs
  // while halos travel.
  int edge_band_count() const { return edge_band_count_; }
  const Band& edge_band(int e) const { return edge_bands_[e]; }
  const Band& interior() const { return interior_; }
  // `launch` (of the whole slab) over one band of its group rows.
  StepLaunch band_launch(const StepLaunch& launch, const Band& band) const;

 private:
  LaunchPlan plan_;
  int group_rows_ = 0;  // this lattice's
  int num_groups_ = 0;
  Band edge_bands_[2];
  int edge_band_count_ = 0;
  Band interior_;
};

}  // namespace d2q9
