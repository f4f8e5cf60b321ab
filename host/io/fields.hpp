// The macroscopic fields of a state, per cell, as the pictures and VTK files
// show them: velocity, speed and density from cell_state (the one place that
// sums the distributions), and the vorticity derived from the velocity.
#pragma once

#include <vector>

#include "problem/problem.hpp"
#include "io/state_rows.hpp"

namespace d2q9 {

struct FlowFields {
  int nx = 0, ny = 0;  // ny: the rows held, global rows [first_row, first_row + ny)
  int first_row = 0;   // 0 for the whole grid; an MPI rank's fields start at its slab
  // Row-major like the mask: index ii + (jj - first_row)*nx. Obstacle cells
  // hold zero velocity and vorticity and the params density, as
  // final_state.dat does.
  std::vector<double> ux, uy, speed, density, vorticity;
  std::vector<double> temperature;  // with heat only (CellState::temperature), else empty

  FlowFields() = default;
  // nx x rows cells from global row first_row, velocity, speed and density
  // zeroed (vorticity is computed from them later).
  FlowFields(int nx_, int rows, int first_row_ = 0)
      : nx(nx_), ny(rows), first_row(first_row_),
        ux(static_cast<std::size_t>(nx_) * rows), uy(ux.size()), speed(ux.size()), density(ux.size()) {}
};

FlowFields flow_fields(const Params& params, const ObstacleMask& mask, const std::vector<double>& f);

// w = d(uy)/dx - d(ux)/dy by central differences on the periodic grid,
// obstacle neighbours counting as velocity 0 (the no-slip walls that bounce-back
// models); 0 on obstacle cells themselves.
std::vector<double> vorticity(int nx, int ny, const ObstacleMask& mask, const std::vector<double>& ux,
                              const std::vector<double>& uy);

// The fields of the rows `state` holds, in two halves for a grid split
// across ranks: velocity_fields gives ux, uy, speed and density (no
// vorticity); add_vorticity then needs ux and uy of the row just below the
// first and just above the last (periodic in y), each as velocity_row gives
// them: nx values of ux, then nx of uy. Both halves together give the same
// values as flow_fields on the whole grid, bit for bit.
FlowFields velocity_fields(const Params& params, const ObstacleMask& mask, const StateRows& state);
std::vector<double> velocity_row(const FlowFields& fields, int global_row);
void add_vorticity(FlowFields& fields, const ObstacleMask& mask, const std::vector<double>& below,
                   const std::vector<double>& above);

}  // namespace d2q9
