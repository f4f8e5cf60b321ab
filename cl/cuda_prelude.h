// Maps the OpenCL C built-ins and qualifiers used by the kernels in cl/ onto
// CUDA, so that NVRTC compiles the very same kernel files (the CUDA backend
// prepends this header to each of them). Generic by design: it maps the
// language, never particular kernels. A construct that cannot be shared gets
// its difference here, not in a copy of a kernel.
//
// Rounding: the OpenCL build turns FP contraction off; the CUDA backend passes
// NVRTC --fmad=false (and keeps IEEE division and square root) to match.
#ifndef D2Q9_CUDA_PRELUDE_H
#define D2Q9_CUDA_PRELUDE_H

// Address-space and kernel qualifiers. CUDA's own keyword is __global__, so
// OpenCL's __global (global memory) can simply vanish.
#define __kernel extern "C" __global__
#define __global
#define __local __shared__
#define __constant __constant__
// A function parameter pointing into local memory: CUDA takes a plain (generic)
// pointer, which inlining resolves to shared memory.
#define LOCAL_ARG
// A local array sized at launch: dynamic shared memory, which a kernel may
// take past 48 KB on request (the blocked kernel's region, LaunchPlan::region_bytes).
#define LAUNCH_SIZED_LOCAL(type, name) extern __shared__ type name[]
#define __private
#define restrict __restrict__
#define ALWAYS_INLINE __forceinline__
// At least `items` threads per SM for blocks of WG_SIZE threads (1 to 32 blocks).
#define OCCUPANCY_HINT(items) \
  __launch_bounds__(WG_SIZE, (items) / WG_SIZE < 1 ? 1 : (items) / WG_SIZE > 32 ? 32 : (items) / WG_SIZE)

// OpenCL C scalar type names (size_t is built into both).
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

// Work-item functions: OpenCL's NDRange maps onto CUDA's grid of blocks, with
// a work-group being a thread block.
__device__ __forceinline__ size_t cl_dim3_component(const uint3 v, const unsigned dim) {
  return dim == 0 ? v.x : dim == 1 ? v.y : dim == 2 ? v.z : 0;
}
__device__ __forceinline__ size_t cl_dim3_component(const dim3 v, const unsigned dim) {
  return dim == 0 ? v.x : dim == 1 ? v.y : dim == 2 ? v.z : 1;
}
__device__ __forceinline__ size_t get_local_id(const unsigned dim) { return cl_dim3_component(threadIdx, dim); }
__device__ __forceinline__ size_t get_group_id(const unsigned dim) { return cl_dim3_component(blockIdx, dim); }
__device__ __forceinline__ size_t get_local_size(const unsigned dim) { return cl_dim3_component(blockDim, dim); }
__device__ __forceinline__ size_t get_num_groups(const unsigned dim) { return cl_dim3_component(gridDim, dim); }
__device__ __forceinline__ size_t get_global_id(const unsigned dim) {
  return get_group_id(dim) * get_local_size(dim) + get_local_id(dim);
}
__device__ __forceinline__ size_t get_global_size(const unsigned dim) {
  return get_num_groups(dim) * get_local_size(dim);
}

// Synchronisation: a work-group barrier is a block barrier, which also orders
// the block's global and shared memory accesses.
#define CLK_LOCAL_MEM_FENCE 1
#define CLK_GLOBAL_MEM_FENCE 2
#define barrier(flags) __syncthreads()
// OpenCL's atomic increment (the old value), on local or global memory.
__device__ __forceinline__ int atomic_inc(int* p) { return atomicAdd(p, 1); }
// OpenCL C's quiet NaN constant.
#ifndef NAN
#define NAN __int_as_float(0x7fc00000)
#endif

// Reinterpretation and conversion built-ins.
__device__ __forceinline__ unsigned int as_uint(const float x) { return __float_as_uint(x); }
// OpenCL's native_sqrt: the hardware's approximation (|u| for av_vels only,
// which the arithmetic contract lets differ by rounding).
__device__ __forceinline__ float native_sqrt(const float x) {
  float r;
  asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ float as_float(const unsigned int x) { return __uint_as_float(x); }
__device__ __forceinline__ unsigned int convert_uint_rte(const float x) { return __float2uint_rn(x); }

// 16-bit half loads and stores (vload_half / vstore_half_rte): the data are
// unsigned shorts holding IEEE half bits, converted by the hardware.
typedef unsigned short half;
__device__ __forceinline__ float vload_half(const size_t i, const half* p) {
  float x;
  asm("cvt.f32.f16 %0, %1;" : "=f"(x) : "h"(p[i]));
  return x;
}
__device__ __forceinline__ void vstore_half_rte(const float x, const size_t i, half* p) {
  unsigned short h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(x));
  p[i] = h;
}

#endif  // D2Q9_CUDA_PRELUDE_H
