// Which part of a run this process is: the only one, or one of N MPI ranks.
// The run path is written once against this; for one process every call is
// trivial. Rank 0 (the root) prints every message and writes every file,
// but for the parts of the final outputs that each rank writes of its own
// rows (final_state.dat, the pieces of a .pvti; see docs/mpi.md).
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace d2q9 {

// Values as the bytes of a message between ranks, and back (same machine
// type on every rank).
template <typename T>
std::string to_bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(T));
}
template <typename T>
std::vector<T> from_bytes(const std::string& bytes) {
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

// A failure that ends the program with an exit status of its own (a usage
// error 2, an interrupted run 128 + the signal): the layer that raises it
// knows the status, so nothing below has to know every such failure.
class StatusError : public std::runtime_error {
 public:
  StatusError(const std::string& what, int status) : std::runtime_error(what), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// A failure agreed on by every rank: on rank 0 it carries the message
// (printed once), on the others it is silent.
class RanksFailure : public StatusError {
 public:
  RanksFailure(const std::string& what, int status, bool silent) : StatusError(what, status), silent_(silent) {}
  bool silent() const { return silent_; }

 private:
  bool silent_;
};

// The exit status a failure ends the program with: a StatusError's own, else 1.
int exit_status(const std::exception& e);

class Ranks {
 public:
  virtual ~Ranks() = default;
  virtual int rank() const { return 0; }
  virtual int size() const { return 1; }
  bool is_root() const { return rank() == 0; }

  // Collective: each rank passes its failure, if any. When any rank failed,
  // every rank throws: rank 0 the failure itself where it stands for all
  // (the same message on every failing rank, or rank 0's own), else a
  // RanksFailure naming the ranks; the other ranks a silent RanksFailure.
  virtual void agree(std::exception_ptr failure) {
    if (failure) std::rethrow_exception(failure);
  }
  // Collective: `work` runs on rank 0 only (e.g. writing a file); a failure
  // there is thrown on every rank as agree() throws it.
  void on_root(const std::function<void()>& work);
  // Collective: `work` runs on every rank (local work: no collective inside
  // it); a failure on any rank is thrown on every rank as agree() throws it.
  void on_every_rank(const std::function<void()>& work) {
    std::exception_ptr failure;
    try {
      work();
    } catch (...) {
      failure = std::current_exception();
    }
    agree(failure);
  }
  // Collective: the largest value any rank passes, and rank 0's value.
  virtual int max(int value) { return value; }
  virtual int broadcast(int value) { return value; }
  virtual double max(double value) { return value; }
  virtual double broadcast(double value) { return value; }
  virtual std::string broadcast(const std::string& value) { return value; }
  // broadcast, where the other ranks may wait long for rank 0 (a run the
  // live view holds paused): they look for it a thousand times a second
  // rather than spin in MPI, leaving their cores to others.
  virtual std::string broadcast_after_wait(const std::string& value) { return value; }
  // Collective: every rank's string, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather(const std::string& mine) { return {mine}; }

  // Collective, the ranks in a ring bottom to top as the grid's slabs lie
  // (periodic in y: the last rank is below rank 0): passes `down` to the rank
  // below and `up` to the rank above, and returns {what the rank below passed
  // up, what the rank above passed down}. One process is its own neighbour.
  virtual std::pair<std::string, std::string> exchange_with_neighbours(const std::string& down, const std::string& up) {
    return {up, down};
  }
  // Collective: every rank's `count` records of `record_bytes` bytes, one
  // rank after the other in rank order, into `all` on rank 0, which has room
  // for every rank's (ignored elsewhere).
  virtual void gather_records(const void* mine, std::size_t count, std::size_t record_bytes, void* all) {
    if (count > 0) std::memcpy(all, mine, count * record_bytes);
  }
  // Collective: every rank's `mine` written into the existing file `file`,
  // one after the other in rank order from its start: each rank at the sum
  // of the sizes of the ranks below (MPI-IO: an exclusive prefix sum, then a
  // collective write). A failure on any rank is thrown on every rank as
  // agree() throws it, its message naming `name`.
  virtual void write_in_rank_order(const std::string& file, const std::string& mine, const std::string& name) {
    std::FILE* out = std::fopen(file.c_str(), "wb");
    if (!out) throw std::runtime_error(name + ": cannot open file (" + std::strerror(errno) + ")");
    const bool written = std::fwrite(mine.data(), 1, mine.size(), out) == mine.size();
    const int err = errno;
    if (std::fclose(out) != 0 || !written)
      throw std::runtime_error(name + ": write failed (" + std::strerror(written ? errno : err) + ")");
  }
  // A failure of this rank alone while others may wait for it inside a
  // collective: reports it and ends every rank. One process: rethrows it.
  [[noreturn]] virtual void abort(std::exception_ptr failure) { std::rethrow_exception(failure); }
};

}  // namespace d2q9
