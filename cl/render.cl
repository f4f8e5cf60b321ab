// The live view's pictures (host/serve/, docs/live-view.md), made where the
// distributions are so that only a small picture crosses to the host: one
// field (0 speed, 1 vorticity, 2 density) sampled at one cell per SCALE x
// SCALE block (its centre, as host/io/field_image.cpp samples it), then
// colour-mapped into RGBA over the range the host found from each row's
// least and greatest value. Built with the lattice's own defines (NX, NY,
// the precision and storage), apart from the step kernels.
#include "lattice.cl"

// An obstacle: a cell byte whose class (bits 0-1) is not fluid; a fluid
// cell's number (an open boundary's edge) leaves it fluid.
#define RENDER_OBSTACLE(b) (((b) & 3) != 0)

// Velocity and density of fluid cell (ii, jj), as io/output.cpp's
// fluid_cell_state sums them (the Guo half force taken off where forced).
ALWAYS_INLINE float3 render_moments(__global const stored* f, const int ii, const int jj) {
  const idx_t cell = CELL(ii, jj);
  float v[9];
  for (int k = 0; k < 9; ++k) v[k] = (float)load_f(f, k, cell);
  const float rho = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7] + v[8];
  float mx = v[1] + v[5] + v[8] - v[3] - v[6] - v[7];
  float my = v[2] + v[5] + v[6] - v[4] - v[7] - v[8];
#ifdef BODY_FORCE
  mx -= 0.5f * (float)FORCE_X;
  my -= 0.5f * (float)FORCE_Y;
#endif
  return (float3)(rho, mx / rho, my / rho);
}

// A neighbour's velocity for the vorticity: obstacles count as at rest (the wall).
ALWAYS_INLINE float2 render_velocity(__global const stored* f, __global const uchar* obstacles, const int ii,
                                     const int jj) {
  if (RENDER_OBSTACLE(obstacles[CELL(ii, jj)])) return (float2)(0.0f, 0.0f);
  const float3 m = render_moments(f, ii, jj);
  return (float2)(m.y, m.z);
}

// values[py * width + px]: the field at pixel (px, py), top row first (NaN on
// obstacles); ranges[2 * py], [2 * py + 1]: row py's least and greatest value.
// One work-item a pixel row.
__kernel void render_field(__global const stored* f, __global const uchar* obstacles, const int field,
                           const int scale, const int width, const int height, __global float* values,
                           __global float* ranges) {
  const int py = get_global_id(0);
  if (py >= height) return;
  int jj = (height - 1 - py) * scale + scale / 2;
  if (jj > NY - 1) jj = NY - 1;
  float low = INFINITY, high = -INFINITY;
  for (int px = 0; px < width; ++px) {
    int ii = px * scale + scale / 2;
    if (ii > NX - 1) ii = NX - 1;
    float value = NAN;
    if (!RENDER_OBSTACLE(obstacles[CELL(ii, jj)])) {
      if (field == 1) {
        const int east = (ii + 1) % NX, west = (ii + NX - 1) % NX;
        const int north = (jj + 1) % NY, south = (jj + NY - 1) % NY;
        value = 0.5f * (render_velocity(f, obstacles, east, jj).y - render_velocity(f, obstacles, west, jj).y) -
                0.5f * (render_velocity(f, obstacles, ii, north).x - render_velocity(f, obstacles, ii, south).x);
      } else {
        const float3 m = render_moments(f, ii, jj);
        value = field == 0 ? sqrt(m.y * m.y + m.z * m.z) : m.x;
      }
      low = fmin(low, value);
      high = fmax(high, value);
    }
    values[py * width + px] = value;
  }
  ranges[2 * py] = low;
  ranges[2 * py + 1] = high;
}

// The colour maps of host/io/picture.cpp: viridis (16 stops) and RdBu reversed (11).
__constant uchar render_viridis[16][3] = {
    {68, 1, 84},    {72, 24, 106},  {71, 47, 125},  {65, 68, 135},   {57, 86, 140},   {49, 104, 142},
    {42, 120, 142}, {35, 136, 142}, {31, 152, 139}, {34, 168, 132},  {53, 183, 121},  {84, 197, 104},
    {122, 209, 81}, {165, 219, 54}, {210, 226, 27}, {253, 231, 37}};
__constant uchar render_rdbu[11][3] = {{5, 48, 97},     {33, 102, 172}, {67, 147, 195}, {146, 197, 222},
                                       {209, 229, 240}, {247, 247, 247}, {253, 219, 199}, {244, 165, 130},
                                       {214, 96, 77},   {178, 24, 43},   {103, 0, 31}};

// rgba[i]: pixel i of `values` over [low, high]; obstacles grey (128).
__kernel void render_colours(__global const float* values, const int field, const float low, const float high,
                             const int pixels, __global uchar4* rgba) {
  const int i = get_global_id(0);
  if (i >= pixels) return;
  const float v = values[i];
  if (isnan(v)) {
    rgba[i] = (uchar4)(128, 128, 128, 255);
    return;
  }
  const float span = high - low;
  float t = span > 0.0f ? (v - low) / span : (field == 1 ? 0.5f : 0.0f);
  t = clamp(t, 0.0f, 1.0f);
  const int stops = field == 1 ? 11 : 16;
  const float pos = t * (float)(stops - 1);
  const int k = min(stops - 2, (int)pos);
  const float w = pos - (float)k;
  float3 a, b;
  if (field == 1) {
    a = (float3)(render_rdbu[k][0], render_rdbu[k][1], render_rdbu[k][2]);
    b = (float3)(render_rdbu[k + 1][0], render_rdbu[k + 1][1], render_rdbu[k + 1][2]);
  } else {
    a = (float3)(render_viridis[k][0], render_viridis[k][1], render_viridis[k][2]);
    b = (float3)(render_viridis[k + 1][0], render_viridis[k + 1][1], render_viridis[k + 1][2]);
  }
  const float3 c = a * (1.0f - w) + b * w + 0.5f;
  rgba[i] = (uchar4)((uchar)c.x, (uchar)c.y, (uchar)c.z, 255);
}
