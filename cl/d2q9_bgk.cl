// D2Q9 BGK lattice Boltzmann kernels: the one source of the physics.
//
// Compiled at run time with the problem's constants injected as defines:
//   NX, NY              grid size
//   REAL_IS_DOUBLE      defined for double precision
//   DENSITY, ACCEL, OMEGA   problem parameters (literals)
//   LOCAL_SIZE_X, LOCAL_SIZE_Y  work-group shape (the reduction's local array size)
//   REDUCE_POW2         largest power of two below LOCAL_SIZE_X*LOCAL_SIZE_Y (0 when it is 1)
//   ROWS_PER_ITEM       rows each work-item of propagate_rebound_collide updates (default 1)
//   INDEX64             64-bit indices (grids of 2^31 or more distribution values)
//   BLOCK_STEPS, TILE_X, TILE_Y  propagate_rebound_collide_blocked: steps per launch and tile
//   PROBES_IN_LAUNCH    the blocked kernel samples probes in its launches
//   UNIFORM_BARRIERS    (CPU devices) every barrier outside branches, as PoCL's
//                       compile of the blocked kernel needs
//   STEP_KERNELS        which other step kernels the build holds, a sum of 1
//                       (propagate_rebound_collide) and 4 (_rows);
//                       default both. Hosts build only their plan's: every
//                       kernel costs compile time before the first step
//   STORAGE_FP16S or STORAGE_FP16C, with STORAGE_SCALE and STORAGE_INV_SCALE:
//                       distributions stored in 16 bits (float arithmetic; see below)
// and, only for one slab of a grid split across MPI ranks (host/mpi/), whose
// local lattice has a halo row below (row 0) and above (row NY-1):
//   FIRST_ROW, LAST_ROW  rows propagate_rebound_collide updates (default 0 and NY-1);
//                        work-item row j updates row FIRST_ROW + j
//   ACCEL_ROW            the accelerated row (default NY-2; -1: not in this slab)
// and, for such a slab run by propagate_rebound_collide_blocked, whose lattice
// has BLOCK_STEPS halo rows each side (rows FIRST_ROW..LAST_ROW its own):
//   BLOCKED_SLAB with GRID_NY, SLAB_ROW0, SLAB_GROUPS   the whole grid's rows,
//                        its row of lattice row 0 and the slab's tiles: the
//                        kernel passes collide() the grid's rows, finds the
//                        accelerated row (GRID_NY-2) in its halo rows too
//                        (ROW_OFFSET is not set) and takes first_group_row
// and, only for problems that use them (problem files, docs/problem-files.md),
// each compiled in alone so that coursework kernels stay as they are:
//   MOVING_WALL with WALL_UX, WALL_UY   obstacle cells of kind 2 move (bounce-back with momentum)
//   BODY_FORCE with FORCE_X, FORCE_Y    force per unit volume on the fluid (Guo forcing)
//   INLET with INLET_UX, INLET_UY       Zou/He velocity inlet on column 0
//     or INLET_PARABOLIC with INLET_PROFILE, INLET_HEIGHT (Poiseuille's profile)
//     and INLET_RAMP                    steps over which the inlet's velocity rises from 0
//   OUTLET with OUTLET_DENSITY          Zou/He pressure outlet on column NX-1
//   SPONGE with SPONGE_LEFT, SPONGE_RIGHT, SPONGE_STRENGTH   absorbing layers
//                                       beside the inlet and the outlet (absorb)
//   COLLISION_TRT with OMEGA_MINUS      two-relaxation-time collision (trt_pair)
//   COLLISION_REGULARISED               regularised BGK collision
//   CURVED_LINKS        curved walls (interpolated bounce-back): `obstacles`
//                       holds 8 planes of link bytes after the obstacle bytes
//   FORCE_BODIES        bodies whose force is measured (momentum exchange): an
//                       obstacle byte's bits 2-7 hold its body (1..FORCE_BODIES,
//                       0: not measured), bits 0-1 its kind; each work-group's
//                       partial sums then hold |u| and (Fx, Fy) per body
// With halo rows the pull never wraps in y.
//
// Every step kernel takes the same nine arguments, so that a host launches
// any of them alike: src, dst, obstacles, partial_sums, partial_offset,
// accelerate_next, steps (read by _blocked alone: the others run one step),
// first_group_row (read by the one-step kernels and a slab's
// _blocked: a slab launches its edge rows and its interior separately) and step, the number
// of the launch's first step counted from the run's start (read only with
// INLET_RAMP).
//
// The arithmetic contract (docs/arithmetic.md): the stored distributions are
// bit-identical across backends and the serial reference. Each operation is
// one IEEE operation or one explicit fma (correctly rounded in OpenCL C, CUDA
// and C++); nothing else is fused (FP_CONTRACT OFF here, --fmad=false in
// NVRTC, -ffp-contract=off for the reference); division and sqrt are
// correctly rounded. Only |u| and its sums (av_vels) may differ, by the
// order of summation.
//
// Helper functions are ALWAYS_INLINE functions (NVRTC compiles them as
// device functions with -default-device).
//
// Distributions are structure-of-arrays: speed k of cell (ii, jj) sits at
// k*NX*NY + ii + jj*NX. Speeds: 0 rest, 1 E, 2 N, 3 W, 4 S, 5 NE, 6 NW, 7 SW, 8 SE.
// The kernels stay inside the subset that both OpenCL C 1.2 and CUDA (through
// cl/cuda_prelude.h) accept.

#ifdef REAL_IS_DOUBLE
#ifdef __OPENCL_VERSION__
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
typedef double real;
#else
typedef float real;
#endif

// Distributions in device memory: `real` by default, or 16 bits with
// STORAGE_FP16S / STORAGE_FP16C. A 16-bit value holds the distribution's
// difference from its value at rest, w_k * DENSITY, times STORAGE_SCALE (a
// power of two, so scaling is exact): the constant part costs no bits, and
// the bits go to the flow (Lehmann et al., Phys. Rev. E 106, 015308, 2022).
// FP16S is IEEE half. FP16C has a sign, 4 exponent bits and 11 mantissa bits
// (one more than half) for magnitudes in [2^-14, 2), evenly spaced below.
// host/problem/storage16.cpp converts exactly as these helpers do.
#if defined(STORAGE_FP16S) || defined(STORAGE_FP16C)
#define STORAGE_16 1
typedef ushort stored;
#else
typedef real stored;
#endif

#ifdef __OPENCL_VERSION__
// Keep a*b+c as two roundings, as the serial reference computes it.
#pragma OPENCL FP_CONTRACT OFF
#endif

// The cell helpers are forced inline: CPU compilers leave the big collide
// out of line otherwise, and a call in the row loop stops vectorisation.
// (cl/cuda_prelude.h maps this to __forceinline__.)
#ifndef ALWAYS_INLINE
#define ALWAYS_INLINE inline __attribute__((always_inline))
#endif

#ifndef ROWS_PER_ITEM
#define ROWS_PER_ITEM 1
#endif
#ifndef STEP_KERNELS
#define STEP_KERNELS 5
#endif
#ifdef REAL_IS_DOUBLE
#define SPEED_SQRT(x) sqrt(x)
#else
#define SPEED_SQRT(x) native_sqrt(x)
#endif

// Cell and distribution indices: int while the 9 * NX * NY values fit one
// (cheaper address arithmetic), 64-bit with INDEX64, which the host sets only
// for larger grids.
#ifdef INDEX64
typedef long idx_t;
#else
typedef int idx_t;
#endif
#define NCELLS ((idx_t)NX * NY)
#define CELL(ii, jj) ((idx_t)(ii) + (idx_t)(jj) * NX)

// The value of speed k at rest, the same float operations as the host's.
ALWAYS_INLINE real rest_value(const int k) {
  const real w = k == 0 ? (real)4 / (real)9 : k < 5 ? (real)1 / (real)9 : (real)1 / (real)36;
  return w * (real)DENSITY;
}

#if defined(STORAGE_FP16S)
ALWAYS_INLINE float load16(__global const ushort* p, const idx_t i) { return vload_half(i, (__global const half*)p); }
ALWAYS_INLINE void store16(__global ushort* p, const idx_t i, const float x) { vstore_half_rte(x, i, (__global half*)p); }
ALWAYS_INLINE float round16(const float x) {
  ushort code;
  vstore_half_rte(x, 0, (half*)&code);
  return vload_half(0, (const half*)&code);
}
#elif defined(STORAGE_FP16C)
ALWAYS_INLINE ushort encode16(const float x) {
  const float a = fabs(x);
  // Normal: re-bias the exponent, keep 11 mantissa bits rounding to nearest
  // even (a carry rolls into the exponent); saturates, also for inf and NaN.
  const uint v = as_uint(a) - (112u << 23);
  const uint normal = min((v + 0x7ffu + ((v >> 12) & 1u)) >> 12, 0x7fffu);
  // Below 2^-14, steps of 2^-25: a * 2^25 (exact) rounded to an integer, to
  // nearest even, by adding 2^23, whose ulp is 1: the integer is then the low
  // bits. convert_uint_rte(a * 0x1p25f) gives the same for every float (all
  // 2^32 checked), but runs on the GPU's slower conversion pipe.
  const uint linear = as_uint(fma(a, 0x1p25f, 0x1p23f)) - 0x4b000000u;
  return (ushort)(((as_uint(x) >> 16) & 0x8000u) | (a < 0x1p-14f ? linear : normal));
}
ALWAYS_INLINE float decode16(const ushort code) {
  const uint m = code & 0x7fffu;
  // Below 2048, m * 2^-25 exactly: (2^23 + m) * 2^-25 - 2^-2, one fma, the
  // same bits as (float)m * 0x1p-25f (every code checked) without an
  // integer-to-float conversion.
  const float linear = fma(as_float(m | 0x4b000000u), 0x1p-25f, -0x1p-2f);
  const float normal = as_float((m << 12) + (112u << 23));
  const float a = m < 2048u ? linear : normal;
  return (code & 0x8000u) ? -a : a;
}
ALWAYS_INLINE float load16(__global const ushort* p, const idx_t i) { return decode16(p[i]); }
ALWAYS_INLINE void store16(__global ushort* p, const idx_t i, const float x) { p[i] = encode16(x); }
ALWAYS_INLINE float round16(const float x) { return decode16(encode16(x)); }
#endif

