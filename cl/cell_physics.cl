// Cell physics: moments, the collision operators, forcing, absorbing layers,
// rebound, and the update of one cell; the reductions of its |u| and forces.

// ---------------------------------------------------------------------------
// The collision of one cell, in the order it happens: the open edges set
// their unknowns, the moments, the collision operator and its share of the
// body force, then rebound on obstacles and the next step's acceleration.
// The arithmetic contract (docs/arithmetic.md) holds throughout: every
// operation is one IEEE operation or one fma, in the order written here, in
// every backend and the serial reference (ReferenceSolver::collision).

// The lattice weights w_k: rest (speed 0), axis (1-4) and diagonal (5-8) speeds.
#define W0 ((real)4 / (real)9)
#define W1 ((real)1 / (real)9)
#define W2 ((real)1 / (real)36)

// A component of the force that is +0 on every cell (the host's FORCE_X_ZERO,
// FORCE_Y_ZERO), which the forcing leaves out (unit_times).
#ifndef FORCE_X_ZERO
#define FORCE_X_ZERO 0
#endif
#ifndef FORCE_Y_ZERO
#define FORCE_Y_ZERO 0
#endif

// What every collision operator needs of a fluid cell's incoming distributions.
typedef struct {
  real rho;     // density
  real ux, uy;  // velocity; with a body force (momentum + F/2) / rho, Guo's shift
  real u_sq;    // u.u, of which |u| is also taken
  real a;       // 1 - 3/2 u.u: the part of every equilibrium that e_k.u leaves alone
#ifdef BODY_FORCE
  real fx, fy;  // the force on the cell: FORCE_X, FORCE_Y, and with BUOYANCY its temperature's
#endif
#ifdef SMAGORINSKY
  real inv_rho;  // 1 / rho, for the subgrid model's |Pi| / rho
#endif
} cell_moments;

// One division per cell: rho's reciprocal. `temperature`: the cell's (heat.cl),
// whose excess over T_REF pushes it (BUOYANCY); read only then.
ALWAYS_INLINE cell_moments moments_of(const real* g, const real temperature) {
  cell_moments m;
  (void)temperature;
  m.rho = g[0] + g[1] + g[2] + g[3] + g[4] + g[5] + g[6] + g[7] + g[8];
  const real inv_rho = (real)1 / m.rho;
  real mx = g[1] + g[5] + g[8] - (g[3] + g[6] + g[7]);
  real my = g[2] + g[5] + g[6] - (g[4] + g[7] + g[8]);
#ifdef BODY_FORCE
#ifdef BUOYANCY
  m.fx = FORCE_X_ZERO ? (real)0 : fma((real)BUOYANCY_X, temperature - (real)T_REF, (real)FORCE_X);
  m.fy = FORCE_Y_ZERO ? (real)0 : fma((real)BUOYANCY_Y, temperature - (real)T_REF, (real)FORCE_Y);
#else
  m.fx = (real)FORCE_X;
  m.fy = (real)FORCE_Y;
#endif
  // The velocity is the momentum plus half the force (a known +0 component: + 0, its value).
  mx += FORCE_X_ZERO ? (real)0 : (real)0.5 * m.fx;
  my += FORCE_Y_ZERO ? (real)0 : (real)0.5 * m.fy;
#endif
  m.ux = mx * inv_rho;
  m.uy = my * inv_rho;
  m.u_sq = fma(m.ux, m.ux, m.uy * m.uy);
  m.a = fma(m.u_sq, (real)-1.5, (real)1);
#ifdef SMAGORINSKY
  m.inv_rho = inv_rho;
#endif
  return m;
}

// feq_k = w_k rho p_k with p_k = 1 - 3/2 u.u + 3 eu + 9/2 eu^2, eu = e_k.u:
// p_k = fma(eu, fma(eu, 9/2, 3), a). Speeds 3, 4, 7 and 8 pass -eu of their
// opposites (exact).
ALWAYS_INLINE real equilibrium_factor(const real eu, const real a) {
  return fma(eu, fma(eu, (real)4.5, (real)3), a);
}

// --- Collision operators: f, the post-collision state of a fluid cell, from
// its incoming distributions g and their moments m. One is compiled in
// (collide_fluid), as the problem chooses.

// r p + s in one rounding with a body force; without one, s is nothing and
// the product is taken alone (compilers keep an fma with a -0 addend).
ALWAYS_INLINE real product_plus(const real r, const real p, const real s) {
#ifdef BODY_FORCE
  return fma(r, p, s);
#else
  (void)s;
  return r * p;
#endif
}

