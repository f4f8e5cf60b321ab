#include "device/slab_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace d2q9 {

std::vector<Slab> split_rows(int ny, int ranks, int group_height) {
  if (ranks < 1 || group_height < 1 || ny < 1) throw std::invalid_argument("split_rows: bad arguments");
  const int group_rows = (ny + group_height - 1) / group_height;
  if (group_rows < ranks)
    throw std::invalid_argument("cannot split " + std::to_string(ny) + " rows into " + std::to_string(ranks) +
                                " slabs of whole work-group rows (" + std::to_string(group_rows) +
                                " rows of work-groups of height " + std::to_string(group_height) +
                                "): use fewer ranks or a lower --local-size height");
  std::vector<Slab> slabs;
  int first = 0;
  for (int r = 0; r < ranks; ++r) {
    const int groups = group_rows / ranks + (r < group_rows % ranks ? 1 : 0);
    const int rows = std::min(groups * group_height, ny - first);
    slabs.push_back({first, rows});
    first += rows;
  }
  return slabs;
}

std::vector<Slab> slabs_from_heights(const std::vector<int>& heights, int ny, int ranks, int group_height) {
  if (static_cast<int>(heights.size()) != ranks)
    throw std::invalid_argument("--slab-rows gives " + std::to_string(heights.size()) + " slab height(s) for " +
                                std::to_string(ranks) + " MPI rank(s)");
  std::vector<Slab> slabs;
  long long first = 0;
  for (int r = 0; r < ranks; ++r) {
    if (heights[r] < 1) throw std::invalid_argument("--slab-rows: every slab needs at least one row");
    if (r + 1 < ranks && heights[r] % group_height != 0)
      throw std::invalid_argument("--slab-rows: slab " + std::to_string(r) + " has " + std::to_string(heights[r]) +
                                  " rows, not a multiple of the work-group height " + std::to_string(group_height) +
                                  " (only the top slab may end in a partial work-group row)");
    slabs.push_back({static_cast<int>(first), heights[r]});
    first += heights[r];
  }
  if (first != ny)
    throw std::invalid_argument("--slab-rows adds up to " + std::to_string(first) + " rows but the grid has " +
                                std::to_string(ny));
  return slabs;
}

SlabRows slab_kernel_rows(const Slab& s, int ny) {
  const int accel = ny - 2;
  const bool owns = accel >= s.first_row && accel < s.first_row + s.rows;
  return {1, s.rows, owns ? accel - s.first_row + 1 : -1, s.first_row - 1, ny};
}

std::string heights_text(const std::vector<Slab>& slabs) {
  std::string out;
  for (const Slab& s : slabs) out += (out.empty() ? "" : ",") + std::to_string(s.rows);
  return out;
}

}  // namespace d2q9
