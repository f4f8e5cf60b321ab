#include "device/halo_exchange.hpp"

#include <cstdlib>
#include <exception>

#include "core/stopwatch.hpp"

namespace d2q9 {

HaloExchange::HaloExchange(LatticeDevice& device, RankLinks& links, std::size_t edge_bytes)
    : device_(device), links_(links), edge_bytes_(edge_bytes), edges_(device.edge_buffers()) {}

void HaloExchange::choose_path() {
  const std::string asked = std::getenv("D2Q9_HALOS") ? std::getenv("D2Q9_HALOS") : "";
  if (!asked.empty() && asked != "host" && asked != "copied" && asked != "mpi" && asked != "auto")
    throw DeviceError("D2Q9_HALOS must be auto, host (halo rows through host memory), copied (through host memory the "
                      "ranks share, copied by threads) or mpi (through host memory and MPI messages), not '" + asked + "'");
  // Each question is asked of every rank alike, so that all take one path.
  bool direct = links_.on_every_rank(asked.empty() || asked == "auto");
  std::string why_not = direct ? "" : "D2Q9_HALOS=" + asked;
  LatticeDevice::SharedLattice mine;
  if (direct) {
    mine = device_.share_lattice();
    direct = links_.on_every_rank(!mine.bytes.empty());
    if (!direct) why_not = mine.bytes.empty() ? mine.why_not : "another rank's device cannot share its lattice";
  }
  if (direct) {
    direct = links_.on_every_rank(links_.neighbours_on_this_host());
    if (!direct) why_not = "ranks on several hosts";
  }
  if (direct) {
    // The neighbours' bytes, or none where the neighbour is this rank (one rank's slab).
    auto [below, above] = links_.swap_with_neighbours(mine.bytes);
    if (links_.ranks() == 1) below.clear(), above.clear();
    const std::string failed = device_.open_neighbours(below, above);
    direct = links_.on_every_rank(failed.empty());
    if (!direct) {
      device_.close_neighbours();
      why_not = failed.empty() ? "another rank could not open its neighbours' lattices" : failed;
    }
  }
  direct_ = direct;
  // Staged: through memory the ranks of one host share, or MPI messages.
  // Each device pins that memory where it can: its edge rows are read into
  // it and its halo rows written from the neighbours' parts, no host copy.
  // Else copied from one pinned buffer to the other by several threads,
  // because Open MPI's shared-memory messages copy in and out with one core,
  // which takes longer than a large slab's launch.
  const int copy_threads = !direct && asked != "mpi" ? links_.share_edges(edge_bytes_) : 0;
  const bool shared = copy_threads > 0;
  if (!direct && !shared && asked != "mpi") why_not += std::string(why_not.empty() ? "" : "; ") + "ranks on several hosts";
  if (shared && asked != "copied") {
    bool pinned = true;
    for (const auto& [memory, bytes] : links_.shared_memory()) pinned = pinned && device_.pin_host_memory(memory, bytes);
    in_place_ = links_.on_every_rank(pinned);
    if (!in_place_)
      why_not += std::string(why_not.empty() ? "" : "; ") +
                 (pinned ? "another rank's device cannot pin it" : "the device cannot pin it");
  }
  path_ = direct ? "cuda-ipc" : in_place_ ? "host-shared" : shared ? "host-shared-copied" : "host-staging";
  note_ = direct      ? "device to device (CUDA IPC)"
          : in_place_ ? "through host memory the ranks of one host share, pinned by each device (no host copies)"
          : shared    ? "through pinned host memory, shared by the ranks of one host, copied by " +
                         std::to_string(copy_threads) + (copy_threads == 1 ? " thread" : " threads")
                      : "through pinned host memory and MPI";
  if (!direct && !why_not.empty()) note_ += " (" + why_not + ")";
}

void HaloExchange::read_edges(int state) {
  if (in_place_) in_place_edges_ = links_.next_edges_in_place();
  device_.read_edges(state, in_place_ ? in_place_edges_ : edges_);
  // Marked on the device: the neighbours may now queue their copies of them.
  if (direct_) links_.announce_marks(exchanges_);
}

void HaloExchange::exchange(int state) {
  if (direct_) {
    links_.await_marks(exchanges_++);
    device_.pull_halos(state);
    return;
  }
  Stopwatch watch;
  device_.wait_edges();
  times_.read_wait_s += watch.lap();
  if (in_place_)
    links_.exchange_edges_in_place();
  else
    links_.exchange_edges(edges_, edge_bytes_);
  times_.copies_s += watch.lap();
  device_.write_halos(state, in_place_ ? in_place_edges_ : edges_);
  times_.write_queue_s += watch.lap();
  ++times_.exchanges;
}

HaloTimes HaloExchange::times() const {
  HaloTimes t = times_;
  if (!direct_) {
    t.neighbour_wait_s = links_.neighbour_wait_s();
    t.copies_s -= t.neighbour_wait_s;
  }
  return t;
}

void HaloExchange::close() {
  if (!direct_) return;
  device_.close_neighbours();
  if (std::uncaught_exceptions() == 0) links_.barrier();
}

}  // namespace d2q9