// BGK: f_k = g_k + omega (feq_k - g_k) + s_k = (1 - omega) g_k + omega w_k rho p_k + s_k,
// with s the body force's terms (guo_terms).
ALWAYS_INLINE void collide_bgk(const real* g, const cell_moments m, const real omega, const real* s, real* f) {
  const real keep = (real)1 - omega;
  const real r0 = omega * W0 * m.rho, r1 = omega * W1 * m.rho, r2 = omega * W2 * m.rho;
  const real u5 = m.ux + m.uy, u6 = m.uy - m.ux;  // e_k.u of speeds 5 (NE) and 6 (NW)
  f[0] = fma(keep, g[0], product_plus(r0, m.a, s[0]));
  f[1] = fma(keep, g[1], product_plus(r1, equilibrium_factor(m.ux, m.a), s[1]));
  f[2] = fma(keep, g[2], product_plus(r1, equilibrium_factor(m.uy, m.a), s[2]));
  f[3] = fma(keep, g[3], product_plus(r1, equilibrium_factor(-m.ux, m.a), s[3]));
  f[4] = fma(keep, g[4], product_plus(r1, equilibrium_factor(-m.uy, m.a), s[4]));
  f[5] = fma(keep, g[5], product_plus(r2, equilibrium_factor(u5, m.a), s[5]));
  f[6] = fma(keep, g[6], product_plus(r2, equilibrium_factor(u6, m.a), s[6]));
  f[7] = fma(keep, g[7], product_plus(r2, equilibrium_factor(-u5, m.a), s[7]));
  f[8] = fma(keep, g[8], product_plus(r2, equilibrium_factor(-u6, m.a), s[8]));
}

#ifdef COLLISION_REGULARISED
// Regularised BGK (Latt & Chopard 2006): the non-equilibrium part is
// replaced by its projection onto the second-order Hermite moments,
// f_k = feq_k + (1 - omega) w_k 9/2 Q_k : Pi_neq, Q_k = e_k e_k - I/3.
ALWAYS_INLINE void collide_regularised(const real* g, const cell_moments m, const real omega, real* f) {
  const real keep = (real)1 - omega;
  const real q0 = W0 * m.rho, q1 = W1 * m.rho, q2 = W2 * m.rho;
  const real u5 = m.ux + m.uy, u6 = m.uy - m.ux;
  real feq[9];
  feq[0] = q0 * m.a;
  feq[1] = q1 * equilibrium_factor(m.ux, m.a);
  feq[2] = q1 * equilibrium_factor(m.uy, m.a);
  feq[3] = q1 * equilibrium_factor(-m.ux, m.a);
  feq[4] = q1 * equilibrium_factor(-m.uy, m.a);
  feq[5] = q2 * equilibrium_factor(u5, m.a);
  feq[6] = q2 * equilibrium_factor(u6, m.a);
  feq[7] = q2 * equilibrium_factor(-u5, m.a);
  feq[8] = q2 * equilibrium_factor(-u6, m.a);
  // Pi_neq from the non-equilibrium parts n_k = g_k - feq_k.
  const real n1 = g[1] - feq[1], n2 = g[2] - feq[2], n3 = g[3] - feq[3], n4 = g[4] - feq[4];
  const real n5 = g[5] - feq[5], n6 = g[6] - feq[6], n7 = g[7] - feq[7], n8 = g[8] - feq[8];
  const real diagonal = (n5 + n6) + (n7 + n8);
  const real pxx = (n1 + n3) + diagonal;
  const real pyy = (n2 + n4) + diagonal;
  const real pxy = (n5 + n7) - (n6 + n8);
  const real trace = pxx + pyy;
  const real k0 = keep * W0, k1 = keep * W1, k2 = keep * W2;
  const real qx = (real)3 * pxx - (real)1.5 * pyy;
  const real qy = (real)3 * pyy - (real)1.5 * pxx;
  const real qd = (real)3 * trace;
  const real qxy = (real)9 * pxy;
  f[0] = fma(k0, (real)-1.5 * trace, feq[0]);
  f[1] = fma(k1, qx, feq[1]);
  f[2] = fma(k1, qy, feq[2]);
  f[3] = fma(k1, qx, feq[3]);
  f[4] = fma(k1, qy, feq[4]);
  f[5] = fma(k2, qd + qxy, feq[5]);
  f[6] = fma(k2, qd - qxy, feq[6]);
  f[7] = fma(k2, qd + qxy, feq[7]);
  f[8] = fma(k2, qd - qxy, feq[8]);
}
#endif

#ifdef COLLISION_TRT
// Two relaxation times (Ginzburg, d'Humieres & Kuzmin 2008) for the pair of
// opposite speeds k and o = opposite(k) of weight w, eu = e_k.u: the even
// part (g_k + g_o)/2 relaxes to its equilibrium at omega (OMEGA), the odd
// part at omega_minus (OMEGA_MINUS, the host's choice from the "magic"
// parameter Lambda = (1/omega - 1/2)(1/omega_minus - 1/2)).
ALWAYS_INLINE void trt_pair(const real* g, real* f, const int k, const int o, const real w, const real rho,
                            const real eu, const real a, const real omega, const real omega_minus) {
  const real wrho = w * rho;
  const real even = (real)0.5 * (g[k] + g[o]) - wrho * fma(eu * eu, (real)4.5, a);
  const real odd = (real)0.5 * (g[k] - g[o]) - wrho * ((real)3 * eu);
  const real de = omega * even, dd = omega_minus * odd;
  f[k] = g[k] - de - dd;
  f[o] = g[o] - de + dd;
}

