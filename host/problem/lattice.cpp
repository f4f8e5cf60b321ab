#include "problem/lattice.hpp"

namespace d2q9 {

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
