// How a grid is cut into horizontal slabs, one per MPI rank. Pure arithmetic,
// no MPI, so it is tested on its own.
#pragma once

#include <string>
#include <vector>

#include "device/kernel_source.hpp"

namespace d2q9 {

// Global rows [first_row, first_row + rows) of the grid, bottom to top.
struct Slab {
  int first_row;
  int rows;
};

// Even split of ny rows into `ranks` slabs whose boundaries all fall on
// work-group rows (multiples of group_height): each slab's work-groups are
// then exactly work-groups of the whole grid, and per-group partial sums match
// a single-device run bit for bit. Lower slabs take the spare group rows.
// std::invalid_argument when there are fewer group rows than ranks.
std::vector<Slab> split_rows(int ny, int ranks, int group_height);

// Slabs of the given heights (bottom to top), checked against the same rules;
// std::invalid_argument naming the problem otherwise.
std::vector<Slab> slabs_from_heights(const std::vector<int>& heights, int ny, int ranks, int group_height);

// The rows slab `s` of a grid of ny rows updates in its local lattice of
// s.rows + 2 rows (halo rows 0 and s.rows + 1), and where row ny-2 is.
SlabRows slab_kernel_rows(const Slab& s, int ny);

// "15,15" style list of the heights.
std::string heights_text(const std::vector<Slab>& slabs);

}  // namespace d2q9
