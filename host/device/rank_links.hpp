// What the step loop asks of the other ranks when the grid is split into
// slabs: the halo exchange, the running partial sums passed up the ranks, and
// the gathering of the state. Implemented over MPI in host/mpi/; a single
// device needs none of it.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/slab_layout.hpp"

namespace d2q9 {

class RankLinks {
 public:
  virtual ~RankLinks() = default;
  virtual int rank() const = 0;
  virtual int ranks() const = 0;

  // Blocking: send_up to the rank above, send_down to the rank below (the
  // ranks wrap around), and from_below / from_above filled from them;
  // `bytes` in each of the four. Through memory the ranks share where
  // share_edges(bytes) said so (collective: whether every rank runs on one
  // host, and then a window of each rank's edge rows that its neighbours
  // read; returns the threads that copy them there, 0 where the ranks span
  // hosts), else MPI messages.
  virtual int share_edges(std::size_t bytes) = 0;
  virtual void exchange_edges(const LatticeDevice::EdgeBuffers& edges, std::size_t bytes) = 0;
  // The same with no copies, where every device pinned the window
  // (LatticeDevice::pin_host_memory): shared_memory() is the window as this
  // rank sees it (its own part, then its neighbours', each once: pointer
  // and bytes); next_edges_in_place() where the next exchange's rows lie in
  // it (send_up / send_down in this rank's part, from_below / from_above in
  // the neighbours'), for the device to read its edge rows into; once they
  // are there (and every copy from the window queued before them is done),
  // exchange_edges_in_place() tells the neighbours and waits until theirs
  // are, for the device to write its halo rows from.
  virtual std::vector<std::pair<unsigned char*, std::size_t>> shared_memory() const = 0;
  virtual LatticeDevice::EdgeBuffers next_edges_in_place() const = 0;
  virtual void exchange_edges_in_place() = 0;
  // Seconds the exchanges have waited for the neighbours so far (with MPI
  // messages: their whole transfer).
  virtual double neighbour_wait_s() const = 0;

  // Halo rows straight from the neighbours' devices (LatticeDevice::
  // share_lattice). Collective: whether the ranks below and above run on this
  // rank's host; whether `value` holds on every rank; `mine` to both
  // neighbours and theirs back ({from below, from above}); all ranks here.
  virtual bool neighbours_on_this_host() = 0;
  virtual bool on_every_rank(bool value) = 0;
  virtual std::pair<std::vector<unsigned char>, std::vector<unsigned char>> swap_with_neighbours(
      const std::vector<unsigned char>& mine) = 0;
  virtual void barrier() = 0;
  // Per exchange: tells both neighbours that this rank has queued the mark of
  // its edge rows for exchange `number` (read_edges), so that their copies
  // may wait on it; await_marks returns once both neighbours have said so
  // for `number`. Tiny messages: the halo bytes never pass through the host.
  virtual void announce_marks(long long number) = 0;
  virtual void await_marks(long long number) = 0;

  // Started, not waited for: `count` running sums from the rank below into
  // `into`, or from `from` to the rank above (which must stay valid until
  // done). Returns a handle for done(), which says whether the transfer has
  // finished (waiting for it with `wait`) and forgets the handle once it has.
  virtual int receive_sums_from_below(double* into, int count) = 0;
  virtual int send_sums_up(const double* from, int count) = 0;
  virtual bool done(int handle, bool wait) = 0;

  // The top rank's `count` values onto every rank.
  virtual void broadcast_from_top(double* values, int count) = 0;

  // Each rank's own rows of the lattice's `planes` planes (as stored,
  // `value_bytes` per value) gathered onto rank 0 as the whole grid's;
  // empty on the other ranks.
  virtual std::vector<unsigned char> gather_planes(const std::vector<unsigned char>& mine,
                                                   const std::vector<Slab>& slabs, int nx, int planes,
                                                   std::size_t value_bytes) = 0;
};

}  // namespace d2q9
