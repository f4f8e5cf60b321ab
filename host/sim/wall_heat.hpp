// The heat each thermal wall exchanges with the fluid, and its Nusselt
// number (WallHeat: sim/measurements.hpp), from a state of the lattice
// (docs/heat.md#nusselt-numbers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ranks.hpp"
#include "io/state_rows.hpp"
#include "problem/problem.hpp"
#include "sim/measurements.hpp"

namespace d2q9 {

// Each wall number with a temperature or a heat flux that touches fluid, in
// number order. f: the whole lattice (Solver::distributions), 14 planes.
// Per face, what the wall cell sends back less what the fluid cell sent it:
// in a steady state, the heat through that face each step.
std::vector<WallHeat> wall_heat(const Params& params, const ObstacleMask& mask, const std::vector<double>& f);
// The same walls, in the same order, with their faces but no heat: what
// wall_heat will report on, known before any state.
std::vector<WallHeat> heated_walls(const Params& params, const ObstacleMask& mask);

// nusselt.csv's walls from the few cells they touch: the faces are found
// once from the mask, and each row reads only those cells
// (Solver::cell_distributions) instead of the whole lattice; the numbers
// are wall_heat's, to the bit.
class WallHeatCells {
 public:
  WallHeatCells(const Params& params, const ObstacleMask& mask);
  // The cells to read, ascending.
  const std::vector<std::size_t>& cells() const { return cells_; }
  // wall_heat from `values`: cells()' values, planes() a cell, cell after cell.
  std::vector<WallHeat> heat(const std::vector<double>& values) const;

 private:
  // A face as positions of values: its fluid cell's speed and its wall cell's opposite one.
  struct Link {
    std::int64_t number;
    std::size_t fluid, wall;
  };
  Params params_;
  std::vector<std::size_t> cells_;
  std::vector<Link> links_;
};

// The same from each rank's own rows (the whole grid on one process),
// collective: the ranks pass their edge rows' temperature planes to their
// neighbours, each finds the heat through the faces of its fluid cells, and
// rank 0 adds them up in the grid's order, so that its walls are one
// process's to the bit; empty on the other ranks.
std::vector<WallHeat> wall_heat(Ranks& ranks, const Params& params, const ObstacleMask& mask, const StateRows& own);

}  // namespace d2q9
