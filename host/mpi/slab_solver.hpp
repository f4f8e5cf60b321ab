// One horizontal slab of the grid per MPI rank, each on its own OpenCL device.
// Halo rows are exchanged every step and the per-group partial sums of |u| are
// added on rank 0 in global group order, so results are byte-identical to a
// single-device run with the fused kernel variant and the same work-group shape.
#pragma once

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

#include "../solver.hpp"
#include "slab_layout.hpp"

namespace d2q9 {

struct SlabSolverOptions {
  int device_index = 0;  // this rank's OpenCL device (flat index, as --device takes it)
  LocalSize local_size;  // explicit: every rank must use the same shape
  Precision precision = Precision::Float;
  std::string kernels_dir;
  std::vector<Slab> slabs;  // one per rank of the communicator, bottom to top
  // Steps whose partial sums are gathered at once; 0 picks about 4M values in all.
  int max_chunk_steps = 0;
};

// Uses `comm` (give it one of its own: point-to-point tags 1 and 2) only in
// run() and distributions(), which are collective; construction and
// load_distributions() are local, so a rank that fails to build its solver
// can report it before any rank blocks in a collective.
// run() appends the average velocities on every rank. distributions() returns
// the whole grid on rank 0 and an empty vector on the other ranks.
// load_distributions() takes the whole grid on every rank.
std::unique_ptr<Solver> make_slab_solver(const Params& params, const ObstacleMask& mask,
                                         const SlabSolverOptions& options, MPI_Comm comm);

}  // namespace d2q9
