#include "sim/wall_heat.hpp"

#include <stdexcept>

#include "problem/lattice.hpp"

namespace d2q9 {

namespace {

// Every wall number's entry, named, without faces or heat yet.
std::vector<WallHeat> numbered_walls(const Extensions& x) {
  std::vector<WallHeat> walls(x.thermal_walls.size());
  for (std::size_t number = 0; number < walls.size(); ++number) {
    WallHeat& w = walls[number];
    w.number = static_cast<int>(number);
    w.wall = x.thermal_wall(w.number);
    const bool named = number < x.thermal_wall_names.size() && !x.thermal_wall_names[number].empty();
    w.name = named ? x.thermal_wall_names[number] : "wall " + std::to_string(number);
  }
  return walls;
}

// Calls face(walls[number], fluid cell, wall cell, D2Q5 speed k from the
// fluid into the wall) for each face between a fluid cell and a numbered,
// non-free-slip wall cell.
template <class Face>
void for_each_wall_face(const Params& params, const ObstacleMask& mask, std::vector<WallHeat>& walls, Face face) {
  const int nx = params.nx, ny = params.ny;
  for (int jj = 0; jj < ny; ++jj)
    for (int ii = 0; ii < nx; ++ii) {
      const std::size_t fluid = ii + static_cast<std::size_t>(jj) * nx;
      if (is_obstacle(mask.kinds[fluid])) continue;
      for (int k = 1; k < kHeatSpeeds; ++k) {
        const std::size_t wall = (ii + kEx[k] + nx) % nx + static_cast<std::size_t>((jj + kEy[k] + ny) % ny) * nx;
        const std::uint8_t b = mask.kinds[wall];
        if (!is_obstacle(b) || cell_kind(b) == kFreeSlip) continue;
        const int number = cell_number(b);
        if (number <= 0 || number >= static_cast<int>(walls.size())) continue;
        face(walls[number], fluid, wall, k);
      }
    }
}

// Those that hold a temperature or a heat flux and touch fluid.
std::vector<WallHeat> heat_carrying(const std::vector<WallHeat>& walls) {
  std::vector<WallHeat> out;
  for (const WallHeat& w : walls)
    if (w.wall.kind != ThermalWall::Kind::Adiabatic && w.faces > 0) out.push_back(w);
  return out;
}

}  // namespace

std::vector<WallHeat> heated_walls(const Params& params, const ObstacleMask& mask) {
  if (!params.extensions.heat) return {};
  std::vector<WallHeat> walls = numbered_walls(params.extensions);
  for_each_wall_face(params, mask, walls, [](WallHeat& w, std::size_t, std::size_t, int) { ++w.faces; });
  return heat_carrying(walls);
}

std::vector<WallHeat> wall_heat(const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  const Extensions& x = params.extensions;
  if (!x.heat) return {};
  const std::size_t n = params.cells();
  if (f.size() != static_cast<std::size_t>(x.planes()) * n)
    throw std::invalid_argument("wall_heat: the lattice needs its 14 planes");
  constexpr int kOpposite5[5] = {0, 3, 4, 1, 2};
  std::vector<WallHeat> walls = numbered_walls(x);
  for_each_wall_face(params, mask, walls, [&](WallHeat& w, std::size_t fluid, std::size_t wall, int k) {
    ++w.faces;
    w.heat_in += f[(kSpeeds + kOpposite5[k]) * n + wall] - f[(kSpeeds + k) * n + fluid];
  });
  const double scale = x.heat_length / (x.diffusivity * x.temperature_difference);
  std::vector<WallHeat> out = heat_carrying(walls);
  for (WallHeat& w : out) w.nusselt = w.heat_in / w.faces * scale;
  return out;
}

}  // namespace d2q9
