#include "device/launch_schedule.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace d2q9 {

LaunchSchedule::LaunchSchedule(const LaunchPlan& plan, const std::optional<Slab>& slab) : plan_(plan) {
  group_rows_ = slab ? (slab->rows + plan_.group_height() - 1) / plan_.group_height() : plan_.groups_y;
  num_groups_ = plan_.groups_x * group_rows_;
  if (slab) {
    // The group rows holding the own rows the neighbours' halos take (the
    // bottom and top halo_depth rows), and the rest between them.
    const int halo_depth = slab_halo_rows(plan_);
    const int bottom_end = std::min(group_rows_, (halo_depth - 1) / plan_.group_height() + 1);
    const int top_first = std::max(bottom_end, (slab->rows - halo_depth) / plan_.group_height());
    edge_bands_[edge_band_count_++] = {0, bottom_end};
    if (top_first < group_rows_) edge_bands_[edge_band_count_++] = {top_first, group_rows_ - top_first};
    interior_ = {bottom_end, top_first - bottom_end};
  }
}

std::vector<StepLaunch> LaunchSchedule::chunk_launches(int state, int half, int steps, int first_step,
                                                       bool ends_call, int end_every) const {
  std::vector<StepLaunch> out;
  for (int t = 0; t < steps;) {
    StepLaunch l;
    l.state = state;
    l.first_group_row = 0;
    l.group_rows = group_rows_;
    // The blocked kernel runs any number up to its maximum.
    l.steps = plan_.variant == KernelVariant::Blocked ? std::min(plan_.block_steps, steps - t) : 1;
    if (end_every > 0) l.steps = std::min(l.steps, end_every - (first_step + t) % end_every);
    l.accelerate_before = !plan_.fused();
    l.accelerate_next = plan_.fused() && !(ends_call && t + l.steps == steps);
    l.partial_offset = (half * plan_.chunk_steps + t) * num_groups_;
    l.step = first_step + t;
    out.push_back(l);
    state = 1 - state;
    t += l.steps;
  }
  return out;
}

std::vector<std::vector<StepLaunch>> LaunchSchedule::run_sequences(int state, int steps) const {
  std::vector<std::vector<StepLaunch>> sequences;
  std::set<std::tuple<int, int, int, bool>> seen;  // state, half, steps, ends the run
  int half = 0;
  for (int done = 0; done < steps;) {
    const int n = std::min(plan_.chunk_steps, steps - done);
    const bool last = done + n == steps;
    if (seen.insert({state, half, n, last}).second) sequences.push_back(chunk_launches(state, half, n, done, last));
    state = (state + plan_.launches(n)) % 2;
    half = 1 - half;
    done += n;
  }
  return sequences;
}

StepLaunch LaunchSchedule::band_launch(const StepLaunch& launch, const Band& band) const {
  StepLaunch l = launch;
  l.first_group_row = band.first_group_row;
  l.group_rows = band.group_rows;
  l.partial_offset = launch.partial_offset + band.first_group_row * plan_.groups_x;
  return l;
}

}  // namespace d2q9
