// The live view's pictures (host/serve/, docs/live-view.md), made where the
// distributions are so that only a small picture crosses to the host: one
// field (0 speed, 1 vorticity, 2 density, 3 temperature) sampled at one cell per SCALE x
// SCALE block (its centre, as host/io/field_image.cpp samples it), one
// work-item a pixel; the host colours it (colour_field_image). An MPI rank's
// slab samples the pixels of its own rows (device/rank_rows.cpp gathers them
// on rank 0). Built with the lattice's own defines (NX, the precision and
// storage), apart from the step kernels, for OpenCL and NVRTC alike (no
// vector types).
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

// The pixel's cell: column ii of the grid, and its grid row jj (as
// host/io/field_image.hpp's image_cell_x and image_cell_y place them).
ALWAYS_INLINE int render_column(const int px, const int scale) {
  const int ii = px * scale + scale / 2;
  return ii > NX - 1 ? NX - 1 : ii;
}

// values[r * width + px]: the field at pixel (px, first_py + r), top row
// first (NaN on obstacles), for the picture's pixel rows [first_py, first_py
// + pixel_rows), whose cells lie in this lattice's own rows: grid rows
// [first_row, first_row + rows) of grid_ny, the first at lattice row
// first_local (the whole grid: 0, grid_ny, 0; a slab: past its halo rows).
// The vorticity reads ux of the rows above and below: this lattice's own
// where it holds them (the whole grid wraps around), else edge_ux's (the
// row below the first's at the picture's columns, then the row above the
// last's: what the neighbours' render_edges made). One work-item a pixel,
// (px, r) its global id.
__kernel void render_field(__global const stored* f, __global const uchar* obstacles, const int field,
                           const int scale, const int width, const int height, const int first_py,
                           const int pixel_rows, const int grid_ny, const int first_row, const int rows,
                           const int first_local, __global const float* edge_ux, __global float* values) {
  const int px = (int)get_global_id(0), r = (int)get_global_id(1);
  if (px >= width || r >= pixel_rows) return;
  int jj = (height - 1 - (first_py + r)) * scale + scale / 2;
  if (jj > grid_ny - 1) jj = grid_ny - 1;
  const int ii = render_column(px, scale);
  const int own = jj - first_row, row = first_local + own;
  float value = NAN;
  if (!RENDER_OBSTACLE(obstacles[CELL(ii, row)])) {
    if (field == 1) {
      const bool whole = rows == grid_ny;
      const int north = whole ? (own + 1) % rows : own + 1, south = whole ? (own + rows - 1) % rows : own - 1;
      const float ux_north = north < rows ? render_velocity(f, obstacles, ii, first_local + north, 0) : edge_ux[width + px];
      const float ux_south = south >= 0 ? render_velocity(f, obstacles, ii, first_local + south, 0) : edge_ux[px];
      const int east = (ii + 1) % NX, west = (ii + NX - 1) % NX;
      value = 0.5f * (render_velocity(f, obstacles, east, row, 1) - render_velocity(f, obstacles, west, row, 1)) -
              0.5f * (ux_north - ux_south);
    } else {
      float rho, ux, uy;
      render_moments(f, ii, row, &rho, &ux, &uy);
      value = field == 0 ? sqrt(ux * ux + uy * uy) : rho;
#ifdef THERMAL
      if (field == 3) value = render_temperature(f, CELL(ii, row));
#endif
    }
  }
  values[r * width + px] = value;
}

// out[e * width + px]: ux at the picture's column of pixel px in this
// lattice's first own row (e = 0, lattice row first_local) or its last (e =
// 1), 0 on obstacles, as render_field reads a row beyond a slab: the edge_ux
// of the slabs below and above. One work-item a value, (px, e) its global id.
__kernel void render_edges(__global const stored* f, __global const uchar* obstacles, const int scale,
                           const int width, const int rows, const int first_local, __global float* out) {
  const int px = (int)get_global_id(0), e = (int)get_global_id(1);
  if (px >= width || e > 1) return;
  out[e * width + px] = render_velocity(f, obstacles, render_column(px, scale), first_local + (e == 0 ? 0 : rows - 1), 0);
}
