#include "io/fields.hpp"

#include "io/output.hpp"

namespace d2q9 {

namespace {

// ux, uy, speed and density of global rows [first_row, first_row + rows).
template <typename CellAt>
FlowFields velocities(int nx, int first_row, int rows, bool heat, CellAt cell_at) {
  FlowFields out(nx, rows, first_row);
  if (heat) out.temperature.resize(out.ux.size());
  for (int r = 0; r < rows; ++r) {
    for (int ii = 0; ii < nx; ++ii) {
      const std::size_t cell = static_cast<std::size_t>(ii) + static_cast<std::size_t>(r) * nx;
      const CellState s = cell_at(ii, first_row + r);
      out.ux[cell] = s.ux;
      out.uy[cell] = s.uy;
      out.speed[cell] = s.speed;
      out.density[cell] = 3.0 * s.pressure;
      if (heat) out.temperature[cell] = s.temperature;
    }
  }
  return out;
}

// The vorticity of global rows [first_row, first_row + rows) of ux and uy
// (row-major over those rows); `below` and `above`: ux then uy of the rows
// next to them, nx values each.
std::vector<double> vorticity_of(int nx, int first_row, int rows, const ObstacleMask& mask, const double* ux,
                                 const double* uy, const double* below, const double* above) {
  const int ny = mask.ny;
  std::vector<double> w(static_cast<std::size_t>(nx) * rows, 0.0);
  auto at = [nx](int ii, int r) { return static_cast<std::size_t>(ii) + static_cast<std::size_t>(r) * nx; };
  for (int r = 0; r < rows; ++r) {
    const int jj = first_row + r;
    const int north = (jj + 1) % ny, south = (jj + ny - 1) % ny;
    // The rows above and below, with the halo rows past either end.
    const double* ux_north = r + 1 < rows ? ux + at(0, r + 1) : above;
    const double* ux_south = r > 0 ? ux + at(0, r - 1) : below;
    const double* uy_row = uy + at(0, r);
    for (int ii = 0; ii < nx; ++ii) {
      if (mask.at(ii, jj)) continue;
      const int east = (ii + 1) % nx, west = (ii + nx - 1) % nx;
      auto value = [&](const double* row, int i, int j) { return mask.at(i, j) ? 0.0 : row[i]; };
      w[at(ii, r)] = 0.5 * (value(uy_row, east, jj) - value(uy_row, west, jj)) -
                     0.5 * (value(ux_north, ii, north) - value(ux_south, ii, south));
    }
  }
  return w;
}

}  // namespace

FlowFields flow_fields(const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  FlowFields out = velocities(params.nx, 0, params.ny, params.extensions.heat, [&](int ii, int jj) {
    return cell_state(params, mask, f, static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * params.nx);
  });
  out.vorticity = vorticity(params.nx, params.ny, mask, out.ux, out.uy);
  return out;
}

std::vector<double> vorticity(int nx, int ny, const ObstacleMask& mask, const std::vector<double>& ux,
                              const std::vector<double>& uy) {
  // Periodic: the row below row 0 is the top row, the row above the top row 0.
  std::vector<double> below(2 * static_cast<std::size_t>(nx)), above(2 * static_cast<std::size_t>(nx));
  const std::size_t top = static_cast<std::size_t>(ny - 1) * nx;
  for (int ii = 0; ii < nx; ++ii) {
    below[ii] = ux[top + ii];
    below[nx + ii] = uy[top + ii];
    above[ii] = ux[ii];
    above[nx + ii] = uy[ii];
  }
  return vorticity_of(nx, 0, ny, mask, ux.data(), uy.data(), below.data(), above.data());
}

FlowFields velocity_fields(const Params& params, const ObstacleMask& mask, const StateRows& state) {
  return velocities(params.nx, state.first_row, state.rows, params.extensions.heat,
                    [&](int ii, int jj) { return cell_state(params, mask, state, ii, jj); });
}

std::vector<double> velocity_row(const FlowFields& fields, int global_row) {
  const std::size_t start = static_cast<std::size_t>(global_row - fields.first_row) * fields.nx;
  std::vector<double> row(fields.ux.begin() + start, fields.ux.begin() + start + fields.nx);
  row.insert(row.end(), fields.uy.begin() + start, fields.uy.begin() + start + fields.nx);
  return row;
}

void add_vorticity(FlowFields& fields, const ObstacleMask& mask, const std::vector<double>& below,
                   const std::vector<double>& above) {
  fields.vorticity = vorticity_of(fields.nx, fields.first_row, fields.ny, mask, fields.ux.data(), fields.uy.data(),
                                  below.data(), above.data());
}

}  // namespace d2q9
