#include "reference/reference_solver.hpp"

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "problem/stability.hpp"

namespace d2q9 {

namespace {
// The lattice weights, computed as the kernels compute them.
template <typename Real>
const Real kWeight[kSpeeds] = {Real(4) / Real(9),  Real(1) / Real(9),  Real(1) / Real(9),
                               Real(1) / Real(9),  Real(1) / Real(9),  Real(1) / Real(36),
                               Real(1) / Real(36), Real(1) / Real(36), Real(1) / Real(36)};
}  // namespace

template <typename Real>
ReferenceSolver<Real>::ReferenceSolver(const Params& params, const ObstacleMask& mask,
                                       std::optional<Precision> storage)
    : params_(params), mask_(mask), cells_(params.cells()), tmp_cells_(params.cells()), speed_(params.cells()) {
  if (storage) {
    if (!is_16bit(*storage) || sizeof(Real) != sizeof(float))
      throw std::invalid_argument("ReferenceSolver: 16-bit storage needs float arithmetic");
    storage_format_ = storage;
    storage_.emplace(*storage, params);
    codes_.resize(cells_.size());
  }
  if (params.extensions.heat) {
    if (storage) heat_codes_.resize(cells_.size());
    heat_.resize(cells_.size());
    tmp_heat_.resize(cells_.size());
    temperature_.resize(cells_.size());
    ux_.resize(cells_.size());
    uy_.resize(cells_.size());
  }
  load_distributions(initial_distributions(params));
}

template <typename Real>
void ReferenceSolver<Real>::load_distributions(const std::vector<double>& f) {
  const std::size_t n = cells_.size();
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < kSpeeds; ++k) {
      if (storage_) {
        codes_[i][k] = storage_->encode_exact(k, f[k * n + i]);
        cells_[i][k] = static_cast<Real>(storage_->load(k, codes_[i][k]));
      } else {
        cells_[i][k] = static_cast<Real>(f[k * n + i]);
      }
    }
  for (std::size_t i = 0; i < heat_.size(); ++i)
    for (int k = 0; k < kHeatSpeeds; ++k) {
      const double h = f[(kSpeeds + k) * n + i];
      if (storage_) {
        heat_codes_[i][k] = storage_->encode_exact(kSpeeds + k, h);
        heat_[i][k] = static_cast<Real>(storage_->load(kSpeeds + k, heat_codes_[i][k]));
      } else {
        heat_[i][k] = static_cast<Real>(h);
      }
    }
}

template <typename Real>
void ReferenceSolver<Real>::store(std::size_t i, int k) {
  codes_[i][k] = storage_->encode(k, static_cast<float>(cells_[i][k]));
  cells_[i][k] = static_cast<Real>(storage_->load(k, codes_[i][k]));
}

template <typename Real>
void ReferenceSolver<Real>::store_heat(std::size_t i, int k) {
  heat_codes_[i][k] = storage_->encode(kSpeeds + k, static_cast<float>(heat_[i][k]));
  heat_[i][k] = static_cast<Real>(storage_->load(kSpeeds + k, heat_codes_[i][k]));
}

template <typename Real>
void ReferenceSolver<Real>::run(int steps, std::vector<double>& av_vels) {
  for (int t = 0; t < steps; ++t) {
    step_ = static_cast<int>(av_vels.size());
    accelerate_flow();
    propagate();
    propagate_heat();
    interpolate_links();
    rebound();
    rebound_heat();
    measure_body_forces();
    open_edges();  // after the forces: the kernels measure links' forces before the open edges' unknowns
    heat_inlets();
    collision();
    collide_heat();
    av_vels.push_back(static_cast<double>(av_velocity()));
    check_average_velocity(av_vels.back(), av_vels.size() - 1);
    // The kernels measure |u| before they store the new state.
    if (!storage_) continue;
    for (std::size_t i = 0; i < cells_.size(); ++i)
      for (int k = 0; k < kSpeeds; ++k) store(i, k);
    for (std::size_t i = 0; i < heat_.size(); ++i)
      for (int k = 0; k < kHeatSpeeds; ++k) store_heat(i, k);
  }
}

