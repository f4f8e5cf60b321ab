// Wall time: a stopwatch's laps for the set-up breakdown, and the clock a
// run's timings read.
#pragma once

#include <chrono>
#include <functional>

namespace d2q9 {

// Seconds on a clock that only moves forward: steady_seconds, or a test's
// clock that its solvers move on, so that nothing sleeps.
using RunClock = std::function<double()>;

inline double steady_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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
