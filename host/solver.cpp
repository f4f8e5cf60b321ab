#include "solver.hpp"

#include "stability.hpp"

namespace d2q9 {

void append_average_velocities(const void* partials, Precision precision, int steps, int num_groups,
                               std::size_t fluid_cells, std::vector<double>& av_vels) {
  for (int t = 0; t < steps; ++t) {
    double sum = 0.0;
    for (int g = 0; g < num_groups; ++g) {
      const std::size_t i = static_cast<std::size_t>(t) * num_groups + g;
      sum += precision == Precision::Float ? static_cast<const float*>(partials)[i]
                                           : static_cast<const double*>(partials)[i];
    }
    av_vels.push_back(sum / static_cast<double>(fluid_cells));
    check_average_velocity(av_vels.back(), av_vels.size() - 1);
  }
}

std::vector<double> initial_distributions(const Params& params) {
  const std::size_t n = params.cells();
  std::vector<double> f(kSpeeds * n);
  for (int k = 0; k < kSpeeds; ++k) {
    const double w = k == 0 ? 4.0 / 9.0 : (k < 5 ? 1.0 / 9.0 : 1.0 / 36.0);
    for (std::size_t i = 0; i < n; ++i) f[k * n + i] = params.density * w;
  }
  return f;
}

}  // namespace d2q9
