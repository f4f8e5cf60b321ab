// Which part of a run this process is: the only one, or one of N MPI ranks.
// The run path is written once against this; for one process every call is
// trivial. Rank 0 (the root) writes every file and prints every message.
#pragma once

#include <exception>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace d2q9 {

// A failure agreed on by every rank: on rank 0 it carries the message
// (printed once), on the others it is silent.
class RanksFailure : public std::runtime_error {
 public:
  RanksFailure(const std::string& what, int status, bool silent)
      : std::runtime_error(what), status_(status), silent_(silent) {}
  int status() const { return status_; }
  bool silent() const { return silent_; }

 private:
  int status_;
  bool silent_;
};

// The exit status a failure ends the program with: 2 for a usage error,
// 128 + the signal when interrupted, a RanksFailure's own, else 1.
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
  // Collective: the largest value any rank passes, and rank 0's value.
  virtual int max(int value) { return value; }
  virtual int broadcast(int value) { return value; }
  // Collective: every rank's string, in rank order, on rank 0 (empty elsewhere).
  virtual std::vector<std::string> gather(const std::string& mine) { return {mine}; }
  // A failure of this rank alone while others may wait for it inside a
  // collective: reports it and ends every rank. One process: rethrows it.
  [[noreturn]] virtual void abort(std::exception_ptr failure) { std::rethrow_exception(failure); }
};

}  // namespace d2q9
