// Cell physics: heat (THERMAL). A temperature carried by the flow on a D2Q5
// lattice of its own, planes 9-13 of the distributions (speeds 0 rest, 1 E,
// 2 N, 3 W, 4 S, as the flow's first five), stored as the flow's are (16-bit
// codes relative to the temperature's rest value and scale: lattice.cl).
// docs/heat.md has the model; ReferenceSolver's heat_* functions mirror
// every operation here (the arithmetic contract, docs/arithmetic.md).
//   THERMAL_OMEGA        the odd (diffusive) rate: alpha = (1/omega - 1/2) / 3
//   THERMAL_TRT with THERMAL_OMEGA_EVEN   two relaxation times (BGK: one)
//   BUOYANCY with BUOYANCY_X, BUOYANCY_Y, T_REF   Boussinesq: the force per
//                        unit volume (BUOYANCY_X, _Y) (T - T_REF) on the flow
//                        (cell_physics.cl: moments_of)
//   THERMAL_WALLS with THERMAL_WALL_COUNT, THERMAL_WALL_KINDS and
//   THERMAL_WALL_VALUES  each wall number's boundary (else adiabatic)
//   <EDGE>_INLET_T       an inlet's temperature (with OPEN_EDGES)

#ifdef THERMAL
#define HEAT_SPEEDS 5  // (HEAT_PLANE, WT0 and WT1: lattice.cl)
// A wall's thermal kind (host/problem/problem.hpp: ThermalWall::Kind).
#define THERMAL_ADIABATIC 0
#define THERMAL_TEMPERATURE 1
#define THERMAL_HEAT_FLUX 2

ALWAYS_INLINE int open_edge_is(const int kind, const int edge) {
  return CELL_CLASS(kind) == CELL_FLUID && CELL_NUMBER(kind) == edge;
}

// The speed that would come from outside at an open edge: left 1 (E), right
// 3 (W), bottom 2 (N), top 4 (S).
#define HEAT_UNKNOWN_LEFT 1
#define HEAT_UNKNOWN_RIGHT 3
#define HEAT_UNKNOWN_BOTTOM 2
#define HEAT_UNKNOWN_TOP 4

// An outlet cell's unknown speed (0: the cell is no outlet's).
ALWAYS_INLINE int heat_outlet_unknown(const int kind) {
  int unknown = 0;
#ifdef LEFT_OUTLET
  if (open_edge_is(kind, OPEN_LEFT)) unknown = HEAT_UNKNOWN_LEFT;
#endif
#ifdef RIGHT_OUTLET
  if (open_edge_is(kind, OPEN_RIGHT)) unknown = HEAT_UNKNOWN_RIGHT;
#endif
#ifdef BOTTOM_OUTLET
  if (open_edge_is(kind, OPEN_BOTTOM)) unknown = HEAT_UNKNOWN_BOTTOM;
#endif
#ifdef TOP_OUTLET
  if (open_edge_is(kind, OPEN_TOP)) unknown = HEAT_UNKNOWN_TOP;
#endif
  (void)kind;
  return unknown;
}

// h[k] = value for the moving speed k (1-4), with constant indices only: a
// private array indexed at run time would leave registers for memory.
ALWAYS_INLINE void set_heat_speed(real* h, const int k, const real value) {
  h[1] = k == 1 ? value : h[1];
  h[2] = k == 2 ? value : h[2];
  h[3] = k == 3 ? value : h[3];
  h[4] = k == 4 ? value : h[4];
}

// Incoming temperature distributions of cell (ii, jj) of kind `kind`:
// h_k = h_k((ii, jj) - e_k). At an outlet the one that would come from
// outside is what the cell sent that way the step before (zero gradient
// along the normal): the flow carries the temperature out.
ALWAYS_INLINE void pull_heat(__global const stored* src, const int kind, const int ii, const int jj, const int x_e,
                             const int x_w, const int y_n, const int y_s, real* h) {
  h[0] = load_f(src, HEAT_PLANE, CELL(ii, jj));
  h[1] = load_f(src, HEAT_PLANE + 1, CELL(x_w, jj));
  h[2] = load_f(src, HEAT_PLANE + 2, CELL(ii, y_s));
  h[3] = load_f(src, HEAT_PLANE + 3, CELL(x_e, jj));
  h[4] = load_f(src, HEAT_PLANE + 4, CELL(ii, y_n));
  const int unknown = heat_outlet_unknown(kind);
  if (unknown) set_heat_speed(h, unknown, load_f(src, HEAT_PLANE + unknown, CELL(ii, jj)));
}

ALWAYS_INLINE void store_heat(__global stored* dst, const idx_t cell, const real* h) {
  store_f(dst, HEAT_PLANE, cell, h[0]);
  store_f(dst, HEAT_PLANE + 1, cell, h[1]);
  store_f(dst, HEAT_PLANE + 2, cell, h[2]);
  store_f(dst, HEAT_PLANE + 3, cell, h[3]);
  store_f(dst, HEAT_PLANE + 4, cell, h[4]);
}

