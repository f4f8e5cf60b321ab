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

// The lattice's speed of sound, 1/sqrt(3): a flow at or above it is outside
// what the model describes (it is built for Mach numbers well below 1).
inline constexpr double kSoundSpeed = 0.57735026918962576;

// Cheap enough for every step: the mean |u| the backends compute anyway. A
// blown-up cell makes it NaN or Inf (a negative density there turns into NaN
// within a few steps); a mean at or above the speed of sound is as wrong.
void check_average_velocity(double av_velocity, std::size_t step);

// The message for fluid cell `cell` of a field (nine planes of `plane`
// values from `f`) when its |u| is at or above the speed of sound, else
// empty; `global` is the cell's index in the whole grid, for the message.
std::string supersonic_cell(const Params& params, const double* f, std::size_t plane, std::size_t cell,
                            std::size_t global);

// Whole-field check, for when the field is on the host anyway (checkpoints,
// the final state): every value finite, every fluid cell's density positive
// and its speed below the speed of sound.
void check_distributions(const Params& params, const ObstacleMask& mask, const std::vector<double>& f,
                         std::size_t step);

}  // namespace d2q9
