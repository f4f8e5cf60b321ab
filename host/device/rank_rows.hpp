// Where this rank's rows lie in the grid and in its device's lattice, and the
// reads and writes of the state that cross the ranks: the whole grid onto
// rank 0, cells' values made whole on every rank, a checkpoint's state cut
// into the slab it loads. One device is the whole grid with no links.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/rank_links.hpp"
#include "device/slab_layout.hpp"
#include "io/state_rows.hpp"

namespace d2q9 {

class RankRows {
 public:
  // `slabs`: one per rank, bottom to top, with `links` between the ranks;
  // empty: the whole grid on one device (no links needed).
  // std::invalid_argument unless there are links and one slab per rank.
  RankRows(const Params& params, Precision precision, const LaunchPlan& plan, std::vector<Slab> slabs,
           RankLinks* links, LatticeDevice& device);

  bool split() const { return !slabs_.empty(); }
  const std::vector<Slab>& slabs() const { return slabs_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  const Slab& own() const { return own_; }
  int halo_depth() const { return halo_depth_; }
  int values_per_cell() const { return params_.extensions.planes(); }

  // Where whole-grid cell `cell` lies in this device's lattice (a slab's:
  // past its halo rows); none outside its own rows.
  std::optional<std::size_t> lattice_cell(std::size_t cell) const;
  // Split: rows of `cells` cells' values (values_per_cell), each rank holding those of
  // the cells it owns (`mine`), made whole on every rank: the values travel
  // up the ranks as the partial sums do (each rank adding the cells it owns
  // to those from below) and back from the top. Never the whole grid.
  void gather_cells(std::vector<double>& values, const std::vector<bool>& mine);

  // Lattice `state`'s values, as Solver's calls of the same names return them.
  StateRows own_rows(int state);
  std::vector<double> distributions(int state);
  std::vector<double> cell_distributions(int state, const std::vector<std::size_t>& cells);
  void load_distributions(int state, const std::vector<double>& f);
  // The live view's picture of lattice `state`, made on the device
  // (Solver::render). Split: collective; each rank samples the pixels of its
  // own rows, the vorticity at its edge rows from ux of its neighbours' edge
  // rows (which they sample alike and swap), and rank 0 gathers the values
  // alone (never the grid) and colours them over one range: the picture on
  // rank 0, an empty one (width 0) elsewhere. None, on every rank, where a
  // device cannot make its part, or D2Q9_LIVE_PICTURES=host asks for the
  // host's (the caller draws it there).
  std::optional<FieldImage> render(int state, const FieldImageRequest& request);

 private:
  const Params& params_;  // the whole grid's
  Precision precision_;
  std::vector<Slab> slabs_;  // empty: the whole grid
  RankLinks* links_;         // with slabs
  LatticeDevice& device_;
  Slab own_;  // this rank's rows of the grid
  int rank_ = 0;
  int ranks_ = 1;
  int halo_depth_;  // a slab's halo rows each side (slab_halo_rows)
};

}  // namespace d2q9
