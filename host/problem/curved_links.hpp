// Curved walls' links for interpolated bounce-back (cl/d2q9_bgk.cl,
// CURVED_LINKS; docs/problem-files.md, boundary = "interpolated").
#pragma once

#include <cstdint>
#include <vector>

#include "problem/problem.hpp"

namespace d2q9 {

struct Circle {
  Vec2 center;
  double radius = 0.0;
  bool outside = false;  // the obstacle is all but the disc (a ring around the fluid)
};

// A link's byte for a wall at q (0 < q <= 1) of its length from the fluid
// cell: round(255 q), at least 1. The kernels read q as code / 255.
std::uint8_t link_code(double q);

// mask.links for the given circles, on the finished mask (every shape and
// edge set): for each fluid cell and speed k whose neighbour (ii, jj) - e_k is
// a cell a circle covers (its disc, or all but its disc), the nearest of those circles' crossings of the
// link; 0 for every other link. A crossing nearer than half-way needs the
// fluid cell beyond (ii, jj) + e_k to interpolate with: where that cell is
// an obstacle, or lies across an edge that is not periodic (`open_x`: the
// left and right edges, `open_y`: the bottom and top), the crossing is moved out to half-way
// (code 128), the link's plain half-way bounce-back, which reads nothing
// beyond: otherwise a wall beside the inlet would read the outlet's cells.
std::vector<std::uint8_t> circle_links(const ObstacleMask& mask, const std::vector<Circle>& circles,
                                       bool open_x = false, bool open_y = false);

// The most fluid cells with a curved link (mask.links) in any `window` x
// `window` block of cells, the grid being periodic in both directions (as
// the blocked kernel's regions wrap); 0 without links.
int curved_cells_in_windows(const ObstacleMask& mask, int window);

}  // namespace d2q9
