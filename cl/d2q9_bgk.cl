// D2Q9 BGK lattice Boltzmann kernels: the one source of the physics.
//
// Compiled at run time with the problem's constants injected as defines:
//   NX, NY              grid size
//   REAL_IS_DOUBLE      defined for double precision
//   DENSITY, ACCEL, OMEGA   problem parameters (literals)
//   LOCAL_SIZE_X, LOCAL_SIZE_Y  work-group shape (the reduction's local array size)
//   REDUCE_POW2         largest power of two below LOCAL_SIZE_X*LOCAL_SIZE_Y (0 when it is 1)
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

#ifdef __OPENCL_VERSION__
// Keep a*b+c as two roundings, as the serial reference computes it.
#pragma OPENCL FP_CONTRACT OFF
#endif

#define NCELLS (NX * NY)
#define WG_SIZE (LOCAL_SIZE_X * LOCAL_SIZE_Y)

// Acceleration weights of row NY-2 (coursework: density * accel / 9 and / 36).
#define ACCEL_W1 ((real)DENSITY * (real)ACCEL / (real)9)
#define ACCEL_W2 ((real)DENSITY * (real)ACCEL / (real)36)

// Moves momentum into +x along row NY-2 where no distribution would go negative.
__kernel void accelerate_flow(__global real* restrict cells, __global const uchar* restrict obstacles) {
  const int ii = (int)get_global_id(0);
  if (ii >= NX) return;
  const int cell = ii + (NY - 2) * NX;
  if (obstacles[cell]) return;

  const real w1 = ACCEL_W1;
  const real w2 = ACCEL_W2;
  const real f3 = cells[3 * NCELLS + cell];
  const real f6 = cells[6 * NCELLS + cell];
  const real f7 = cells[7 * NCELLS + cell];
  if (f3 - w1 > (real)0 && f6 - w2 > (real)0 && f7 - w2 > (real)0) {
    cells[1 * NCELLS + cell] += w1;
    cells[5 * NCELLS + cell] += w2;
    cells[8 * NCELLS + cell] += w2;
    cells[3 * NCELLS + cell] = f3 - w1;
    cells[6 * NCELLS + cell] = f6 - w2;
    cells[7 * NCELLS + cell] = f7 - w2;
  }
}

