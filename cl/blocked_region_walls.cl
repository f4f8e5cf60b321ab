// Launch scheme, blocked: the bytes of a region cell's neighbours, for the
// cell physics that needs them (curved links' walls, a moving body's links
// with fluid). Part of launch_blocked.cl, after its REGION_* defines.

#if defined(CURVED_LINKS) && defined(LINK_WALLS)
// The mask bytes of the cells region cell c pulls each speed from
// (link_walls' in the region). Walls are obstacle cells: their bytes carry
// no CURVED_BIT.
ALWAYS_INLINE void region_walls(LOCAL_ARG const uchar* region_mask, const int c, int* wall) {
  wall[0] = 0;
  wall[1] = region_mask[c - 1];
  wall[2] = region_mask[c - REGION_X];
  wall[3] = region_mask[c + 1];
  wall[4] = region_mask[c + REGION_X];
  wall[5] = region_mask[c - 1 - REGION_X];
  wall[6] = region_mask[c + 1 - REGION_X];
  wall[7] = region_mask[c + 1 + REGION_X];
  wall[8] = region_mask[c - 1 + REGION_X];
}
#endif

// add_body_force's fluid_links of region cell c (fluid_links_of's in the
// region): only where moving walls need it, and only for a measured body's cells.
ALWAYS_INLINE int region_fluid_links(LOCAL_ARG const uchar* region_mask, const int c, const int blocked) {
#if defined(FORCE_BODIES) && defined(MOVING_WALL)
  if (!MEASURED_WALL(blocked)) return 0;
  const int n[9] = {0, region_mask[c + 1], region_mask[c + REGION_X], region_mask[c - 1], region_mask[c - REGION_X],
                    region_mask[c + 1 + REGION_X], region_mask[c - 1 + REGION_X], region_mask[c - 1 - REGION_X],
                    region_mask[c + 1 - REGION_X]};
  int links = 0;
  for (int k = 1; k < 9; ++k) links |= (CELL_CLASS(n[k]) == CELL_FLUID) << k;
  return links;
#else
  (void)region_mask;
  (void)c;
  (void)blocked;
  return 0;
#endif
}
