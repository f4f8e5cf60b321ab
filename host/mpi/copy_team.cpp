#include "mpi/copy_team.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace d2q9 {

CopyTeam::CopyTeam(int threads) {
  for (int piece = 1; piece < threads; ++piece) workers_.emplace_back([this, piece] { work(piece); });
}

CopyTeam::~CopyTeam() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& w : workers_) w.join();
}

void CopyTeam::copy_piece(int piece) const {
  const std::size_t pieces = workers_.size() + 1;
  for (const Copy& c : *copies_) {
    // Pieces of whole cache lines, the last one taking the rest.
    const std::size_t share = (c.bytes / pieces + 63) / 64 * 64;
    const std::size_t first = std::min(c.bytes, share * static_cast<std::size_t>(piece));
    const std::size_t end = piece + 1 == static_cast<int>(pieces) ? c.bytes : std::min(c.bytes, first + share);
    if (end > first)
      std::memcpy(static_cast<unsigned char*>(c.to) + first, static_cast<const unsigned char*>(c.from) + first, end - first);
  }
}

void CopyTeam::work(int piece) {
  long long seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || round_ != seen; });
      if (stop_) return;
      seen = round_;
    }
    copy_piece(piece);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) finished_.notify_one();
    }
  }
}

void CopyTeam::run(const std::vector<Copy>& copies) {
  if (workers_.empty()) {
    for (const Copy& c : copies) std::memcpy(c.to, c.from, c.bytes);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    copies_ = &copies;
    busy_ = static_cast<int>(workers_.size());
    ++round_;
  }
  start_.notify_all();
  copy_piece(0);
  std::unique_lock<std::mutex> lock(mutex_);
  finished_.wait(lock, [&] { return busy_ == 0; });
  copies_ = nullptr;
}

int halo_copy_threads(int host_ranks) {
  if (const char* asked = std::getenv("D2Q9_HALO_THREADS"); asked && *asked) {
    char* end = nullptr;
    const long n = std::strtol(asked, &end, 10);
    if (*end != '\0' || n < 1 || n > 64)
      throw std::invalid_argument("D2Q9_HALO_THREADS must be a whole number from 1 to 64, not '" + std::string(asked) + "'");
    return static_cast<int>(n);
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  const int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
  return std::clamp(cores / std::max(1, host_ranks), 1, 8);
}

}  // namespace d2q9