ALWAYS_INLINE void collide_trt(const real* g, const cell_moments m, const real omega, const real omega_minus,
                               real* f) {
  f[0] = g[0] - omega * (g[0] - W0 * m.rho * m.a);  // the rest speed is all even
  trt_pair(g, f, 1, 3, W1, m.rho, m.ux, m.a, omega, omega_minus);
  trt_pair(g, f, 2, 4, W1, m.rho, m.uy, m.a, omega, omega_minus);
  trt_pair(g, f, 5, 7, W2, m.rho, m.ux + m.uy, m.a, omega, omega_minus);
  trt_pair(g, f, 6, 8, W2, m.rho, m.uy - m.ux, m.a, omega, omega_minus);
}
#endif

// --- Forcing: a body force (FORCE_X, FORCE_Y) per unit volume on the fluid,
// Guo, Zheng & Shi (Phys. Rev. E 65, 046308, 2002), second-order accurate
// together with the half-force shift of the velocity (moments_of). Each
// operator takes the term in its own form, added to its post-collision state.
#ifdef BODY_FORCE
// A force component the host knows to be +0 (FORCE_X_ZERO, FORCE_Y_ZERO: no
// body force and no buoyancy along it) takes no products, nor does a lattice
// component 0: a compiler must keep 0 * a (it is -0 for negative a), which
// is most of the forcing's arithmetic when the force is along an axis. The
// terms equal the products but for the sign of a zero, which adding them to
// a distribution never shows (docs/arithmetic.md); -0 adds nothing.
// e a for a lattice vector's component e (-1, 0 or 1, known when compiled).
ALWAYS_INLINE real unit_times(const int e, const real a) { return e == 0 ? (real)-0.0 : e > 0 ? a : -a; }
ALWAYS_INLINE real times_fx(const real a, const cell_moments m) { return FORCE_X_ZERO ? (real)-0.0 : a * m.fx; }
ALWAYS_INLINE real times_fy(const real a, const cell_moments m) { return FORCE_Y_ZERO ? (real)-0.0 : a * m.fy; }
// Whether e.F is a known zero for speed (ex, ey), and e.F.
ALWAYS_INLINE int force_across(const int ex, const int ey) {
  return (ex == 0 || FORCE_X_ZERO) && (ey == 0 || FORCE_Y_ZERO);
}
ALWAYS_INLINE real e_dot_force(const int ex, const int ey, const cell_moments m) {
  return unit_times(FORCE_X_ZERO ? 0 : ex, m.fx) + unit_times(FORCE_Y_ZERO ? 0 : ey, m.fy);
}
ALWAYS_INLINE real e_dot_u(const int ex, const int ey, const cell_moments m) {
  return unit_times(ex, m.ux) + unit_times(ey, m.uy);
}

// -3 u.F, which every speed's Guo term shares.
ALWAYS_INLINE real minus_three_u_dot_force(const cell_moments m) {
  return (real)-3 * (times_fx(m.ux, m) + times_fy(m.uy, m));
}

// Guo's term of speed (ex, ey) of weight w for the cell m,
// (1 - omega/2) w (3 (e - u).F + 9 (e.u)(e.F)), in the form
// (1 - omega/2) w ((e.F)(3 + 9 e.u) - 3 u.F): fewer operations, and the
// speeds with a known e.F of 0 share their term. m3uf is -3 u.F.
ALWAYS_INLINE real guo_term(const real w, const int ex, const int ey, const cell_moments m, const real m3uf,
                            const real omega) {
  const real bracket = force_across(ex, ey)
                           ? m3uf
                           : fma(e_dot_force(ex, ey, m), fma((real)9, e_dot_u(ex, ey, m), (real)3), m3uf);
  return ((real)1 - (real)0.5 * omega) * w * bracket;
}

// Guo's terms of the nine speeds, which BGK adds within its collision.
ALWAYS_INLINE void guo_terms(const cell_moments m, const real omega, real* s) {
  const real m3uf = minus_three_u_dot_force(m);
  s[0] = guo_term(W0, 0, 0, m, m3uf, omega);
  s[1] = guo_term(W1, 1, 0, m, m3uf, omega);
  s[2] = guo_term(W1, 0, 1, m, m3uf, omega);
  s[3] = guo_term(W1, -1, 0, m, m3uf, omega);
  s[4] = guo_term(W1, 0, -1, m, m3uf, omega);
  s[5] = guo_term(W2, 1, 1, m, m3uf, omega);
  s[6] = guo_term(W2, -1, 1, m, m3uf, omega);
  s[7] = guo_term(W2, -1, -1, m, m3uf, omega);
  s[8] = guo_term(W2, 1, -1, m, m3uf, omega);
}

