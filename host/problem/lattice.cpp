#include "problem/lattice.hpp"

#include <algorithm>

namespace d2q9 {

std::vector<double> initial_distributions(const Params& params) {
  const std::size_t n = params.cells();
  std::vector<double> f(kSpeeds * n);
  for (int k = 0; k < kSpeeds; ++k) {
    const double w = k == 0 ? 4.0 / 9.0 : (k < 5 ? 1.0 / 9.0 : 1.0 / 36.0);
    for (std::size_t i = 0; i < n; ++i) f[k * n + i] = params.density * w;
  }
  if (!params.extensions.heat) return f;
  // The temperature lattice at rest at the initial temperature: w_k T, D2Q5's weights.
  f.resize(static_cast<std::size_t>(params.extensions.planes()) * n);
  const double t = params.extensions.initial_temperature;
  for (int k = 0; k < kHeatSpeeds; ++k) {
    const double w = k == 0 ? 1.0 / 3.0 : 1.0 / 6.0;
    std::fill_n(f.begin() + static_cast<std::ptrdiff_t>((kSpeeds + k) * n), n, w * t);
  }
  return f;
}

}  // namespace d2q9
