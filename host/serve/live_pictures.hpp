// The pictures the page asks for (GET /api/picture): drawn on the stepping
// thread, at most a few a second whatever the pages ask, and served again
// while they still show the step, or were drawn a moment ago.
#pragma once

#include <map>
#include <string>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "serve/live_jobs.hpp"
#include "serve/live_shared.hpp"
#include "serve/live_status.hpp"

namespace d2q9 {

class LivePictures {
 public:
  // `status` says which step the latest numbers show.
  LivePictures(LiveShared& shared, LiveJobs& jobs, const LiveStatus& status)
      : shared_(shared), jobs_(jobs), status_(status) {}

  void add_route(httplib::Server& server);
  // Across MPI ranks: a picture's work as announced to the other ranks, and
  // their side of it (Simulation::picture is collective there); join: false
  // where `work` is no picture's.
  static std::string work(const FieldImageRequest& request);
  static bool join(Simulation& sim, const std::string& work);

 private:
  struct Cached {
    int step = -1;
    LiveClock::time_point made;
    std::string png;
    nlohmann::json about;
  };

  void answer(const httplib::Request& req, httplib::Response& res);
  // The cached picture under `key`, and whether it may be served again.
  bool cached(const std::string& key, Cached& picture);
  // Waits for this picture's turn: the least time between two drawn.
  void wait_turn();

  LiveShared& shared_;
  LiveJobs& jobs_;
  const LiveStatus& status_;
  std::map<std::string, Cached> pictures_;  // by "field/width"
  LiveClock::time_point next_picture_;      // the earliest another may be drawn
};

}  // namespace d2q9