// g's momentum is rho u - F/2: BGK keeps (1 - omega) of that difference, and
// so must the regularised state, which keeps no part of g as it is; kw is
// (1 - omega) w_k.
ALWAYS_INLINE real kept_force(const real kw, const int ex, const int ey, const cell_moments m) {
  return force_across(ex, ey) ? (real)-0.0 : kw * ((real)-1.5 * e_dot_force(ex, ey, m));
}

ALWAYS_INLINE void add_regularised_forcing(const cell_moments m, const real omega, real* f) {
  const real keep = (real)1 - omega;
  const real m3uf = minus_three_u_dot_force(m);
  const real k0 = keep * W0, k1 = keep * W1, k2 = keep * W2;
  f[0] += kept_force(k0, 0, 0, m) + guo_term(W0, 0, 0, m, m3uf, omega);
  f[1] += kept_force(k1, 1, 0, m) + guo_term(W1, 1, 0, m, m3uf, omega);
  f[2] += kept_force(k1, 0, 1, m) + guo_term(W1, 0, 1, m, m3uf, omega);
  f[3] += kept_force(k1, -1, 0, m) + guo_term(W1, -1, 0, m, m3uf, omega);
  f[4] += kept_force(k1, 0, -1, m) + guo_term(W1, 0, -1, m, m3uf, omega);
  f[5] += kept_force(k2, 1, 1, m) + guo_term(W2, 1, 1, m, m3uf, omega);
  f[6] += kept_force(k2, -1, 1, m) + guo_term(W2, -1, 1, m, m3uf, omega);
  f[7] += kept_force(k2, -1, -1, m) + guo_term(W2, -1, -1, m, m3uf, omega);
  f[8] += kept_force(k2, 1, -1, m) + guo_term(W2, 1, -1, m, m3uf, omega);
}

#ifdef COLLISION_TRT
// TRT splits Guo's term as it splits the state: for the pair k, o = opposite(k)
// of speed (ex, ey) (eu = e_k.u, ef = e_k.F, uf = u.F) its even part is
// scaled by 1 - omega/2, its odd part by 1 - omega_minus/2.
ALWAYS_INLINE void add_trt_pair_forcing(real* f, const int k, const int o, const real w, const int ex, const int ey,
                                        const cell_moments m, const real uf, const real omega,
                                        const real omega_minus) {
  const int across = force_across(ex, ey);
  const real ef = e_dot_force(ex, ey, m);
  const real along = across ? (real)-0.0 : (real)9 * e_dot_u(ex, ey, m) * ef;
  const real fe = ((real)1 - (real)0.5 * omega) * (w * (along - (real)3 * uf));
  const real fo = across ? (real)-0.0 : ((real)1 - (real)0.5 * omega_minus) * (w * ((real)3 * ef));
  f[k] += fe + fo;
  f[o] += across ? fe : fe - fo;
}

ALWAYS_INLINE void add_trt_forcing(const cell_moments m, const real omega, const real omega_minus, real* f) {
  const real uf = times_fx(m.ux, m) + times_fy(m.uy, m);
  f[0] += ((real)1 - (real)0.5 * omega) * (W0 * ((real)-3 * uf));
  add_trt_pair_forcing(f, 1, 3, W1, 1, 0, m, uf, omega, omega_minus);
  add_trt_pair_forcing(f, 2, 4, W1, 0, 1, m, uf, omega, omega_minus);
  add_trt_pair_forcing(f, 5, 7, W2, 1, 1, m, uf, omega, omega_minus);
  add_trt_pair_forcing(f, 6, 8, W2, -1, 1, m, uf, omega, omega_minus);
}
#endif
#else
// No body force: nothing to add (product_plus reads none of s).
ALWAYS_INLINE void guo_terms(const cell_moments m, const real omega, real* s) {
  (void)m;
  (void)omega;
  (void)s;
}
ALWAYS_INLINE void add_regularised_forcing(const cell_moments m, const real omega, real* f) {
  (void)m;
  (void)omega;
  (void)f;
}
ALWAYS_INLINE void add_trt_forcing(const cell_moments m, const real omega, const real omega_minus, real* f) {
  (void)m;
  (void)omega;
  (void)omega_minus;
  (void)f;
}
#endif

