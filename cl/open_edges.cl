// Cell physics: open boundaries, a velocity inlet or a pressure outlet on any
// edge (cells of kind CELL_FLUID numbered OPEN_LEFT..OPEN_TOP). Each edge's
// values come as defines, one row of the host's table (kernel_source.cpp):
//   <EDGE>_INLET with <EDGE>_UN, <EDGE>_UT   uniform velocity along the edge's
//                 inward normal and its tangent, or <EDGE>_PARABOLIC with
//                 <EDGE>_PROFILE, <EDGE>_SPAN (Poiseuille's profile)
//   <EDGE>_OUTLET with <EDGE>_DENSITY
// for EDGE in LEFT, RIGHT, BOTTOM, TOP; INLET_RAMP ramps every inlet.

#ifdef OPEN_EDGES
// Zou/He (Phys. Fluids 9, 1591, 1997): the distributions that would come
// from outside the grid (the wrapped pull brought them from the other edge)
// are set so that the cell has the inlet's velocity, or the outlet's density
// with no tangential velocity; non-equilibrium bounce-back of the normal
// component. Written once, in the edge's frame: each edge names its speeds
//   I   the unknown along the inward normal, O its opposite,
//   IP, IM  the unknown diagonals of tangential component +1 and -1, OP, OM
//           their opposites, TP, TM the tangential axis speeds,
// with the frames of host/problem/problem.hpp (edge_frame_velocity):
//                      I  O  IP OP IM OM TP TM
#define LEFT_SPEEDS     1, 3, 5, 7, 8, 6, 2, 4
#define RIGHT_SPEEDS    3, 1, 6, 8, 7, 5, 2, 4
#define BOTTOM_SPEEDS   2, 4, 5, 7, 6, 8, 1, 3
#define TOP_SPEEDS      4, 2, 8, 6, 7, 5, 1, 3

ALWAYS_INLINE void zou_he_velocity(real* g, const int I, const int O, const int IP, const int OP, const int IM,
                                   const int OM, const int TP, const int TM, const real un, const real ut) {
  const real rho = (g[0] + g[TP] + g[TM] + (real)2 * (g[O] + g[OM] + g[OP])) / ((real)1 - un);
  const real d = (real)0.5 * (g[TP] - g[TM]);
  g[I] = g[O] + (real)2 / (real)3 * rho * un;
  g[IP] = g[OP] - d + (real)1 / (real)6 * rho * un + (real)0.5 * rho * ut;
  g[IM] = g[OM] + d + (real)1 / (real)6 * rho * un - (real)0.5 * rho * ut;
}

// uo: the velocity out of the grid, along the outward normal.
ALWAYS_INLINE void zou_he_pressure(real* g, const int I, const int O, const int IP, const int OP, const int IM,
                                   const int OM, const int TP, const int TM, const real rho) {
  const real uo = (g[0] + g[TP] + g[TM] + (real)2 * (g[O] + g[OM] + g[OP])) / rho - (real)1;
  const real d = (real)0.5 * (g[TP] - g[TM]);
  g[I] = g[O] - (real)2 / (real)3 * rho * uo;
  g[IP] = g[OP] - d - (real)1 / (real)6 * rho * uo;
  g[IM] = g[OM] + d - (real)1 / (real)6 * rho * uo;
}

#ifdef INLET_RAMP
// The inlets' share of their velocity in step t (0-based): rising from 0
// over INLET_RAMP steps as a smoothstep, x^2 (3 - 2x) with x = (t + 1) /
// INLET_RAMP, then 1: the flow starts without a pressure wave from the inlet.
ALWAYS_INLINE real inlet_ramp(const int t) {
  const real x = (real)(t + 1) / (real)INLET_RAMP;
  return x >= (real)1 ? (real)1 : x * x * ((real)3 - (real)2 * x);
}
#endif

// An inlet's velocity (u.n, u.t) at cell s along its edge in step t: uniform
// (un, ut), or Poiseuille's profile between walls half-way outside the
// edge's second and last-but-one cells, profile = 4 u_max / span^2.
typedef struct {
  real un, ut;
} edge_velocity;

ALWAYS_INLINE edge_velocity inflow_at(const int parabolic, const real profile, const real span, const real un,
                                      const real ut, const int s, const int t) {
  (void)t;
  edge_velocity v;
  if (parabolic) {
    const real y = (real)s - (real)0.5;
    v.un = profile * y * (span - y);
    v.ut = (real)0;
  } else {
    v.un = un;
    v.ut = ut;
  }
#ifdef INLET_RAMP
  const real share = inlet_ramp(t);
  v.un *= share;
  v.ut *= share;
#endif
  return v;
}

// An edge's inlet values, (parabolic, profile, span, un, ut), whichever it has.
#define INLET_VALUES(EDGE) EDGE##_IS_PARABOLIC, (real)EDGE##_PROFILE_OR_0, (real)EDGE##_SPAN_OR_0, \
                           (real)EDGE##_UN_OR_0, (real)EDGE##_UT_OR_0
