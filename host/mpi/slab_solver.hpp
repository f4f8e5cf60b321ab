// One horizontal slab of the grid per MPI rank, each on its own OpenCL device.
// Halo rows are exchanged every step, while the slab's interior is updated.
// Each step's per-group partial sums of |u| are added in the grid's group
// order, as one device adds them: every rank continues the running sums of
// the ranks below over its own groups and passes them up. So results are
// byte-identical to a single-device run with the same work-group shape.
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
  // Steps whose partial sums are read back and passed on at once; 0: at most
  // 64, and at most about 4M values over the whole grid.
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
