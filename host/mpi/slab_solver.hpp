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

#include "device/solver.hpp"
#include "mpi/slab_layout.hpp"

namespace d2q9 {

// Uses `comm` (give it one of its own: point-to-point tags 1 and 2) only in
// run() and distributions(), which are collective; construction and
// load_distributions() are local, so a rank that fails to build its solver
// can report it before any rank blocks in a collective.
// run() appends the average velocities on every rank. distributions() returns
// the whole grid on rank 0 and an empty vector on the other ranks (for
// checkpoints and snapshots); the solver is also a HoldsRows, whose
// own_rows() returns this rank's slab alone, for the final outputs.
// load_distributions() takes the whole grid on every rank.
// `plan` is the whole grid's (variant fused); `slabs` one per rank of `comm`,
// bottom to top, on whole work-group rows of the plan.
std::unique_ptr<Solver> make_slab_solver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                                         const LaunchPlan& plan, const std::vector<Slab>& slabs, MPI_Comm comm);

}  // namespace d2q9