template <typename Real>
void ReferenceSolver<Real>::accelerate_flow() {
  const Real density = static_cast<Real>(params_.density);
  const Real accel = static_cast<Real>(params_.accel);
  const Real w1 = density * accel / Real(9);
  const Real w2 = density * accel / Real(36);
  const int jj = params_.ny - 2;
  for (int ii = 0; ii < params_.nx; ++ii) {
    if (mask_.at(ii, jj)) continue;
    const std::size_t i = ii + jj * params_.nx;
    Cell& c = cells_[i];
    if (c[3] - w1 > Real(0) && c[6] - w2 > Real(0) && c[7] - w2 > Real(0)) {
      c[1] += w1;
      c[5] += w2;
      c[8] += w2;
      c[3] -= w1;
      c[6] -= w2;
      c[7] -= w2;
      if (storage_)
        for (int k : {1, 3, 5, 6, 7, 8}) store(i, k);
    }
  }
}

template <typename Real>
void ReferenceSolver<Real>::propagate() {
  const int nx = params_.nx, ny = params_.ny;
  for (int jj = 0; jj < ny; ++jj) {
    for (int ii = 0; ii < nx; ++ii) {
      // Pull: speed k arrives from the neighbour at (ii, jj) - e_k, periodic.
      for (int k = 0; k < kSpeeds; ++k) {
        const int x = (ii - kEx[k] + nx) % nx;
        const int y = (jj - kEy[k] + ny) % ny;
        tmp_cells_[ii + jj * nx][k] = cells_[x + y * nx][k];
      }
    }
  }
}

// Curved walls (the kernels' interpolate_links): on each fluid cell's link
// that a curved wall cuts at q of its length, the pull's value is replaced by
// one interpolated from what this cell (own, its stored state) and the cell
// beyond it sent out in the previous step (Bouzidi et al. 2001, linear), and
// a moving wall's momentum where the link meets it. The wall's body takes
// e_k (own_o + its rebound's push - g_k) more than its rebound counted.
template <typename Real>
void ReferenceSolver<Real>::interpolate_links() {
  if (mask_.links.empty()) return;
  const int bodies = params_.extensions.measured_bodies;
  link_forces_.assign(2 * static_cast<std::size_t>(bodies), 0.0);
  const std::size_t n = cells_.size();
  const int nx = params_.nx, ny = params_.ny;
  const bool moving = !params_.extensions.wall_velocities.empty();  // the kernels' MOVING_WALL
  for (std::size_t i = 0; i < n; ++i) {
    const Cell pulled = tmp_cells_[i];
    const Cell& own = cells_[i];
    // The cell's density, at which a moving wall pushes its links (the kernels' link_pushes).
    const Real rho = ((((((((own[0] + own[1]) + own[2]) + own[3]) + own[4]) + own[5]) + own[6]) + own[7]) + own[8]);
    for (int k = 1; k < kSpeeds; ++k) {
      const int code = mask_.links[(k - 1) * n + i];
      if (code == 0) continue;
      const int o = kOpposite[k];
      const Real two_q = Real(2 * code) / Real(255);
      const int ii = static_cast<int>(i % nx), jj = static_cast<int>(i / nx);
      const std::uint8_t wall = mask_.kinds[(ii - kEx[k] + nx) % nx + static_cast<std::size_t>((jj - kEy[k] + ny) % ny) * nx];
      // A moving wall's momentum where the link meets it, x - q e_k.
      const Real q = Real(code) / Real(255);
      const Real push = moving_push(wall, k, Real(ii) - q * Real(kEx[k]), Real(jj) - q * Real(kEy[k]), rho);
      Real& g = tmp_cells_[i][k];
      if (!moving)
        g = two_q < Real(1) ? std::fma(two_q, own[o] - pulled[o], pulled[o]) : own[k] + (own[o] - own[k]) / two_q;
      else if (two_q < Real(1))
        g = std::fma(two_q, own[o] - pulled[o], pulled[o]) + push;  // q < 1/2: with the cell beyond
      else
        g = own[k] + ((own[o] - own[k]) + push) / two_q;
      const int body = cell_body(wall, bodies);
      if (body == 0) continue;
      // The wall cell's rebound counted own_o + its own push back.
      const Real counted = own[o] + moving_push(wall, k, Real(ii - kEx[k]), Real(jj - kEy[k]), static_cast<Real>(params_.density));
      const Real d = (moving ? counted : own[o]) - g;
      link_forces_[2 * (body - 1)] += static_cast<double>(Real(kEx[k]) * d);
      link_forces_[2 * (body - 1) + 1] += static_cast<double>(Real(kEy[k]) * d);
    }
  }
}

