#include "device/running_sums.hpp"

#include "problem/stability.hpp"

namespace d2q9 {

namespace {

// Steps of partial sums a slab adds per step its device runs: one, to keep
// pace, or two while older chunks wait, to catch up (a blocked launch runs
// several steps: its poll adds as many).
constexpr int kSumStepsPerPoll = 1;
constexpr int kCatchUpSumStepsPerPoll = 2;

}  // namespace

RunningSums::RunningSums(LatticeDevice& device, RankLinks* links, int rank, int ranks, Precision precision,
                         int num_groups, int sums_per_group, std::size_t fluid_cells)
    : device_(device),
      links_(links),
      rank_(rank),
      ranks_(ranks),
      precision_(precision),
      num_groups_(num_groups),
      sums_(sums_per_group),
      fluid_cells_(fluid_cells) {}

void RunningSums::start_run(std::vector<double>& av_vels) {
  finished_sums_.clear();
  av_vels_ = &av_vels;
}

void RunningSums::read_chunk(int base, int steps) {
  chunks_.emplace_back();
  ChunkSums& c = chunks_.back();
  c.slot = device_.read_partials(static_cast<std::size_t>(base) * sums_,
                                 static_cast<std::size_t>(steps) * num_groups_ * sums_);
  c.steps = steps;
  c.sums.assign(static_cast<std::size_t>(steps) * sums_, 0.0);
  if (rank_ > 0) c.incoming = links_->receive_sums_from_below(c.sums.data(), steps * sums_);
}

void RunningSums::continue_sums(bool poll, std::size_t keep, int pace) {
  while (!outgoing_sums_.empty() && links_->done(outgoing_sums_.front().first, false)) outgoing_sums_.pop_front();
  int budget = (chunks_.size() > 1 ? kCatchUpSumStepsPerPoll : kSumStepsPerPoll) * pace;
  while (chunks_.size() > keep && (!poll || budget > 0)) {
    ChunkSums& c = chunks_.front();
    if (!c.partials) c.partials = device_.partials(c.slot, !poll);
    if (!c.partials) return;
    if (c.incoming >= 0) {
      if (!links_->done(c.incoming, !poll)) return;
      c.incoming = -1;
    }
    budget = add_groups(c, poll, budget);
    if (c.continued < c.steps) return;
    device_.release_partials(c.slot);
    std::vector<double> sums = std::move(c.sums);
    chunks_.pop_front();
    if (rank_ + 1 < ranks_) {
      outgoing_sums_.emplace_back(-1, std::move(sums));
      auto& out = outgoing_sums_.back();
      out.first = links_->send_sums_up(out.second.data(), static_cast<int>(out.second.size()));
    } else {
      finish_sums(sums);  // may throw InstabilityError (one device)
    }
  }
}

int RunningSums::add_groups(ChunkSums& c, bool poll, int budget) const {
  for (; c.continued < c.steps && (!poll || budget > 0); ++c.continued, --budget) {
    // Each value's sum over the groups in order, as one device's read-back sums them.
    const std::size_t first = static_cast<std::size_t>(c.continued) * num_groups_ * sums_;
    for (int q = 0; q < sums_; ++q) {
      double sum = c.sums[static_cast<std::size_t>(c.continued) * sums_ + q];
      if (precision_ == Precision::Double) {
        const double* p = static_cast<const double*>(c.partials) + first + q;
        for (int g = 0; g < num_groups_; ++g) sum += p[static_cast<std::size_t>(g) * sums_];
      } else {
        const float* p = static_cast<const float*>(c.partials) + first + q;
        for (int g = 0; g < num_groups_; ++g) sum += p[static_cast<std::size_t>(g) * sums_];
      }
      c.sums[static_cast<std::size_t>(c.continued) * sums_ + q] = sum;
    }
  }
  return budget;
}

void RunningSums::finish_chunks() {
  continue_sums(false, 0);
  for (auto& out : outgoing_sums_) links_->done(out.first, true);
  outgoing_sums_.clear();
}

void RunningSums::end_run(int steps) {
  if (links_) {
    finished_sums_.resize(static_cast<std::size_t>(steps) * sums_);
    links_->broadcast_from_top(finished_sums_.data(), steps * sums_);
    // Every rank holds the same values, so every rank stops at the same step.
    append(finished_sums_.data(), steps);
  }
  av_vels_ = nullptr;
}

void RunningSums::abandon_run() {
  for (ChunkSums& c : chunks_) device_.release_partials(c.slot);
  chunks_.clear();
  av_vels_ = nullptr;
}

void RunningSums::append(const double* sums, int steps) {
  for (int t = 0; t < steps; ++t) {
    const double* step = sums + static_cast<std::size_t>(t) * sums_;
    av_vels_->push_back(step[0] / static_cast<double>(fluid_cells_));
    check_average_velocity(av_vels_->back(), av_vels_->size() - 1);
    body_forces_.insert(body_forces_.end(), step + 1, step + sums_);
  }
}

void RunningSums::finish_sums(std::vector<double>& sums) {
  if (links_) {
    finished_sums_.insert(finished_sums_.end(), sums.begin(), sums.end());
    return;
  }
  append(sums.data(), static_cast<int>(sums.size()) / sums_);
}

}  // namespace d2q9