#ifdef STORAGE_16
// (value - rest) * SCALE and code * INV_SCALE + rest, each written as one fma:
// the scale is a power of two, so the products are exact and the fma rounds
// once where the two operations would: the same bits in fewer instructions
// (the 16-bit kernels are bound by instruction issue, not by memory).
ALWAYS_INLINE real to_code_scale(const int k, const real value) {
  return fma(value, (real)STORAGE_SCALE, -(rest_value(k) * (real)STORAGE_SCALE));
}
#endif

// Speed k of a cell, read from and written to device memory.
ALWAYS_INLINE real load_f(__global const stored* p, const int k, const idx_t cell) {
#ifdef STORAGE_16
  return fma(load16(p, k * NCELLS + cell), (real)STORAGE_INV_SCALE, rest_value(k));
#else
  return p[k * NCELLS + cell];
#endif
}
ALWAYS_INLINE void store_f(__global stored* p, const int k, const idx_t cell, const real value) {
#ifdef STORAGE_16
  store16(p, k * NCELLS + cell, to_code_scale(k, value));
#else
  p[k * NCELLS + cell] = value;
#endif
}
// What store_f then load_f give back: where a variant keeps in registers a
// value that another variant stores, it rounds it so, and all agree.
ALWAYS_INLINE real as_stored(const int k, const real value) {
#ifdef STORAGE_16
  return fma(round16(to_code_scale(k, value)), (real)STORAGE_INV_SCALE, rest_value(k));
#else
  return value;
#endif
}
#ifndef FIRST_ROW
#define FIRST_ROW 0
#endif
#ifndef LAST_ROW
#define LAST_ROW (NY - 1)
#endif
#ifndef ACCEL_ROW
#define ACCEL_ROW (NY - 2)
#endif
#ifndef ROW_OFFSET
#define ROW_OFFSET 0  // the whole grid's row of local row 0 (slabs: their first row - 1)
#endif
#define WG_SIZE (LOCAL_SIZE_X * LOCAL_SIZE_Y)

// Work-items per compute unit that propagate_rebound_collide should keep
// resident. Large grids are bound by how many loads are in flight, so CUDA
// (cl/cuda_prelude.h) turns this into __launch_bounds__, capping registers at
// 40 in float; on an H200 that raised 4096^2 and 8192^2 by about 3 points of
// copy bandwidth. OpenCL C has no per-kernel hint, and NVIDIA's OpenCL
// compiler did not speed up under -cl-nv-maxrregcount. Double precision
// needs its registers, so it gets no cap.
#ifndef OCCUPANCY_HINT
#define OCCUPANCY_HINT(items)
#endif
#ifdef REAL_IS_DOUBLE
#define ONE_STEP_KERNEL __kernel
#define BLOCKED_KERNEL __kernel
#else
#define ONE_STEP_KERNEL __kernel OCCUPANCY_HINT(1536)
// The blocked kernel's local memory leaves room for four work-groups of 256
// per compute unit (48 KB each); registers past 64 left fewer: a cylinder
// with a curved wall took 80 (3 groups), with a sponge 92 (2 groups), and
// ran at 0.7x the staircase's rate (H200, 4000x2400,
// results/nvidia-h200/real-problems/). Capped to keep the four resident;
// NVIDIA's OpenCL build gets the same cap (-cl-nv-maxrregcount, cl_common.cpp).
#define BLOCKED_KERNEL __kernel OCCUPANCY_HINT(1024)
#endif

// Acceleration weights of row ACCEL_ROW (coursework: density * accel / 9 and / 36).
#define ACCEL_W1 ((real)DENSITY * (real)ACCEL / (real)9)
#define ACCEL_W2 ((real)DENSITY * (real)ACCEL / (real)36)

// Moves momentum into +x along row ACCEL_ROW where no distribution would go negative.
__kernel void accelerate_flow(__global stored* restrict cells, __global const uchar* restrict obstacles) {
  const int ii = (int)get_global_id(0);
  if (ACCEL_ROW < 0) return;  // the row is another slab's
  if (ii >= NX) return;
  const idx_t cell = CELL(ii, ACCEL_ROW);
  if (obstacles[cell]) return;

  const real w1 = ACCEL_W1;
  const real w2 = ACCEL_W2;
  const real f3 = load_f(cells, 3, cell);
  const real f6 = load_f(cells, 6, cell);
  const real f7 = load_f(cells, 7, cell);
  if (f3 - w1 > (real)0 && f6 - w2 > (real)0 && f7 - w2 > (real)0) {
    store_f(cells, 1, cell, load_f(cells, 1, cell) + w1);
    store_f(cells, 5, cell, load_f(cells, 5, cell) + w2);
    store_f(cells, 8, cell, load_f(cells, 8, cell) + w2);
    store_f(cells, 3, cell, f3 - w1);
    store_f(cells, 6, cell, f6 - w2);
    store_f(cells, 7, cell, f7 - w2);
  }
}

// Probes: the nine stored values of each of `count` lattice cells (`which`)
// copied, as stored, into row `row` of `samples` (nine planes of `count`
// values a row), so that a run samples its probes on the device between
// launches and reads many rows back at once instead of draining the device
// for each.
__kernel void sample_cells(__global const stored* restrict cells, __global const int* restrict which,
                           __global stored* restrict samples, const int count, const int row) {
  const idx_t i = (idx_t)get_global_id(0);
  if (i >= (idx_t)9 * count) return;
  const int k = (int)(i / count), c = (int)(i - (idx_t)k * count);
  samples[(idx_t)row * 9 * count + i] = cells[k * NCELLS + (idx_t)which[c]];
}

// Incoming distributions of cell (ii, jj) from the given neighbouring columns
// and rows: g_k = f_k((ii, jj) - e_k).
// The helpers take no `restrict` (the kernels' arguments carry it): inlined
// restrict parameters inside the rows kernel's loop leave
// llvm.experimental.noalias.scope.decl calls that oclgrind cannot run.
ALWAYS_INLINE void pull_from(__global const stored* src, const int ii, const int jj, const int x_e, const int x_w,
                      const int y_n, const int y_s, real* g) {
  g[0] = load_f(src, 0, CELL(ii, jj));
  g[1] = load_f(src, 1, CELL(x_w, jj));
  g[2] = load_f(src, 2, CELL(ii, y_s));
  g[3] = load_f(src, 3, CELL(x_e, jj));
  g[4] = load_f(src, 4, CELL(ii, y_n));
  g[5] = load_f(src, 5, CELL(x_w, y_s));
  g[6] = load_f(src, 6, CELL(x_e, y_s));
  g[7] = load_f(src, 7, CELL(x_e, y_n));
  g[8] = load_f(src, 8, CELL(x_w, y_n));
}

// The neighbouring columns and rows of cell (ii, jj), periodic in both directions.
#define PERIODIC_NEIGHBOURS(ii, jj)                \
  const int x_e = ((ii) + 1 == NX) ? 0 : (ii) + 1; \
  const int x_w = ((ii) == 0) ? NX - 1 : (ii) - 1; \
  const int y_n = ((jj) + 1 == NY) ? 0 : (jj) + 1; \
  const int y_s = ((jj) == 0) ? NY - 1 : (jj) - 1

// Incoming distributions of cell (ii, jj), periodic in both directions.
ALWAYS_INLINE void pull(__global const stored* src, const int ii, const int jj, real* g) {
  PERIODIC_NEIGHBOURS(ii, jj);
  pull_from(src, ii, jj, x_e, x_w, y_n, y_s, g);
}

// Nine stores written out, not a loop over k: PoCL's LLVM vectorises only
// innermost loops, and a k-loop left inside the rows kernel's column loop
// kept that loop scalar (256x256 float on a 2-core CPU: 57 against 280 MLUPS).
ALWAYS_INLINE void store(__global stored* dst, const idx_t cell, const real* f) {
  store_f(dst, 0, cell, f[0]);
  store_f(dst, 1, cell, f[1]);
  store_f(dst, 2, cell, f[2]);
  store_f(dst, 3, cell, f[3]);
  store_f(dst, 4, cell, f[4]);
  store_f(dst, 5, cell, f[5]);
  store_f(dst, 6, cell, f[6]);
  store_f(dst, 7, cell, f[7]);
  store_f(dst, 8, cell, f[8]);
}

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
ALWAYS_INLINE real link_pull(const int code, const real pulled, const real own_k, const real own_o, const real beyond_o) {
  const real two_q = (real)(2 * code) / (real)255;
  const real near = fma(two_q, own_o - beyond_o, beyond_o);
  const real far = own_k + (own_o - own_k) / two_q;
  return code == 0 ? pulled : two_q < (real)1 ? near : far;
}

