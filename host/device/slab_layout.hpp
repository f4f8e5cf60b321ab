// How a grid is cut into horizontal slabs, one per MPI rank. Pure arithmetic,
// no MPI, so it is tested on its own.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "device/kernel_source.hpp"

namespace d2q9 {

// Global rows [first_row, first_row + rows) of the grid, bottom to top.
struct Slab {
  int first_row;
  int rows;
};

// What slab boundaries fall on: rows of work-groups (the plan's
// group_height(); the blocked kernel's tile rows), named for messages.
struct RowUnit {
  int height = 1;
  bool tiles = false;  // the blocked kernel's tiles, not work-groups of cells
};
RowUnit slab_row_unit(const LaunchPlan& plan);

// Even split of ny rows into `ranks` slabs whose boundaries all fall on
// work-group rows (multiples of unit.height): each slab's work-groups (or
// tiles) are then exactly those of the whole grid, and per-group partial
// sums match a single-device run bit for bit. Lower slabs take the spare
// group rows. std::invalid_argument when there are fewer group rows than ranks.
std::vector<Slab> split_rows(int ny, int ranks, RowUnit unit);
inline std::vector<Slab> split_rows(int ny, int ranks, int group_height) { return split_rows(ny, ranks, RowUnit{group_height}); }

// Slabs of the given heights (bottom to top), checked against the same rules;
// std::invalid_argument naming the problem otherwise.
std::vector<Slab> slabs_from_heights(const std::vector<int>& heights, int ny, int ranks, RowUnit unit);
inline std::vector<Slab> slabs_from_heights(const std::vector<int>& heights, int ny, int ranks, int group_height) {
  return slabs_from_heights(heights, ny, ranks, RowUnit{group_height});
}

// Halo rows a slab's lattice has below and above its own rows: one for the
// one-step kernels, the steps per launch for blocked (which steps its halo
// rows itself). The one place the depth is decided: device_lattice, the
// step loop's exchange and both backends' edge buffers follow from it.
int slab_halo_rows(const LaunchPlan& plan);

// std::invalid_argument unless every slab has at least `halo_rows` rows:
// a neighbour's halo comes from one slab alone.
void check_slabs_hold_halos(const std::vector<Slab>& slabs, int halo_rows);

// The rows slab `s` of a grid of ny rows updates in its local lattice of
// s.rows + 2 * halo_rows rows (halo rows [0, halo_rows) and above its own),
// and where row ny-2 is.
SlabRows slab_kernel_rows(const Slab& s, int ny, int halo_rows = 1);

// The grid's row of row `row` of a slab's lattice with `halo` halo rows each
// side (the grid wraps around: the bottom slab's lower halo is the top rows).
std::size_t grid_row_of(const Slab& slab, int halo, int row, int ny);

// "15,15" style list of the heights.
std::string heights_text(const std::vector<Slab>& slabs);

}  // namespace d2q9
