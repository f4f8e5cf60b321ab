// The macroscopic fields of a state, per cell, as the pictures and VTK files
// show them: velocity, speed and density from cell_state (the one place that
// sums the distributions), and the vorticity derived from the velocity.
#pragma once

#include <vector>

#include "model/problem.hpp"

namespace d2q9 {

struct FlowFields {
  int nx = 0, ny = 0;
  // Row-major like the mask: index ii + jj*nx. Obstacle cells hold zero
  // velocity and vorticity and the params density, as final_state.dat does.
  std::vector<double> ux, uy, speed, density, vorticity;
};

FlowFields flow_fields(const Params& params, const ObstacleMask& mask, const std::vector<double>& f);

// w = d(uy)/dx - d(ux)/dy by central differences on the periodic grid,
// obstacle neighbours counting as velocity 0 (the no-slip walls that bounce-back
// models); 0 on obstacle cells themselves.
std::vector<double> vorticity(int nx, int ny, const ObstacleMask& mask, const std::vector<double>& ux,
                              const std::vector<double>& uy);

}  // namespace d2q9
