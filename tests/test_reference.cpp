// The oracle's own checks: values derived by hand from the model.
#include <doctest/doctest.h>

#include <cmath>
#include <numeric>

#include "helpers.hpp"
#include "reference/reference_solver.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;

TEST_CASE("reference: one step on an open 4x4 grid matches the model worked by hand") {
  const double d = 0.1, a = 0.005, omega = 1.85;
  Params p = d2q9::test::make_params(4, 4, 1, a, omega);
  ReferenceSolver<double> solver(p, ObstacleMask(4, 4));
  std::vector<double> av;
  solver.run(1, av);
  REQUIRE(av.size() == 1);
  // Row 2 is accelerated; after propagation row 2 moves at ux = 2a/9 and rows
  // 1 and 3 at ux = a/18 (from the diagonals), row 0 is at rest: mean a/12.
  CHECK(av[0] == doctest::Approx(a / 12).epsilon(1e-12));

  // f1 of a row-2 cell: g1 = d/9 + w1 relaxed towards feq1 = d/9 (1 + 3u + 3u^2).
  const std::vector<double> f = solver.distributions();
  const double w1 = d * a / 9, ux = 2 * a / 9;
  const double g1 = d / 9 + w1;
  const double feq1 = d / 9 * (1 + 3 * ux + 4.5 * ux * ux - 1.5 * ux * ux);
  CHECK(f[1 * 16 + 1 + 2 * 4] == doctest::Approx(g1 + omega * (feq1 - g1)).epsilon(1e-14));
  // Row 0 saw nothing of the acceleration yet.
  CHECK(f[1 * 16 + 1] == doctest::Approx(d / 9).epsilon(1e-15));
}

TEST_CASE("reference: a fluid at rest with no acceleration stays at rest") {
  Params p = d2q9::test::make_params(6, 5, 20, 0.0);
  ReferenceSolver<double> solver(p, d2q9::test::test_obstacles(p));
  std::vector<double> av;
  solver.run(20, av);
  CHECK(av.size() == 20);
  // Equilibrium at rest is a fixed point up to rounding of the weights.
  for (double v : av) CHECK(v < 1e-15);
  CHECK(d2q9::test::max_relative_difference(solver.distributions(), initial_distributions(p), 1e-3) < 1e-14);
}

TEST_CASE("reference: mass is conserved with obstacles and acceleration") {
  Params p = d2q9::test::make_params(12, 10, 200, 0.02);
  ReferenceSolver<double> solver(p, d2q9::test::test_obstacles(p));
  std::vector<double> av;
  solver.run(200, av);
  const auto f = solver.distributions();
  const double mass = std::accumulate(f.begin(), f.end(), 0.0);
  CHECK(mass == doctest::Approx(p.density * 120).epsilon(1e-12));
  CHECK(av.back() > 1e-4);  // the flow really moved
}

TEST_CASE("reference: float and double agree closely over a short run") {
  Params p = d2q9::test::make_params(12, 10, 100, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  ReferenceSolver<float> sf(p, m);
  ReferenceSolver<double> sd(p, m);
  std::vector<double> af, ad;
  sf.run(100, af);
  sd.run(100, ad);
  CHECK(d2q9::test::max_relative_difference(af, ad, 1e-6) < 1e-4);
}

TEST_CASE("reference: one step from a non-uniform state with an obstacle, worked from the model") {
  // 4x4, one blocked cell at (1, 1), no acceleration. Every distribution starts
  // at its own value, exact in binary, so a value taken from the wrong
  // neighbour or the wrong direction shows.
  const int nx = 4, ny = 4, n = nx * ny;
  const double omega = 1.7;
  Params p = d2q9::test::make_params(nx, ny, 1, 0.0, omega);
  ObstacleMask mask(nx, ny);
  mask.kinds[1 + 1 * nx] = 1;
  // D2Q9 by hand: rest, E, N, W, S, NE, NW, SW, SE, and each one's opposite.
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  auto at = [&](int k, int x, int y) { return k * n + ((y + ny) % ny) * nx + (x + nx) % nx; };
  std::vector<double> before(9 * n);
  for (int k = 0; k < 9; ++k)
    for (int c = 0; c < n; ++c) before[k * n + c] = 0.05 + k / 64.0 + c / 1024.0;

  ReferenceSolver<double> solver(p, mask);
  solver.load_distributions(before);
  std::vector<double> av;
  solver.run(1, av);
  const std::vector<double> after = solver.distributions();

  // The blocked cell sends back what streamed into it: direction k leaves
  // with the value that arrived along the opposite direction.
  for (int k = 0; k < 9; ++k) {
    CAPTURE(k);
    CHECK(after[at(k, 1, 1)] == before[at(opposite[k], 1 + ex[k], 1 + ey[k])]);
  }

  // Each fluid cell relaxes what streamed in towards equilibrium (BGK).
  double sum_speed = 0;
  for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x) {
      if (x == 1 && y == 1) continue;
      CAPTURE(x);
      CAPTURE(y);
      double t[9], rho = 0, mx = 0, my = 0;
      for (int k = 0; k < 9; ++k) {
        t[k] = before[at(k, x - ex[k], y - ey[k])];
        rho += t[k];
        mx += ex[k] * t[k];
        my += ey[k] * t[k];
      }
      const double ux = mx / rho, uy = my / rho, uu = ux * ux + uy * uy;
      sum_speed += std::sqrt(uu);
      for (int k = 0; k < 9; ++k) {
        const double w = k == 0 ? 4.0 / 9 : k < 5 ? 1.0 / 9 : 1.0 / 36;
        const double eu = ex[k] * ux + ey[k] * uy;
        const double feq = w * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * uu);
        CAPTURE(k);
        CHECK(after[at(k, x, y)] == doctest::Approx(t[k] + omega * (feq - t[k])).epsilon(1e-13));
      }
    }
  // The average speed is over the 15 fluid cells; the blocked one is left out.
  REQUIRE(av.size() == 1);
  CHECK(av[0] == doctest::Approx(sum_speed / 15).epsilon(1e-13));
}

TEST_SUITE_END();
