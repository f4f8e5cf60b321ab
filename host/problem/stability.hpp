// Detecting a flow that has gone unstable, so a run stops with an error
// instead of writing garbage. Steps are numbered as av_vels.dat numbers them
// (from 0).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem/problem.hpp"

namespace d2q9 {

class InstabilityError : public std::runtime_error {
 public:
  InstabilityError(std::size_t step, const std::string& detail);
  std::size_t step() const { return step_; }

 private:
  std::size_t step_;
};

// Cheap enough for every step: the mean |u| the backends compute anyway. A
// blown-up cell makes it NaN or Inf (a negative density there turns into NaN
// within a few steps).
void check_average_velocity(double av_velocity, std::size_t step);

// Whole-field check, for when the field is on the host anyway (checkpoints,
// the final state): every value finite and every fluid cell's density positive.
void check_distributions(const Params& params, const ObstacleMask& mask, const std::vector<double>& f,
                         std::size_t step);

}  // namespace d2q9
