// One horizontal slab of the grid per MPI rank, each on its own device of any
// backend (device/slab_device.hpp). Every step updates the slab's edge rows
// first and exchanges them while the interior is updated.
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
#include "device/slab_device.hpp"
#include "mpi/slab_layout.hpp"

namespace d2q9 {

// The lattice slab `slab` of the grid puts on its device: its rows with a
// halo row below and above, their obstacle flags, its kernel build.
SlabLattice slab_lattice(const Params& params, const ObstacleMask& mask, Precision precision, const LaunchPlan& plan,
                         const Slab& slab);

// Uses `comm` (give it one of its own: point-to-point tags 1 to 3) only in
// run() and distributions(), which are collective; construction and
// load_distributions() are local, so a rank that fails to build its solver
// can report it before any rank blocks in a collective.
// run() appends the average velocities on every rank. distributions() returns
// the whole grid on rank 0 and an empty vector on the other ranks (for
// checkpoints and snapshots); the solver is also a HoldsRows, whose
// own_rows() returns this rank's slab alone, for the final outputs.
// load_distributions() takes the whole grid on every rank.
// `plan` is the whole grid's (a one-step variant); `slabs` one per rank of
// `comm`, bottom to top, on whole work-group rows of the plan; `device` holds
// this rank's slab_lattice() on a device of `backend`.
std::unique_ptr<Solver> make_slab_solver(Backend backend, Precision precision, const Params& params,
                                         const ObstacleMask& mask, const LaunchPlan& plan,
                                         const std::vector<Slab>& slabs, MPI_Comm comm,
                                         std::unique_ptr<SlabDevice> device);

}  // namespace d2q9
