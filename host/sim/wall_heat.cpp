#include "sim/wall_heat.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>

#include "problem/lattice.hpp"

namespace d2q9 {

namespace {

// The heat through one face of a wall number's cell and a fluid cell (no
// padding: its bytes travel between the ranks).
struct FaceHeat {
  std::int64_t number;
  double heat_in;
};

// The temperature planes (kSpeeds.. kSpeeds + kHeatSpeeds - 1) of the grid's
// rows that `own` holds, and of the rows just below and above them (the
// neighbours' edge rows, periodic: `below` and `above`, kHeatSpeeds rows of nx).
class HeatRows {
 public:
  HeatRows(const Params& params, const StateRows& own, const std::vector<double>& below,
           const std::vector<double>& above)
      : nx_(params.nx), ny_(params.ny), own_(own), below_(below), above_(above) {}
  // D2Q5 plane k (0-4) of cell (ii, jj) of the grid, jj within a row of own's rows or beside them.
  double at(int k, int ii, int jj) const {
    const std::size_t x = static_cast<std::size_t>(ii);
    const int r = ((jj - own_.first_row) % ny_ + ny_) % ny_;  // past own's first row, periodic
    if (r < own_.rows)
      return own_.f[(kSpeeds + k) * plane() + static_cast<std::size_t>(r) * nx_ + x];
    if (r == ny_ - 1) return below_.at(k * nx_ + x);
    if (r == own_.rows) return above_.at(k * nx_ + x);
    throw std::logic_error("wall_heat: row " + std::to_string(jj) + " is not beside the rows held");
  }
  // Row jj's (one of own's) temperature planes, as below and above hold them.
  std::vector<double> edge_row(int jj) const {
    std::vector<double> row(static_cast<std::size_t>(kHeatSpeeds) * nx_);
    for (int k = 0; k < kHeatSpeeds; ++k)
      for (int ii = 0; ii < nx_; ++ii) row[k * nx_ + ii] = at(k, ii, jj);
    return row;
  }

