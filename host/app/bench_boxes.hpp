// The closed boxes the benchmarks time (d2q9-bench, d2q9-mpi-bench): the
// coursework's box, walls on all four edges, and the thermal box.
#pragma once

#include "problem/problem.hpp"

namespace d2q9 {

// The box of nx x ny cells with the coursework's density, acceleration and
// omega; `steps` steps, the Reynolds number's length `reynolds_dim`.
Params box_params(int nx, int ny, int steps, int reynolds_dim);
// The box with heat: a D2Q5 temperature lattice beside the flow's (14 values
// a cell), the left wall held at +0.5 and the right at -0.5, buoyant.
Params heat_box_params(int nx, int ny, int steps, int reynolds_dim);
// Walls on all four edges.
ObstacleMask box_mask(int nx, int ny);
// box_mask with its left wall cells numbered 1 and its right 2 (heat_box_params' walls).
ObstacleMask heat_box_mask(int nx, int ny);

}  // namespace d2q9