#ifdef SMAGORINSKY
// --- The Smagorinsky subgrid model (Hou, Sterling, Chen & Doolen, Fields
// Inst. Commun. 6, 151, 1996; Malaspinas & Sagaut, J. Fluid Mech. 700, 514,
// 2012): the eddy viscosity nu_t = (C Delta)^2 |S|, Delta = 1, raises the
// cell's relaxation time to tau = tau0 + 3 nu_t. The strain rate is local:
// Pi = sum_k e_k e_k (g_k - feq_k) = -2 rho tau S / 3, so with
// |S| = sqrt(2 S:S) and |Pi| = sqrt(Pi:Pi), tau solves
// tau^2 - tau0 tau - 9 sqrt(2)/2 C^2 |Pi| / rho = 0:
// tau = (tau0 + sqrt(tau0^2 + 18 sqrt(2) C^2 |Pi| / rho)) / 2.
// SMAGORINSKY_TAU0 is 1/OMEGA and SMAGORINSKY_FACTOR 18 sqrt(2) C^2, the host's.
// Pi is g's second moment less feq's, rho (u u + I/3), which D2Q9's
// equilibrium holds exactly: fewer operations than summing g_k - feq_k.
ALWAYS_INLINE real smagorinsky_tau(const real* g, const cell_moments m) {
  const real diagonal = (g[5] + g[6]) + (g[7] + g[8]);
  const real jx = m.rho * m.ux, third = m.rho * ((real)1 / (real)3);
  const real pxx = ((g[1] + g[3]) + diagonal) - fma(jx, m.ux, third);
  const real pyy = ((g[2] + g[4]) + diagonal) - fma(m.rho * m.uy, m.uy, third);
  const real pxy = ((g[5] + g[7]) - (g[6] + g[8])) - jx * m.uy;
  const real pi_norm = sqrt(fma(pxx, pxx, fma(pyy, pyy, (real)2 * (pxy * pxy))));
  const real tau0 = (real)SMAGORINSKY_TAU0;
  return (real)0.5 * (tau0 + sqrt(fma(tau0, tau0, (real)SMAGORINSKY_FACTOR * (pi_norm * m.inv_rho))));
}
#endif

// The post-collision state of a fluid cell: the problem's operator, then its
// share of the body force, at the problem's rates or (SMAGORINSKY) the cell's.
ALWAYS_INLINE void collide_fluid(const real* g, const cell_moments m, real* f) {
#ifdef SMAGORINSKY
  const real tau = smagorinsky_tau(g, m);
  const real omega = (real)1 / tau;
#else
  const real omega = (real)OMEGA;
#endif
#if defined(COLLISION_TRT)
#ifdef SMAGORINSKY
  // The odd rate keeps Lambda = (tau - 1/2)(1/omega_minus - 1/2) in every cell.
  const real nu = tau - (real)0.5;
  const real omega_minus = nu / fma((real)0.5, nu, (real)TRT_MAGIC);
#else
  const real omega_minus = (real)OMEGA_MINUS;
#endif
  collide_trt(g, m, omega, omega_minus, f);
  add_trt_forcing(m, omega, omega_minus, f);
#elif defined(COLLISION_REGULARISED)
  collide_regularised(g, m, omega, f);
  add_regularised_forcing(m, omega, f);
#else
  real s[9];
  guo_terms(m, omega, s);
  collide_bgk(g, m, omega, s, f);
#endif
}

#ifdef SPONGE
// --- Absorbing layers (Xu & Sagaut, J. Comput. Phys. 245, 14, 2013): in the
// SPONGE_<EDGE> cells beside an open edge, the post-collision state relaxes
// toward the far field's equilibrium (far_field: the inlet's velocity at
// FAR_DENSITY) at a rate rising as the square of the depth to SPONGE_STRENGTH
// at the edge; where two layers meet, the deeper one's. Density and momentum
// are damped alike, so the layer's acoustic impedance is the flow's: sound
// enters it without reflecting and fades, instead of ringing between the
// inlet and the outlet.
ALWAYS_INLINE real sponge_rate(const int ii, const int jj) {
  real depth = (real)0;
  (void)jj;
#if SPONGE_LEFT > 0
  if (ii < SPONGE_LEFT) depth = (real)(SPONGE_LEFT - ii) / (real)SPONGE_LEFT;
#endif
#if SPONGE_RIGHT > 0
  if (ii >= NX - SPONGE_RIGHT) depth = (real)(ii - (NX - SPONGE_RIGHT) + 1) / (real)SPONGE_RIGHT;
#endif
#if SPONGE_BOTTOM > 0
  if (jj + ROW_OFFSET < SPONGE_BOTTOM) depth = fmax(depth, (real)(SPONGE_BOTTOM - (jj + ROW_OFFSET)) / (real)SPONGE_BOTTOM);
#endif
#if SPONGE_TOP > 0
  if (jj + ROW_OFFSET >= GRID_NY - SPONGE_TOP)
    depth = fmax(depth, (real)(jj + ROW_OFFSET - (GRID_NY - SPONGE_TOP) + 1) / (real)SPONGE_TOP);
#endif
  return (real)SPONGE_STRENGTH * (depth * depth);
}

