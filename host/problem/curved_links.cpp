#include "problem/curved_links.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include "problem/lattice.hpp"

namespace d2q9 {

std::uint8_t link_code(double q) {
  return static_cast<std::uint8_t>(std::clamp(std::lround(255.0 * q), 1L, 255L));
}

namespace {
// Whether a circle covers cell (i, j): the rule the problem file's
// rasterisation uses.
bool covers(const Circle& c, double i, double j) {
  const double dx = i - c.center.x, dy = j - c.center.y;
  return (dx * dx + dy * dy <= c.radius * c.radius) != c.outside;
}

// Where the segment from p (in the fluid) to p + v first meets the circle,
// as a fraction of v; none when p is not in the fluid or the segment misses.
std::optional<double> crossing(const Circle& c, double px, double py, double vx, double vy) {
  const double dx = px - c.center.x, dy = py - c.center.y;
  const double a = vx * vx + vy * vy, b = dx * vx + dy * vy, cc = dx * dx + dy * dy - c.radius * c.radius;
  if (c.outside ? cc >= 0.0 : cc <= 0.0) return std::nullopt;
  const double disc = b * b - a * cc;
  if (disc < 0.0) return std::nullopt;
  // From outside the nearer root, from inside the farther, written to
  // avoid cancellation: cc / (-b + sqrt(disc)) and (-b + sqrt(disc)) / a.
  const double t = c.outside ? (-b + std::sqrt(disc)) / a : cc / (-b + std::sqrt(disc));
  if (!(t > 0.0 && t <= 1.0)) return std::nullopt;
  return t;
}
}  // namespace

std::vector<std::uint8_t> circle_links(const ObstacleMask& mask, const std::vector<Circle>& circles, bool open_x,
                                       bool open_y) {
  const int nx = mask.nx, ny = mask.ny;
  const std::size_t cells = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  std::vector<std::uint8_t> links(8 * cells, 0);
  if (circles.empty()) return links;
  // A link's wall cell lies in a circle, so its fluid cell is within a cell
  // of the circle's box: each circle's box and a margin is walked (cells
  // walked twice get the same bytes), not the whole grid, whose walk would
  // dominate a large grid's setup.
  const auto fluid_cell = [&](int i, int j) {
      if (mask.at(i, j)) return;
      for (int k = 1; k < kSpeeds; ++k) {
        const int wi = (i - kEx[k] + nx) % nx, wj = (j - kEy[k] + ny) % ny;  // the link's wall cell
        if (!mask.at(wi, wj)) continue;
        // Measured from the wall cell, so that a link across the periodic
        // edge meets the circle where its image would be.
        const double px = wi + kEx[k], py = wj + kEy[k];
        double q = 2.0;
        for (const Circle& c : circles)
          if (covers(c, wi, wj))
            if (auto t = crossing(c, px, py, -kEx[k], -kEy[k])) q = std::min(q, *t);
        if (q > 1.0) continue;
        std::uint8_t code = link_code(q);
        const int bi = (i + kEx[k] + nx) % nx, bj = (j + kEy[k] + ny) % ny;  // the cell beyond
        const bool beyond_open_edge =
            (open_x && (i + kEx[k] < 0 || i + kEx[k] >= nx)) || (open_y && (j + kEy[k] < 0 || j + kEy[k] >= ny));
        if (2 * code < 255 && (beyond_open_edge || mask.at(bi, bj))) code = 128;
        links[static_cast<std::size_t>(k - 1) * cells + static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * nx] =
            code;
      }
  };
  for (const Circle& c : circles) {
    const auto span = [](double centre, double radius, int n) {
      long lo = static_cast<long>(std::floor(centre - radius)) - 2, hi = static_cast<long>(std::ceil(centre + radius)) + 2;
      if (hi - lo + 1 >= n) lo = 0, hi = n - 1;
      return std::pair<long, long>(lo, hi);
    };
    const auto [i0, i1] = span(c.center.x, c.radius, nx);
    const auto [j0, j1] = span(c.center.y, c.radius, ny);
    for (long j = j0; j <= j1; ++j)
      for (long i = i0; i <= i1; ++i)
        fluid_cell(static_cast<int>((i % nx + nx) % nx), static_cast<int>((j % ny + ny) % ny));
  }
  return links;
}

int curved_cells_in_windows(const ObstacleMask& mask, int window) {
  if (mask.links.empty()) return 0;
  const int nx = mask.nx, ny = mask.ny;
  const std::size_t cells = static_cast<std::size_t>(nx) * ny;
  // Which cells are fluid with a curved link: the planes OR-ed in order.
  std::vector<std::uint8_t> curved(cells, 0);
  for (int k = 0; k < 8; ++k) {
    const std::uint8_t* plane = mask.links.data() + static_cast<std::size_t>(k) * cells;
    for (std::size_t c = 0; c < cells; ++c) curved[c] |= plane[c];
  }
  for (std::size_t c = 0; c < cells; ++c) curved[c] = curved[c] && !is_obstacle(mask.kinds[c]);
  // Per column, the curved cells of `window` rows from row y (wrapping),
  // moved up a row at a time; along each such row of counts, the sums of
  // `window` columns (wrapping), moved a column at a time.
  const int wy = std::min(window, ny), wx = std::min(window, nx);
  const auto row = [&](int y) { return curved.data() + static_cast<std::size_t>(y % ny) * nx; };
  std::vector<int> column(static_cast<std::size_t>(nx), 0);
  for (int y = 0; y < wy; ++y)
    for (int x = 0; x < nx; ++x) column[x] += row(y)[x];
  int most = 0;
  for (int y = 0; y < ny; ++y) {
    int count = 0;
    for (int x = 0; x < wx; ++x) count += column[x];
    for (int x = 0; x < nx; ++x) {
      most = std::max(most, count);
      count += column[(x + wx) % nx] - column[x];
    }
    const std::uint8_t* leaving = row(y);
    const std::uint8_t* entering = row(y + wy);
    for (int x = 0; x < nx; ++x) column[x] += entering[x] - leaving[x];
  }
  return most;
}

}  // namespace d2q9