// Each edge's speeds in Zou/He's rule, as cl/open_edges.cl names them:
// I, O, IP, OP, IM, OM, TP, TM (the unknown along the inward normal and its
// opposite, the unknown diagonals of tangential component +1 and -1 and
// their opposites, the tangential axis speeds).
constexpr int kEdgeSpeeds[kEdges][8] = {
    {1, 3, 5, 7, 8, 6, 2, 4}, {3, 1, 6, 8, 7, 5, 2, 4}, {2, 4, 5, 7, 6, 8, 1, 3}, {4, 2, 8, 6, 7, 5, 1, 3}};

// An inlet's velocity (u.n, u.t) at cell s along its edge this step, as the
// kernels' inflow_at computes it: its profile and ramp.
template <typename Real>
std::array<Real, 2> ReferenceSolver<Real>::inflow(const OpenBoundary& b, int s) const {
  const Extensions& x = params_.extensions;
  const Vec2 nt = edge_frame_velocity(b.edge, b.velocity);
  Real un = static_cast<Real>(nt.x), ut = static_cast<Real>(nt.y);
  if (b.parabolic) {  // Poiseuille's profile between walls half-way outside the edge's second and last-but-one cells
    const Real y = Real(s) - Real(0.5);
    un = static_cast<Real>(inlet_profile_factor(params_, b)) * y * (static_cast<Real>(inlet_span(params_, b.edge)) - y);
    ut = Real(0);
  }
  if (x.inlet_ramp_steps > 0) {  // a smoothstep from 0 to 1 over the ramp's steps
    const Real r = Real(step_ + 1) / Real(x.inlet_ramp_steps);
    const Real share = r >= Real(1) ? Real(1) : r * r * (Real(3) - Real(2) * r);
    un *= share;
    ut *= share;
  }
  return {un, ut};
}

// Zou/He on the open boundaries' cells (kFluid, numbered by their edge), as
// the kernels' open_boundary() computes it.
template <typename Real>
void ReferenceSolver<Real>::open_edges() {
  const int nx = params_.nx, ny = params_.ny;
  for (const OpenBoundary& b : params_.extensions.open_boundaries) {
    const int e = static_cast<int>(b.edge);
    const bool column = b.edge == Edge::Left || b.edge == Edge::Right;
    const int n = column ? ny : nx;
    const auto [I, O, IP, OP, IM, OM, TP, TM] = kEdgeSpeeds[e];
    for (int s = 0; s < n; ++s) {
      const int ii = column ? (b.edge == Edge::Left ? 0 : nx - 1) : s;
      const int jj = column ? s : (b.edge == Edge::Bottom ? 0 : ny - 1);
      const std::size_t i = static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * nx;
      if (open_edge_of(mask_.kinds[i]) != e) continue;
      Cell& g = tmp_cells_[i];
      const Real sum = g[0] + g[TP] + g[TM] + Real(2) * (g[O] + g[OM] + g[OP]);
      const Real d = Real(0.5) * (g[TP] - g[TM]);
      if (b.inlet()) {
        const auto [un, ut] = inflow(b, s);
        const Real rho = sum / (Real(1) - un);
        g[I] = g[O] + Real(2) / Real(3) * rho * un;
        g[IP] = g[OP] - d + Real(1) / Real(6) * rho * un + Real(0.5) * rho * ut;
        g[IM] = g[OM] + d + Real(1) / Real(6) * rho * un - Real(0.5) * rho * ut;
      } else {
        const Real rho = static_cast<Real>(b.density);
        const Real uo = sum / rho - Real(1);
        g[I] = g[O] - Real(2) / Real(3) * rho * uo;
        g[IP] = g[OP] - d - Real(1) / Real(6) * rho * uo;
        g[IM] = g[OM] + d - Real(1) / Real(6) * rho * uo;
      }
    }
  }
}

