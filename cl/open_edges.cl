// Cell physics: open edges (Zou/He velocity inlet, pressure outlet).

#if defined(INLET) || defined(OUTLET)
// Zou/He: the distributions that would come from outside the grid (through
// the wrapped pull they came from the other edge) are set so that a fluid
// cell of column 0 has velocity (INLET_UX, INLET_UY), and one of column NX-1
// density OUTLET_DENSITY with no transverse velocity (Zou & He, Phys. Fluids
// 9, 1591, 1997). Non-equilibrium bounce-back of the normal component.
#ifdef INLET_RAMP
// The inlet's share of its velocity in step t (0-based): rising from 0 over
// INLET_RAMP steps as a smoothstep, x^2 (3 - 2x) with x = (t + 1) / INLET_RAMP,
// then 1: the flow starts without a pressure wave from the inlet.
ALWAYS_INLINE real inlet_ramp(const int t) {
  const real x = (real)(t + 1) / (real)INLET_RAMP;
  return x >= (real)1 ? (real)1 : x * x * ((real)3 - (real)2 * x);
}
#endif
#ifdef INLET
// The inlet's velocity in row jj at step t: what column 0 is given, and what
// the sponges (SPONGE) relax toward.
typedef struct {
  real ux, uy;
} inflow_velocity;

ALWAYS_INLINE inflow_velocity inflow(const int jj, const int t) {
  (void)t;
  inflow_velocity v;
#ifdef INLET_PARABOLIC
  // Poiseuille's profile between walls half-way below row 1 and above row
  // NY-2 of the whole grid: INLET_PROFILE = 4 u_max / H^2, H = NY_GLOBAL - 2.
  const real y = (real)(jj + ROW_OFFSET) - (real)0.5;
  v.ux = (real)INLET_PROFILE * y * ((real)INLET_HEIGHT - y);
  v.uy = (real)0;
#else
  v.ux = (real)INLET_UX;
  v.uy = (real)INLET_UY;
  (void)jj;
#endif
#ifdef INLET_RAMP
  const real share = inlet_ramp(t);
  v.ux *= share;
  v.uy *= share;
#endif
  return v;
}
#endif

ALWAYS_INLINE void open_edges(const int ii, const int jj, const int t, real* g) {
  (void)jj;
  (void)t;
#ifdef INLET
  if (ii == 0) {
    const inflow_velocity v = inflow(jj, t);
    const real ux = v.ux, uy = v.uy;
    const real rho = (g[0] + g[2] + g[4] + (real)2 * (g[3] + g[6] + g[7])) / ((real)1 - ux);
    const real d = (real)0.5 * (g[2] - g[4]);
    g[1] = g[3] + (real)2 / (real)3 * rho * ux;
    g[5] = g[7] - d + (real)1 / (real)6 * rho * ux + (real)0.5 * rho * uy;
    g[8] = g[6] + d + (real)1 / (real)6 * rho * ux - (real)0.5 * rho * uy;
  }
#endif
#ifdef OUTLET
  if (ii == NX - 1) {
    const real rho = (real)OUTLET_DENSITY;
    const real ux = (g[0] + g[2] + g[4] + (real)2 * (g[1] + g[5] + g[8])) / rho - (real)1;
    const real d = (real)0.5 * (g[2] - g[4]);
    g[3] = g[1] - (real)2 / (real)3 * rho * ux;
    g[7] = g[5] + d - (real)1 / (real)6 * rho * ux;
    g[6] = g[8] - d - (real)1 / (real)6 * rho * ux;
  }
#endif
}
#endif
