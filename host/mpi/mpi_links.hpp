// The step loop's links between the ranks of a split grid, over MPI.
#pragma once

#include <mpi.h>

#include <memory>

#include "device/rank_links.hpp"

namespace d2q9 {

// Uses `comm` (give it one of its own: point-to-point tags 1 to 8); the
// ranks of `comm` hold the slabs bottom to top.
std::unique_ptr<RankLinks> make_mpi_links(MPI_Comm comm);

}  // namespace d2q9