// Moving wall `number`'s velocity at cell i, as the kernels' add_wall_momentum computes it.
template <typename Real>
std::array<Real, 2> ReferenceSolver<Real>::wall_velocity(int number, Real x, Real y) const {
  const Extensions& e = params_.extensions;
  const Vec2 u = e.wall_velocities[static_cast<std::size_t>(number)];
  Real ux = static_cast<Real>(u.x), uy = static_cast<Real>(u.y);
  if (!e.wall_rotations.empty()) {
    const Extensions::Rotation& r = e.wall_rotations[static_cast<std::size_t>(number)];
    const Real omega = static_cast<Real>(r.omega);
    ux = ux - omega * (y - static_cast<Real>(r.centre.y));
    uy = uy + omega * (x - static_cast<Real>(r.centre.x));
  }
  return {ux, uy};
}

// What moving wall byte `wall` adds to speed k as it sends it back from
// (x, y): 2 w rho (e.u_w) / c^2, rho the problem's density (rebound) or a
// curved link's cell's; 0 for others.
template <typename Real>
Real ReferenceSolver<Real>::moving_push(std::uint8_t wall, int k, Real x, Real y, Real density) const {
  if (cell_kind(wall) != kMovingWall || params_.extensions.wall_velocities.empty()) return Real(0);
  const auto [ux, uy] = wall_velocity(cell_number(wall), x, y);
  return Real(6) * kWeight<Real>[k] * density * (Real(kEx[k]) * ux + Real(kEy[k]) * uy);
}

// Obstacles send every distribution back; a moving wall adds its momentum,
// 2 w rho (e.u_w) / c^2 with the problem's density; a free-slip wall
// reflects what arrives across its axis instead.
template <typename Real>
void ReferenceSolver<Real>::rebound() {
  const std::size_t nx = static_cast<std::size_t>(params_.nx);
  constexpr int kAcrossX[kSpeeds] = {0, 3, 2, 1, 4, 6, 5, 8, 7};
  constexpr int kAcrossY[kSpeeds] = {0, 1, 4, 3, 2, 8, 7, 6, 5};
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const std::uint8_t kind = cell_kind(mask_.kinds[i]);
    if (kind == kFluid) continue;
    const int number = cell_number(mask_.kinds[i]);
    for (int k = 1; k < kSpeeds; ++k) {
      if (kind == kFreeSlip) {
        cells_[i][k] = tmp_cells_[i][number == kFreeSlipAcrossX ? kAcrossX[k] : kAcrossY[k]];
        continue;
      }
      cells_[i][k] = tmp_cells_[i][kOpposite[k]];
      if (kind == kMovingWall)
        cells_[i][k] += moving_push(mask_.kinds[i], k, Real(static_cast<int>(i % nx)), Real(static_cast<int>(i / nx)),
                                    static_cast<Real>(params_.density));
    }
  }
}

// Momentum exchange: what each measured body's cells took from the lattice
// this step, the momentum arriving (tmp) less that sent back (cells), in the
// kernels' order of operations per cell; summed over cells in double. With
// moving walls only the links with fluid count (the kernels' add_body_force).
template <typename Real>
void ReferenceSolver<Real>::measure_body_forces() {
  const int bodies = params_.extensions.measured_bodies;
  if (bodies == 0) return;
  const std::size_t first = body_forces_.size();
  body_forces_.resize(first + 2 * static_cast<std::size_t>(bodies), 0.0);
  const int nx = params_.nx, ny = params_.ny;
  const bool moving = params_.extensions.moving_walls();  // the kernels' MOVING_WALL: links with fluid only
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    const int body = cell_body(mask_.kinds[i], bodies);
    if (body == 0) continue;
    const Cell& g = tmp_cells_[i];
    Cell f = cells_[i];
    f[0] = g[0];  // rebound leaves speed 0 where it was
    const int ii = static_cast<int>(i % nx), jj = static_cast<int>(i / nx);
    // Whether the neighbour x + e_k is fluid.
    const auto fluid = [&](int k) {
      return !is_obstacle(mask_.kinds[(ii + kEx[k] + nx) % nx + static_cast<std::size_t>((jj + kEy[k] + ny) % ny) * nx]);
    };
    const auto d = [&](int k) {
      if (!moving) return g[k] - f[k];
      return (fluid(kOpposite[k]) ? g[k] : Real(0)) - (fluid(k) ? f[k] : Real(0));
    };
    const Real fx = ((d(1) + d(5)) + d(8)) - ((d(3) + d(6)) + d(7));
    const Real fy = ((d(2) + d(5)) + d(6)) - ((d(4) + d(7)) + d(8));
    body_forces_[first + 2 * (body - 1)] += static_cast<double>(fx);
    body_forces_[first + 2 * (body - 1) + 1] += static_cast<double>(fy);
  }
  for (std::size_t q = 0; q < link_forces_.size(); ++q) body_forces_[first + q] += link_forces_[q];
}

