// A live progress line on stderr for long runs on a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <string>

namespace d2q9 {

// "  42.0%  16800/40000 steps  3321 steps/s  54.42 MLUPS  0:07 left"
std::string format_progress(int done_steps, int total_steps, double elapsed_s, std::size_t cells);

// Shows progress only when `wanted` and `stream` is a terminal; redrawn in
// place at most every `interval_s`, and erased by finish() (or the destructor).
class ProgressLine {
 public:
  ProgressLine(std::FILE* stream, int total_steps, std::size_t cells, bool wanted = true, double interval_s = 0.25);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  bool active() const { return active_; }
  void update(int done_steps);
  void finish();

 private:
  std::FILE* stream_;
  int total_steps_;
  std::size_t cells_;
  double interval_s_;
  bool active_;
  bool shown_ = false;       // on screen now
  bool ever_shown_ = false;
  std::chrono::steady_clock::time_point start_, last_shown_;
};

}  // namespace d2q9