// f_k += s (feq_k(far field) - f_k), one fma per speed.
ALWAYS_INLINE void absorb(const int ii, const int jj, const int t, real* f) {
  const real s = sponge_rate(ii, jj);
  if (s == (real)0) return;
  const far_velocity v = far_field(ii, jj, t);
  const real a = fma(fma(v.ux, v.ux, v.uy * v.uy), (real)-1.5, (real)1);
  const real rho = (real)FAR_DENSITY;
  const real q0 = W0 * rho, q1 = W1 * rho, q2 = W2 * rho;
  const real u5 = v.ux + v.uy, u6 = v.uy - v.ux;
  f[0] = fma(s, q0 * a - f[0], f[0]);
  f[1] = fma(s, q1 * equilibrium_factor(v.ux, a) - f[1], f[1]);
  f[2] = fma(s, q1 * equilibrium_factor(v.uy, a) - f[2], f[2]);
  f[3] = fma(s, q1 * equilibrium_factor(-v.ux, a) - f[3], f[3]);
  f[4] = fma(s, q1 * equilibrium_factor(-v.uy, a) - f[4], f[4]);
  f[5] = fma(s, q2 * equilibrium_factor(u5, a) - f[5], f[5]);
  f[6] = fma(s, q2 * equilibrium_factor(u6, a) - f[6], f[6]);
  f[7] = fma(s, q2 * equilibrium_factor(-u5, a) - f[7], f[7]);
  f[8] = fma(s, q2 * equilibrium_factor(-u6, a) - f[8], f[8]);
}
#endif

// --- Walls: the kinds of obstacle cell and the accelerated row.

#ifdef MOVING_WALL
// Each moving wall number's velocity (ux, uy), the host's table.
__constant real wall_velocities[2 * WALL_NUMBERS] = WALL_VELOCITIES;

// What a wall moving at (ux, uy) adds to the distribution of speed (ex, ey)
// it bounces back: 2 w rho (e.u_w) / c^2 (Ladd, J. Fluid Mech. 271, 285,
// 1994), with the problem's density.
ALWAYS_INLINE real wall_term(const real w, const int ex, const int ey, const real ux, const real uy) {
  return (real)6 * w * (real)DENSITY * ((real)ex * ux + (real)ey * uy);
}

#ifdef WALL_ROTATIONS
// Each number's rotation (omega, centre x, centre y): a cell at (x, y) moves
// at its velocity + omega x (x - centre).
__constant real wall_rotations[3 * WALL_NUMBERS] = WALL_ROTATIONS;
#endif

// Moving wall `number`'s velocity at (x, y) of the grid: its own, and its
// turn about its centre.
ALWAYS_INLINE void wall_velocity_at(const int number, const real x, const real y, real* ux, real* uy) {
  *ux = wall_velocities[2 * number];
  *uy = wall_velocities[2 * number + 1];
#ifdef WALL_ROTATIONS
  const real omega = wall_rotations[3 * number];
  *ux = *ux - omega * (y - wall_rotations[3 * number + 2]);
  *uy = *uy + omega * (x - wall_rotations[3 * number + 1]);
#else
  (void)x;
  (void)y;
#endif
}

// The wall cell (ii, jj) of moving wall `number` (jj the grid's row).
ALWAYS_INLINE void add_wall_momentum(real* f, const int number, const int ii, const int jj) {
  real ux, uy;
  wall_velocity_at(number, (real)ii, (real)jj, &ux, &uy);
  f[1] += wall_term(W1, 1, 0, ux, uy);
  f[2] += wall_term(W1, 0, 1, ux, uy);
  f[3] += wall_term(W1, -1, 0, ux, uy);
  f[4] += wall_term(W1, 0, -1, ux, uy);
  f[5] += wall_term(W2, 1, 1, ux, uy);
  f[6] += wall_term(W2, -1, 1, ux, uy);
  f[7] += wall_term(W2, -1, -1, ux, uy);
  f[8] += wall_term(W2, 1, -1, ux, uy);
}
#endif

#ifdef FREE_SLIP
// A free-slip wall cell reflects what arrives as a mirror does: across x
// (a wall along y) 1<->3, 5<->6, 7<->8, across y 2<->4, 5<->8, 6<->7; the
// tangential momentum goes on, so the wall has no friction.
ALWAYS_INLINE void reflect(const real* g, const int across_x, real* f) {
  f[1] = across_x ? g[3] : g[1];
  f[2] = across_x ? g[2] : g[4];
  f[3] = across_x ? g[1] : g[3];
  f[4] = across_x ? g[4] : g[2];
  f[5] = across_x ? g[6] : g[8];
  f[6] = across_x ? g[5] : g[7];
  f[7] = across_x ? g[8] : g[6];
  f[8] = across_x ? g[7] : g[5];
}
#endif

// An obstacle cell of kind `kind`: each distribution goes back where it came
// from (f0 never changes); a moving wall (MOVING_WALL) gives what it bounces
// back its momentum; a free-slip wall (FREE_SLIP) reflects it instead.
ALWAYS_INLINE void rebound(const real* g, const int kind, const int ii, const int jj, real* f) {
  f[0] = g[0]; f[1] = g[3]; f[2] = g[4]; f[3] = g[1]; f[4] = g[2];
  f[5] = g[7]; f[6] = g[8]; f[7] = g[5]; f[8] = g[6];
#ifdef MOVING_WALL
  if (CELL_CLASS(kind) == CELL_MOVING_WALL) add_wall_momentum(f, CELL_NUMBER(kind), ii, jj);
#endif
#ifdef FREE_SLIP
  if (CELL_CLASS(kind) == CELL_FREE_SLIP) reflect(g, CELL_NUMBER(kind) == FREE_SLIP_ACROSS_X, f);
#endif
  (void)kind;
  (void)ii;
  (void)jj;
}

