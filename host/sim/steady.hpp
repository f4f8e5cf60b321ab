// --until-steady TOL ([flow] until_steady): a run that stops once its
// average speed and the forces on its measured bodies no longer change
// (docs/running.md#stopping-when-steady).
#pragma once

#include <limits>
#include <string>
#include <vector>

namespace d2q9 {

// The window of W = max(1000, ceil(steps / 10)) steps; checked after every
// multiple of `every` = max(1, W / 10) steps, once 2W steps are done.
struct SteadyRule {
  double tolerance = 0;
  int window = 0;
  int every = 0;
  bool active() const { return tolerance > 0; }
};
SteadyRule steady_rule(double tolerance, int steps);

struct SteadyCheck {
  bool checked = false;  // two whole windows were compared
  bool steady = false;
  double change = std::numeric_limits<double>::infinity();  // the largest relative change
  std::string quantity;  // whose: "av_vels", "<body>_Fx", "<body>_Fy"
  int step = 0;          // steps completed when checked
};

// The change over the last 2W of av_vels.size() steps, for av_vels and for
// each body's Fx and Fy (forces: per step Fx, Fy of each body, the first
// being step forces_from + 1): the larger of |mean(last W) - mean(W before)|
// and max - min over the last W, over |mean(last W)| (av_vels) or over the
// body's |mean force| over the last W (Fx and Fy alike). Steady when every
// change is below the tolerance. Not checked before 2W steps, nor while the
// forces recorded do not cover them (a restart from a checkpoint of an older version).
SteadyCheck check_steady(const SteadyRule& rule, const std::vector<double>& av_vels, const std::vector<double>& forces,
                         int forces_from, const std::vector<std::string>& bodies);

// What the run says: "steady after N steps (change X < TOL over the last W
// steps)", or "not steady: change X after N steps (...)".
std::string steady_text(const SteadyRule& rule, const SteadyCheck& check, int steps_run);

}  // namespace d2q9
