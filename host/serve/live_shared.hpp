// What the parts of a live view share: one mutex over all their state, so
// that a paused run's wait sees queued requests, the pause and the page's
// commands alike, and whether the run is over.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace d2q9 {

using LiveClock = std::chrono::steady_clock;

struct LiveShared {
  std::mutex mutex;
  // Notified when a request is queued or answered, the pause is lifted, a command comes or the run ends.
  std::condition_variable changed;
  // The run is over (or the view is going): requests that need the simulation are answered 503.
  bool finished = false;
};

}  // namespace d2q9
