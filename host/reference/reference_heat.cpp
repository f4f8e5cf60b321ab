// The reference's heat (cl/heat.cl, operation for operation): the
// temperature lattice's pull, walls, inlets and collision.
#include <cmath>
#include <tuple>

#include "reference/reference_solver.hpp"

namespace d2q9 {

namespace {

constexpr int kHeatEx[kHeatSpeeds] = {0, 1, 0, -1, 0};
constexpr int kHeatEy[kHeatSpeeds] = {0, 0, 1, 0, -1};
// An open edge's unknown speed: the one that would come from outside.
constexpr int kUnknownAt[kEdges] = {1, 3, 2, 4};

template <typename Real>
Real heat_weight0() { return Real(1) / Real(3); }
template <typename Real>
Real heat_weight1() { return Real(1) / Real(6); }

}  // namespace

// Pull, periodic; an outlet's unknown is what the cell sent that way the step before.
template <typename Real>
void ReferenceSolver<Real>::propagate_heat() {
  if (heat_.empty()) return;
  const int nx = params_.nx, ny = params_.ny;
  for (int jj = 0; jj < ny; ++jj)
    for (int ii = 0; ii < nx; ++ii)
      for (int k = 0; k < kHeatSpeeds; ++k) {
        const int x = (ii - kHeatEx[k] + nx) % nx, y = (jj - kHeatEy[k] + ny) % ny;
        tmp_heat_[ii + static_cast<std::size_t>(jj) * nx][k] = heat_[x + static_cast<std::size_t>(y) * nx][k];
      }
  for (const OpenBoundary& b : params_.extensions.open_boundaries) {
    if (b.inlet()) continue;
    const int k = kUnknownAt[static_cast<int>(b.edge)];
    for (std::size_t i = 0; i < heat_.size(); ++i)
      if (open_edge_of(mask_.kinds[i]) == static_cast<int>(b.edge)) tmp_heat_[i][k] = heat_[i][k];
  }
}

// Walls: back where it came from, less from 2 w T_w (a temperature) or plus
// the flux (a heat flux); plain and free-slip walls are adiabatic.
template <typename Real>
void ReferenceSolver<Real>::rebound_heat() {
  if (heat_.empty()) return;
  const Extensions& x = params_.extensions;
  for (std::size_t i = 0; i < heat_.size(); ++i) {
    const std::uint8_t b = mask_.kinds[i];
    if (!is_obstacle(b)) continue;
    const HeatCell& g = tmp_heat_[i];
    HeatCell& h = heat_[i];
    h = {g[0], g[3], g[4], g[1], g[2]};
    const ThermalWall wall = cell_kind(b) == kFreeSlip ? ThermalWall{} : x.thermal_wall(cell_number(b));
    const Real v = static_cast<Real>(wall.value);
    if (wall.kind == ThermalWall::Kind::Temperature) {
      const Real twice = Real(2) * (heat_weight1<Real>() * v);
      for (int k = 1; k < kHeatSpeeds; ++k) h[k] = twice - h[k];
    } else if (wall.kind == ThermalWall::Kind::HeatFlux) {
      for (int k = 1; k < kHeatSpeeds; ++k) h[k] += v;
    }
  }
}

// An inlet's unknown makes its cell's temperature the inlet's; then every
// cell's temperature, which the flow's buoyancy reads.
template <typename Real>
void ReferenceSolver<Real>::heat_inlets() {
  if (heat_.empty()) return;
  for (const OpenBoundary& b : params_.extensions.open_boundaries) {
    if (!b.inlet()) continue;
    const int unknown = kUnknownAt[static_cast<int>(b.edge)];
    for (std::size_t i = 0; i < heat_.size(); ++i) {
      if (open_edge_of(mask_.kinds[i]) != static_cast<int>(b.edge)) continue;
      HeatCell& h = tmp_heat_[i];
      Real known = 0;
      bool first = true;
      for (int k = 0; k < kHeatSpeeds; ++k) {
        if (k == unknown) continue;
        known = first ? h[k] : known + h[k];
        first = false;
      }
      h[unknown] = static_cast<Real>(b.temperature) - known;
    }
  }
  for (std::size_t i = 0; i < heat_.size(); ++i) {
    const HeatCell& h = tmp_heat_[i];
    temperature_[i] = h[0] + h[1] + h[2] + h[3] + h[4];
  }
}

// Fluid cells relax toward h_k^eq = w_k T (1 + 3 e_k.u) at the velocity the
// flow collided with: BGK at omega_T, or TRT (odd parts at omega_T).
template <typename Real>
void ReferenceSolver<Real>::collide_heat() {
  if (heat_.empty()) return;
  const Extensions& x = params_.extensions;
  const Real w = static_cast<Real>(x.thermal_omega()), w_even = static_cast<Real>(x.thermal_omega_even());
  const bool trt = x.thermal_collision == CollisionOperator::Trt;
  for (std::size_t i = 0; i < heat_.size(); ++i) {
    if (is_obstacle(mask_.kinds[i])) continue;
    const HeatCell& g = tmp_heat_[i];
    HeatCell& h = heat_[i];
    const Real t = temperature_[i];
    const Real wt = heat_weight1<Real>() * t;
    const Real qx = wt * (Real(3) * ux_[i]), qy = wt * (Real(3) * uy_[i]);
    if (!trt) {
      h[0] = std::fma(w, heat_weight0<Real>() * t - g[0], g[0]);
      h[1] = std::fma(w, (wt + qx) - g[1], g[1]);
      h[2] = std::fma(w, (wt + qy) - g[2], g[2]);
      h[3] = std::fma(w, (wt - qx) - g[3], g[3]);
      h[4] = std::fma(w, (wt - qy) - g[4], g[4]);
      continue;
    }
    h[0] = g[0] - w_even * (g[0] - heat_weight0<Real>() * t);
    for (const auto& [k, o, q] : {std::tuple<int, int, Real>{1, 3, qx}, std::tuple<int, int, Real>{2, 4, qy}}) {
      const Real even = Real(0.5) * (g[k] + g[o]) - wt;
      const Real odd = Real(0.5) * (g[k] - g[o]) - q;
      const Real de = w_even * even, dd = w * odd;
      h[k] = g[k] - de - dd;
      h[o] = g[o] - de + dd;
    }
  }
}

#define D2Q9_REFERENCE_HEAT(Real)                           \
  template void ReferenceSolver<Real>::propagate_heat();    \
  template void ReferenceSolver<Real>::rebound_heat();      \
  template void ReferenceSolver<Real>::heat_inlets();       \
  template void ReferenceSolver<Real>::collide_heat();
D2Q9_REFERENCE_HEAT(float)
D2Q9_REFERENCE_HEAT(double)
#undef D2Q9_REFERENCE_HEAT

}  // namespace d2q9
