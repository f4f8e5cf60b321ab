// The final state as legacy VTK image data (STRUCTURED_POINTS, binary), which
// ParaView and VisIt open directly: one point per cell at (ii, jj, 0).
#pragma once

#include <cstdio>
#include <vector>

#include "model/problem.hpp"

namespace d2q9 {

// Point data, all big-endian double as the legacy format requires except the
// flag: density (params density on obstacles, as final_state.dat reports them),
// velocity (ux, uy, 0), speed |u|, obstacle (unsigned char, 1 = blocked).
void write_vtk(std::FILE* out, const Params& params, const ObstacleMask& mask, const std::vector<double>& f);

}  // namespace d2q9
