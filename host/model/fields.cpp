#include "model/fields.hpp"

#include "model/output.hpp"

namespace d2q9 {

FlowFields flow_fields(const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  FlowFields out;
  out.nx = params.nx;
  out.ny = params.ny;
  const std::size_t n = params.cells();
  out.ux.resize(n);
  out.uy.resize(n);
  out.speed.resize(n);
  out.density.resize(n);
  for (std::size_t cell = 0; cell < n; ++cell) {
    const CellState s = cell_state(params, mask, f, cell);
    out.ux[cell] = s.ux;
    out.uy[cell] = s.uy;
    out.speed[cell] = s.speed;
    out.density[cell] = 3.0 * s.pressure;
  }
  out.vorticity = vorticity(params.nx, params.ny, mask, out.ux, out.uy);
  return out;
}

std::vector<double> vorticity(int nx, int ny, const ObstacleMask& mask, const std::vector<double>& ux,
                              const std::vector<double>& uy) {
  std::vector<double> w(static_cast<std::size_t>(nx) * ny, 0.0);
  auto at = [nx](int ii, int jj) { return static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * nx; };
  auto value = [&](const std::vector<double>& u, int ii, int jj) { return mask.at(ii, jj) ? 0.0 : u[at(ii, jj)]; };
  for (int jj = 0; jj < ny; ++jj) {
    const int north = (jj + 1) % ny, south = (jj + ny - 1) % ny;
    for (int ii = 0; ii < nx; ++ii) {
      if (mask.at(ii, jj)) continue;
      const int east = (ii + 1) % nx, west = (ii + nx - 1) % nx;
      w[at(ii, jj)] =
          0.5 * (value(uy, east, jj) - value(uy, west, jj)) - 0.5 * (value(ux, ii, north) - value(ux, ii, south));
    }
  }
  return w;
}

}  // namespace d2q9
