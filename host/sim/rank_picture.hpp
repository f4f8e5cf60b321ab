// The live view's picture of a grid split across MPI ranks drawn on the
// host, for devices that cannot draw their parts (Simulation::picture; the
// OpenCL and CUDA backends draw theirs: device/rank_rows.cpp).
#pragma once

#include "core/ranks.hpp"
#include "io/field_image.hpp"
#include "io/state_rows.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// Collective: each rank samples the picture's pixels of its own rows `own`
// from their fields (the vorticity of its edge rows from ux and uy of its
// neighbours' edge rows, exchanged), rank 0 gathers the values alone (never
// the grid) and colours them over one range: field_image's picture of the
// whole grid, value for value, on rank 0; an empty one (width 0) elsewhere.
FieldImage field_image_on_ranks(Ranks& ranks, const Params& params, const ObstacleMask& mask, const StateRows& own,
                                const FieldImageRequest& request);

}  // namespace d2q9
