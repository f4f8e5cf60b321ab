// Wall time in seconds from a start, in laps, for the set-up breakdown.
#pragma once

#include <chrono>

namespace d2q9 {

class Stopwatch {
 public:
  // Seconds since the start or the previous lap.
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

  // Seconds since the start.
  double total() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_ = start_;
};

}  // namespace d2q9