 private:
  std::size_t plane() const { return static_cast<std::size_t>(own_.rows) * nx_; }
  int nx_, ny_;
  const StateRows& own_;
  const std::vector<double>& below_;
  const std::vector<double>& above_;
};

// A face between a fluid cell (ii, jj) and the cell of a heated wall number
// (wx, wy) that D2Q5's speed k (1-4) crosses, from the fluid cell (D2Q5's
// speeds are D2Q9's first five, so kOpposite reverses them too).
struct Face {
  std::int64_t number;
  int k, ii, jj, wx, wy;
};

// Every face of a fluid cell in rows [first_row, first_row + rows) with a
// cell of a wall number below `walls`, in the grid's order (row by row,
// across, then D2Q5's speeds): the order the heat is added in.
std::vector<Face> faces_in_rows(const Params& params, const ObstacleMask& mask, int first_row, int rows,
                                std::size_t walls) {
  const int nx = params.nx, ny = params.ny;
  std::vector<Face> faces;
  for (int jj = first_row; jj < first_row + rows; ++jj)
    for (int ii = 0; ii < nx; ++ii) {
      if (is_obstacle(mask.kinds[ii + static_cast<std::size_t>(jj) * nx])) continue;
      for (int k = 1; k < kHeatSpeeds; ++k) {
        const int wx = (ii + kEx[k] + nx) % nx, wy = (jj + kEy[k] + ny) % ny;
        const std::uint8_t b = mask.kinds[wx + static_cast<std::size_t>(wy) * nx];
        if (!is_obstacle(b) || cell_kind(b) == kFreeSlip) continue;
        const int number = cell_number(b);
        if (number <= 0 || number >= static_cast<int>(walls)) continue;
        faces.push_back({number, k, ii, jj, wx, wy});
      }
    }
  return faces;
}

// The heat through each face: what the wall cell sends back less what the fluid cell sent it.
template <class Heat>  // HeatRows, CellHeat, or what stands for them where only the faces count
std::vector<FaceHeat> face_heat(const std::vector<Face>& faces, const Heat& heat) {
  std::vector<FaceHeat> out;
  out.reserve(faces.size());
  for (const Face& f : faces) out.push_back({f.number, heat.at(kOpposite[f.k], f.wx, f.wy) - heat.at(f.k, f.ii, f.jj)});
  return out;
}

template <class Heat>
std::vector<FaceHeat> face_heat(const Params& params, const ObstacleMask& mask, const Heat& heat,
                                const StateRows& own, std::size_t walls) {
  return face_heat(faces_in_rows(params, mask, own.first_row, own.rows, walls), heat);
}

// The walls' heat from their faces' (added in the order given) and their Nusselt numbers.
std::vector<WallHeat> walls_of(const Params& params, const std::vector<FaceHeat>& faces) {
  const Extensions& x = params.extensions;
  std::vector<WallHeat> walls(x.thermal_walls.size());
  for (std::size_t number = 0; number < walls.size(); ++number) {
    WallHeat& w = walls[number];
    w.number = static_cast<int>(number);
    w.wall = x.thermal_wall(w.number);
    const bool named = number < x.thermal_wall_names.size() && !x.thermal_wall_names[number].empty();
    w.name = named ? x.thermal_wall_names[number] : "wall " + std::to_string(number);
  }
  for (const FaceHeat& face : faces) {
    WallHeat& w = walls.at(static_cast<std::size_t>(face.number));
    ++w.faces;
    w.heat_in += face.heat_in;
  }
  std::vector<WallHeat> out;
  const double scale = x.heat_length / (x.diffusivity * x.temperature_difference);
  for (WallHeat& w : walls) {
    if (w.wall.kind == ThermalWall::Kind::Adiabatic || w.faces == 0) continue;
    w.nusselt = w.heat_in / w.faces * scale;
    out.push_back(w);
  }
  return out;
}

void check_planes(const Params& params, std::size_t values, std::size_t cells) {
  if (values != static_cast<std::size_t>(params.extensions.planes()) * cells)
    throw std::invalid_argument("wall_heat: the lattice needs its 14 planes");
}

}  // namespace

std::vector<WallHeat> wall_heat(const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  if (!params.extensions.heat) return {};
  check_planes(params, f.size(), params.cells());
  const StateRows whole{0, params.ny, f};
  const std::vector<double> none;
  const HeatRows heat(params, whole, none, none);
  return walls_of(params, face_heat(params, mask, heat, whole, params.extensions.thermal_walls.size()));
}

WallHeatCells::WallHeatCells(const Params& params, const ObstacleMask& mask) : params_(params) {
  if (!params.extensions.heat) return;
  const std::vector<Face> faces = faces_in_rows(params, mask, 0, params.ny, params.extensions.thermal_walls.size());
  const auto cell = [&](int ii, int jj) { return static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * params.nx; };
  for (const Face& f : faces) {
    cells_.push_back(cell(f.ii, f.jj));
    cells_.push_back(cell(f.wx, f.wy));
  }
  std::sort(cells_.begin(), cells_.end());
  cells_.erase(std::unique(cells_.begin(), cells_.end()), cells_.end());
  const std::size_t planes = static_cast<std::size_t>(params.extensions.planes());
  const auto value = [&](std::size_t c, int k) {
    const std::size_t at = static_cast<std::size_t>(std::lower_bound(cells_.begin(), cells_.end(), c) - cells_.begin());
    return at * planes + kSpeeds + static_cast<std::size_t>(k);
  };
  for (const Face& f : faces)
    links_.push_back({f.number, value(cell(f.ii, f.jj), f.k), value(cell(f.wx, f.wy), kOpposite[f.k])});
}

std::vector<WallHeat> WallHeatCells::heat(const std::vector<double>& values) const {
  if (!params_.extensions.heat) return {};
  if (values.size() != cells_.size() * static_cast<std::size_t>(params_.extensions.planes()))
    throw std::invalid_argument("WallHeatCells: the values of its cells, 14 a cell");
  std::vector<FaceHeat> faces;
  faces.reserve(links_.size());
  for (const Link& l : links_) faces.push_back({l.number, values[l.wall] - values[l.fluid]});
  return walls_of(params_, faces);
}

std::vector<WallHeat> heated_walls(const Params& params, const ObstacleMask& mask) {
  if (!params.extensions.heat) return {};
  struct NoHeat {
    double at(int, int, int) const { return 0.0; }
  };
  const StateRows whole{0, params.ny, {}};
  return walls_of(params, face_heat(params, mask, NoHeat{}, whole, params.extensions.thermal_walls.size()));
}

std::vector<WallHeat> wall_heat(Ranks& ranks, const Params& params, const ObstacleMask& mask, const StateRows& own) {
  if (!params.extensions.heat) return {};
  if (ranks.size() == 1) return wall_heat(params, mask, own.f);
  // The faces with a wall cell in a neighbour's rows need its edge row.
  std::string down, up;
  ranks.on_every_rank([&] {
    check_planes(params, own.f.size(), static_cast<std::size_t>(own.rows) * params.nx);
    const std::vector<double> none;
    const HeatRows mine(params, own, none, none);
    down = to_bytes(mine.edge_row(own.first_row));
    up = to_bytes(mine.edge_row(own.first_row + own.rows - 1));
  });
  const auto [from_below, from_above] = ranks.exchange_with_neighbours(down, up);
  std::string faces;
  ranks.on_every_rank([&] {
    const std::vector<double> below = from_bytes<double>(from_below), above = from_bytes<double>(from_above);
    faces = to_bytes(face_heat(params, mask, HeatRows(params, own, below, above), own,
                               params.extensions.thermal_walls.size()));
  });
  // Rank 0 adds the faces rank by rank, bottom slab first: one process's order.
  const std::vector<std::string> all = ranks.gather(faces);
  std::vector<WallHeat> walls;
  ranks.on_root([&] {
    std::vector<FaceHeat> ordered;
    for (const std::string& part : all) {
      const std::vector<FaceHeat> rank_faces = from_bytes<FaceHeat>(part);
      ordered.insert(ordered.end(), rank_faces.begin(), rank_faces.end());
    }
    walls = walls_of(params, ordered);
  });
  return walls;
}

}  // namespace d2q9
