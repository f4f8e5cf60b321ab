#include "mpi/mpi_links.hpp"

#include "mpi/copy_team.hpp"

#include <unistd.h>

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace d2q9 {

namespace {

constexpr int kTagNorth = 1;  // data moving to the rank above
constexpr int kTagSouth = 2;  // data moving to the rank below
constexpr int kTagSums = 3;   // running sums of |u|, to the rank above
constexpr int kTagMarkUp = 4;    // an exchange's number, to the rank above (direct halos)
constexpr int kTagMarkDown = 5;  // the same, to the rank below
constexpr int kTagShared = 6;    // what a device shares of its lattice, to both neighbours (once)
constexpr int kTagEdgesUp = 7;    // an exchange's number, to the rank above (edge rows in shared memory)
constexpr int kTagEdgesDown = 8;  // the same, to the rank below

class MpiLinks final : public RankLinks {
 public:
  explicit MpiLinks(MPI_Comm comm) : comm_(comm) {
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &ranks_);
  }
  ~MpiLinks() override {
    // Collective, as every rank's step loop ends alike; a rank unwinding
    // alone from a failure leaves it to MPI_Abort.
    if (window_ != MPI_WIN_NULL && std::uncaught_exceptions() == 0) {
      MPI_Win_unlock_all(window_);
      MPI_Win_free(&window_);
    }
  }

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }

  int share_edges(std::size_t bytes) override {
    // Every rank on one host (a node communicator as large as comm_, whose
    // ranks then are comm_'s): a window each rank's neighbours read.
    MPI_Comm host;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
    int host_ranks = 0;
    MPI_Comm_size(host, &host_ranks);
    const bool one_host = on_every_rank(host_ranks == ranks_);
    if (one_host) {
      // The threads' number first: a bad D2Q9_HALO_THREADS stops every rank
      // before the window. The threads themselves only if rows are copied.
      copy_threads_ = halo_copy_threads(host_ranks);
      // Two exchanges' edge rows (up, then down, each `bytes`): the neighbours
      // read one exchange's while this rank writes the next's. Each rank's
      // part whole pages of its own, so that a device can pin each apart.
      const long page = sysconf(_SC_PAGESIZE);
      part_bytes_ = (4 * bytes + page - 1) / page * page;
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "alloc_shared_noncontig", "true");
      MPI_Win_allocate_shared(static_cast<MPI_Aint>(part_bytes_), 1, info, host, &mine_, &window_);
      MPI_Info_free(&info);
      MPI_Win_lock_all(MPI_MODE_NOCHECK, window_);
      MPI_Aint size = 0;
      int unit = 0;
      MPI_Win_shared_query(window_, below(), &size, &unit, &below_);
      MPI_Win_shared_query(window_, above(), &size, &unit, &above_);
      shared_bytes_ = bytes;
    }
    MPI_Comm_free(&host);
    return one_host ? copy_threads_ : 0;
  }

  std::vector<std::pair<unsigned char*, std::size_t>> shared_memory() const override {
    std::vector<std::pair<unsigned char*, std::size_t>> parts;
    for (unsigned char* part : {mine_, below_, above_})
      if (part && std::none_of(parts.begin(), parts.end(), [&](const auto& p) { return p.first == part; }))
        parts.emplace_back(part, part_bytes_);
    return parts;
  }

  LatticeDevice::EdgeBuffers next_edges_in_place() const override {
    const std::size_t slot = static_cast<std::size_t>(edge_exchanges_ % 2) * 2 * shared_bytes_;
    LatticeDevice::EdgeBuffers edges;
    edges.send_up = mine_ + slot;
    edges.send_down = mine_ + slot + shared_bytes_;
    edges.from_below = below_ + slot;                  // what it sent up
    edges.from_above = above_ + slot + shared_bytes_;  // what it sent down
    return edges;
  }

  void exchange_edges_in_place() override {
    if (window_ == MPI_WIN_NULL) throw std::logic_error("exchange_edges_in_place: no window (share_edges)");
    tell_neighbours_edges_are_in();
  }

  void exchange_edges(const LatticeDevice::EdgeBuffers& edges, std::size_t bytes) override {
    if (window_ != MPI_WIN_NULL) {
      exchange_in_shared_memory(edges, bytes);
      return;
    }
    const int below = (rank_ + ranks_ - 1) % ranks_;
    const int above = (rank_ + 1) % ranks_;
    const int count = static_cast<int>(bytes);
    MPI_Request requests[4];
    MPI_Irecv(edges.from_below, count, MPI_BYTE, below, kTagNorth, comm_, &requests[0]);
    MPI_Irecv(edges.from_above, count, MPI_BYTE, above, kTagSouth, comm_, &requests[1]);
    MPI_Isend(edges.send_up, count, MPI_BYTE, above, kTagNorth, comm_, &requests[2]);
    MPI_Isend(edges.send_down, count, MPI_BYTE, below, kTagSouth, comm_, &requests[3]);
    const double start = MPI_Wtime();
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    neighbour_wait_s_ += MPI_Wtime() - start;
  }

  double neighbour_wait_s() const override { return neighbour_wait_s_; }

  bool neighbours_on_this_host() override {
    // Each rank's host is named by the lowest world rank on it.
    MPI_Comm host;
    MPI_Comm_split_type(comm_, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &host);
    int host_id = rank_;
    MPI_Allreduce(&rank_, &host_id, 1, MPI_INT, MPI_MIN, host);
    MPI_Comm_free(&host);
    std::vector<int> hosts(ranks_);
    MPI_Allgather(&host_id, 1, MPI_INT, hosts.data(), 1, MPI_INT, comm_);
    return hosts[below()] == host_id && hosts[above()] == host_id;
  }

  bool on_every_rank(bool value) override {
    int mine = value ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm_);
    return all != 0;
  }

  std::pair<std::vector<unsigned char>, std::vector<unsigned char>> swap_with_neighbours(
      const std::vector<unsigned char>& mine) override {
    // Every rank shares the same number of bytes (the device's layout), or none.
    auto shift = [&](int to, int from) {
      unsigned long long size = mine.size(), incoming = 0;
      MPI_Sendrecv(&size, 1, MPI_UNSIGNED_LONG_LONG, to, kTagShared, &incoming, 1, MPI_UNSIGNED_LONG_LONG, from,
                   kTagShared, comm_, MPI_STATUS_IGNORE);
      std::vector<unsigned char> theirs(incoming);
      MPI_Sendrecv(mine.data(), static_cast<int>(size), MPI_BYTE, to, kTagShared, theirs.data(),
                   static_cast<int>(incoming), MPI_BYTE, from, kTagShared, comm_, MPI_STATUS_IGNORE);
      return theirs;
    };
    std::vector<unsigned char> from_below = shift(above(), below());
    std::vector<unsigned char> from_above = shift(below(), above());
    return {std::move(from_below), std::move(from_above)};
  }

  void barrier() override { MPI_Barrier(comm_); }

  void announce_marks(long long number) override {
    if (marks_pending_) throw std::logic_error("announce_marks: the previous exchange's marks were not awaited");
    marks_sent_ = number;
    MPI_Irecv(&marks_received_[0], 1, MPI_LONG_LONG, below(), kTagMarkUp, comm_, &mark_requests_[0]);
    MPI_Irecv(&marks_received_[1], 1, MPI_LONG_LONG, above(), kTagMarkDown, comm_, &mark_requests_[1]);
    MPI_Isend(&marks_sent_, 1, MPI_LONG_LONG, above(), kTagMarkUp, comm_, &mark_requests_[2]);
    MPI_Isend(&marks_sent_, 1, MPI_LONG_LONG, below(), kTagMarkDown, comm_, &mark_requests_[3]);
    marks_pending_ = true;
  }

  void await_marks(long long number) override {
    if (!marks_pending_ || marks_sent_ != number)
      throw std::logic_error("await_marks: exchange " + std::to_string(number) + " was not announced");
    MPI_Waitall(4, mark_requests_, MPI_STATUSES_IGNORE);
    marks_pending_ = false;
    // The ranks exchange in lockstep: another number means the step loops disagree.
    for (long long received : marks_received_)
      if (received != number)
        throw std::logic_error("await_marks: a neighbour announced exchange " + std::to_string(received) +
                               " during exchange " + std::to_string(number));
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
                                           int nx, int planes, std::size_t value_bytes) override {
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
    if (rank_ == 0) all.resize(planes * cells * value_bytes);
    for (int k = 0; k < planes; ++k)
      MPI_Gatherv(mine.data() + k * own * value_bytes, static_cast<int>(own), type,
                  rank_ == 0 ? all.data() + k * cells * value_bytes : nullptr, counts.data(), displs.data(), type, 0,
                  comm_);
    return all;
  }

 private:
  // This rank's edge rows into its window's slot for this exchange; once
  // both neighbours say theirs are in theirs, theirs into this rank's halo
  // buffers.
  void exchange_in_shared_memory(const LatticeDevice::EdgeBuffers& edges, std::size_t bytes) {
    if (bytes != shared_bytes_) throw std::logic_error("exchange_edges: not the bytes share_edges was given");
    if (!copies_) copies_ = std::make_unique<CopyTeam>(copy_threads_);
    const LatticeDevice::EdgeBuffers slots = next_edges_in_place();
    copies_->run({{slots.send_up, edges.send_up, bytes}, {slots.send_down, edges.send_down, bytes}});
    tell_neighbours_edges_are_in();
    copies_->run({{edges.from_below, slots.from_below, bytes}, {edges.from_above, slots.from_above, bytes}});
  }

  // This exchange's edge rows are in this rank's slot: tells both
  // neighbours so and waits until theirs are in theirs. A neighbour writes
  // the same slot again two exchanges later, after it has heard that this
  // rank reached the next exchange, so after this rank's copies from it.
  void tell_neighbours_edges_are_in() {
    MPI_Win_sync(window_);
    long long number = edge_exchanges_++, from_below = -1, from_above = -1;
    MPI_Request requests[4];
    MPI_Irecv(&from_below, 1, MPI_LONG_LONG, below(), kTagEdgesUp, comm_, &requests[0]);
    MPI_Irecv(&from_above, 1, MPI_LONG_LONG, above(), kTagEdgesDown, comm_, &requests[1]);
    MPI_Isend(&number, 1, MPI_LONG_LONG, above(), kTagEdgesUp, comm_, &requests[2]);
    MPI_Isend(&number, 1, MPI_LONG_LONG, below(), kTagEdgesDown, comm_, &requests[3]);
    const double start = MPI_Wtime();
    MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
    neighbour_wait_s_ += MPI_Wtime() - start;
    if (from_below != number || from_above != number)
      throw std::logic_error("exchange_edges: a neighbour is at another exchange");
    MPI_Win_sync(window_);
  }

  int keep(MPI_Request r) {
    pending_[next_] = r;
    return next_++;
  }

  int below() const { return (rank_ + ranks_ - 1) % ranks_; }
  int above() const { return (rank_ + 1) % ranks_; }

  MPI_Comm comm_;
  int rank_ = 0;
  int ranks_ = 1;
  std::map<int, MPI_Request> pending_;
  int next_ = 0;
  // The exchange marks in flight: received from below and above, sent up and down.
  long long marks_sent_ = 0;
  long long marks_received_[2] = {0, 0};
  MPI_Request mark_requests_[4] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  bool marks_pending_ = false;
  // Edge rows through memory the ranks of one host share (share_edges).
  MPI_Win window_ = MPI_WIN_NULL;
  unsigned char* mine_ = nullptr;   // this rank's slots
  unsigned char* below_ = nullptr;  // the neighbours'
  unsigned char* above_ = nullptr;
  std::size_t shared_bytes_ = 0;  // each edge's
  std::size_t part_bytes_ = 0;    // each rank's part of the window
  int copy_threads_ = 0;
  std::unique_ptr<CopyTeam> copies_;  // made at the first exchange that copies
  long long edge_exchanges_ = 0;
  double neighbour_wait_s_ = 0;
};

}  // namespace

std::unique_ptr<RankLinks> make_mpi_links(MPI_Comm comm) { return std::make_unique<MpiLinks>(comm); }

}  // namespace d2q9
