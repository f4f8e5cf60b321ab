// The D2Q9 lattice as the host sees it: speeds, directions and the state at rest.
#pragma once

#include <vector>

#include "problem/problem.hpp"

namespace d2q9 {

constexpr int kSpeeds = 9;
constexpr int kEx[kSpeeds] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
constexpr int kEy[kSpeeds] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
constexpr int kOpposite[kSpeeds] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

// Every cell starts at rest with the given density, obstacles included;
// speed k of cell i at [k*cells + i]; with heat, the five temperature
// distributions after the nine (planes 9-13) at the initial temperature.
std::vector<double> initial_distributions(const Params& params);

}  // namespace d2q9