// One timestep for one cell: pull the neighbours' distributions (periodic),
// bounce them back on obstacles or relax them towards equilibrium on fluid,
// write the result into `dst`, and add the cell's speed |u| to its
// work-group's partial sum (partial_sums[partial_offset + group]).
// With accelerate_next != 0 it also applies the next step's accelerate_flow
// to row NY-2 before writing (after measuring |u|), saving a launch per step;
// the arithmetic is the same as the separate kernel's, so results are identical.
__kernel void propagate_rebound_collide(__global const real* restrict src, __global real* restrict dst,
                                        __global const uchar* restrict obstacles,
                                        __global real* restrict partial_sums, const int partial_offset,
                                        const int accelerate_next) {
  __local real local_speed[WG_SIZE];
  const int ii = (int)get_global_id(0);
  const int jj = (int)get_global_id(1);
  const int lid = (int)get_local_id(0) + (int)get_local_id(1) * LOCAL_SIZE_X;
  real speed = (real)0;

  // The global range is padded up to whole work-groups; padding items only
  // take part in the reduction.
  if (ii < NX && jj < NY) {
    const int x_e = (ii + 1 == NX) ? 0 : ii + 1;
    const int x_w = (ii == 0) ? NX - 1 : ii - 1;
    const int y_n = (jj + 1 == NY) ? 0 : jj + 1;
    const int y_s = (jj == 0) ? NY - 1 : jj - 1;
    const int cell = ii + jj * NX;

    const real g0 = src[0 * NCELLS + cell];
    const real g1 = src[1 * NCELLS + x_w + jj * NX];
    const real g2 = src[2 * NCELLS + ii + y_s * NX];
    const real g3 = src[3 * NCELLS + x_e + jj * NX];
    const real g4 = src[4 * NCELLS + ii + y_n * NX];
    const real g5 = src[5 * NCELLS + x_w + y_s * NX];
    const real g6 = src[6 * NCELLS + x_e + y_s * NX];
    const real g7 = src[7 * NCELLS + x_e + y_n * NX];
    const real g8 = src[8 * NCELLS + x_w + y_n * NX];

    // Collide every cell, then keep the bounced-back values on obstacles:
    // branch-free, so CPU compilers vectorise across work-items and GPU warps
    // do not diverge; the wasted arithmetic is free in a memory-bound kernel.
    const int blocked = obstacles[cell];
    const real c_sq = (real)1 / (real)3;
    const real w0 = (real)4 / (real)9;
    const real w1 = (real)1 / (real)9;
    const real w2 = (real)1 / (real)36;
    const real omega = (real)OMEGA;

    const real rho = g0 + g1 + g2 + g3 + g4 + g5 + g6 + g7 + g8;
    const real ux = (g1 + g5 + g8 - (g3 + g6 + g7)) / rho;
    const real uy = (g2 + g5 + g6 - (g4 + g7 + g8)) / rho;
    const real u_sq = ux * ux + uy * uy;
    const real a = (real)1 - u_sq / ((real)2 * c_sq);
    const real b = (real)1 / c_sq;
    const real c = (real)1 / ((real)2 * c_sq * c_sq);

    // feq_k = w_k rho (1 + e.u/c^2 + (e.u)^2/(2c^4) - u^2/(2c^2))
    const real u5 = ux + uy, u6 = -ux + uy, u7 = -ux - uy, u8 = ux - uy;
    real f0 = g0 + omega * (w0 * rho * a - g0);
    real f1 = g1 + omega * (w1 * rho * (a + ux * b + ux * ux * c) - g1);
    real f2 = g2 + omega * (w1 * rho * (a + uy * b + uy * uy * c) - g2);
    real f3 = g3 + omega * (w1 * rho * (a - ux * b + ux * ux * c) - g3);
    real f4 = g4 + omega * (w1 * rho * (a - uy * b + uy * uy * c) - g4);
    real f5 = g5 + omega * (w2 * rho * (a + u5 * b + u5 * u5 * c) - g5);
    real f6 = g6 + omega * (w2 * rho * (a + u6 * b + u6 * u6 * c) - g6);
    real f7 = g7 + omega * (w2 * rho * (a + u7 * b + u7 * u7 * c) - g7);
    real f8 = g8 + omega * (w2 * rho * (a + u8 * b + u8 * u8 * c) - g8);

    // |u| of the new state, as the coursework's av_velocity computes it.
    const real rho_new = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8;
    const real vx = (f1 + f5 + f8 - (f3 + f6 + f7)) / rho_new;
    const real vy = (f2 + f5 + f6 - (f4 + f7 + f8)) / rho_new;
    speed = blocked ? (real)0 : sqrt(vx * vx + vy * vy);

    // Rebound: obstacle cells send each distribution back where it came from;
    // f0 of an obstacle cell never changes.
    if (blocked) {
      f0 = g0; f1 = g3; f2 = g4; f3 = g1; f4 = g2; f5 = g7; f6 = g8; f7 = g5; f8 = g6;
    }

    if (accelerate_next && jj == NY - 2 && !blocked) {
      const real aw1 = ACCEL_W1;
      const real aw2 = ACCEL_W2;
      if (f3 - aw1 > (real)0 && f6 - aw2 > (real)0 && f7 - aw2 > (real)0) {
        f1 += aw1;
        f5 += aw2;
        f8 += aw2;
        f3 -= aw1;
        f6 -= aw2;
        f7 -= aw2;
      }
    }

    dst[0 * NCELLS + cell] = f0;
    dst[1 * NCELLS + cell] = f1;
    dst[2 * NCELLS + cell] = f2;
    dst[3 * NCELLS + cell] = f3;
    dst[4 * NCELLS + cell] = f4;
    dst[5 * NCELLS + cell] = f5;
    dst[6 * NCELLS + cell] = f6;
    dst[7 * NCELLS + cell] = f7;
    dst[8 * NCELLS + cell] = f8;
  }

  // Tree reduction of the work-group's speeds in a fixed order.
  local_speed[lid] = speed;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = REDUCE_POW2; s > 0; s >>= 1) {
    if (lid < s && lid + s < WG_SIZE) local_speed[lid] += local_speed[lid + s];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    const int group = (int)get_group_id(0) + (int)get_group_id(1) * (int)get_num_groups(0);
    partial_sums[partial_offset + group] = local_speed[0];
  }
}