// g: the plain pull, replaced on the cell's curved links; code[k]: link k's byte.
ALWAYS_INLINE void interpolate_links(const int* code, const real* own, real* g) {
  const real p1 = g[1], p2 = g[2], p3 = g[3], p4 = g[4], p5 = g[5], p6 = g[6], p7 = g[7], p8 = g[8];
  g[1] = link_pull(code[1], p1, own[1], own[3], p3);
  g[2] = link_pull(code[2], p2, own[2], own[4], p4);
  g[3] = link_pull(code[3], p3, own[3], own[1], p1);
  g[4] = link_pull(code[4], p4, own[4], own[2], p2);
  g[5] = link_pull(code[5], p5, own[5], own[7], p7);
  g[6] = link_pull(code[6], p6, own[6], own[8], p8);
  g[7] = link_pull(code[7], p7, own[7], own[5], p5);
  g[8] = link_pull(code[8], p8, own[8], own[6], p6);
}

// The cell's link bytes from device memory and, where it has a curved link,
// its stored state and the pull corrected on those links. Returns whether it
// has one: most cells have none and skip the loads of their own state (a
// curved cylinder's run on PoCL: 1.05x the staircase's loop time, 1.38x
// when every cell loaded it; results/nvidia-h100/curved-walls/).
ALWAYS_INLINE int pull_links(__global const stored* src, __global const uchar* obstacles, const idx_t cell, int* code,
                             real* own, real* g) {
  int any = 0;
  code[0] = 0;
  for (int k = 1; k < 9; ++k) {
    code[k] = obstacles[k * NCELLS + cell];
    any |= code[k];
  }
  if (any) {
    own[0] = g[0];
    for (int k = 1; k < 9; ++k) own[k] = load_f(src, k, cell);
    interpolate_links(code, own, g);
  }
  return any;
}

#ifdef FORCE_BODIES
// Momentum exchange on a curved link: the wall cell's rebound counted
// e_o own_o out and e_k own_o back; the link's true exchange is e_o own_o out
// and e_k g_k back, so the wall's body takes e_k (own_o - g_k) more.
// wall[k]: the obstacle byte of the link's wall cell.
ALWAYS_INLINE void add_link_forces(real* sums, const int* code, const int* wall, const real* own, const real* g) {
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  for (int k = 1; k < 9; ++k) {
    const real d = code[k] ? own[opposite[k]] - g[k] : (real)0;
    const int body = wall[k] >> 2;
    for (int b = 0; b < FORCE_BODIES; ++b) {
      sums[2 * b] += body == b + 1 ? (real)ex[k] * d : (real)0;
      sums[2 * b + 1] += body == b + 1 ? (real)ey[k] * d : (real)0;
    }
  }
}
// The obstacle bytes of the cells the pull took each speed from.
ALWAYS_INLINE void link_walls(__global const uchar* obstacles, const int ii, const int jj, const int x_e, const int x_w,
                              const int y_n, const int y_s, int* wall) {
  wall[0] = 0;
  wall[1] = obstacles[CELL(x_w, jj)];
  wall[2] = obstacles[CELL(ii, y_s)];
  wall[3] = obstacles[CELL(x_e, jj)];
  wall[4] = obstacles[CELL(ii, y_n)];
  wall[5] = obstacles[CELL(x_w, y_s)];
  wall[6] = obstacles[CELL(x_e, y_s)];
  wall[7] = obstacles[CELL(x_e, y_n)];
  wall[8] = obstacles[CELL(x_w, y_n)];
}
#endif

