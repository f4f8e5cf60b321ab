// Launch scheme: one step a launch, a row chunk a work-item.

#if STEP_KERNELS & 4
// One cell of propagate_rebound_collide_rows, with its neighbouring columns
// and rows given; returns its |u|.
ALWAYS_INLINE real row_cell(__global const stored* src, __global stored* dst, __global const uchar* obstacles, const int ii, const int jj, const int x_e,
                     const int x_w, const int y_n, const int y_s, const int t, const int accelerate, real* body_force) {
  real g[9], f[9], h[HEAT_SPEEDS];
  pull_from(src, ii, jj, x_e, x_w, y_n, y_s, g);
  pull_curved(src, obstacles, ii, jj, x_e, x_w, y_n, y_s, g, body_force);
  const idx_t cell = CELL(ii, jj);
  const int blocked = obstacles[cell];
#ifdef THERMAL
  pull_heat(src, blocked, ii, jj, x_e, x_w, y_n, y_s, h);
#endif
  const real speed = collide(g, h, blocked, ii, jj, t, accelerate, f);
  add_body_force(body_force, blocked, g, f, fluid_links_of(obstacles, blocked, ii, jj, x_e, x_w, y_n, y_s));
  store(dst, cell, f);
#ifdef THERMAL
  store_heat(dst, cell, h);
#endif
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