// The next step's accelerate_flow on a fluid cell of row ACCEL_ROW, with the
// separate kernel's arithmetic on what it would read back: with 16-bit
// storage the stored values (as_stored is the identity otherwise).
ALWAYS_INLINE void accelerate_cell(real* f) {
  const real aw1 = ACCEL_W1;
  const real aw2 = ACCEL_W2;
  const real f3 = as_stored(3, f[3]), f6 = as_stored(6, f[6]), f7 = as_stored(7, f[7]);
  if (f3 - aw1 > (real)0 && f6 - aw2 > (real)0 && f7 - aw2 > (real)0) {
    f[1] = as_stored(1, f[1]) + aw1;
    f[5] = as_stored(5, f[5]) + aw2;
    f[8] = as_stored(8, f[8]) + aw2;
    f[3] = f3 - aw1;
    f[6] = f6 - aw2;
    f[7] = f7 - aw2;
  }
}

// The new state f of a cell of kind `kind` (cl/cell_kinds.cl) from its
// incoming distributions g: rebound on obstacles, collision on fluid, an open
// boundary's unknowns set first. t is the step's number (the inlet's ramp).
// Returns |u| (0 on obstacles), as the coursework's av_velocity measures it.
// With `accelerate` (the cell is in row ACCEL_ROW and a next step follows) it
// then applies that step's accelerate_flow.
//
// Every cell is collided and obstacles then keep their bounced-back values:
// branch-free, so CPU compilers can vectorise across work-items and GPU warps
// do not diverge; the wasted arithmetic is free in a memory-bound kernel.
// `edges`: whether the cell may be an open boundary or lie in a sponge (0
// only where it provably does not: the blocked kernel's plain tiles).
// With THERMAL, h holds the cell's incoming temperature distributions and
// gets their new state (heat.cl): the flow takes its temperature's buoyancy,
// the temperature the flow's velocity.
ALWAYS_INLINE real collide_cell(const real* g, real* h, const int kind, const int ii, const int jj, const int t,
                                const int accelerate, const int edges, real* f) {
  (void)edges;
  const int obstacle = CELL_CLASS(kind) != CELL_FLUID;
#ifdef THERMAL
  const real h_in[HEAT_SPEEDS] = {h[0], h[1], h[2], h[3], h[4]};
  if (edges && !obstacle && kind) heat_inlet(kind, h);
  const real temperature = temperature_of(h);
#else
  const real temperature = (real)0;
  (void)h;
#endif
#ifdef OPEN_EDGES
  // g with an open boundary's unknowns set; rebound keeps g. Copied without
  // a loop, which would keep the rows kernel scalar on CPUs (see store()).
  real g_open[9] = {g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8]};
  if (edges && !obstacle && kind) open_boundary(CELL_NUMBER(kind), ii, jj, t, g_open);
  g = g_open;
#else
  (void)ii;
  (void)jj;
  (void)t;
#endif
  const cell_moments m = moments_of(g, temperature);
  collide_fluid(g, m, f);
#ifdef THERMAL
  collide_heat(h, temperature, m.ux, m.uy);
  if (obstacle) rebound_heat(h_in, kind, h);
#endif
#ifdef SPONGE
  if (edges) absorb(ii, jj, t, f);
#endif

  // |u| for av_vels: the collision conserves density and momentum (with a
  // body force, the velocity it leaves is moments_of's (m + F/2) / rho), so the
  // new state's velocity is u, to rounding: no second density and division.
  // av_vels may differ by rounding (the contract), so float takes the
  // hardware's square root, which is cheaper than a correctly rounded one.
  const real speed = obstacle ? (real)0 : SPEED_SQRT(m.u_sq);

  if (obstacle) rebound(g, kind, ii, jj + ROW_OFFSET, f);
  if (accelerate && !obstacle) accelerate_cell(f);
  return speed;
}
ALWAYS_INLINE real collide(const real* g, real* h, const int kind, const int ii, const int jj, const int t,
                           const int accelerate, real* f) {
  return collide_cell(g, h, kind, ii, jj, t, accelerate, 1, f);
}

// Sums `value` over the work-group in a fixed order (tree in local memory)
// and writes the total to partial_sums[INDEX]. A macro, not a function:
// CUDA cannot take a __shared__ pointer parameter.
#define REDUCE_TO_PARTIAL(scratch, lid, value, INDEX)                             \
  do {                                                                            \
    scratch[lid] = (value);                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                                 \
    for (int s = REDUCE_POW2; s > 0; s >>= 1) {                                   \
      if (lid < s && lid + s < WG_SIZE) scratch[lid] += scratch[lid + s];         \
      barrier(CLK_LOCAL_MEM_FENCE);                                               \
    }                                                                             \
    if (lid == 0) partial_sums[INDEX] = scratch[0];                               \
    barrier(CLK_LOCAL_MEM_FENCE);                                                 \
  } while (0)

