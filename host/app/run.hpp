// The one run path of d2q9-bgk, for one process and for N MPI ranks alike:
// inputs, solver, step loop, outputs and summary.
#pragma once

#include "app/cli.hpp"
#include "core/ranks.hpp"

namespace d2q9 {

// Runs the problem `options` names on this rank's part of the grid. Every
// rank calls it with the same options; rank 0 writes the files and prints.
// Failures are thrown (agreed on by every rank where they can be), never printed.
void run(const Options& options, Ranks& ranks);

// The whole program after its rank context exists: options, --help,
// --list-devices and run(), with errors printed once. Returns the exit status.
int run_program(int argc, const char* const argv[], Ranks& ranks);

}  // namespace d2q9
