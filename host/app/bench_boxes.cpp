#include "app/bench_boxes.hpp"

namespace d2q9 {

Params box_params(int nx, int ny, int steps, int reynolds_dim) {
  Params p;
  p.nx = nx;
  p.ny = ny;
  p.max_iters = steps;
  p.reynolds_dim = reynolds_dim;
  p.density = 0.1;
  p.accel = 0.005;
  p.omega = 1.85;
  return p;
}

Params heat_box_params(int nx, int ny, int steps, int reynolds_dim) {
  Params p = box_params(nx, ny, steps, reynolds_dim);
  Extensions& x = p.extensions;
  x.heat = true;
  x.diffusivity = 0.02;
  x.buoyancy = {0.0, 1e-6};
  x.thermal_walls = {{}, {ThermalWall::Kind::Temperature, 0.5}, {ThermalWall::Kind::Temperature, -0.5}};
  x.heat_length = nx - 2;
  return p;
}

ObstacleMask box_mask(int nx, int ny) {
  ObstacleMask m(nx, ny);
  for (int x = 0; x < nx; ++x) m.kinds[x] = m.kinds[x + static_cast<std::size_t>(ny - 1) * nx] = 1;
  for (int y = 0; y < ny; ++y) m.kinds[static_cast<std::size_t>(y) * nx] = m.kinds[nx - 1 + static_cast<std::size_t>(y) * nx] = 1;
  return m;
}

ObstacleMask heat_box_mask(int nx, int ny) {
  ObstacleMask m = box_mask(nx, ny);
  for (int y = 1; y < ny - 1; ++y) {
    m.kinds[static_cast<std::size_t>(y) * nx] = cell_byte(kWall, 1);
    m.kinds[nx - 1 + static_cast<std::size_t>(y) * nx] = cell_byte(kWall, 2);
  }
  return m;
}

}  // namespace d2q9
