#include "model/printable.hpp"
#include "mpi/mpi_ranks.hpp"

#include <cstdio>
#include <cstdlib>
#include <map>

#include "opencl/opencl_solver.hpp"

namespace d2q9 {

int mpi_launch_size() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value && std::atoi(value) > 0) return std::atoi(value);
  }
  return 1;
}

int node_rank(MPI_Comm comm) {
  int rank = 0, local = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

int choose_device(int requested, int node_rank) {
  if (requested >= 0) return requested;
  const auto devices = list_opencl_devices();
  if (devices.empty()) throw DeviceError("no OpenCL device found (is an OpenCL driver such as pocl-opencl-icd installed?)");
  std::vector<int> gpus;
  for (const auto& d : devices)
    if (d.is_gpu) gpus.push_back(d.index);
  if (gpus.empty()) return default_opencl_device(devices);
  return gpus[node_rank % static_cast<int>(gpus.size())];
}

MpiRanks::MpiRanks(int& argc, char**& argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

MpiRanks::~MpiRanks() {
  if (solver_comm_ != MPI_COMM_NULL) MPI_Comm_free(&solver_comm_);
  MPI_Comm_free(&comm_);
  MPI_Finalize();
}

MPI_Comm MpiRanks::solver_comm() {
  if (solver_comm_ == MPI_COMM_NULL) MPI_Comm_dup(comm_, &solver_comm_);
  return solver_comm_;
}

int MpiRanks::max(int value) {
  int out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, comm_);
  return out;
}

int MpiRanks::broadcast(int value) {
  MPI_Bcast(&value, 1, MPI_INT, 0, comm_);
  return value;
}

std::vector<std::string> MpiRanks::gather(const std::string& mine) {
  int length = static_cast<int>(mine.size());
  std::vector<int> lengths(size_), displs(size_);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm_);
  int total = 0;
  for (int r = 0; r < size_; ++r) displs[r] = total, total += lengths[r];
  std::string all(rank_ == 0 ? total : 0, '\0');
  MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR, 0, comm_);
  std::vector<std::string> out;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(displs[r], lengths[r]));
  return out;
}

void MpiRanks::agree(std::exception_ptr failure) {
  std::string message;
  int status = 0;
  if (failure) {
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      message = e.what();
      status = exit_status(e);
    } catch (...) {
      message = "unknown failure";
      status = 1;
    }
  }
  const int worst = max(status);
  if (worst == 0) return;
  const std::vector<std::string> all = gather(failure ? message : std::string());
  if (rank_ != 0) throw RanksFailure("", worst, true);
  // Rank 0 words it once: each distinct message, naming its ranks unless
  // every rank failed alike (a bad input file: every rank reads it).
  std::map<std::string, std::vector<int>> ranks_by_message;
  std::vector<std::string> order;
  for (int r = 0; r < size_; ++r) {
    if (all[r].empty()) continue;
    if (!ranks_by_message.count(all[r])) order.push_back(all[r]);
    ranks_by_message[all[r]].push_back(r);
  }
  const bool one_message = order.size() == 1;
  const int failing = one_message ? static_cast<int>(ranks_by_message[order[0]].size()) : 0;
  if (failure && one_message && (failing == size_ || failing == 1)) std::rethrow_exception(failure);
  std::string text;
  for (const std::string& m : order) {
    const std::vector<int>& ranks = ranks_by_message[m];
    std::string who = ranks.size() == 1 ? "rank " : "ranks ";
    for (std::size_t i = 0; i < ranks.size(); ++i) who += (i ? "," : "") + std::to_string(ranks[i]);
    if (static_cast<int>(ranks.size()) == size_) who = "every rank";
    text += (text.empty() ? "" : "; ") + who + ": " + m;
  }
  throw RanksFailure(text, worst, false);
}

void MpiRanks::abort(std::exception_ptr failure) {
  std::string message = "unknown failure";
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
  }
  std::fprintf(stderr, "error: rank %d: %s\n", rank_, printable(message).c_str());
  std::fflush(stderr);
  MPI_Abort(comm_, 1);
  std::exit(1);
}

}  // namespace d2q9
