// Large host copies split over a few threads kept for the team's life,
// because one core's memcpy of a large slab's edge rows takes about as long
// as the slab's launch.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <thread>
#include <vector>

namespace d2q9 {

class CopyTeam {
 public:
  struct Copy {
    void* to;
    const void* from;
    std::size_t bytes;
  };

  // `threads` in all, the caller's included (1: the caller copies alone).
  explicit CopyTeam(int threads);
  ~CopyTeam();
  CopyTeam(const CopyTeam&) = delete;
  CopyTeam& operator=(const CopyTeam&) = delete;

  int threads() const { return static_cast<int>(workers_.size()) + 1; }
  // Every copy done on return; each split into one piece a thread.
  void run(const std::vector<Copy>& copies);

 private:
  void copy_piece(int piece) const;
  void work(int piece);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, finished_;
  const std::vector<Copy>* copies_ = nullptr;
  long long round_ = 0;  // runs so far: a worker starts on a new one
  int busy_ = 0;         // workers still copying this round
  bool stop_ = false;
};

// Threads for one rank's halo copies: the cores this process may run on,
// shared by the host's `host_ranks`, at most 8; D2Q9_HALO_THREADS in the
// environment says otherwise.
int halo_copy_threads(int host_ranks);

}  // namespace d2q9
