// The lattice in memory: arithmetic and storage types, 16-bit codes, cell indexing
// and the launch shape's constants (part of the program d2q9_bgk.cl joins).
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
// With heat, the temperature's planes likewise hold h_k - w_k * THERMAL_REST
// times THERMAL_STORAGE_SCALE (its own, from the temperatures the problem reaches).
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
// Values a cell holds in device memory: nine distributions, fourteen with heat.
#ifdef THERMAL
#define LATTICE_PLANES 14
#define HEAT_PLANE 9  // speed k of the temperature lattice (D2Q5) is plane HEAT_PLANE + k
// D2Q5's weights (c_s^2 = 1/3).
#define WT0 ((real)1 / (real)3)
#define WT1 ((real)1 / (real)6)
#else
#define LATTICE_PLANES 9
#endif
#define CELL(ii, jj) ((idx_t)(ii) + (idx_t)(jj) * NX)

// The value of plane k at rest, the same float operations as the host's
// (Storage16): the flow's w_k * DENSITY, the temperature's w_k * THERMAL_REST.
ALWAYS_INLINE real rest_value(const int k) {
#ifdef THERMAL_STORAGE_SCALE
  if (k >= HEAT_PLANE) return (k == HEAT_PLANE ? WT0 : WT1) * (real)THERMAL_REST;
#endif
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
// Plane k's scale and its inverse: the flow's, or the temperature's.
ALWAYS_INLINE real storage_scale(const int k) {
#ifdef THERMAL_STORAGE_SCALE
  if (k >= HEAT_PLANE) return (real)THERMAL_STORAGE_SCALE;
#endif
  (void)k;
  return (real)STORAGE_SCALE;
}
ALWAYS_INLINE real storage_inv_scale(const int k) {
#ifdef THERMAL_STORAGE_SCALE
  if (k >= HEAT_PLANE) return (real)THERMAL_STORAGE_INV_SCALE;
#endif
  (void)k;
  return (real)STORAGE_INV_SCALE;
}
// (value - rest) * scale and code * inv_scale + rest, each written as one fma:
// the scale is a power of two, so the products are exact and the fma rounds
// once where the two operations would: the same bits in fewer instructions
// (the 16-bit kernels are bound by instruction issue, not by memory).
ALWAYS_INLINE real to_code_scale(const int k, const real value) {
  const real code = fma(value, storage_scale(k), -(rest_value(k) * storage_scale(k)));
#if defined(THERMAL_STORAGE_SCALE) && defined(STORAGE_FP16S)
  // Links between walls of two temperatures pass values the fluid never
  // reads, growing without bound: they saturate, as fp16c's codes do, where
  // half would overflow to infinity.
  if (k >= HEAT_PLANE) return fmin(fmax(code, -65504.0f), 65504.0f);
#endif
  return code;
}
#endif

// Plane k of a cell, read from and written to device memory.
ALWAYS_INLINE real load_f(__global const stored* p, const int k, const idx_t cell) {
#ifdef STORAGE_16
  return fma(load16(p, k * NCELLS + cell), storage_inv_scale(k), rest_value(k));
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
  return fma(round16(to_code_scale(k, value)), storage_inv_scale(k), rest_value(k));
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
#ifndef GRID_NY
#define GRID_NY NY  // the whole grid's rows (a slab's lattice holds some of them)
#endif
#define WG_SIZE (LOCAL_SIZE_X * LOCAL_SIZE_Y)

// Work-items per compute unit that propagate_rebound_collide should keep
// resident. Large grids are bound by how many loads are in flight, so CUDA
// (cl/cuda_prelude.h) turns this into __launch_bounds__, capping registers at
// 40 in float so that more loads are in flight. OpenCL C has no per-kernel
// hint, and NVIDIA's OpenCL compiler does not speed up under
// -cl-nv-maxrregcount. Double precision needs its registers, so it gets no cap.
#ifndef OCCUPANCY_HINT
#define OCCUPANCY_HINT(items)
#endif
#ifdef REAL_IS_DOUBLE
#define ONE_STEP_KERNEL __kernel
#define BLOCKED_KERNEL __kernel
#else
#define ONE_STEP_KERNEL __kernel OCCUPANCY_HINT(1536)
// The blocked kernel's local memory leaves room for four work-groups of 256
// per compute unit (48 KB each); registers past 64 leave fewer, and a curved
// wall's or a sponge's code would take more. Capped to keep the four resident;
// NVIDIA's OpenCL build gets the same cap (-cl-nv-maxrregcount, cl_common.cpp).
#define BLOCKED_KERNEL __kernel OCCUPANCY_HINT(1024)
#endif

// Acceleration weights of row ACCEL_ROW (coursework: density * accel / 9 and / 36).
#define ACCEL_W1 ((real)DENSITY * (real)ACCEL / (real)9)
#define ACCEL_W2 ((real)DENSITY * (real)ACCEL / (real)36)

