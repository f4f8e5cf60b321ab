// Launch scheme, blocked (launch_blocked.cl): its probes, sampled inside its
// launches (PROBES_IN_LAUNCH): which of them a tile holds, and the copy of
// their values at the steps that take them.

#ifdef PROBES_IN_LAUNCH
// This tile's probes, read once: item i copies the i-th (a sampled step then
// waits on no global read), its column and region cell in one register (the
// kernel runs at its register cap: more spilled). Returns the item's probe
// (-1: none); item 0 writes the tile's first probe and count to
// tile_probes, and `here` is the count.
ALWAYS_INLINE int take_tile_probes(__global const int* sample_index, const int sample_count, const int num_groups,
                                   const int group, const int first_group_row, const int lid,
                                   LOCAL_ARG int* tile_probes, int* here) {
  int my_probe = -1;
  *here = 0;
  if (sample_count > 0) {
#ifdef BLOCKED_SLAB
    const int tile = group + first_group_row * (int)get_num_groups(0);  // the slab's tiles, not the band's
#else
    const int tile = group;
    (void)first_group_row;
#endif
    const int first = sample_index[tile];
    *here = sample_index[tile + 1] - first;
    if (lid == 0) tile_probes[0] = first, tile_probes[1] = *here;
    if (lid < *here)
      my_probe = sample_index[num_groups + 1 + first + lid] << 16 | sample_index[num_groups + 1 + sample_count + first + lid];
  }
  return my_probe;
}
#endif

#ifdef PROBES_IN_LAUNCH
// A full step's last phase: the samples of the tile's probes, on the steps
// that take them, from the region (or dst after the launch's last step).
ALWAYS_INLINE void sample_probes_in_launch(const int s, const int last, const int x0, const int y0, const int lid,
                                           __global stored* dst, LOCAL_ARG blocked_region* region PROBE_PARAMS) {
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
    __global stored* row = samples + (idx_t)(base + sample_row + sample) * LATTICE_PLANES * sample_count;
    for (int j = lid; j < tile_probes[1]; j += WG_SIZE) {
      // Item i's probe is in a register (the first WG_SIZE); the rest from sample_index.
      const int column = j < WG_SIZE ? my_probe >> 16 : sample_index[num_groups + 1 + tile_probes[0] + j];
      const int region_cell =
          j < WG_SIZE ? my_probe & 0xffff : sample_index[num_groups + 1 + sample_count + tile_probes[0] + j];
      const int ry = region_cell / REGION_X, rx = region_cell - ry * REGION_X;
      const idx_t cell = CELL(x0 + rx, y0 + ry);  // a tile's own cell: inside the grid
      for (int k = 0; k < LATTICE_PLANES; ++k)
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