namespace {

// What the collision of a whole lattice reads and writes.
template <typename Real>
struct Collision {
  const std::array<Real, kSpeeds>* g;  // incoming distributions
  std::array<Real, kSpeeds>* f;        // the new state (fluid cells)
  Real* speed;                         // |u| per cell, 0 on obstacles
  const std::uint8_t* kinds;
  std::size_t cells;
  Real omega, omega_minus, fx, fy;  // omega_minus: TRT's odd rate; fx, fy: the body force (forced only)
  bool forced;
  // Heat: each cell's temperature, and where the velocity each fluid cell
  // collided with goes (for the temperature's collision); null without heat.
  const Real* temperature;
  Real* ux;
  Real* uy;
  Real bx, by, t_ref;  // buoyancy: the force (bx, by) (T - t_ref)
  // The Smagorinsky model (subgrid only): tau0 = 1/omega, 18 sqrt(2) C^2 and TRT's Lambda.
  Real tau0, smagorinsky_factor, magic;
};

// A cell's relaxation time under the Smagorinsky model, as the kernels'
// smagorinsky_tau computes it from the non-equilibrium momentum flux Pi:
// (tau0 + sqrt(tau0^2 + 18 sqrt(2) C^2 |Pi| / rho)) / 2.
template <typename Real>
inline __attribute__((always_inline)) Real smagorinsky_tau(const Collision<Real>& c, const std::array<Real, kSpeeds>& g,
                                                           Real rho, Real inv_rho, Real ux, Real uy) {
  // Pi: g's second moment less the equilibrium's, rho (u u + I/3).
  const Real diagonal = (g[5] + g[6]) + (g[7] + g[8]);
  const Real jx = rho * ux, third = rho * (Real(1) / Real(3));
  const Real pxx = ((g[1] + g[3]) + diagonal) - std::fma(jx, ux, third);
  const Real pyy = ((g[2] + g[4]) + diagonal) - std::fma(rho * uy, uy, third);
  const Real pxy = ((g[5] + g[7]) - (g[6] + g[8])) - jx * uy;
  const Real pi_norm = std::sqrt(std::fma(pxx, pxx, std::fma(pyy, pyy, Real(2) * (pxy * pxy))));
  return Real(0.5) * (c.tau0 + std::sqrt(std::fma(c.tau0, c.tau0, c.smagorinsky_factor * (pi_norm * inv_rho))));
}

// What every operator needs of a fluid cell: its moments and its rates.
template <typename Real>
struct CellMoments {
  Real rho, ux, uy, a, omega, omega_minus;
  Real fx, fy;  // the force on the cell (forced only): the body force, and its buoyancy
  Real eu(int k) const { return kEx[k] * ux + kEy[k] * uy; }  // e_k.u: exact, the factors are 0 and +-1
};

// e_k.F, exact.
template <typename Real>
inline __attribute__((always_inline)) Real force_along(const CellMoments<Real>& m, int k) {
  return Real(kEx[k]) * m.fx + Real(kEy[k]) * m.fy;
}

// Guo, Zheng & Shi 2002 (BGK and regularised), as the kernels' guo_term takes
// it: (1 - omega/2) w_k ((e_k.F)(3 + 9 e_k.u) - 3 u.F).
template <typename Real>
inline __attribute__((always_inline)) Real guo(const CellMoments<Real>& m, int k) {
  const Real m3uf = Real(-3) * (m.ux * m.fx + m.uy * m.fy);
  return (Real(1) - Real(0.5) * m.omega) * kWeight<Real>[k] *
         std::fma(force_along(m, k), std::fma(Real(9), m.eu(k), Real(3)), m3uf);
}

template <typename Real>
inline __attribute__((always_inline)) void bgk_cell(const Collision<Real>& c, const CellMoments<Real>& m,
                                                    const std::array<Real, kSpeeds>& g, std::array<Real, kSpeeds>& f) {
  const Real keep = Real(1) - m.omega;
  for (int k = 0; k < kSpeeds; ++k) {
    const Real e = m.eu(k);
    const Real r = m.omega * kWeight<Real>[k] * m.rho;
    const Real p = std::fma(e, std::fma(e, Real(4.5), Real(3)), m.a);
    // The kernels' fma(r, p, -0) without a force is r p.
    f[k] = std::fma(keep, g[k], c.forced ? std::fma(r, p, guo(m, k)) : r * p);
  }
}

// Even parts relax at omega, odd parts at omega_minus; Guo's term split alike.
template <typename Real>
inline __attribute__((always_inline)) void trt_cell(const Collision<Real>& c, const CellMoments<Real>& m,
                                                    const std::array<Real, kSpeeds>& g, std::array<Real, kSpeeds>& f) {
  const Real* w = kWeight<Real>;
  const Real uf = c.forced ? m.ux * m.fx + m.uy * m.fy : Real(0);
  f[0] = g[0] - m.omega * (g[0] - w[0] * m.rho * m.a);
  if (c.forced) f[0] += (Real(1) - Real(0.5) * m.omega) * (w[0] * (Real(-3) * uf));
  for (int k : {1, 2, 5, 6}) {
    const int o = kOpposite[k];
    const Real e = m.eu(k), wrho = w[k] * m.rho;
    const Real even = Real(0.5) * (g[k] + g[o]) - wrho * std::fma(e * e, Real(4.5), m.a);
    const Real odd = Real(0.5) * (g[k] - g[o]) - wrho * (Real(3) * e);
    const Real de = m.omega * even, dd = m.omega_minus * odd;
    f[k] = g[k] - de - dd;
    f[o] = g[o] - de + dd;
    if (c.forced) {
      const Real fe = (Real(1) - Real(0.5) * m.omega) * (w[k] * (Real(9) * e * force_along(m, k) - Real(3) * uf));
      const Real fo = (Real(1) - Real(0.5) * m.omega_minus) * (w[k] * (Real(3) * force_along(m, k)));
      f[k] += fe + fo;
      f[o] += fe - fo;
    }
  }
}

// Regularised: f_k = feq_k + (1 - omega) w_k 9/2 Q_k : Pi_neq.
template <typename Real>
inline __attribute__((always_inline)) void regularised_cell(const Collision<Real>& c, const CellMoments<Real>& m,
                                                            const std::array<Real, kSpeeds>& g,
                                                            std::array<Real, kSpeeds>& f) {
  const Real* w = kWeight<Real>;
  const Real keep = Real(1) - m.omega;
  Real feq[kSpeeds], n[kSpeeds];
  for (int k = 0; k < kSpeeds; ++k) {
    const Real e = m.eu(k);
    feq[k] = (w[k] * m.rho) * (k == 0 ? m.a : std::fma(e, std::fma(e, Real(4.5), Real(3)), m.a));
    n[k] = g[k] - feq[k];
  }
  const Real diagonal = (n[5] + n[6]) + (n[7] + n[8]);
  const Real pxx = (n[1] + n[3]) + diagonal;
  const Real pyy = (n[2] + n[4]) + diagonal;
  const Real pxy = (n[5] + n[7]) - (n[6] + n[8]);
  const Real trace = pxx + pyy;
  const Real qx = Real(3) * pxx - Real(1.5) * pyy;
  const Real qy = Real(3) * pyy - Real(1.5) * pxx;
  const Real qd = Real(3) * trace, qxy = Real(9) * pxy;
  const Real q[kSpeeds] = {Real(-1.5) * trace, qx, qy, qx, qy, qd + qxy, qd - qxy, qd + qxy, qd - qxy};
  for (int k = 0; k < kSpeeds; ++k) {
    f[k] = std::fma(keep * w[k], q[k], feq[k]);
    // With a force, g's momentum is rho u - F/2: BGK keeps (1 - omega)
    // of that difference, and so must the regularised state.
    if (c.forced) f[k] += (keep * w[k]) * (Real(-1.5) * force_along(m, k)) + guo(m, k);
  }
}

// The arithmetic of the kernels' collide(), operation for operation (the
// contract in docs/arithmetic.md: one reciprocal of the density, explicit
// fmas, nothing else fused), so that the reference and the kernels agree bit
// for bit where the device rounds as IEEE says; |u| of each fluid cell is the
// velocity it collided with, as the kernels measure it. One loop per
// operator, so that BGK's stays as simple (and as fast) as it was.
template <typename Real, CollisionOperator Op, bool Subgrid>
inline __attribute__((always_inline)) void collide_cells(const Collision<Real>& c) {
  for (std::size_t i = 0; i < c.cells; ++i) {
    c.speed[i] = 0;
    if (is_obstacle(c.kinds[i])) continue;
    const auto& g = c.g[i];
    CellMoments<Real> m;
    m.rho = 0;
    for (int k = 0; k < kSpeeds; ++k) m.rho += g[k];
    const Real inv_rho = Real(1) / m.rho;
    Real mx = g[1] + g[5] + g[8] - (g[3] + g[6] + g[7]);
    Real my = g[2] + g[5] + g[6] - (g[4] + g[7] + g[8]);
    m.fx = c.fx;
    m.fy = c.fy;
    if (c.temperature) {  // the kernels' BUOYANCY (bx = by = 0: none)
      m.fx = std::fma(c.bx, c.temperature[i] - c.t_ref, c.fx);
      m.fy = std::fma(c.by, c.temperature[i] - c.t_ref, c.fy);
    }
    if (c.forced) {  // the velocity is the momentum plus half the force
      mx += Real(0.5) * m.fx;
      my += Real(0.5) * m.fy;
    }
    m.ux = mx * inv_rho;
    m.uy = my * inv_rho;
    if (c.ux) {
      c.ux[i] = m.ux;
      c.uy[i] = m.uy;
    }
    const Real u_sq = std::fma(m.ux, m.ux, m.uy * m.uy);
    m.a = std::fma(u_sq, Real(-1.5), Real(1));
    m.omega = c.omega;
    m.omega_minus = c.omega_minus;
    if constexpr (Subgrid) {
      const Real tau = smagorinsky_tau(c, g, m.rho, inv_rho, m.ux, m.uy);
      m.omega = Real(1) / tau;
      if constexpr (Op == CollisionOperator::Trt) {
        const Real nu = tau - Real(0.5);  // TRT keeps Lambda = (tau - 1/2)(1/omega_minus - 1/2)
        m.omega_minus = nu / std::fma(Real(0.5), nu, c.magic);
      }
    }
    if constexpr (Op == CollisionOperator::Bgk)
      bgk_cell(c, m, g, c.f[i]);
    else if constexpr (Op == CollisionOperator::Trt)
      trt_cell(c, m, g, c.f[i]);
    else
      regularised_cell(c, m, g, c.f[i]);
    c.speed[i] = std::sqrt(u_sq);
  }
}

// std::fma is one instruction where the CPU has FMA, and a library call where
// the build cannot assume it (no -march): a clone for FMA CPUs, picked when
// the program loads, keeps the oracle fast and exact alike.
template <typename Real, bool Subgrid>
inline __attribute__((always_inline)) void collide_any(const Collision<Real>& c, CollisionOperator op) {
  switch (op) {
    case CollisionOperator::Bgk: return collide_cells<Real, CollisionOperator::Bgk, Subgrid>(c);
    case CollisionOperator::Trt: return collide_cells<Real, CollisionOperator::Trt, Subgrid>(c);
    case CollisionOperator::Regularised: return collide_cells<Real, CollisionOperator::Regularised, Subgrid>(c);
  }
}
__attribute__((target_clones("fma", "default"))) void collide_all(const Collision<float>& c, CollisionOperator op,
                                                                  bool subgrid) {
  subgrid ? collide_any<float, true>(c, op) : collide_any<float, false>(c, op);
}
__attribute__((target_clones("fma", "default"))) void collide_all(const Collision<double>& c, CollisionOperator op,
                                                                  bool subgrid) {
  subgrid ? collide_any<double, true>(c, op) : collide_any<double, false>(c, op);
}

}  // namespace

