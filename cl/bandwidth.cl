// Copy kernel for measuring the device's memory bandwidth (not physics).
__kernel void copy_float4(__global const float4* restrict src, __global float4* restrict dst) {
  const size_t i = get_global_id(0);
  dst[i] = src[i];
}
