#include "problem/curved_links.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

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
  return dx * dx + dy * dy <= c.radius * c.radius;
}

// Where the segment from p (outside the circle) to p + v first meets it, as
// a fraction of v; none when p is not outside or the segment misses.
std::optional<double> crossing(const Circle& c, double px, double py, double vx, double vy) {
  const double dx = px - c.center.x, dy = py - c.center.y;
  const double a = vx * vx + vy * vy, b = dx * vx + dy * vy, cc = dx * dx + dy * dy - c.radius * c.radius;
  if (cc <= 0.0) return std::nullopt;
  const double disc = b * b - a * cc;
  if (disc < 0.0) return std::nullopt;
  // The nearer root, written to avoid cancellation: cc / (-b + sqrt(disc)).
  const double t = cc / (-b + std::sqrt(disc));
  if (!(t > 0.0 && t <= 1.0)) return std::nullopt;
  return t;
}
}  // namespace

std::vector<std::uint8_t> circle_links(const ObstacleMask& mask, const std::vector<Circle>& circles, bool open_x) {
  const int nx = mask.nx, ny = mask.ny;
  const std::size_t cells = static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny);
  std::vector<std::uint8_t> links(8 * cells, 0);
  if (circles.empty()) return links;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      if (mask.at(i, j)) continue;
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
        const bool beyond_open_edge = open_x && (i + kEx[k] < 0 || i + kEx[k] >= nx);
        if (2 * code < 255 && (beyond_open_edge || mask.at(bi, bj))) code = 128;
        links[static_cast<std::size_t>(k - 1) * cells + static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * nx] =
            code;
      }
    }
  return links;
}

int curved_cells_in_windows(const ObstacleMask& mask, int window) {
  if (mask.links.empty()) return 0;
  const int nx = mask.nx, ny = mask.ny;
  const std::size_t cells = static_cast<std::size_t>(nx) * ny;
  const auto curved = [&](int x, int y) {
    const std::size_t c = static_cast<std::size_t>(x) + static_cast<std::size_t>(y) * nx;
    if (mask.kinds[c]) return 0;
    for (int k = 1; k < 9; ++k)
      if (mask.links[static_cast<std::size_t>(k - 1) * cells + c]) return 1;
    return 0;
  };
  // Column counts over `window` rows from each row (wrapping), slid up the
  // grid; then row sums of `window` columns, slid along each row.
  const int wy = std::min(window, ny), wx = std::min(window, nx);
  std::vector<std::uint16_t> column(cells);
  for (int x = 0; x < nx; ++x) {
    int count = 0;
    for (int y = 0; y < wy; ++y) count += curved(x, y);
    for (int y = 0; y < ny; ++y) {
      column[static_cast<std::size_t>(x) + static_cast<std::size_t>(y) * nx] = static_cast<std::uint16_t>(count);
      count += curved(x, (y + wy) % ny) - curved(x, y);
    }
  }
  int most = 0;
  for (int y = 0; y < ny; ++y) {
    const std::uint16_t* row = column.data() + static_cast<std::size_t>(y) * nx;
    int count = 0;
    for (int x = 0; x < wx; ++x) count += row[x];
    for (int x = 0; x < nx; ++x) {
      most = std::max(most, count);
      count += row[(x + wx) % nx] - row[x];
    }
  }
  return most;
}

}  // namespace d2q9
