// Cell physics: curved walls (interpolated bounce-back) and their forces.

#ifdef CURVED_LINKS
// Interpolated bounce-back on curved walls (Bouzidi, Firdaouss & Lallemand,
// Phys. Fluids 13, 3452, 2001; linear). After the obstacle bytes, `obstacles`
// holds 8 planes of one byte per cell: at k * NCELLS + cell, the link of speed
// k from the cell to its neighbour (ii, jj) - e_k. 0: no curved wall there
// (the pull takes the neighbour's rebound, as on every other wall); c > 0: a
// wall cuts the link at q = c / 255 of its length from this fluid cell. The
// host sets them (host/problem/curved_links.cpp); the obstacle cells keep their
// rebound, which the other links and the force's momentum exchange use.
//
// What comes in along speed k is then made of values this cell and the one
// beyond it (x + e_k, whose speed o = opposite(k) the plain pull gave as
// g[o]) sent out in the previous step: with own = this cell's stored state,
//   q <  1/2:  2q own_o + (1 - 2q) g_o      = g_o + 2q (own_o - g_o)
//   q >= 1/2:  own_o / 2q + (1 - 1/2q) own_k = own_k + (own_o - own_k) / 2q
// (at q = 1/2 both give own_o: half-way bounce-back within the step, where
// the obstacle cells' rebound takes two steps).
// The host makes sure that a link with q < 1/2 has fluid beyond it.
// A moving wall adds `push`, its momentum where the link meets it, as the
// staircase's rebound does (divided by 2q on the far side: Lallemand & Luo,
// Phys. Rev. E 68, 036706, 2003, eq. 13).
ALWAYS_INLINE real link_pull(const int code, const real pulled, const real own_k, const real own_o, const real beyond_o,
                             const real push) {
  const real two_q = (real)(2 * code) / (real)255;
#ifdef MOVING_WALL
  const real near = fma(two_q, own_o - beyond_o, beyond_o) + push;
  const real far = own_k + ((own_o - own_k) + push) / two_q;
#else
  (void)push;
  const real near = fma(two_q, own_o - beyond_o, beyond_o);
  const real far = own_k + (own_o - own_k) / two_q;
#endif
  return code == 0 ? pulled : two_q < (real)1 ? near : far;
}

// g: the plain pull, replaced on the cell's curved links; code[k]: link k's
// byte; push[k]: its wall's motion (link_pushes).
ALWAYS_INLINE void interpolate_links(const int* code, const real* own, const real* push, real* g) {
  const real p1 = g[1], p2 = g[2], p3 = g[3], p4 = g[4], p5 = g[5], p6 = g[6], p7 = g[7], p8 = g[8];
  g[1] = link_pull(code[1], p1, own[1], own[3], p3, push[1]);
  g[2] = link_pull(code[2], p2, own[2], own[4], p4, push[2]);
  g[3] = link_pull(code[3], p3, own[3], own[1], p1, push[3]);
  g[4] = link_pull(code[4], p4, own[4], own[2], p2, push[4]);
  g[5] = link_pull(code[5], p5, own[5], own[7], p7, push[5]);
  g[6] = link_pull(code[6], p6, own[6], own[8], p8, push[6]);
  g[7] = link_pull(code[7], p7, own[7], own[5], p5, push[7]);
  g[8] = link_pull(code[8], p8, own[8], own[6], p6, push[8]);
}

#if defined(FORCE_BODIES) || defined(MOVING_WALL)
#define LINK_WALLS  // the links' wall cells' bytes are read: for forces, for motion
#endif

#ifdef MOVING_WALL
// What moving wall byte `wall` adds to speed k as it sends it back from
// (x, y) of the grid (rebound's add_wall_momentum, one speed); 0 for others.
// `density`: DENSITY for the staircase's rebound; a link's, its cell's.
ALWAYS_INLINE real moving_push(const int wall, const int k, const real x, const real y, const real density) {
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  if (CELL_CLASS(wall) != CELL_MOVING_WALL) return (real)0;
  real ux, uy;
  wall_velocity_at(CELL_NUMBER(wall), x, y, &ux, &uy);
  return (real)6 * (k < 5 ? W1 : W2) * density * ((real)ex[k] * ux + (real)ey[k] * uy);  // wall_term's order
}
#endif

// What each curved link's wall gives the distribution it sends back into
// cell (ii, jj) (jj the grid's row): a moving wall's momentum at the point
// x - q e_k where the link meets it, at the density of the cell's stored
// state `own` (interpolation does not keep mass exactly: at the problem's
// density a drifting cell would feel its wall too fast or too slow). Zero
// without moving walls.
ALWAYS_INLINE void link_pushes(const int* code, const int* wall, const real* own, const int ii, const int jj,
                               real* push) {
  push[0] = (real)0;
#ifdef MOVING_WALL
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  const real rho = own[0] + own[1] + own[2] + own[3] + own[4] + own[5] + own[6] + own[7] + own[8];
  for (int k = 1; k < 9; ++k) {
    const real q = (real)code[k] / (real)255;
    push[k] = code[k] ? moving_push(wall[k], k, (real)ii - q * (real)ex[k], (real)jj - q * (real)ey[k], rho) : (real)0;
  }
#else
  for (int k = 1; k < 9; ++k) push[k] = (real)0;
  (void)code;
  (void)wall;
  (void)own;
  (void)ii;
  (void)jj;
#endif
}

