#include "mpi/mpi_links.hpp"

#include <map>

namespace d2q9 {

namespace {

constexpr int kTagNorth = 1;  // data moving to the rank above
constexpr int kTagSouth = 2;  // data moving to the rank below
constexpr int kTagSums = 3;   // running sums of |u|, to the rank above

class MpiLinks final : public RankLinks {
 public:
  explicit MpiLinks(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  void exchange_edges(const LatticeDevice::EdgeBuffers& edges, std::size_t bytes) override {
    const int below = (rank_ + ranks_ - 1) % ranks_;
    const int above = (rank_ + 1) % ranks_;
    const int count = static_cast<int>(bytes);
    MPI_Request requests[4];
    MPI_Irecv(edges.from_below, count, MPI_BYTE, below, kTagNorth, comm_, &requests[0]);
    MPI_Irecv(edges.from_above, count, MPI_BYTE, above, kTagSouth, comm_, &requests[1]);
    MPI_Isend(edges.send_up, count, MPI_BYTE, above, kTagNorth, comm_, &requests[2]);
    MPI_Isend(edges.send_down, count, MPI_BYTE, below, kTagSouth, comm_, &requests[3]);
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  }

  int receive_sums_from_below(double* into, int count) override {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Irecv(into, count, MPI_DOUBLE, rank_ - 1, kTagSums, comm_, &r);
    return keep(r);
  }

  int send_sums_up(const double* from, int count) override {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_Isend(from, count, MPI_DOUBLE, rank_ + 1, kTagSums, comm_, &r);
    return keep(r);
  }

  bool done(int handle, bool wait) override {
    const auto found = pending_.find(handle);
    if (found == pending_.end()) return true;
    int finished = 1;
    if (wait)
      MPI_Wait(&found->second, MPI_STATUS_IGNORE);
    else
      MPI_Test(&found->second, &finished, MPI_STATUS_IGNORE);
    if (finished) pending_.erase(found);
    return finished != 0;
  }

  void broadcast_from_top(double* values, int count) override {
    MPI_Bcast(values, count, MPI_DOUBLE, ranks_ - 1, comm_);
  }

  std::vector<unsigned char> gather_planes(const std::vector<unsigned char>& mine, const std::vector<Slab>& slabs,
                                           int nx, std::size_t value_bytes) override {
    const std::size_t own = static_cast<std::size_t>(slabs.at(rank_).rows) * nx;
    const MPI_Datatype type = value_bytes == 2 ? MPI_UINT16_T : value_bytes == 4 ? MPI_FLOAT : MPI_DOUBLE;
    std::vector<int> counts(ranks_), displs(ranks_);
    std::size_t cells = 0;
    for (int r = 0; r < ranks_; ++r) {
      counts[r] = slabs[r].rows * nx;
      displs[r] = slabs[r].first_row * nx;
      cells += static_cast<std::size_t>(counts[r]);
    }
    std::vector<unsigned char> all;
    if (rank_ == 0) all.resize(kSpeeds * cells * value_bytes);
    for (int k = 0; k < kSpeeds; ++k)
      MPI_Gatherv(mine.data() + k * own * value_bytes, static_cast<int>(own), type,
                  rank_ == 0 ? all.data() + k * cells * value_bytes : nullptr, counts.data(), displs.data(), type, 0,
                  comm_);
    return all;
  }

 private:
  int keep(MPI_Request r) {
    pending_[next_] = r;
    return next_++;
  }

  MPI_Comm comm_;
  int rank_ = 0;
  int ranks_ = 1;
  std::map<int, MPI_Request> pending_;
  int next_ = 0;
};

}  // namespace

std::unique_ptr<RankLinks> make_mpi_links(MPI_Comm comm) { return std::make_unique<MpiLinks>(comm); }

}  // namespace d2q9
