// d2q9-bgk under mpirun with several ranks: the grid is split into horizontal
// slabs, one per rank and device (slab_solver.hpp); rank 0 writes the files.
#pragma once

#include <mpi.h>

namespace d2q9 {

// How many processes an MPI launcher started, read from its environment
// (Open MPI's mpirun, MPICH's Hydra, Slurm's PMI); 1 without a launcher.
// Read before MPI_Init, so a single process never initialises MPI.
int mpi_launch_size();

// This rank's number among the ranks of its host (collective over comm).
int node_rank(MPI_Comm comm);

// `requested` when given (>= 0); else distinct GPUs for the ranks of a host,
// by node rank; with no GPU, the default device (PoCL's CPU device) for all.
int choose_device(int requested, int node_rank);

// The whole program (options, inputs, run, outputs, summary) across the ranks
// of MPI_COMM_WORLD; initialises and finalises MPI. Returns the exit status.
int run_mpi(int argc, char* argv[]);

}  // namespace d2q9