#ifdef FORCE_BODIES
// Momentum exchange on a curved link: the wall cell's rebound counted
// e_o own_o in and e_k (own_o + its push) back; the link's true exchange is
// e_o own_o in and e_k g_k back, so the wall's body takes
// e_k (own_o + push - g_k) more. wall[k]: the byte of the link's wall
// cell; (ii, jj): this cell, jj the grid's row.
ALWAYS_INLINE void add_link_forces(real* sums, const int* code, const int* wall, const real* own, const real* g,
                                   const int ii, const int jj) {
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  for (int k = 1; k < 9; ++k) {
#ifdef MOVING_WALL
    const real counted =
        own[opposite[k]] + moving_push(wall[k], k, (real)(ii - ex[k]), (real)(jj - ey[k]), (real)DENSITY);
#else
    const real counted = own[opposite[k]];
#endif
    const real d = code[k] ? counted - g[k] : (real)0;
    const int body = wall[k] >> 2;
    for (int b = 0; b < FORCE_BODIES; ++b) {
      sums[2 * b] += body == b + 1 ? (real)ex[k] * d : (real)0;
      sums[2 * b + 1] += body == b + 1 ? (real)ey[k] * d : (real)0;
    }
  }
  (void)ii;
  (void)jj;
}
#else
ALWAYS_INLINE void add_link_forces(real* sums, const int* code, const int* wall, const real* own, const real* g,
                                   const int ii, const int jj) {
  (void)sums;
  (void)code;
  (void)wall;
  (void)own;
  (void)g;
  (void)ii;
  (void)jj;
}
#endif

// The bytes of the cells the pull took each speed from, where forces or
// moving walls need them.
ALWAYS_INLINE void link_walls(__global const uchar* obstacles, const int ii, const int jj, const int x_e, const int x_w,
                              const int y_n, const int y_s, int* wall) {
  wall[0] = 0;
#ifdef LINK_WALLS
  wall[1] = obstacles[CELL(x_w, jj)];
  wall[2] = obstacles[CELL(ii, y_s)];
  wall[3] = obstacles[CELL(x_e, jj)];
  wall[4] = obstacles[CELL(ii, y_n)];
  wall[5] = obstacles[CELL(x_w, y_s)];
  wall[6] = obstacles[CELL(x_e, y_s)];
  wall[7] = obstacles[CELL(x_e, y_n)];
  wall[8] = obstacles[CELL(x_w, y_n)];
#else
  for (int k = 1; k < 9; ++k) wall[k] = 0;
  (void)obstacles;
  (void)ii;
  (void)jj;
  (void)x_e;
  (void)x_w;
  (void)y_n;
  (void)y_s;
#endif
}

// The pull of cell (ii, jj) from device memory (neighbours given), corrected
// on its curved links; with measured bodies, their links' share of the force
// is added to link_force. Most cells have no curved link and skip the loads
// of their own state, so a curved wall costs little more than a staircase.
ALWAYS_INLINE void pull_curved(__global const stored* src, __global const uchar* obstacles, const int ii, const int jj,
                               const int x_e, const int x_w, const int y_n, const int y_s, real* g, real* link_force) {
  const idx_t cell = CELL(ii, jj);
  int code[9], any = 0;
  code[0] = 0;
  for (int k = 1; k < 9; ++k) {
    code[k] = obstacles[k * NCELLS + cell];
    any |= code[k];
  }
  if (!any) return;
  real own[9], push[9];
  int wall[9];
  own[0] = g[0];
  for (int k = 1; k < 9; ++k) own[k] = load_f(src, k, cell);
  link_walls(obstacles, ii, jj, x_e, x_w, y_n, y_s, wall);
  link_pushes(code, wall, own, ii, jj + ROW_OFFSET, push);
  interpolate_links(code, own, push, g);
  add_link_forces(link_force, code, wall, own, g, ii, jj + ROW_OFFSET);
}
#else
// Without curved walls the plain pull stands. (A function that does nothing,
// rather than a macro, so that every kernel reads the same with and without.)
ALWAYS_INLINE void pull_curved(__global const stored* src, __global const uchar* obstacles, const int ii, const int jj,
                               const int x_e, const int x_w, const int y_n, const int y_s, real* g, real* link_force) {
  (void)src;
  (void)obstacles;
  (void)ii;
  (void)jj;
  (void)x_e;
  (void)x_w;
  (void)y_n;
  (void)y_s;
  (void)g;
  (void)link_force;
}
#endif