ALWAYS_INLINE real temperature_of(const real* h) { return h[0] + h[1] + h[2] + h[3] + h[4]; }

// An inlet's cell: the unknown from outside makes its temperature the inlet's.
ALWAYS_INLINE void heat_inlet(const int kind, real* h) {
#ifdef LEFT_INLET_T
  if (open_edge_is(kind, OPEN_LEFT)) h[1] = (real)LEFT_INLET_T - (h[0] + h[2] + h[3] + h[4]);
#endif
#ifdef RIGHT_INLET_T
  if (open_edge_is(kind, OPEN_RIGHT)) h[3] = (real)RIGHT_INLET_T - (h[0] + h[1] + h[2] + h[4]);
#endif
#ifdef BOTTOM_INLET_T
  if (open_edge_is(kind, OPEN_BOTTOM)) h[2] = (real)BOTTOM_INLET_T - (h[0] + h[1] + h[3] + h[4]);
#endif
#ifdef TOP_INLET_T
  if (open_edge_is(kind, OPEN_TOP)) h[4] = (real)TOP_INLET_T - (h[0] + h[1] + h[2] + h[3]);
#endif
  (void)kind;
  (void)h;
}

#ifdef THERMAL_TRT
// The pair k, o = opposite(k): even parts relax at THERMAL_OMEGA_EVEN, odd
// parts (the flux, and so the diffusivity) at THERMAL_OMEGA; wt = w T and
// q = w T 3 e_k.u the equilibrium's even and odd parts.
ALWAYS_INLINE void heat_pair(real* h, const int k, const int o, const real wt, const real q) {
  const real even = (real)0.5 * (h[k] + h[o]) - wt;
  const real odd = (real)0.5 * (h[k] - h[o]) - q;
  const real de = (real)THERMAL_OMEGA_EVEN * even, dd = (real)THERMAL_OMEGA * odd;
  h[k] = h[k] - de - dd;
  h[o] = h[o] - de + dd;
}
#endif

// A fluid cell's collision at temperature t and the flow's velocity (ux, uy):
// h_k^eq = w_k t (1 + 3 e_k.u).
ALWAYS_INLINE void collide_heat(real* h, const real t, const real ux, const real uy) {
  const real wt = WT1 * t;
  const real qx = wt * ((real)3 * ux), qy = wt * ((real)3 * uy);
#ifdef THERMAL_TRT
  h[0] = h[0] - (real)THERMAL_OMEGA_EVEN * (h[0] - WT0 * t);
  heat_pair(h, 1, 3, wt, qx);
  heat_pair(h, 2, 4, wt, qy);
#else
  const real w = (real)THERMAL_OMEGA;
  h[0] = fma(w, WT0 * t - h[0], h[0]);
  h[1] = fma(w, (wt + qx) - h[1], h[1]);
  h[2] = fma(w, (wt + qy) - h[2], h[2]);
  h[3] = fma(w, (wt - qx) - h[3], h[3]);
  h[4] = fma(w, (wt - qy) - h[4], h[4]);
#endif
}

#ifdef THERMAL_WALLS
__constant int thermal_wall_kinds[THERMAL_WALL_COUNT] = THERMAL_WALL_KINDS;
__constant real thermal_wall_values[THERMAL_WALL_COUNT] = THERMAL_WALL_VALUES;
#endif

// A wall cell of kind `kind`: each incoming h (g) goes back where it came
// from (adiabatic: no flux), less from 2 w T_w (a wall at temperature T_w,
// anti-bounce-back: the link's mean is T_w's share), or plus the wall's
// flux into the fluid per face. Free-slip walls are adiabatic.
ALWAYS_INLINE void rebound_heat(const real* g, const int kind, real* h) {
  h[0] = g[0];
  h[1] = g[3];
  h[2] = g[4];
  h[3] = g[1];
  h[4] = g[2];
#ifdef THERMAL_WALLS
  const int n = CELL_NUMBER(kind);
  if (CELL_CLASS(kind) == CELL_FREE_SLIP || n >= THERMAL_WALL_COUNT) return;
  const int how = thermal_wall_kinds[n];
  const real v = thermal_wall_values[n];
  if (how == THERMAL_TEMPERATURE) {
    const real twice = (real)2 * (WT1 * v);
    h[1] = twice - h[1];
    h[2] = twice - h[2];
    h[3] = twice - h[3];
    h[4] = twice - h[4];
  } else if (how == THERMAL_HEAT_FLUX) {
    h[1] += v;
    h[2] += v;
    h[3] += v;
    h[4] += v;
  }
#else
  (void)kind;
#endif
}
#else
#define HEAT_SPEEDS 1
#endif
