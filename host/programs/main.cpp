// d2q9-bgk: one process, or one of N MPI ranks splitting the grid; the same
// run path either way (app/run.cpp).
#include "app/run.hpp"
#include "sim/backend.hpp"

int main(int argc, char* argv[]) {
  std::unique_ptr<d2q9::Ranks> ranks = d2q9::start_ranks(argc, argv);
  return d2q9::run_program(argc, argv, *ranks);
}
