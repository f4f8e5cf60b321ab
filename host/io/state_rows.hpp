// The rows of a run's final state that one process holds when it writes the
// outputs: the whole grid on one process, its own slab on an MPI rank (which
// so never needs the whole grid; see docs/mpi.md).
#pragma once

#include <vector>

namespace d2q9 {

// The distributions of global rows [first_row, first_row + rows) of an
// nx-wide grid, structure of arrays over these rows only: speed k of cell
// (ii, first_row + r) at f[k * rows * nx + r * nx + ii]. The whole grid
// (first_row 0, rows ny) is laid out as Solver::distributions() returns it.
struct StateRows {
  int first_row = 0;
  int rows = 0;
  std::vector<double> f;
};

// A solver that holds only part of the grid (an MPI rank's slab) hands over
// its own rows with this, without gathering the grid anywhere; a solver
// without it holds the whole grid (Solver::distributions()).
class HoldsRows {
 public:
  // Local: no other rank takes part.
  virtual StateRows own_rows() = 0;

 protected:
  ~HoldsRows() = default;
};

}  // namespace d2q9
