// The live view's pictures (host/serve/, docs/live-view.md), made where the
// distributions are so that only a small picture crosses to the host: one
// field (0 speed, 1 vorticity, 2 density, 3 temperature) sampled at one cell per SCALE x
// SCALE block (its centre, as host/io/field_image.cpp samples it), one
// work-item a pixel; the host colours it (colour_field_image). Built with the
// lattice's own defines (NX, NY, the precision and storage), apart from the
// step kernels, for OpenCL and NVRTC alike (no vector types).
#include "lattice.cl"

// An obstacle: a cell byte whose class (bits 0-1) is not fluid; a fluid
// cell's number (an open boundary's edge) leaves it fluid.
#define RENDER_OBSTACLE(b) (((b) & 3) != 0)

#ifdef THERMAL
// A cell's temperature: the sum of its five temperature distributions (planes 9-13).
ALWAYS_INLINE float render_temperature(__global const stored* f, const idx_t cell) {
  float t = 0.0f;
  for (int k = 9; k < 14; ++k) t += (float)load_f(f, k, cell);
  return t;
}
#endif

// Velocity and density of fluid cell (ii, jj), as io/output.cpp's
// fluid_cell_state sums them (the Guo half force taken off where forced).
ALWAYS_INLINE void render_moments(__global const stored* f, const int ii, const int jj, float* rho, float* ux,
                                  float* uy) {
  const idx_t cell = CELL(ii, jj);
  float v[9];
  for (int k = 0; k < 9; ++k) v[k] = (float)load_f(f, k, cell);
  *rho = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7] + v[8];
  float mx = v[1] + v[5] + v[8] - v[3] - v[6] - v[7];
  float my = v[2] + v[5] + v[6] - v[4] - v[7] - v[8];
#ifdef BODY_FORCE
  float fx = (float)FORCE_X, fy = (float)FORCE_Y;
#ifdef BUOYANCY
  const float excess = render_temperature(f, cell) - (float)T_REF;
  fx += (float)BUOYANCY_X * excess;
  fy += (float)BUOYANCY_Y * excess;
#endif
  mx -= 0.5f * fx;
  my -= 0.5f * fy;
#endif
  *ux = mx / *rho;
  *uy = my / *rho;
}

// A neighbour's velocity component (0: x, 1: y) for the vorticity:
// obstacles count as at rest (the wall).
ALWAYS_INLINE float render_velocity(__global const stored* f, __global const uchar* obstacles, const int ii,
                                    const int jj, const int component) {
  if (RENDER_OBSTACLE(obstacles[CELL(ii, jj)])) return 0.0f;
  float rho, ux, uy;
  render_moments(f, ii, jj, &rho, &ux, &uy);
  return component == 0 ? ux : uy;
}

// values[py * width + px]: the field at pixel (px, py), top row first (NaN on
// obstacles). One work-item a pixel, (px, py) its global id.
__kernel void render_field(__global const stored* f, __global const uchar* obstacles, const int field,
                           const int scale, const int width, const int height, __global float* values) {
  const int px = (int)get_global_id(0), py = (int)get_global_id(1);
  if (px >= width || py >= height) return;
  int jj = (height - 1 - py) * scale + scale / 2;
  if (jj > NY - 1) jj = NY - 1;
  int ii = px * scale + scale / 2;
  if (ii > NX - 1) ii = NX - 1;
  float value = NAN;
  if (!RENDER_OBSTACLE(obstacles[CELL(ii, jj)])) {
    if (field == 1) {
      const int east = (ii + 1) % NX, west = (ii + NX - 1) % NX;
      const int north = (jj + 1) % NY, south = (jj + NY - 1) % NY;
      value = 0.5f * (render_velocity(f, obstacles, east, jj, 1) - render_velocity(f, obstacles, west, jj, 1)) -
              0.5f * (render_velocity(f, obstacles, ii, north, 0) - render_velocity(f, obstacles, ii, south, 0));
    } else {
      float rho, ux, uy;
      render_moments(f, ii, jj, &rho, &ux, &uy);
      value = field == 0 ? sqrt(ux * ux + uy * uy) : rho;
#ifdef THERMAL
      if (field == 3) value = render_temperature(f, CELL(ii, jj));
#endif
    }
  }
  values[py * width + px] = value;
}