// The pull of cell (ii, jj) from device memory (neighbours given), corrected
// on its curved links; with measured bodies, their links' share of the force
// is added to link_force.
ALWAYS_INLINE void pull_curved(__global const stored* src, __global const uchar* obstacles, const int ii, const int jj,
                               const int x_e, const int x_w, const int y_n, const int y_s, real* g, real* link_force) {
  int code[9];
  real own[9];
  const int curved = pull_links(src, obstacles, CELL(ii, jj), code, own, g);
#ifdef FORCE_BODIES
  if (curved) {
    int wall[9];
    link_walls(obstacles, ii, jj, x_e, x_w, y_n, y_s, wall);
    add_link_forces(link_force, code, wall, own, g);
  }
#else
  (void)curved;
  (void)ii;
  (void)jj;
  (void)x_e;
  (void)x_w;
  (void)y_n;
  (void)y_s;
  (void)link_force;
#endif
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

// What every collision operator needs of a fluid cell's incoming distributions.
typedef struct {
  real rho;     // density
  real ux, uy;  // velocity; with a body force (momentum + F/2) / rho, Guo's shift
  real u_sq;    // u.u, of which |u| is also taken
  real a;       // 1 - 3/2 u.u: the part of every equilibrium that e_k.u leaves alone
} cell_moments;

// One division per cell: rho's reciprocal.
ALWAYS_INLINE cell_moments moments_of(const real* g) {
  cell_moments m;
  m.rho = g[0] + g[1] + g[2] + g[3] + g[4] + g[5] + g[6] + g[7] + g[8];
  const real inv_rho = (real)1 / m.rho;
  real mx = g[1] + g[5] + g[8] - (g[3] + g[6] + g[7]);
  real my = g[2] + g[5] + g[6] - (g[4] + g[7] + g[8]);
#ifdef BODY_FORCE
  mx += (real)0.5 * (real)FORCE_X;  // the velocity is the momentum plus half the force
  my += (real)0.5 * (real)FORCE_Y;
#endif
  m.ux = mx * inv_rho;
  m.uy = my * inv_rho;
  m.u_sq = fma(m.ux, m.ux, m.uy * m.uy);
  m.a = fma(m.u_sq, (real)-1.5, (real)1);
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

// BGK: f_k = g_k + omega (feq_k - g_k) = (1 - omega) g_k + omega w_k rho p_k.
ALWAYS_INLINE void collide_bgk(const real* g, const cell_moments m, real* f) {
  const real omega = (real)OMEGA;
  const real keep = (real)1 - omega;
  const real r0 = omega * W0 * m.rho, r1 = omega * W1 * m.rho, r2 = omega * W2 * m.rho;
  const real u5 = m.ux + m.uy, u6 = m.uy - m.ux;  // e_k.u of speeds 5 (NE) and 6 (NW)
  f[0] = fma(keep, g[0], r0 * m.a);
  f[1] = fma(keep, g[1], r1 * equilibrium_factor(m.ux, m.a));
  f[2] = fma(keep, g[2], r1 * equilibrium_factor(m.uy, m.a));
  f[3] = fma(keep, g[3], r1 * equilibrium_factor(-m.ux, m.a));
  f[4] = fma(keep, g[4], r1 * equilibrium_factor(-m.uy, m.a));
  f[5] = fma(keep, g[5], r2 * equilibrium_factor(u5, m.a));
  f[6] = fma(keep, g[6], r2 * equilibrium_factor(u6, m.a));
  f[7] = fma(keep, g[7], r2 * equilibrium_factor(-u5, m.a));
  f[8] = fma(keep, g[8], r2 * equilibrium_factor(-u6, m.a));
}

#ifdef COLLISION_REGULARISED
// Regularised BGK (Latt & Chopard 2006): the non-equilibrium part is
// replaced by its projection onto the second-order Hermite moments,
// f_k = feq_k + (1 - omega) w_k 9/2 Q_k : Pi_neq, Q_k = e_k e_k - I/3.
ALWAYS_INLINE void collide_regularised(const real* g, const cell_moments m, real* f) {
  const real keep = (real)1 - (real)OMEGA;
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
// part (g_k + g_o)/2 relaxes to its equilibrium at OMEGA, the odd part at
// OMEGA_MINUS, the host's choice from the "magic" parameter
// Lambda = (1/OMEGA - 1/2)(1/OMEGA_MINUS - 1/2).
ALWAYS_INLINE void trt_pair(const real* g, real* f, const int k, const int o, const real w, const real rho,
                            const real eu, const real a) {
  const real wrho = w * rho;
  const real even = (real)0.5 * (g[k] + g[o]) - wrho * fma(eu * eu, (real)4.5, a);
  const real odd = (real)0.5 * (g[k] - g[o]) - wrho * ((real)3 * eu);
  const real de = (real)OMEGA * even, dd = (real)OMEGA_MINUS * odd;
  f[k] = g[k] - de - dd;
  f[o] = g[o] - de + dd;
}

ALWAYS_INLINE void collide_trt(const real* g, const cell_moments m, real* f) {
  f[0] = g[0] - (real)OMEGA * (g[0] - W0 * m.rho * m.a);  // the rest speed is all even
  trt_pair(g, f, 1, 3, W1, m.rho, m.ux, m.a);
  trt_pair(g, f, 2, 4, W1, m.rho, m.uy, m.a);
  trt_pair(g, f, 5, 7, W2, m.rho, m.ux + m.uy, m.a);
  trt_pair(g, f, 6, 8, W2, m.rho, m.uy - m.ux, m.a);
}
#endif

// --- Forcing: a body force (FORCE_X, FORCE_Y) per unit volume on the fluid,
// Guo, Zheng & Shi (Phys. Rev. E 65, 046308, 2002), second-order accurate
// together with the half-force shift of the velocity (moments_of). Each
// operator takes the term in its own form, added to its post-collision state.
#ifdef BODY_FORCE
// Guo's term of speed (ex, ey) of weight w for a cell of velocity (ux, uy).
ALWAYS_INLINE real guo_term(const real w, const int ex, const int ey, const real ux, const real uy) {
  const real fx = (real)FORCE_X, fy = (real)FORCE_Y;
  const real eu = (real)ex * ux + (real)ey * uy;
  const real ef = (real)ex * fx + (real)ey * fy;
  return ((real)1 - (real)0.5 * (real)OMEGA) * w * ((real)3 * (((real)ex - ux) * fx + ((real)ey - uy) * fy) + (real)9 * eu * ef);
}

ALWAYS_INLINE void add_guo_forcing(const cell_moments m, real* f) {
  f[0] += guo_term(W0, 0, 0, m.ux, m.uy);
  f[1] += guo_term(W1, 1, 0, m.ux, m.uy);
  f[2] += guo_term(W1, 0, 1, m.ux, m.uy);
  f[3] += guo_term(W1, -1, 0, m.ux, m.uy);
  f[4] += guo_term(W1, 0, -1, m.ux, m.uy);
  f[5] += guo_term(W2, 1, 1, m.ux, m.uy);
  f[6] += guo_term(W2, -1, 1, m.ux, m.uy);
  f[7] += guo_term(W2, -1, -1, m.ux, m.uy);
  f[8] += guo_term(W2, 1, -1, m.ux, m.uy);
}

// g's momentum is rho u - F/2: BGK keeps (1 - omega) of that difference, and
// so must the regularised state, which keeps no part of g as it is; kw is
// (1 - omega) w_k.
ALWAYS_INLINE real kept_force(const real kw, const int ex, const int ey) {
  return kw * ((real)-1.5 * ((real)ex * (real)FORCE_X + (real)ey * (real)FORCE_Y));
}

ALWAYS_INLINE void add_regularised_forcing(const cell_moments m, real* f) {
  const real keep = (real)1 - (real)OMEGA;
  const real k0 = keep * W0, k1 = keep * W1, k2 = keep * W2;
  f[0] += kept_force(k0, 0, 0) + guo_term(W0, 0, 0, m.ux, m.uy);
  f[1] += kept_force(k1, 1, 0) + guo_term(W1, 1, 0, m.ux, m.uy);
  f[2] += kept_force(k1, 0, 1) + guo_term(W1, 0, 1, m.ux, m.uy);
  f[3] += kept_force(k1, -1, 0) + guo_term(W1, -1, 0, m.ux, m.uy);
  f[4] += kept_force(k1, 0, -1) + guo_term(W1, 0, -1, m.ux, m.uy);
  f[5] += kept_force(k2, 1, 1) + guo_term(W2, 1, 1, m.ux, m.uy);
  f[6] += kept_force(k2, -1, 1) + guo_term(W2, -1, 1, m.ux, m.uy);
  f[7] += kept_force(k2, -1, -1) + guo_term(W2, -1, -1, m.ux, m.uy);
  f[8] += kept_force(k2, 1, -1) + guo_term(W2, 1, -1, m.ux, m.uy);
}

#ifdef COLLISION_TRT
// TRT splits Guo's term as it splits the state: for the pair k, o = opposite(k)
// (eu = e_k.u, ef = e_k.F, uf = u.F) its even part is scaled by 1 - OMEGA/2,
// its odd part by 1 - OMEGA_MINUS/2.
ALWAYS_INLINE void add_trt_pair_forcing(real* f, const int k, const int o, const real w, const real eu, const real ef,
                                        const real uf) {
  const real fe = ((real)1 - (real)0.5 * (real)OMEGA) * (w * ((real)9 * eu * ef - (real)3 * uf));
  const real fo = ((real)1 - (real)0.5 * (real)OMEGA_MINUS) * (w * ((real)3 * ef));
  f[k] += fe + fo;
  f[o] += fe - fo;
}

ALWAYS_INLINE void add_trt_forcing(const cell_moments m, real* f) {
  const real fx = (real)FORCE_X, fy = (real)FORCE_Y;
  const real uf = m.ux * fx + m.uy * fy;
  f[0] += ((real)1 - (real)0.5 * (real)OMEGA) * (W0 * ((real)-3 * uf));
  add_trt_pair_forcing(f, 1, 3, W1, m.ux, fx, uf);
  add_trt_pair_forcing(f, 2, 4, W1, m.uy, fy, uf);
  add_trt_pair_forcing(f, 5, 7, W2, m.ux + m.uy, fx + fy, uf);
  add_trt_pair_forcing(f, 6, 8, W2, m.uy - m.ux, fy - fx, uf);
}
#endif
#else
// No body force: nothing to add (and nothing left once inlined).
ALWAYS_INLINE void add_guo_forcing(const cell_moments m, real* f) { (void)m; (void)f; }
ALWAYS_INLINE void add_regularised_forcing(const cell_moments m, real* f) { (void)m; (void)f; }
ALWAYS_INLINE void add_trt_forcing(const cell_moments m, real* f) { (void)m; (void)f; }
#endif

// The post-collision state of a fluid cell: the problem's operator, then its
// share of the body force.
ALWAYS_INLINE void collide_fluid(const real* g, const cell_moments m, real* f) {
#if defined(COLLISION_TRT)
  collide_trt(g, m, f);
  add_trt_forcing(m, f);
#elif defined(COLLISION_REGULARISED)
  collide_regularised(g, m, f);
  add_regularised_forcing(m, f);
#else
  collide_bgk(g, m, f);
  add_guo_forcing(m, f);
#endif
}

#ifdef SPONGE
// --- Absorbing layers (Xu & Sagaut, J. Comput. Phys. 245, 14, 2013): in the
// SPONGE_LEFT columns from the inlet and the SPONGE_RIGHT columns to the
// outlet, the post-collision state relaxes toward the far field's
// equilibrium (the inlet's velocity, OUTLET_DENSITY) at a rate rising as the
// square of the depth to SPONGE_STRENGTH at the edge. Density and momentum are
// damped alike, so the layer's acoustic impedance is the flow's: sound enters
// it without reflecting and fades, instead of ringing between the inlet and
// the outlet.
ALWAYS_INLINE real sponge_rate(const int ii) {
  real depth = (real)0;
#if SPONGE_LEFT > 0
  if (ii < SPONGE_LEFT) depth = (real)(SPONGE_LEFT - ii) / (real)SPONGE_LEFT;
#endif
#if SPONGE_RIGHT > 0
  if (ii >= NX - SPONGE_RIGHT) depth = (real)(ii - (NX - SPONGE_RIGHT) + 1) / (real)SPONGE_RIGHT;
#endif
  return (real)SPONGE_STRENGTH * (depth * depth);
}

// f_k += s (feq_k(far field) - f_k), one fma per speed.
ALWAYS_INLINE void absorb(const int ii, const int jj, const int t, real* f) {
  const real s = sponge_rate(ii);
  if (s == (real)0) return;
  const inflow_velocity v = inflow(jj, t);
  const real a = fma(fma(v.ux, v.ux, v.uy * v.uy), (real)-1.5, (real)1);
  const real rho = (real)OUTLET_DENSITY;
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

// --- Obstacles and the accelerated row.

#ifdef MOVING_WALL
// What a wall moving at (WALL_UX, WALL_UY) adds to the distribution of speed
// (ex, ey) it bounces back: 2 w rho (e.u_w) / c^2 (Ladd, J. Fluid Mech. 271,
// 285, 1994), with the problem's density.
ALWAYS_INLINE real wall_term(const real w, const int ex, const int ey) {
  return (real)6 * w * (real)DENSITY * ((real)ex * (real)WALL_UX + (real)ey * (real)WALL_UY);
}

ALWAYS_INLINE void add_wall_momentum(real* f) {
  f[1] += wall_term(W1, 1, 0);
  f[2] += wall_term(W1, 0, 1);
  f[3] += wall_term(W1, -1, 0);
  f[4] += wall_term(W1, 0, -1);
  f[5] += wall_term(W2, 1, 1);
  f[6] += wall_term(W2, -1, 1);
  f[7] += wall_term(W2, -1, -1);
  f[8] += wall_term(W2, 1, -1);
}
#endif

// Rebound of an obstacle cell: each distribution goes back where it came
// from; f0 never changes. Cells of kind 2 are a moving wall (MOVING_WALL),
// which gives what it bounces back its momentum.
ALWAYS_INLINE void rebound(const real* g, const int blocked, real* f) {
  f[0] = g[0]; f[1] = g[3]; f[2] = g[4]; f[3] = g[1]; f[4] = g[2];
  f[5] = g[7]; f[6] = g[8]; f[7] = g[5]; f[8] = g[6];
#ifdef MOVING_WALL
  if ((blocked & 3) == 2) add_wall_momentum(f);
#else
  (void)blocked;
#endif
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

// The new state f of a cell from its incoming distributions g: rebound on
// obstacles, collision on fluid. t is the step's number (the inlet's ramp).
// Returns |u| (0 on obstacles), as the coursework's av_velocity measures it.
// With `accelerate` (the cell is in row ACCEL_ROW and a next step follows) it
// then applies that step's accelerate_flow.
//
// Every cell is collided and obstacles then keep their bounced-back values:
// branch-free, so CPU compilers can vectorise across work-items and GPU warps
// do not diverge; the wasted arithmetic is free in a memory-bound kernel.
// `edges`: whether the cell may lie on an open edge or in a sponge (0 only
// where it provably does not: the blocked kernel's plain tiles).
ALWAYS_INLINE real collide_cell(const real* g, const int blocked, const int ii, const int jj, const int t,
                                const int accelerate, const int edges, real* f) {
  (void)edges;
#if defined(INLET) || defined(OUTLET)
  // g with the open edges' unknowns set; rebound keeps g. Copied without a
  // loop, which would keep the rows kernel scalar on CPUs (see store()).
  real g_open[9] = {g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8]};
  if (edges && !blocked) open_edges(ii, jj, t, g_open);
  g = g_open;
#else
  (void)ii;
  (void)jj;
  (void)t;
#endif
  const cell_moments m = moments_of(g);
  collide_fluid(g, m, f);
#ifdef SPONGE
  if (edges) absorb(ii, jj, t, f);
#endif

  // |u| for av_vels: the collision conserves density and momentum (with a
  // body force, the velocity it leaves is moments_of's (m + F/2) / rho), so the
  // new state's velocity is u, to rounding: no second density and division.
  // av_vels may differ by rounding (the contract), so float takes the
  // hardware's square root: a correctly rounded one cost NVIDIA's OpenCL 9%
  // of fp16s at 4096^2 on an H100.
  const real speed = blocked ? (real)0 : SPEED_SQRT(m.u_sq);

  if (blocked) rebound(g, blocked, f);
  if (accelerate && !blocked) accelerate_cell(f);
  return speed;
}
ALWAYS_INLINE real collide(const real* g, const int blocked, const int ii, const int jj, const int t,
                           const int accelerate, real* f) {
  return collide_cell(g, blocked, ii, jj, t, accelerate, 1, f);
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
ALWAYS_INLINE void add_body_force(real* sums, const int blocked, const real* g, const real* f) {
#ifdef FORCE_BODIES
  const int body = blocked >> 2;
  // Only a measured body's cells add anything: the rest (nearly every cell)
  // skip the arithmetic, which would add +0 (a sum that starts at +0 and
  // adds finite values is never -0, so skipping +0 changes no bit).
  if (!body) return;
  const real fx = ((g[1] - f[1]) + (g[5] - f[5]) + (g[8] - f[8])) - ((g[3] - f[3]) + (g[6] - f[6]) + (g[7] - f[7]));
  const real fy = ((g[2] - f[2]) + (g[5] - f[5]) + (g[6] - f[6])) - ((g[4] - f[4]) + (g[7] - f[7]) + (g[8] - f[8]));
  for (int b = 0; b < FORCE_BODIES; ++b) {
    sums[2 * b] += body == b + 1 ? fx : (real)0;
    sums[2 * b + 1] += body == b + 1 ? fy : (real)0;
  }
#else
  (void)sums;
  (void)blocked;
  (void)g;
  (void)f;
#endif
}

#if STEP_KERNELS & 1
// One timestep for ROWS_PER_ITEM cells: pull the neighbours' distributions,
// rebound or collide, write the result into `dst`, and add |u| to the
// work-group's partial sum at partial_sums[partial_offset + group]. A group
// covers LOCAL_SIZE_X columns of LOCAL_SIZE_Y * ROWS_PER_ITEM consecutive
// rows; several rows per item spread the reduction over more cells.
// With accelerate_next != 0 it also applies the next step's accelerate_flow
// to row ACCEL_ROW (after measuring |u|), saving a launch per step; results are
// identical to launching accelerate_flow separately. A launch may cover part
// of the rows, from group row first_group_row: groups are numbered within the
// launch, so the host shifts partial_offset to match.
ONE_STEP_KERNEL void propagate_rebound_collide(__global const stored* restrict src, __global stored* restrict dst,
                                        __global const uchar* restrict obstacles,
                                        __global real* restrict partial_sums, const int partial_offset,
                                        const int accelerate_next, const int steps, const int first_group_row,
                                        const int step) {
  __local real local_speed[WG_SIZE];
  const int ii = (int)get_global_id(0);
  // Groups cover LOCAL_SIZE_Y * ROWS_PER_ITEM consecutive rows; a launch may
  // start at group row first_group_row (slabs: edge rows first, then the interior).
  const int row0 =
      FIRST_ROW + (first_group_row + (int)get_group_id(1)) * LOCAL_SIZE_Y * ROWS_PER_ITEM + (int)get_local_id(1);
  const int lid = (int)get_local_id(0) + (int)get_local_id(1) * LOCAL_SIZE_X;
  const int group = (int)get_group_id(0) + (int)get_group_id(1) * (int)get_num_groups(0);
  real speed = (real)0;
  real body_force[BODY_FORCE_SLOTS] = {0};

  for (int r = 0; r < ROWS_PER_ITEM; ++r) {
    const int jj = row0 + r * LOCAL_SIZE_Y;
    // The global range is padded up to whole work-groups; padding items only
    // take part in the reduction.
    if (ii < NX && jj <= LAST_ROW) {
      real g[9], f[9];
      PERIODIC_NEIGHBOURS(ii, jj);
      pull_from(src, ii, jj, x_e, x_w, y_n, y_s, g);
      pull_curved(src, obstacles, ii, jj, x_e, x_w, y_n, y_s, g, body_force);
      const idx_t cell = CELL(ii, jj);
      const int blocked = obstacles[cell];
      speed += collide(g, blocked, ii, jj, step, accelerate_next && jj == ACCEL_ROW, f);
      add_body_force(body_force, blocked, g, f);
      store(dst, cell, f);
    }
  }
  REDUCE_TO_PARTIAL(local_speed, lid, speed, (partial_offset + group) * SUMS_PER_GROUP);
  REDUCE_BODY_FORCES(local_speed, lid, body_force, partial_offset + group);
}
#endif

#ifdef BLOCK_STEPS
// Temporal blocking: up to BLOCK_STEPS steps per launch for grids where a
// launch and its drain cost more than a step's memory traffic. A work-group
// owns a TILE_X x TILE_Y tile; it loads the tile with a halo of BLOCK_STEPS
// cells on each side (periodic images past the grid's edges) into local
// memory, advances the region there, the valid part shrinking by a cell per
// step, and writes back only its tile. Memory is read and written once per
// launch instead of once per step. The arithmetic per cell is collide()'s and
// intermediate states are kept as they would be stored (tile_code), so
// distributions are bit-identical to one-step launches; |u| is summed per
// step over the tile's cells, in another order than the one-step kernels.
#define REGION_X (TILE_X + 2 * BLOCK_STEPS)
#define REGION_Y (TILE_Y + 2 * BLOCK_STEPS)
#define REGION_CELLS (REGION_X * REGION_Y)
#ifdef STORAGE_16
#define BLOCKED_COMPACT 1  // walk each step's window only (see the step loop)
#else
#define BLOCKED_COMPACT 0
#endif
#define CURVED_BIT 0x80
#ifdef CURVED_LINKS
#define REGION_BYTE(c) (region_mask[c] & (CURVED_BIT - 1))
#else
#define REGION_BYTE(c) region_mask[c]
#endif

// The region holds the distributions as device memory does: with 16-bit
// storage the 16-bit codes themselves. The serial reference rounds every
// distribution to its code after every step (docs/arithmetic.md), so keeping
// the code between steps changes no bit, halves the local memory of a tile
// (more work-groups per compute unit, or larger tiles) and converts once per
// value and step: encoded when written, decoded when read, and loaded and
// stored between device and local memory as they are.
typedef stored tile_t;
// What the region holds for speed k of a new state, and the value a step reads back.
ALWAYS_INLINE tile_t tile_code(const int k, const real value) {
#if defined(STORAGE_FP16S)
  ushort code;
  vstore_half_rte(to_code_scale(k, value), 0, (half*)&code);
  return code;
#elif defined(STORAGE_FP16C)
  return encode16(to_code_scale(k, value));
#else
  (void)k;
  return value;
#endif
}
ALWAYS_INLINE real tile_value(const int k, const tile_t code) {
#if defined(STORAGE_FP16S)
  return fma(vload_half(0, (const half*)&code), (real)STORAGE_INV_SCALE, rest_value(k));
#elif defined(STORAGE_FP16C)
  return fma(decode16(code), (real)STORAGE_INV_SCALE, rest_value(k));
#else
  (void)k;
  return code;
#endif
}

// Where the region keeps its distributions: one copy, updated in place in
// the order of Bailey et al.'s AA pattern (ICPP 2009). After the region is
// loaded, and after every even step, a cell's speed k sits at the cell
// itself, in slot opposite(k); an odd step pulls speed k of cell x from slot
// opposite(k) of x - e_k and pushes its new value to slot k of x + e_k; an
// even step reads slot k of x and writes slot opposite(k) of x. Every cell
// writes exactly the slots it read, so one barrier a step suffices, as with
// two copies alternating, and a tile gets twice the cells in the same local
// memory (less of its work is halo). With curved links a cell also reads its
// own state of the step before (its opposite speeds), a slot a neighbour
// overwrites in an odd step: there the region keeps two copies, steps
// alternating between them. Once the steps are done, the same memory holds
// each item's |u| sum of every step for the reduction.
//
// With CURVED_SLOTS (the host's bound on the curved cells
// any region holds, launch_plan.cpp), those cells keep their own state of
// the step before (then their corrected pull) and their region cell in
// slots of a side buffer instead: the region stays one copy, so tiles stay
// large (a second copy of every cell for the few on a wall halved a float
// tile's cells).
#if defined(CURVED_LINKS) && defined(CURVED_SLOTS)
#define CURVED_SIDE 1
#endif
#if defined(CURVED_LINKS) && !defined(CURVED_SIDE)
#define REGION_COPIES 2
#else
#define REGION_COPIES 1
#endif
#define REGION_SUMS (BLOCK_STEPS * SUMS_PER_GROUP * WG_SIZE)
typedef union {
  tile_t f[REGION_COPIES * 9 * REGION_CELLS];
  real sums[REGION_SUMS];
} blocked_region;

// e_k as a step between region cells, and the opposite speed.
ALWAYS_INLINE int region_step(const int k) {
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  return ex[k] + ey[k] * REGION_X;
}
ALWAYS_INLINE int opposite_speed(const int k) {
  const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  return opposite[k];
}
// The slot step s (from 1) reads speed k of cell c's incoming distributions
// from, the slot it writes speed k of c's new state to, and (two copies
// alone) the slot of c's own speed k of the step before.
#if REGION_COPIES == 2
ALWAYS_INLINE int slot_in(const int k, const int c, const int s) {
  return (2 * k + ((s - 1) & 1)) * REGION_CELLS + c - region_step(k);
}
ALWAYS_INLINE int slot_out(const int k, const int c, const int s) { return (2 * k + (s & 1)) * REGION_CELLS + c; }
ALWAYS_INLINE int slot_own(const int k, const int c, const int s) { return (2 * k + ((s - 1) & 1)) * REGION_CELLS + c; }
#else
ALWAYS_INLINE int slot_in(const int k, const int c, const int s) {
  return (s & 1) ? opposite_speed(k) * REGION_CELLS + c - region_step(k) : k * REGION_CELLS + c;
}
ALWAYS_INLINE int slot_out(const int k, const int c, const int s) {
  return (s & 1) ? k * REGION_CELLS + c + region_step(k) : opposite_speed(k) * REGION_CELLS + c;
}
#endif
// Where the loaded state (as after step 0) keeps speed k of cell c.
ALWAYS_INLINE int slot_loaded(const int k, const int c) { return slot_out(k, c, 0); }

// v modulo n in [0, n), for negative v too (region cells before the grid's start).
ALWAYS_INLINE int wrap(const int v, const int n) { return (v % n + n) % n; }

// Where region row y (y0 + ry, in the lattice's numbering) comes from, and
// which row of the grid it is (collide()'s coordinate, the accelerated row).
// The whole grid: periodic images. A slab of an MPI run (BLOCKED_SLAB): the
// lattice holds BLOCK_STEPS halo rows each side, which the neighbours fill
// before each launch, so no row wraps; rows past the lattice (above a top
// slab's partial tile row) are clamped, since they only feed cells that are
// not exact by the launch's end. Columns wrap either way.
#ifdef BLOCKED_SLAB
#define REGION_LATTICE_ROW(y) min(max((y), 0), NY - 1)
#define REGION_GRID_ROW(y) wrap((y) + SLAB_ROW0, GRID_NY)
#define REGION_ACCEL_ROW (GRID_NY - 2)
#else
#define REGION_LATTICE_ROW(y) wrap((y), NY)
#define REGION_GRID_ROW(y) wrap((y), NY)
#define REGION_ACCEL_ROW ACCEL_ROW
#endif

// A function's pointer into local memory: OpenCL names the address space,
// CUDA (cl/cuda_prelude.h) takes a plain pointer.
#ifndef LOCAL_ARG
#define LOCAL_ARG __local
#endif

// Tiles of two classes: a region holding a cell of the problem's special
// kinds (an open edge's column, a sponge's, a fluid cell with curved links, a
// measured body's cell), or a tile holding a probe, takes the steps with all
// of their code; every other
// region (most of a real problem's) takes them without it, which changes no
// bit there: open_edges and absorb leave those cells as they are, and they
// have no links to interpolate and no force to add. The test is uniform per
// work-group, so the plain steps run at the staircase box's pace instead of
// paying every feature's registers and spills on every cell (H200, the
// 4000x2400 cylinder with everything: 0.50 -> 0.67 of the box,
// results/nvidia-h200/tile-classes-f913612/). The host's tile_order starts
// the special tiles first (blocked_tile_order, launch_plan.cpp).
// Not on CPU devices with a moving wall: PoCL 3.1's LLVM 15 crashed (SLP
// vectorizer, a segfault while building) on the two classes' steps there in
// 16-bit and double precision.
#if (defined(INLET) || defined(OUTLET) || defined(SPONGE) || defined(CURVED_LINKS) || defined(FORCE_BODIES) || \
     defined(PROBES_IN_LAUNCH)) &&                                                                         \
    !(defined(UNIFORM_BARRIERS) && defined(MOVING_WALL))
#define TILE_CLASSES 1
#endif

// Whether region cell (column ii, its mask byte, whether it has curved
// links) makes its tile's region special (TILE_CLASSES).
ALWAYS_INLINE int special_cell(const int ii, const int mask, const int links) {
  int special = 0;
#ifdef INLET
  special |= ii == 0;
#endif
#ifdef OUTLET
  special |= ii == NX - 1;
#endif
#if defined(SPONGE) && SPONGE_LEFT > 0
  special |= ii < SPONGE_LEFT;
#endif
#if defined(SPONGE) && SPONGE_RIGHT > 0
  special |= ii >= NX - SPONGE_RIGHT;
#endif
#ifdef FORCE_BODIES
  special |= (mask >> 2) != 0;
#endif
  special |= links && !mask;
  (void)ii;
  return special;
}

#if defined(CURVED_LINKS) && defined(FORCE_BODIES)
// The mask bytes of the cells region cell c pulls each speed from
// (link_walls' in the region). Walls are obstacle cells: their bytes carry
// no CURVED_BIT.
ALWAYS_INLINE void region_walls(LOCAL_ARG const uchar* region_mask, const int c, int* wall) {
  wall[0] = 0;
  wall[1] = region_mask[c - 1];
  wall[2] = region_mask[c - REGION_X];
  wall[3] = region_mask[c + 1];
  wall[4] = region_mask[c + REGION_X];
  wall[5] = region_mask[c - 1 - REGION_X];
  wall[6] = region_mask[c + 1 - REGION_X];
  wall[7] = region_mask[c + 1 + REGION_X];
  wall[8] = region_mask[c - 1 + REGION_X];
}
#endif

#ifdef CURVED_SIDE
#define CURVED_SIDE_PARAMS                                                                                        \
  , LOCAL_ARG real *curved_own, LOCAL_ARG const short *curved_slot, LOCAL_ARG const short *curved_cell,          \
      LOCAL_ARG real *curved_force, const int curved_count
#define CURVED_SIDE_ARGS , curved_own, curved_slot, curved_cell, curved_force, min(curved_cells, CURVED_SLOTS)
#else
#define CURVED_SIDE_PARAMS
#define CURVED_SIDE_ARGS
#endif
#ifdef PROBES_IN_LAUNCH
#define PROBE_PARAMS                                                                                             \
  , __global stored *samples, __global const int *sample_index, const int sample_count,                           \
      const int sample_first, const int sample_every, const int sample_row, const int num_groups, const int my_probe, \
      LOCAL_ARG const int *tile_probes
#define PROBE_ARGS \
  , samples, sample_index, sample_count, sample_first, sample_every, sample_row, num_groups, my_probe, tile_probes
#else
#define PROBE_PARAMS
#define PROBE_ARGS
#endif

// Step s (1 to BLOCK_STEPS) of a blocked launch of `steps`, on the region
// (the kernel below loads it). full: the tile's class (TILE_CLASSES), a
// constant where this is inlined. sums: the item's sums of each step. No
// `restrict` on its pointers: see pull_from.
ALWAYS_INLINE void blocked_step(const int full, const int s, const int steps, const int step,
                                const int accelerate_next, const int x0, const int y0, const int lid,
                                __global stored* dst, __global const uchar* obstacles,
                                LOCAL_ARG blocked_region* region, LOCAL_ARG const uchar* region_mask,
                                LOCAL_ARG const uchar* accelerated_row, real* sums CURVED_SIDE_PARAMS PROBE_PARAMS) {
  (void)obstacles;
  for (int q = 0; q < SUMS_PER_GROUP; ++q) sums[(s - 1) * SUMS_PER_GROUP + q] = (real)0;
  if (s > steps) return;
  const int last = s == steps;
  // After step s a cell is exact if it is s cells inside the region; the
  // last step computes only the tile: the window of w x h cells from
  // (margin, margin). With 16-bit storage the items walk exactly that
  // window, in order, so that no item idles on a halo cell that is no
  // longer exact (whole warps of them diverged through the collision
  // before). Float and double walk the whole region and skip the cells
  // outside the window, as before: each item then sums |u| over the same
  // cells in the same order, and av_vels.dat keeps its bytes (a walk of the
  // window measured 1-2% faster there, within noise; 16-bit tiles changed
  // size, and their sums order, anyway).
  const int margin = last ? BLOCK_STEPS : s;
#ifdef CURVED_SIDE
  if (full) {
    // The curved cells' corrected pulls (and their links' forces) first, one
    // cell per item: spread through the walk below, they sent most warps of
    // a wall's tile down the long path, and every launch waited on that tile
    // (H200, 1000x600 cylinder: a 60 us tile in a 64 us launch). The walk
    // then reads the corrected pull from the cell's slot. The link bytes
    // come from device memory (a few cells' only): local memory sets the tile.
    for (int side = lid; side < curved_count; side += WG_SIZE) {
      const int c = curved_cell[side];
      const int ry = c / REGION_X, rx = c - ry * REGION_X;
      if (rx < margin || rx >= REGION_X - margin || ry < margin || ry >= REGION_Y - margin) continue;  // not this step's
      real g[9], own[9];
      int code[9];
      code[0] = 0;
      for (int k = 0; k < 9; ++k) g[k] = tile_value(k, region->f[slot_in(k, c, s)]);
      own[0] = g[0];
      const int x = x0 + rx, y = y0 + ry;
      for (int k = 1; k < 9; ++k) {
        code[k] = obstacles[k * NCELLS + CELL(wrap(x, NX), REGION_LATTICE_ROW(y))];
        own[k] = curved_own[9 * side + k];
      }
      interpolate_links(code, own, g);
#ifdef FORCE_BODIES
      int wall[9];
      region_walls(region_mask, c, wall);
      // The cell's links' force, which the walk adds where it adds the
      // cell's: slots are taken in no fixed order, so an item here would sum
      // different cells from run to run (and forces.csv would differ).
      real force[BODY_FORCE_SLOTS];
      for (int q = 0; q < BODY_FORCE_SLOTS; ++q) force[q] = (real)0;
      add_link_forces(force, code, wall, own, g);
      for (int q = 0; q < BODY_FORCE_SLOTS; ++q) curved_force[BODY_FORCE_SLOTS * side + q] = force[q];
#endif
      for (int k = 1; k < 9; ++k) curved_own[9 * side + k] = g[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  const int off = BLOCKED_COMPACT ? margin : 0;
  const int w = REGION_X - 2 * off, h = REGION_Y - 2 * off;
  // The item's walk position, and how far it moves per WG_SIZE cells.
  int wy = lid / w, wx = lid - wy * w;
  const int dy = WG_SIZE / w, dx = WG_SIZE - dy * w;
  for (; wy < h; wy += dy) {
    const int rx = wx + off, ry = wy + off, c = rx + ry * REGION_X;
    if (BLOCKED_COMPACT ||
        (rx >= margin && rx < REGION_X - margin && ry >= margin && ry < REGION_Y - margin)) {
      real g[9], f[9];
      for (int k = 0; k < 9; ++k) g[k] = tile_value(k, region->f[slot_in(k, c, s)]);
      const int x = x0 + rx, y = y0 + ry;
#ifdef CURVED_LINKS
#ifdef CURVED_SIDE
      const int side = region_mask[c] == CURVED_BIT ? curved_slot[c] : CURVED_SLOTS;
      const int curved = full && side < CURVED_SLOTS;  // (never past the slots: see the kernel's overflow test)
      if (curved)
        for (int k = 1; k < 9; ++k) g[k] = curved_own[9 * side + k];  // the corrected pull, from above
#else
      int code[9];
      real own[9];
      const int curved = full && region_mask[c] == CURVED_BIT;
      if (curved) {
        code[0] = 0;
        own[0] = g[0];
        for (int k = 1; k < 9; ++k) {
          code[k] = obstacles[k * NCELLS + CELL(wrap(x, NX), REGION_LATTICE_ROW(y))];
          own[k] = tile_value(k, region->f[slot_own(k, c, s)]);
        }
        interpolate_links(code, own, g);
      }
#endif
#endif
      const int accelerate = accelerated_row[ry] && (!last || accelerate_next);
      const int blocked = REGION_BYTE(c);
      const real cell_speed = collide_cell(g, blocked, wrap(x, NX), REGION_GRID_ROW(y), step + s - 1, accelerate, full, f);
      // The tile's own cells inside the grid (a slab: its own rows) count towards |u|.
      const int in_tile = rx >= BLOCK_STEPS && rx < BLOCK_STEPS + TILE_X && ry >= BLOCK_STEPS &&
                          ry < BLOCK_STEPS + TILE_Y && x < NX && y <= LAST_ROW;
      if (in_tile) {
        sums[(s - 1) * SUMS_PER_GROUP] += cell_speed;
#ifdef FORCE_BODIES
        if (full) add_body_force(sums + (s - 1) * SUMS_PER_GROUP + 1, blocked, g, f);
#if defined(CURVED_SIDE)
        if (curved)
          for (int q = 0; q < BODY_FORCE_SLOTS; ++q)
            sums[(s - 1) * SUMS_PER_GROUP + 1 + q] += curved_force[BODY_FORCE_SLOTS * side + q];
#elif defined(CURVED_LINKS)
        if (curved) {
          int wall[9];
          region_walls(region_mask, c, wall);
          add_link_forces(sums + (s - 1) * SUMS_PER_GROUP + 1, code, wall, own, g);
        }
#endif
#endif
      }
      if (last) {
        if (in_tile) store(dst, CELL(x, y), f);
      } else {
        for (int k = 0; k < 9; ++k) region->f[slot_out(k, c, s)] = tile_code(k, f[k]);
#ifdef CURVED_SIDE
        // The cell's own state for its next step (only this item reads it).
        if (curved)
          for (int k = 1; k < 9; ++k) curved_own[9 * side + k] = tile_value(k, tile_code(k, f[k]));
#endif
      }
    }
    wx += dx;
    if (wx >= w) {
      wx -= w;
      ++wy;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // the step is written before the next reads it
#ifdef PROBES_IN_LAUNCH
  // Only the tiles holding probes sample, and they take the full steps: the
  // plain steps carry no sampling code (nor its registers and barriers).
  if (full) {
    // (One division, no remainder: oclgrind runs no `freeze`, which LLVM adds to a pair.)
    const int since = s - sample_first, sample = since / sample_every;
    const int sampled = sample_first > 0 && since >= 0 && since == sample * sample_every;
    // After the last step the tile's state is in dst, stored by the group's
    // own items: visible to the group past a global barrier.
#ifdef UNIFORM_BARRIERS
    barrier(CLK_GLOBAL_MEM_FENCE);
#else
    if (sampled && last) barrier(CLK_GLOBAL_MEM_FENCE);
#endif
    if (sampled) {
      // sample_row counts from the rows' base, held after the index (0 unless
      // the host replays launches whose rows it cannot change: CUDA graphs).
      const int base = sample_index[num_groups + 1 + 2 * sample_count];
      __global stored* row = samples + (idx_t)(base + sample_row + sample) * 9 * sample_count;
      for (int j = lid; j < tile_probes[1]; j += WG_SIZE) {
        // Item i's probe is in a register (the first WG_SIZE); the rest from sample_index.
        const int column = j < WG_SIZE ? my_probe >> 16 : sample_index[num_groups + 1 + tile_probes[0] + j];
        const int region_cell =
            j < WG_SIZE ? my_probe & 0xffff : sample_index[num_groups + 1 + sample_count + tile_probes[0] + j];
        const int ry = region_cell / REGION_X, rx = region_cell - ry * REGION_X;
        const idx_t cell = CELL(x0 + rx, y0 + ry);  // a tile's own cell: inside the grid
        for (int k = 0; k < 9; ++k)
          row[k * sample_count + column] = last ? dst[k * NCELLS + cell] : region->f[slot_out(k, region_cell, s)];
      }
    }
    // Read before the next step overwrites the slots (the test is the same
    // for every item).
#ifdef UNIFORM_BARRIERS
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    if (sampled && !last) barrier(CLK_LOCAL_MEM_FENCE);
#endif
  }
#endif
}

// `steps` (1 to BLOCK_STEPS) steps from src to dst. Step s's |u| partial sum
// of group g goes to partial_sums[partial_offset + s * groups + g]; the
// accelerated row is accelerated between the launch's steps, and after its
// last when accelerate_next.
// Probes inside a launch (PROBES_IN_LAUNCH): after step sample_first and every sample_every
// steps after it (sample_first 0: never), its last included, the group copies
// the state of the probes its tile owns (sample_index, by group:
// blocked_sample_index), as stored, into their columns of the next row of
// samples from sample_row past the base after sample_index (sample_cells' layout; sample_count columns): no
// launch of sample_cells after it. Between steps the accelerated row's
// values are accelerated: the host samples here only when no probe lies on it.
BLOCKED_KERNEL void propagate_rebound_collide_blocked(__global const stored* restrict src, __global stored* restrict dst,
                                                __global const uchar* restrict obstacles,
                                                __global real* restrict partial_sums, const int partial_offset,
                                                const int accelerate_next, const int steps,
                                                const int first_group_row, const int step,
                                                __global stored* restrict samples,
                                                __global const int* restrict sample_index, const int sample_count,
                                                const int sample_first, const int sample_every,
                                                const int sample_row, __global const int* restrict tile_order) {
  __local blocked_region region;
  __local uchar region_mask[REGION_CELLS];
  __local uchar accelerated_row[REGION_Y];  // whether region row y is the grid's row ACCEL_ROW
#ifdef CURVED_SIDE
  // A curved cell's state of the step before (the value its stored code
  // gives), replaced by its corrected pull before each step's walk.
  __local real curved_own[9 * CURVED_SLOTS];
  __local short curved_slot[REGION_CELLS];      // the slot of each curved cell
  __local short curved_cell[CURVED_SLOTS];      // the region cell of each slot
#ifdef FORCE_BODIES
  __local real curved_force[BODY_FORCE_SLOTS * CURVED_SLOTS];  // its links' share of its bodies' forces
#else
  __local real curved_force[1];  // (no measured bodies: unused)
#endif
  __local int curved_cells;
#endif
  const int lid = (int)get_local_id(0) + (int)get_local_id(1) * LOCAL_SIZE_X;
#ifdef TILE_CLASSES
  __local int special_cells;  // items that found a special cell in the region (TILE_CLASSES)
  int special = 0;
  if (lid == 0) special_cells = 0;
#endif
#ifdef CURVED_SIDE
  if (lid == 0) curved_cells = 0;
#endif
#if defined(CURVED_SIDE) || defined(TILE_CLASSES)
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
#ifdef BLOCKED_SLAB
  // A slab launches its tile rows in bands (edge rows first): each step's
  // sums span all of its tiles, from the band's first_group_row on.
  const int num_groups = SLAB_GROUPS;
  const int tile_row = first_group_row + (int)get_group_id(1);
#else
  const int num_groups = (int)get_num_groups(0) * (int)get_num_groups(1);
  const int tile_row = (int)get_group_id(1);
#endif
  // The tile this work-group takes: tile_order's (the host's
  // blocked_tile_order: the slower tiles first), or its own.
  int group = (int)get_group_id(0) + (int)get_group_id(1) * (int)get_num_groups(0);
  int tile_x = (int)get_group_id(0), tile_y = tile_row;
#ifndef BLOCKED_SLAB
  if (tile_order) {
    group = tile_order[group];
    tile_y = group / (int)get_num_groups(0);
    tile_x = group - tile_y * (int)get_num_groups(0);
  }
#endif
  // The lattice position of region cell (0, 0); the tile starts BLOCK_STEPS
  // further on (a slab's tiles from its first own row, FIRST_ROW).
  const int x0 = tile_x * TILE_X - BLOCK_STEPS;
  const int y0 = FIRST_ROW + tile_y * TILE_Y - BLOCK_STEPS;
  // This tile's probes, read once: item i copies the i-th (a sampled step
  // then waits on no global read), its column and region cell in one
  // register (the kernel runs at its register cap: more spilled).
#ifdef PROBES_IN_LAUNCH
  __local int tile_probes[2];  // the first of the tile's probes in sample_index, and how many
  int my_probe = -1;           // column << 16 | region cell (a region holds fewer than 2^16 cells; the host
                               // samples here for fewer than 2^15 probes; shifts, not / and %: oclgrind)
  if (sample_count > 0) {
#ifdef BLOCKED_SLAB
    const int tile = group + first_group_row * (int)get_num_groups(0);  // the slab's tiles, not the band's
#else
    const int tile = group;
#endif
    const int first = sample_index[tile], here = sample_index[tile + 1] - first;
    if (lid == 0) tile_probes[0] = first, tile_probes[1] = here;
#ifdef TILE_CLASSES
    special |= here > 0;  // a tile holding probes takes the full steps, which sample them
#endif
    if (lid < here)
      my_probe = sample_index[num_groups + 1 + first + lid] << 16 | sample_index[num_groups + 1 + sample_count + first + lid];
  }
#endif

  for (int c = lid; c < REGION_CELLS; c += WG_SIZE) {
    const int ry = c / REGION_X, rx = c - ry * REGION_X;
    const idx_t cell = CELL(wrap(x0 + rx, NX), REGION_LATTICE_ROW(y0 + ry));
    for (int k = 0; k < 9; ++k) region.f[slot_loaded(k, c)] = src[k * NCELLS + cell];
    region_mask[c] = obstacles[cell];
    int any = 0;  // whether the cell has curved links
#ifdef CURVED_LINKS
    // A fluid cell with a curved link gets bit 7 (free: bodies use bits 2-6),
    // so that the steps read the links of those cells alone.
    // (The links' planes, then a plane saying whether a cell has any:
    // obstacle_buffer, kernel_source.cpp. One byte per cell, not eight.)
    any = obstacles[9 * NCELLS + cell];
#ifdef BLOCKED_SLAB
    // Rows clamped past a slab's lattice feed no exact cell: no slot for
    // them (the host's bound counts the grid's windows, once each).
    if (y0 + ry < 0 || y0 + ry >= NY) any = 0;
#endif
    if (any && !region_mask[c]) {
      region_mask[c] = CURVED_BIT;
#ifdef CURVED_SIDE
      // A slot in any order (the values are the cell's, wherever they sit).
      const int slot = atomic_inc(&curved_cells);
      curved_slot[c] = (short)slot;
      if (slot < CURVED_SLOTS) {
        curved_cell[slot] = (short)c;
        for (int k = 0; k < 9; ++k) curved_own[9 * slot + k] = tile_value(k, region.f[slot_loaded(k, c)]);
      }
#endif
    }
#endif
#ifdef TILE_CLASSES
    special |= special_cell(wrap(x0 + rx, NX), obstacles[cell], any);
#endif
  }
  for (int ry = lid; ry < REGION_Y; ry += WG_SIZE) accelerated_row[ry] = REGION_GRID_ROW(y0 + ry) == REGION_ACCEL_ROW;
#ifdef TILE_CLASSES
  if (special) atomic_inc(&special_cells);
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
#ifdef TILE_CLASSES
  const int tile_special = special_cells > 0;  // the same for every item
#endif

  // This item's sums of each step over its tile cells: |u| (and each
  // body's force) of step s at sums[(s - 1) * SUMS_PER_GROUP].
  real sums[BLOCK_STEPS * SUMS_PER_GROUP];
#define BLOCKED_STEP_ARGS                                                                                     \
  s, steps, step, accelerate_next, x0, y0, lid, dst, obstacles, &region, region_mask, accelerated_row, sums \
      CURVED_SIDE_ARGS PROBE_ARGS
  // Unrolled: each step's slots (odd or even in the AA order) are then known
  // when compiled, and the sums live in registers (H100, float 8192^2: 86.7
  // -> 95.3 GLUPS CUDA, 86.4 -> 96.0 OpenCL; results/nvidia-h100/blocked-inplace/unroll.txt).
#ifdef TILE_CLASSES
  if (!tile_special) {
#pragma unroll
    for (int s = 1; s <= BLOCK_STEPS; ++s) blocked_step(0, BLOCKED_STEP_ARGS);
  } else
#endif
  {
// With a sponge, unrolled by two only (its code in every step's copy spilled
// under the register cap): the 4000x2400 cylinder with everything on 4.58 ->
// 4.28 s on an H100; a curved wall alone is faster fully unrolled (3.76
// against 4.10 s): results/nvidia-h100/real-problems/unroll-and-cap.txt.
#ifdef SPONGE
#pragma unroll 2
#else
#pragma unroll
#endif
    for (int s = 1; s <= BLOCK_STEPS; ++s) blocked_step(1, BLOCKED_STEP_ARGS);
  }
#undef BLOCKED_STEP_ARGS

#ifdef CURVED_SIDE
  // More curved cells than the host's bound left some uncorrected: never
  // silently; the launch's |u| sums become NaN, which stops the run.
  if (curved_cells > CURVED_SLOTS)
    for (int s = 0; s < BLOCK_STEPS; ++s) sums[s * SUMS_PER_GROUP] = (real)NAN;
#endif
  // Every step's sums in one tree, in the region's memory, which the last
  // step no longer reads.
  // Sum i (step i / SUMS_PER_GROUP, value i % SUMS_PER_GROUP) at region.sums[i * WG_SIZE].
  for (int i = 0; i < BLOCK_STEPS * SUMS_PER_GROUP; ++i) region.sums[i * WG_SIZE + lid] = sums[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = REDUCE_POW2; stride > 0; stride >>= 1) {
    if (lid < stride && lid + stride < WG_SIZE)
      for (int i = 0; i < BLOCK_STEPS * SUMS_PER_GROUP; ++i)
        region.sums[i * WG_SIZE + lid] += region.sums[i * WG_SIZE + lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = lid; i < steps * SUMS_PER_GROUP; i += WG_SIZE) {
    const int s = i / SUMS_PER_GROUP, q = i - s * SUMS_PER_GROUP;
    partial_sums[(partial_offset + s * num_groups + group) * SUMS_PER_GROUP + q] = region.sums[i * WG_SIZE];
  }
}
#endif

#if STEP_KERNELS & 4
// One cell of propagate_rebound_collide_rows, with its neighbouring columns
// and rows given; returns its |u|.
ALWAYS_INLINE real row_cell(__global const stored* src, __global stored* dst, __global const uchar* obstacles, const int ii, const int jj, const int x_e,
                     const int x_w, const int y_n, const int y_s, const int t, const int accelerate, real* body_force) {
  real g[9], f[9];
  pull_from(src, ii, jj, x_e, x_w, y_n, y_s, g);
  pull_curved(src, obstacles, ii, jj, x_e, x_w, y_n, y_s, g, body_force);
  const idx_t cell = CELL(ii, jj);
  const int blocked = obstacles[cell];
  const real speed = collide(g, blocked, ii, jj, t, accelerate, f);
  add_body_force(body_force, blocked, g, f);
  store(dst, cell, f);
  return speed;
}

// Columns per chunk of propagate_rebound_collide_rows' inner loop.
#define ROW_CHUNK 64

// One timestep of a whole row per work-item, for CPU devices: no local
// memory and no barriers. Launched with NY work-items in work-groups of one,
// so group = row; the row's |u| sum (in column order) is the group's partial
// sum. The wrapping edge columns are peeled off, so the inner loop reads
// contiguous neighbours and keeps |u| in an array rather than a running sum:
// both let the compiler vectorise it across columns.
__kernel void propagate_rebound_collide_rows(__global const stored* restrict src, __global stored* restrict dst,
                                             __global const uchar* restrict obstacles,
                                             __global real* restrict partial_sums, const int partial_offset,
                                             const int accelerate_next, const int steps, const int first_group_row,
                                        const int step) {
  const int jj = FIRST_ROW + first_group_row + (int)get_global_id(1);
  if (jj > LAST_ROW) return;
  const int accelerate = accelerate_next && jj == ACCEL_ROW;
  real body_force[BODY_FORCE_SLOTS] = {0};
  const int y_n = (jj + 1 == NY) ? 0 : jj + 1;
  const int y_s = (jj == 0) ? NY - 1 : jj - 1;
  real speed = row_cell(src, dst, obstacles, 0, jj, NX > 1 ? 1 : 0, NX - 1, y_n, y_s, step, accelerate, body_force);
  for (int x0 = 1; x0 < NX - 1; x0 += ROW_CHUNK) {
    const int n = min(ROW_CHUNK, NX - 1 - x0);
    real cell_speed[ROW_CHUNK];
    for (int i = 0; i < n; ++i) {
      const int ii = x0 + i;
      cell_speed[i] = row_cell(src, dst, obstacles, ii, jj, ii + 1, ii - 1, y_n, y_s, step, accelerate, body_force);
    }
    for (int i = 0; i < n; ++i) speed += cell_speed[i];
  }
  if (NX > 1) speed += row_cell(src, dst, obstacles, NX - 1, jj, 0, NX - 2, y_n, y_s, step, accelerate, body_force);
  const int slot = partial_offset + (int)get_group_id(1);
  partial_sums[slot * SUMS_PER_GROUP] = speed;
#ifdef FORCE_BODIES
  for (int q = 0; q < 2 * FORCE_BODIES; ++q) partial_sums[slot * SUMS_PER_GROUP + 1 + q] = body_force[q];
#endif
}
#endif
