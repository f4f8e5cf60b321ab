#include "problem/stability.hpp"

#include <cmath>
#include <sstream>

#include "core/types.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

namespace {

std::string message(std::size_t step, const std::string& detail) {
  return "flow became unstable at step " + std::to_string(step) + " (" + detail +
         "); lower accel, or omega further from 2, or refine the grid";
}

}  // namespace

InstabilityError::InstabilityError(std::size_t step, const std::string& detail)
    : std::runtime_error(message(step, detail)), step_(step) {}

void check_average_velocity(double av_velocity, std::size_t step) {
  if (!std::isfinite(av_velocity))
    throw InstabilityError(step, std::string("average velocity is ") +
                                     (std::isnan(av_velocity) ? "NaN" : av_velocity > 0 ? "+Inf" : "-Inf"));
  if (av_velocity >= kSoundSpeed) {
    std::ostringstream detail;
    detail << "average velocity " << av_velocity << " is above the speed of sound (" << kSoundSpeed
           << "): the flow is supersonic and the model meaningless";
    throw InstabilityError(step, detail.str());
  }
}

std::string supersonic_cell(const Params& params, const double* f, std::size_t plane, std::size_t cell,
                            std::size_t global) {
  double rho = 0.0, mx = 0.0, my = 0.0;
  for (int k = 0; k < kSpeeds; ++k) {
    const double v = f[k * plane + cell];
    rho += v;
    mx += kEx[k] * v;
    my += kEy[k] * v;
  }
  const double speed = std::sqrt(mx * mx + my * my) / rho;
  if (!(speed >= kSoundSpeed)) return "";
  std::ostringstream detail;
  detail << "|u| = " << speed << " at cell (" << global % params.nx << ", " << global / params.nx
         << ") is above the speed of sound (" << kSoundSpeed << "): the flow is supersonic and the model meaningless";
  return detail.str();
}

void check_distributions(const Params& params, const ObstacleMask& mask, const std::vector<double>& f,
                         std::size_t step) {
  const std::size_t n = params.cells();
  for (std::size_t cell = 0; cell < n; ++cell) {
    double rho = 0.0;
    for (int k = 0; k < kSpeeds; ++k) rho += f[k * n + cell];
    double temperature = 0.0;  // with heat: its five distributions' sum, which must stay finite
    for (int k = kSpeeds; k < params.extensions.planes(); ++k) temperature += f[k * n + cell];
    const bool bad = !std::isfinite(rho) || !std::isfinite(temperature) || (!is_obstacle(mask.kinds[cell]) && !(rho > 0.0));
    if (!bad) {
      if (is_obstacle(mask.kinds[cell])) continue;
      const std::string supersonic = supersonic_cell(params, f.data(), n, cell, cell);
      if (!supersonic.empty()) throw InstabilityError(step, supersonic);
      continue;
    }
    std::ostringstream detail;
    detail << (std::isfinite(temperature) ? "density " : "temperature ") << (std::isfinite(temperature) ? rho : temperature)
           << " at cell (" << cell % params.nx << ", " << cell / params.nx << ")";
    throw InstabilityError(step, detail.str());
  }
}

}  // namespace d2q9
