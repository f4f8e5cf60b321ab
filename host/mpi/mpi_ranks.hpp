// MPI start-up and the rank context of a run split across MPI ranks.
#pragma once

#include <mpi.h>

#include "core/ranks.hpp"

namespace d2q9 {

// How many processes an MPI launcher started, read from its environment
// (Open MPI's mpirun, MPICH's Hydra, Slurm's PMI); 1 without a launcher.
// Read before MPI_Init, so a single process never initialises MPI.
int mpi_launch_size();

// This rank's number among the ranks of its host (collective over comm).
int node_rank(MPI_Comm comm);


// Initialises MPI on construction and finalises it on destruction; every
// collective runs on a duplicate of MPI_COMM_WORLD.
class MpiRanks final : public Ranks {
 public:
  MpiRanks(int& argc, char**& argv);
  ~MpiRanks() override;
  MpiRanks(const MpiRanks&) = delete;
  MpiRanks& operator=(const MpiRanks&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void agree(std::exception_ptr failure) override;
  int max(int value) override;
  int broadcast(int value) override;
  double max(double value) override;
  double broadcast(double value) override;
  std::string broadcast(const std::string& value) override;
  std::string broadcast_after_wait(const std::string& value) override;
  std::vector<std::string> gather(const std::string& mine) override;
  std::pair<std::string, std::string> exchange_with_neighbours(const std::string& down, const std::string& up) override;
  void gather_records(const void* mine, std::size_t count, std::size_t record_bytes, void* all) override;
  void write_in_rank_order(const std::string& file, const std::string& mine, const std::string& name) override;
  [[noreturn]] void abort(std::exception_ptr failure) override;

  // A communicator of its own for a solver (its point-to-point tags never
  // meet ours); freed with this object.
  MPI_Comm solver_comm();

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  MPI_Comm solver_comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace d2q9
