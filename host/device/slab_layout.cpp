#include "device/slab_layout.hpp"

#include <algorithm>
#include <stdexcept>

namespace d2q9 {

namespace {

std::string groups_name(RowUnit unit) { return unit.tiles ? "tiles" : "work-groups"; }
std::string group_name(RowUnit unit) { return unit.tiles ? "tile" : "work-group"; }

}  // namespace

RowUnit slab_row_unit(const LaunchPlan& plan) {
  return {plan.group_height(), plan.variant == KernelVariant::Blocked};
}

int slab_halo_rows(const LaunchPlan& plan) { return plan.variant == KernelVariant::Blocked ? plan.block_steps : 1; }

void check_slabs_hold_halos(const std::vector<Slab>& slabs, int halo_rows) {
  for (std::size_t r = 0; r < slabs.size(); ++r)
    if (slabs[r].rows < halo_rows)
      throw std::invalid_argument("slab " + std::to_string(r) + " has " + std::to_string(slabs[r].rows) +
                                  " row(s), fewer than the " + std::to_string(halo_rows) +
                                  " halo rows its neighbours take from it (one per step of a blocked launch): "
                                  "use fewer ranks, fewer --block-steps or other --slab-rows");
}

std::vector<Slab> split_rows(int ny, int ranks, RowUnit unit) {
  const int group_height = unit.height;
  if (ranks < 1 || group_height < 1 || ny < 1) throw std::invalid_argument("split_rows: bad arguments");
  const int group_rows = (ny + group_height - 1) / group_height;
  if (group_rows < ranks)
    throw std::invalid_argument("cannot split " + std::to_string(ny) + " rows into " + std::to_string(ranks) +
                                " slabs of whole " + group_name(unit) + " rows (" + std::to_string(group_rows) +
                                " rows of " + groups_name(unit) + " of height " + std::to_string(group_height) +
                                "): use fewer ranks or a lower " + (unit.tiles ? "--tile" : "--local-size") +
                                " height");
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

std::vector<Slab> slabs_from_heights(const std::vector<int>& heights, int ny, int ranks, RowUnit unit) {
  const int group_height = unit.height;
  if (static_cast<int>(heights.size()) != ranks)
    throw std::invalid_argument("--slab-rows gives " + std::to_string(heights.size()) + " slab height(s) for " +
                                std::to_string(ranks) + " MPI rank(s)");
  std::vector<Slab> slabs;
  long long first = 0;
  for (int r = 0; r < ranks; ++r) {
    if (heights[r] < 1) throw std::invalid_argument("--slab-rows: every slab needs at least one row");
    if (r + 1 < ranks && heights[r] % group_height != 0)
      throw std::invalid_argument("--slab-rows: slab " + std::to_string(r) + " has " + std::to_string(heights[r]) +
                                  " rows, not a multiple of the " + group_name(unit) + " height " +
                                  std::to_string(group_height) + " (only the top slab may end in a partial " +
                                  group_name(unit) + " row)");
    slabs.push_back({static_cast<int>(first), heights[r]});
    first += heights[r];
  }
  if (first != ny)
    throw std::invalid_argument("--slab-rows adds up to " + std::to_string(first) + " rows but the grid has " +
                                std::to_string(ny));
  return slabs;
}

SlabRows slab_kernel_rows(const Slab& s, int ny, int halo_rows) {
  const int accel = ny - 2;
  const bool owns = accel >= s.first_row && accel < s.first_row + s.rows;
  return {halo_rows, s.rows + halo_rows - 1, owns ? accel - s.first_row + halo_rows : -1, s.first_row - halo_rows, ny};
}

std::size_t grid_row_of(const Slab& slab, int halo, int row, int ny) {
  return static_cast<std::size_t>(((slab.first_row - halo + row) % ny + ny) % ny);
}

std::string heights_text(const std::vector<Slab>& slabs) {
  std::string out;
  for (const Slab& s : slabs) out += (out.empty() ? "" : ",") + std::to_string(s.rows);
  return out;
}

}  // namespace d2q9