#ifdef LEFT_PARABOLIC
#define LEFT_IS_PARABOLIC 1
#define LEFT_PROFILE_OR_0 LEFT_PROFILE
#define LEFT_SPAN_OR_0 LEFT_SPAN
#define LEFT_UN_OR_0 0
#define LEFT_UT_OR_0 0
#elif defined(LEFT_INLET)
#define LEFT_IS_PARABOLIC 0
#define LEFT_PROFILE_OR_0 0
#define LEFT_SPAN_OR_0 0
#define LEFT_UN_OR_0 LEFT_UN
#define LEFT_UT_OR_0 LEFT_UT
#endif
#ifdef RIGHT_PARABOLIC
#define RIGHT_IS_PARABOLIC 1
#define RIGHT_PROFILE_OR_0 RIGHT_PROFILE
#define RIGHT_SPAN_OR_0 RIGHT_SPAN
#define RIGHT_UN_OR_0 0
#define RIGHT_UT_OR_0 0
#elif defined(RIGHT_INLET)
#define RIGHT_IS_PARABOLIC 0
#define RIGHT_PROFILE_OR_0 0
#define RIGHT_SPAN_OR_0 0
#define RIGHT_UN_OR_0 RIGHT_UN
#define RIGHT_UT_OR_0 RIGHT_UT
#endif
#ifdef BOTTOM_PARABOLIC
#define BOTTOM_IS_PARABOLIC 1
#define BOTTOM_PROFILE_OR_0 BOTTOM_PROFILE
#define BOTTOM_SPAN_OR_0 BOTTOM_SPAN
#define BOTTOM_UN_OR_0 0
#define BOTTOM_UT_OR_0 0
#elif defined(BOTTOM_INLET)
#define BOTTOM_IS_PARABOLIC 0
#define BOTTOM_PROFILE_OR_0 0
#define BOTTOM_SPAN_OR_0 0
#define BOTTOM_UN_OR_0 BOTTOM_UN
#define BOTTOM_UT_OR_0 BOTTOM_UT
#endif
#ifdef TOP_PARABOLIC
#define TOP_IS_PARABOLIC 1
#define TOP_PROFILE_OR_0 TOP_PROFILE
#define TOP_SPAN_OR_0 TOP_SPAN
#define TOP_UN_OR_0 0
#define TOP_UT_OR_0 0
#elif defined(TOP_INLET)
#define TOP_IS_PARABOLIC 0
#define TOP_PROFILE_OR_0 0
#define TOP_SPAN_OR_0 0
#define TOP_UN_OR_0 TOP_UN
#define TOP_UT_OR_0 TOP_UT
#endif

// The unknowns of an open boundary cell of edge `number` (OPEN_LEFT..) at
// (ii, jj): the along-edge coordinate of left and right is the grid's row.
ALWAYS_INLINE void open_boundary(const int number, const int ii, const int jj, const int t, real* g) {
  (void)ii;
  (void)jj;
  (void)t;
#ifdef LEFT_INLET
  if (number == OPEN_LEFT) {
    const edge_velocity v = inflow_at(INLET_VALUES(LEFT), jj + ROW_OFFSET, t);
    zou_he_velocity(g, LEFT_SPEEDS, v.un, v.ut);
  }
#endif
#ifdef LEFT_OUTLET
  if (number == OPEN_LEFT) zou_he_pressure(g, LEFT_SPEEDS, (real)LEFT_DENSITY);
#endif
#ifdef RIGHT_INLET
  if (number == OPEN_RIGHT) {
    const edge_velocity v = inflow_at(INLET_VALUES(RIGHT), jj + ROW_OFFSET, t);
    zou_he_velocity(g, RIGHT_SPEEDS, v.un, v.ut);
  }
#endif
#ifdef RIGHT_OUTLET
  if (number == OPEN_RIGHT) zou_he_pressure(g, RIGHT_SPEEDS, (real)RIGHT_DENSITY);
#endif
#ifdef BOTTOM_INLET
  if (number == OPEN_BOTTOM) {
    const edge_velocity v = inflow_at(INLET_VALUES(BOTTOM), ii, t);
    zou_he_velocity(g, BOTTOM_SPEEDS, v.un, v.ut);
  }
#endif
#ifdef BOTTOM_OUTLET
  if (number == OPEN_BOTTOM) zou_he_pressure(g, BOTTOM_SPEEDS, (real)BOTTOM_DENSITY);
#endif
#ifdef TOP_INLET
  if (number == OPEN_TOP) {
    const edge_velocity v = inflow_at(INLET_VALUES(TOP), ii, t);
    zou_he_velocity(g, TOP_SPEEDS, v.un, v.ut);
  }
#endif
#ifdef TOP_OUTLET
  if (number == OPEN_TOP) zou_he_pressure(g, TOP_SPEEDS, (real)TOP_DENSITY);
#endif
}

#ifdef SPONGE
// The sponges' far field at (ii, jj) in step t: the problem's one inlet's
// velocity (its profile at the cell's coordinate along the inlet's edge), in
// the grid's (x, y).
typedef struct {
  real ux, uy;
} far_velocity;

ALWAYS_INLINE far_velocity far_field(const int ii, const int jj, const int t) {
  far_velocity u;
#if defined(FAR_FIELD_LEFT)
  const edge_velocity v = inflow_at(INLET_VALUES(LEFT), jj + ROW_OFFSET, t);
  u.ux = v.un;
  u.uy = v.ut;
#elif defined(FAR_FIELD_RIGHT)
  const edge_velocity v = inflow_at(INLET_VALUES(RIGHT), jj + ROW_OFFSET, t);
  u.ux = -v.un;
  u.uy = v.ut;
#elif defined(FAR_FIELD_BOTTOM)
  const edge_velocity v = inflow_at(INLET_VALUES(BOTTOM), ii, t);
  u.ux = v.ut;
  u.uy = v.un;
#else
  const edge_velocity v = inflow_at(INLET_VALUES(TOP), ii, t);
  u.ux = v.ut;
  u.uy = -v.un;
#endif
  (void)ii;
  (void)jj;
  return u;
}
#endif
#endif