#ifdef FORCE_BODIES
// Values per work-group and step in partial_sums: |u|, then Fx and Fy of each body.
#define SUMS_PER_GROUP (1 + 2 * FORCE_BODIES)
// A work-item's (Fx, Fy) sums of the measured bodies.
#define BODY_FORCE_SLOTS (2 * FORCE_BODIES)
// The bodies' sums of the work-group after its |u| sum (slot = partial_offset + group).
#define REDUCE_BODY_FORCES(scratch, lid, sums, slot)                                          \
  for (int q = 0; q < 2 * FORCE_BODIES; ++q) REDUCE_TO_PARTIAL(scratch, lid, sums[q], (slot) * SUMS_PER_GROUP + 1 + q)
#else
#define SUMS_PER_GROUP 1
// One unused slot, so that the helpers take the same arguments in every build.
#define BODY_FORCE_SLOTS 1
#define REDUCE_BODY_FORCES(scratch, lid, sums, slot)
#endif

// Momentum exchange (Ladd 1994): an obstacle cell takes from the lattice, per
// step, the momentum of what arrives, g, less that of what it sends back, f.
// Links between two obstacle cells of a body cancel in its sum, and a static
// wall's share is 2 e_k g_k: Ladd's rule for the links from fluid cells.
// Without measured bodies (FORCE_BODIES) there is nothing to add.
// Whether cell byte b is a measured body's wall (add_body_force's cells).
#define MEASURED_WALL(b) (CELL_CLASS(b) != CELL_FLUID && CELL_NUMBER(b) >= 1 && CELL_NUMBER(b) <= FORCE_BODIES)

// The force on the body of obstacle cell `blocked`: what arrived (g) less
// what it sends back (f), per speed. With moving walls only its links with
// fluid count: fluid_links has bit k set where the neighbour x + e_k is
// fluid (fluid_links_of). The values a moving body's cells pass among
// themselves gain its momentum at every rebound and never reach the fluid;
// counted, they would swing the force from step to step.
ALWAYS_INLINE void add_body_force(real* sums, const int blocked, const real* g, const real* f, const int fluid_links) {
#ifdef FORCE_BODIES
  const int body = CELL_CLASS(blocked) != CELL_FLUID ? CELL_NUMBER(blocked) : 0;  // open boundaries are fluid
  // Only a measured body's cells add anything: the rest (nearly every cell)
  // skip the arithmetic, which would add +0 (a sum that starts at +0 and
  // adds finite values is never -0, so skipping +0 changes no bit).
  if (!body) return;
#ifdef MOVING_WALL
  const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  real d[9];
  for (int k = 0; k < 9; ++k)
    d[k] = (((fluid_links >> opposite[k]) & 1) ? g[k] : (real)0) - (((fluid_links >> k) & 1) ? f[k] : (real)0);
  const real fx = ((d[1] + d[5]) + d[8]) - ((d[3] + d[6]) + d[7]);
  const real fy = ((d[2] + d[5]) + d[6]) - ((d[4] + d[7]) + d[8]);
#else
  (void)fluid_links;
  const real fx = ((g[1] - f[1]) + (g[5] - f[5]) + (g[8] - f[8])) - ((g[3] - f[3]) + (g[6] - f[6]) + (g[7] - f[7]));
  const real fy = ((g[2] - f[2]) + (g[5] - f[5]) + (g[6] - f[6])) - ((g[4] - f[4]) + (g[7] - f[7]) + (g[8] - f[8]));
#endif
  for (int b = 0; b < FORCE_BODIES; ++b) {
    sums[2 * b] += body == b + 1 ? fx : (real)0;
    sums[2 * b + 1] += body == b + 1 ? fy : (real)0;
  }
#else
  (void)sums;
  (void)blocked;
  (void)g;
  (void)f;
  (void)fluid_links;
#endif
}

// fluid_links of cell (ii, jj) from device memory (neighbours given): only
// where moving walls need it, and only for a measured body's cells.
ALWAYS_INLINE int fluid_links_of(__global const uchar* obstacles, const int blocked, const int ii, const int jj,
                                 const int x_e, const int x_w, const int y_n, const int y_s) {
#if defined(FORCE_BODIES) && defined(MOVING_WALL)
  if (!MEASURED_WALL(blocked)) return 0;
  const int n[9] = {0,
                    obstacles[CELL(x_e, jj)],  obstacles[CELL(ii, y_n)],  obstacles[CELL(x_w, jj)],
                    obstacles[CELL(ii, y_s)],  obstacles[CELL(x_e, y_n)], obstacles[CELL(x_w, y_n)],
                    obstacles[CELL(x_w, y_s)], obstacles[CELL(x_e, y_s)]};
  int links = 0;
  for (int k = 1; k < 9; ++k) links |= (CELL_CLASS(n[k]) == CELL_FLUID) << k;
  return links;
#else
  (void)obstacles;
  (void)blocked;
  (void)ii;
  (void)jj;
  (void)x_e;
  (void)x_w;
  (void)y_n;
  (void)y_s;
  return 0;
#endif
}