template <typename Real>
void ReferenceSolver<Real>::collision() {
  const Vec2 force = params_.extensions.body_force;
  const Extensions& x = params_.extensions;
  Collision<Real> c{tmp_cells_.data(), cells_.data(), speed_.data(), mask_.kinds.data(), cells_.size(),
                    static_cast<Real>(params_.omega), static_cast<Real>(trt_omega_minus(params_.omega, x.trt_magic)),
                    static_cast<Real>(force.x), static_cast<Real>(force.y), x.forced() || x.buoyant(),
                    nullptr, nullptr, nullptr, Real(0), Real(0), Real(0),
                    static_cast<Real>(1.0 / params_.omega), static_cast<Real>(smagorinsky_factor(x.smagorinsky)),
                    static_cast<Real>(x.trt_magic)};
  if (x.heat) {
    c.ux = ux_.data();
    c.uy = uy_.data();
  }
  if (x.buoyant()) {
    c.temperature = temperature_.data();
    c.bx = static_cast<Real>(x.buoyancy.x);
    c.by = static_cast<Real>(x.buoyancy.y);
    c.t_ref = static_cast<Real>(x.reference_temperature);
  }
  collide_all(c, x.collision, x.subgrid());
  if (x.sponges()) absorb();
}

// The sponges (the kernels' absorb): in the layers beside the inlet and the
// outlet, fluid cells relax toward the far field's equilibrium, the inlet's
// velocity at the outlet's density, at a rate rising as the depth squared.
template <typename Real>
void ReferenceSolver<Real>::absorb() {
  const Extensions& x = params_.extensions;
  const int nx = params_.nx, ny = params_.ny;
  const int left = x.sponge(Edge::Left), right = x.sponge(Edge::Right);
  const int bottom = x.sponge(Edge::Bottom), top = x.sponge(Edge::Top);
  const Real* w = kWeight<Real>;
  const Real rho = static_cast<Real>(*x.outlet_density());
  const OpenBoundary& inlet = *x.inlet();
  for (int jj = 0; jj < ny; ++jj) {
    for (int ii = 0; ii < nx; ++ii) {
      Real depth = 0;
      if (ii < left) depth = Real(left - ii) / Real(left);
      if (ii >= nx - right) depth = Real(ii - (nx - right) + 1) / Real(right);
      if (jj < bottom) depth = std::fmax(depth, Real(bottom - jj) / Real(bottom));
      if (jj >= ny - top) depth = std::fmax(depth, Real(jj - (ny - top) + 1) / Real(top));
      const Real s = static_cast<Real>(Extensions::kSpongeStrength) * (depth * depth);
      if (s == Real(0) || mask_.at(ii, jj)) continue;
      // The far field: the inlet's velocity at the cell's place along its edge, in (x, y).
      const bool column = inlet.edge == Edge::Left || inlet.edge == Edge::Right;
      const auto [un, ut] = inflow(inlet, column ? jj : ii);
      const Real ux = inlet.edge == Edge::Left ? un : inlet.edge == Edge::Right ? -un : ut;
      const Real uy = column ? ut : inlet.edge == Edge::Bottom ? un : -un;
      const Real a = std::fma(std::fma(ux, ux, uy * uy), Real(-1.5), Real(1));
      Cell& f = cells_[ii + static_cast<std::size_t>(jj) * nx];
      for (int k = 0; k < kSpeeds; ++k) {
        const Real e = kEx[k] * ux + kEy[k] * uy;
        const Real feq = (w[k] * rho) * (k == 0 ? a : std::fma(e, std::fma(e, Real(4.5), Real(3)), a));
        f[k] = std::fma(s, feq - f[k], f[k]);
      }
    }
  }
}

template <typename Real>
Real ReferenceSolver<Real>::av_velocity() const {
  Real tot_u = 0;
  std::size_t tot_cells = 0;
  for (std::size_t i = 0; i < cells_.size(); ++i) {
    if (is_obstacle(mask_.kinds[i])) continue;
    tot_u += speed_[i];
    ++tot_cells;
  }
  return tot_u / static_cast<Real>(tot_cells);
}

template <typename Real>
std::vector<double> ReferenceSolver<Real>::distributions() {
  const std::size_t n = cells_.size();
  std::vector<double> f(params_.extensions.planes() * n);
  for (std::size_t i = 0; i < n; ++i)
    for (int k = 0; k < kSpeeds; ++k)
      f[k * n + i] = storage_ ? storage_->decode(k, codes_[i][k]) : static_cast<double>(cells_[i][k]);
  for (std::size_t i = 0; i < heat_.size(); ++i)
    for (int k = 0; k < kHeatSpeeds; ++k)
      f[(kSpeeds + k) * n + i] =
          storage_ ? storage_->decode(kSpeeds + k, heat_codes_[i][k]) : static_cast<double>(heat_[i][k]);
  return f;
}

template class ReferenceSolver<float>;
template class ReferenceSolver<double>;

}  // namespace d2q9
