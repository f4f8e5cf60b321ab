#include "core/printable.hpp"
#include "mpi/mpi_ranks.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <thread>
#include <utility>

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

// One scalar reduced to its maximum, or sent from rank 0, over `comm`.
template <typename T>
T all_max(T value, MPI_Datatype type, MPI_Comm comm) {
  T out = value;
  MPI_Allreduce(&value, &out, 1, type, MPI_MAX, comm);
  return out;
}
template <typename T>
T from_root(T value, MPI_Datatype type, MPI_Comm comm) {
  MPI_Bcast(&value, 1, type, 0, comm);
  return value;
}

int MpiRanks::max(int value) { return all_max(value, MPI_INT, comm_); }
int MpiRanks::broadcast(int value) { return from_root(value, MPI_INT, comm_); }
double MpiRanks::max(double value) { return all_max(value, MPI_DOUBLE, comm_); }
double MpiRanks::broadcast(double value) { return from_root(value, MPI_DOUBLE, comm_); }

std::string MpiRanks::broadcast(const std::string& value) {
  unsigned long long length = value.size();
  MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_);
  std::string out = rank_ == 0 ? value : std::string(length, '\0');
  MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
  return out;
}

std::string MpiRanks::broadcast_after_wait(const std::string& value) {
  unsigned long long length = value.size();
  MPI_Request request;
  MPI_Ibcast(&length, 1, MPI_UNSIGNED_LONG_LONG, 0, comm_, &request);
  if (rank_ == 0) MPI_Wait(&request, MPI_STATUS_IGNORE);
  for (int done = rank_ == 0; !done && MPI_Test(&request, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS;)
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::string out = rank_ == 0 ? value : std::string(length, '\0');
  MPI_Bcast(out.data(), static_cast<int>(length), MPI_CHAR, 0, comm_);
  return out;
}

std::pair<std::string, std::string> MpiRanks::exchange_with_neighbours(const std::string& down, const std::string& up) {
  const int below = (rank_ + size_ - 1) % size_, above = (rank_ + 1) % size_;
  constexpr int kTagDown = 11, kTagUp = 12;
  // Each direction: the sizes, then the bytes.
  auto shift = [&](const std::string& mine, int to, int from, int tag) {
    unsigned long long length = mine.size(), incoming = 0;
    MPI_Sendrecv(&length, 1, MPI_UNSIGNED_LONG_LONG, to, tag, &incoming, 1, MPI_UNSIGNED_LONG_LONG, from, tag, comm_,
                 MPI_STATUS_IGNORE);
    std::string out(incoming, '\0');
    MPI_Sendrecv(mine.data(), static_cast<int>(length), MPI_BYTE, to, tag, out.data(), static_cast<int>(incoming),
                 MPI_BYTE, from, tag, comm_, MPI_STATUS_IGNORE);
    return out;
  };
  std::string from_above = shift(down, below, above, kTagDown);
  std::string from_below = shift(up, above, below, kTagUp);
  return {std::move(from_below), std::move(from_above)};
}

void MpiRanks::gather_records(const void* mine, std::size_t count, std::size_t record_bytes, void* all) {
  // Counted in records, so that no count or displacement overflows an int
  // before a rank holds 2^31 records.
  MPI_Datatype record;
  MPI_Type_contiguous(static_cast<int>(record_bytes), MPI_BYTE, &record);
  MPI_Type_commit(&record);
  int my_count = static_cast<int>(count);
  std::vector<int> counts(size_), displs(size_);
  MPI_Gather(&my_count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm_);
  for (int r = 1; r < size_; ++r) displs[r] = displs[r - 1] + counts[r - 1];
  MPI_Gatherv(mine, my_count, record, all, counts.data(), displs.data(), record, 0, comm_);
  MPI_Type_free(&record);
}

namespace {

std::string mpi_error_text(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, length);
}

}  // namespace

void MpiRanks::write_in_rank_order(const std::string& file, const std::string& mine, const std::string& name) {
  // Where this rank's bytes go: after every lower rank's.
  const unsigned long long size = mine.size();
  unsigned long long offset = 0;
  MPI_Exscan(&size, &offset, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm_);
  if (rank_ == 0) offset = 0;  // MPI_Exscan leaves rank 0's undefined
  MPI_File handle = MPI_FILE_NULL;
  const int opened = MPI_File_open(comm_, file.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &handle);
  std::exception_ptr failure;
  if (opened != MPI_SUCCESS)
    failure = std::make_exception_ptr(std::runtime_error(name + ": cannot open file (" + mpi_error_text(opened) + ")"));
  agree(failure);
  // One collective write, in as many calls on every rank as the largest part
  // needs (an MPI count is an int).
  constexpr unsigned long long kMaxCall = 1ull << 30;
  const int calls = max(static_cast<int>((size + kMaxCall - 1) / kMaxCall));
  for (int call = 0; call < calls; ++call) {
    const unsigned long long begin = std::min(size, call * kMaxCall);
    const int count = static_cast<int>(std::min(kMaxCall, size - begin));
    MPI_Status status;
    const int wrote = MPI_File_write_at_all(handle, static_cast<MPI_Offset>(offset + begin), mine.data() + begin, count,
                                            MPI_BYTE, &status);
    int written = 0;
    if (wrote == MPI_SUCCESS) MPI_Get_count(&status, MPI_BYTE, &written);
    if (!failure && (wrote != MPI_SUCCESS || written != count))
      failure = std::make_exception_ptr(std::runtime_error(
          name + ": write failed (" +
          (wrote != MPI_SUCCESS ? mpi_error_text(wrote) : std::to_string(written) + " of " + std::to_string(count) + " bytes written") +
          ")"));
  }
  const int closed = MPI_File_close(&handle);
  if (!failure && closed != MPI_SUCCESS)
    failure = std::make_exception_ptr(std::runtime_error(name + ": write failed (" + mpi_error_text(closed) + ")"));
  agree(failure);
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
