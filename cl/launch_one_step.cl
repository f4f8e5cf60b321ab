// Launch scheme: one step a launch, ROWS_PER_ITEM cells a work-item.

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
      real g[9], f[9], h[HEAT_SPEEDS];
      PERIODIC_NEIGHBOURS(ii, jj);
      pull_from(src, ii, jj, x_e, x_w, y_n, y_s, g);
      pull_curved(src, obstacles, ii, jj, x_e, x_w, y_n, y_s, g, body_force);
      const idx_t cell = CELL(ii, jj);
      const int blocked = obstacles[cell];
#ifdef THERMAL
      pull_heat(src, blocked, ii, jj, x_e, x_w, y_n, y_s, h);
#endif
      speed += collide(g, h, blocked, ii, jj, step, accelerate_next && jj == ACCEL_ROW, f);
      add_body_force(body_force, blocked, g, f, fluid_links_of(obstacles, blocked, ii, jj, x_e, x_w, y_n, y_s));
      store(dst, cell, f);
#ifdef THERMAL
      store_heat(dst, cell, h);
#endif
    }
  }
  REDUCE_TO_PARTIAL(local_speed, lid, speed, (partial_offset + group) * SUMS_PER_GROUP);
  REDUCE_BODY_FORCES(local_speed, lid, body_force, partial_offset + group);
}
#endif
