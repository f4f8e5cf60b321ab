// Launch scheme: BLOCK_STEPS steps a launch on a tile held in local memory.

#ifdef BLOCK_STEPS
// Temporal blocking: up to BLOCK_STEPS steps per launch for grids where a
// launch and its drain cost more than a step's memory traffic. A work-group
// owns a TILE_X x TILE_Y tile; it loads the tile with a halo of BLOCK_STEPS
// cells on each side (periodic images past the grid's edges) into local
// memory, advances the region there, the valid part shrinking by a cell per
// step, and writes back only its tile. Memory is read and written once per
// launch instead of once per step. The arithmetic per cell is collide()'s and
// intermediate states are kept as they would be stored (tile_code), so
// distributions are bit-identical to one-step launches; |u| is summed per
// step over the tile's cells, in another order than the one-step kernels.
#define REGION_X (TILE_X + 2 * BLOCK_STEPS)
#define REGION_Y (TILE_Y + 2 * BLOCK_STEPS)
#define REGION_CELLS (REGION_X * REGION_Y)
// Which cells a step walks (see the step loop): 16-bit storage and heat walk
// each step's window only; float and double without heat walk the whole
// region, which keeps the coursework's av_vels bytes (the walk decides which
// item sums which |u|). The window walk is the faster (docs/heat.md), and
// heat's outputs have no earlier bytes to keep.
#if defined(STORAGE_16) || defined(THERMAL)
#define BLOCKED_COMPACT 1
#else
#define BLOCKED_COMPACT 0
#endif
#define CURVED_BIT 0x80
#ifdef CURVED_LINKS
#define REGION_BYTE(c) (region_mask[c] & (CURVED_BIT - 1))
#else
#define REGION_BYTE(c) region_mask[c]
#endif

// The region holds the distributions as device memory does: with 16-bit
// storage the 16-bit codes themselves. The serial reference rounds every
// distribution to its code after every step (docs/arithmetic.md), so keeping
// the code between steps changes no bit, halves the local memory of a tile
// (more work-groups per compute unit, or larger tiles) and converts once per
// value and step: encoded when written, decoded when read, and loaded and
// stored between device and local memory as they are.
typedef stored tile_t;
// What the region holds for speed k of a new state, and the value a step reads back.
ALWAYS_INLINE tile_t tile_code(const int k, const real value) {
#if defined(STORAGE_FP16S)
  ushort code;
  vstore_half_rte(to_code_scale(k, value), 0, (half*)&code);
  return code;
#elif defined(STORAGE_FP16C)
  return encode16(to_code_scale(k, value));
#else
  (void)k;
  return value;
#endif
}
ALWAYS_INLINE real tile_value(const int k, const tile_t code) {
#if defined(STORAGE_FP16S)
  return fma(vload_half(0, (const half*)&code), storage_inv_scale(k), rest_value(k));
#elif defined(STORAGE_FP16C)
  return fma(decode16(code), storage_inv_scale(k), rest_value(k));
#else
  (void)k;
  return code;
#endif
}

// Where the region keeps its distributions: one copy, updated in place in
// the order of Bailey et al.'s AA pattern (ICPP 2009). After the region is
// loaded, and after every even step, a cell's speed k sits at the cell
// itself, in slot opposite(k); an odd step pulls speed k of cell x from slot
// opposite(k) of x - e_k and pushes its new value to slot k of x + e_k; an
// even step reads slot k of x and writes slot opposite(k) of x. Every cell
// writes exactly the slots it read, so one barrier a step suffices, as with
// two copies alternating, and a tile gets twice the cells in the same local
// memory (less of its work is halo). With curved links a cell also reads its
// own state of the step before (its opposite speeds), a slot a neighbour
// overwrites in an odd step: there the region keeps two copies, steps
// alternating between them. Once the steps are done, the same memory holds
// each item's |u| sum of every step for the reduction.
//
// With CURVED_SLOTS (the host's bound on the curved cells
// any region holds, launch_plan.cpp), those cells keep their own state of
// the step before (then their corrected pull) and their region cell in
// slots of a side buffer instead: the region stays one copy, so tiles stay
// large (a second copy of every cell for the few on a wall halved a float
// tile's cells).
#if defined(CURVED_LINKS) && defined(CURVED_SLOTS)
#define CURVED_SIDE 1
#endif
#if defined(CURVED_LINKS) && !defined(CURVED_SIDE)
#define REGION_COPIES 2
#else
#define REGION_COPIES 1
#endif
// Values a region cell holds: the lattice's (lattice.cl), the temperature's
// five after the nine distributions with heat (D2Q5's speeds are D2Q9's first five).
#define REGION_PLANES LATTICE_PLANES
// A heated outlet's cell reads its own temperature of the step before
// (heat.cl's zero gradient), which the in-place copy has given to a
// neighbour: one more plane keeps it, for outlet cells alone (a second
// copy of the region would halve the tile, as for curved cells).
#if defined(THERMAL) && (defined(LEFT_OUTLET) || defined(RIGHT_OUTLET) || defined(BOTTOM_OUTLET) || defined(TOP_OUTLET))
#define HEATED_OUTLET 1
#define OUTLET_OWN (REGION_COPIES * REGION_PLANES * REGION_CELLS)
#define REGION_VALUES (REGION_COPIES * REGION_PLANES + 1)
#else
#define REGION_VALUES (REGION_COPIES * REGION_PLANES)
#endif
#define REGION_SUMS (BLOCK_STEPS * SUMS_PER_GROUP * WG_SIZE)
typedef union {
  tile_t f[REGION_VALUES * REGION_CELLS];
  real sums[REGION_SUMS];
} blocked_region;

// e_k as a step between region cells, and the opposite speed.
ALWAYS_INLINE int region_step(const int k) {
  const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
  const int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
  return ex[k] + ey[k] * REGION_X;
}
ALWAYS_INLINE int opposite_speed(const int k) {
  const int opposite[9] = {0, 3, 4, 1, 2, 7, 8, 5, 6};
  return opposite[k];
}
// The same for plane k of the region: a temperature plane (9 + j) moves as
// speed j and reverses within the temperature's planes.
ALWAYS_INLINE int plane_step(const int k) { return region_step(k < 9 ? k : k - 9); }
ALWAYS_INLINE int opposite_plane(const int k) { return k < 9 ? opposite_speed(k) : 9 + opposite_speed(k - 9); }
// The slot step s (from 1) reads speed k of cell c's incoming distributions
// from, the slot it writes speed k of c's new state to, and (two copies
// alone) the slot of c's own speed k of the step before.
#if REGION_COPIES == 2
ALWAYS_INLINE int slot_in(const int k, const int c, const int s) {
  return (2 * k + ((s - 1) & 1)) * REGION_CELLS + c - plane_step(k);
}
ALWAYS_INLINE int slot_out(const int k, const int c, const int s) { return (2 * k + (s & 1)) * REGION_CELLS + c; }
ALWAYS_INLINE int slot_own(const int k, const int c, const int s) { return (2 * k + ((s - 1) & 1)) * REGION_CELLS + c; }
#else
ALWAYS_INLINE int slot_in(const int k, const int c, const int s) {
  return (s & 1) ? opposite_plane(k) * REGION_CELLS + c - plane_step(k) : k * REGION_CELLS + c;
}
ALWAYS_INLINE int slot_out(const int k, const int c, const int s) {
  return (s & 1) ? k * REGION_CELLS + c + plane_step(k) : opposite_plane(k) * REGION_CELLS + c;
}
#endif
// Where the loaded state (as after step 0) keeps speed k of cell c.
ALWAYS_INLINE int slot_loaded(const int k, const int c) { return slot_out(k, c, 0); }

// v modulo n in [0, n), for negative v too (region cells before the grid's start).
ALWAYS_INLINE int wrap(const int v, const int n) { return (v % n + n) % n; }

// Where region row y (y0 + ry, in the lattice's numbering) comes from, and
// which row of the grid it is (collide()'s coordinate, the accelerated row).
// The whole grid: periodic images. A slab of an MPI run (BLOCKED_SLAB): the
// lattice holds BLOCK_STEPS halo rows each side, which the neighbours fill
// before each launch, so no row wraps; rows past the lattice (above a top
// slab's partial tile row) are clamped, since they only feed cells that are
// not exact by the launch's end. Columns wrap either way.
#ifdef BLOCKED_SLAB
#define REGION_LATTICE_ROW(y) min(max((y), 0), NY - 1)
#define REGION_GRID_ROW(y) wrap((y) + SLAB_ROW0, GRID_NY)
#define REGION_ACCEL_ROW (GRID_NY - 2)
#else
#define REGION_LATTICE_ROW(y) wrap((y), NY)
#define REGION_GRID_ROW(y) wrap((y), NY)
#define REGION_ACCEL_ROW ACCEL_ROW
#endif

// A function's pointer into local memory: OpenCL names the address space,
// CUDA (cl/cuda_prelude.h) takes a plain pointer.
#ifndef LOCAL_ARG
#define LOCAL_ARG __local
#endif
// A kernel's one local array whose size the host gives at launch: CUDA's
// dynamic shared memory (cl/cuda_prelude.h), which may pass the 48 KB that
// static arrays get; in OpenCL a static array of one.
#ifndef LAUNCH_SIZED_LOCAL
#define LAUNCH_SIZED_LOCAL(type, name) __local type name[1]
#endif

// Tiles of two classes: a region holding a cell of the problem's special
// kinds (an open edge's column, a sponge's, a fluid cell with curved links, a
// measured body's cell), or a tile holding a probe, takes the steps with all
// of their code; every other
// region (most of a real problem's) takes them without it, which changes no
// bit there: open_edges and absorb leave those cells as they are, and they
// have no links to interpolate and no force to add. The test is uniform per
// work-group, so the plain steps run at the staircase box's pace instead of
// paying every feature's registers and spills on every cell. The host's
// tile_order starts the special tiles first (blocked_tile_order,
// launch_plan.cpp).
// Not on CPU devices with a moving wall: PoCL 3.1's LLVM 15 crashes (SLP
// vectorizer, a segfault while building) on the two classes' steps there in
// 16-bit and double precision.
#if (defined(OPEN_EDGES) || defined(CURVED_LINKS) || defined(FORCE_BODIES) || defined(PROBES_IN_LAUNCH)) && \
    !(defined(UNIFORM_BARRIERS) && defined(MOVING_WALL))
#define TILE_CLASSES 1
#endif

// Whether region cell (column ii, grid row jj, its kind, whether it has
// curved links) makes its tile's region special (TILE_CLASSES): a kind with
// code of its own (an open boundary, a measured body's wall), a curved link,
// or a place in a sponge.
ALWAYS_INLINE int special_cell(const int ii, const int jj, const int kind, const int links) {
  int special = 0;
#ifdef OPEN_EDGES
  special |= CELL_CLASS(kind) == CELL_FLUID && kind != 0;
#endif
#if defined(SPONGE) && SPONGE_LEFT > 0
  special |= ii < SPONGE_LEFT;
#endif
#if defined(SPONGE) && SPONGE_RIGHT > 0
  special |= ii >= NX - SPONGE_RIGHT;
#endif
#if defined(SPONGE) && SPONGE_BOTTOM > 0
  special |= jj < SPONGE_BOTTOM;
#endif
#if defined(SPONGE) && SPONGE_TOP > 0
  special |= jj >= GRID_NY - SPONGE_TOP;
#endif
#ifdef FORCE_BODIES
  special |= CELL_CLASS(kind) != CELL_FLUID && CELL_NUMBER(kind) != 0;
#endif
  special |= links && CELL_CLASS(kind) == CELL_FLUID;
  (void)ii;
  (void)jj;
  return special;
}

#include "blocked_region_walls.cl"

#ifdef CURVED_SIDE
#define CURVED_SIDE_PARAMS                                                                                        \
  , LOCAL_ARG real *curved_own, LOCAL_ARG const short *curved_slot, LOCAL_ARG const short *curved_cell,          \
      LOCAL_ARG real *curved_force, const int curved_count
#define CURVED_SIDE_ARGS , curved_own, curved_slot, curved_cell, curved_force, min(curved_cells, CURVED_SLOTS)
// blocked_step's own CURVED_SIDE_PARAMS, passed on to its phases.
#define CURVED_SIDE_ARGS_IN_STEP , curved_own, curved_slot, curved_cell, curved_force, curved_count
#else
#define CURVED_SIDE_PARAMS
#define CURVED_SIDE_ARGS
#endif
#ifdef PROBES_IN_LAUNCH
#define PROBE_PARAMS                                                                                             \
  , __global stored *samples, __global const int *sample_index, const int sample_count,                           \
      const int sample_first, const int sample_every, const int sample_row, const int num_groups, const int my_probe, \
      LOCAL_ARG const int *tile_probes
#define PROBE_ARGS \
  , samples, sample_index, sample_count, sample_first, sample_every, sample_row, num_groups, my_probe, tile_probes
#else
#define PROBE_PARAMS
#define PROBE_ARGS
#endif

#ifdef CURVED_SIDE
// A full step's first phase: the curved cells' corrected pulls (and their
// links' forces), one cell per item, into their slots.
ALWAYS_INLINE void correct_curved_pulls(const int s, const int margin, const int x0, const int y0, const int lid,
                                        __global const uchar* obstacles, LOCAL_ARG blocked_region* region,
                                        LOCAL_ARG const uchar* region_mask CURVED_SIDE_PARAMS) {
  (void)region_mask;
  // First, apart: spread through the walk, they would send most warps of a
  // wall's tile down the long path, and every launch would wait on that
  // tile. The walk then reads the corrected pull from the cell's slot. The
  // link bytes come from device memory (a few cells' only): local memory
  // sets the tile.
  for (int side = lid; side < curved_count; side += WG_SIZE) {
    const int c = curved_cell[side];
    const int ry = c / REGION_X, rx = c - ry * REGION_X;
    if (rx < margin || rx >= REGION_X - margin || ry < margin || ry >= REGION_Y - margin) continue;  // not this step's
    real g[9], own[9];
    int code[9];
    code[0] = 0;
    for (int k = 0; k < 9; ++k) g[k] = tile_value(k, region->f[slot_in(k, c, s)]);
    own[0] = g[0];
    const int x = x0 + rx, y = y0 + ry;
    for (int k = 1; k < 9; ++k) {
      code[k] = obstacles[k * NCELLS + CELL(wrap(x, NX), REGION_LATTICE_ROW(y))];
      own[k] = curved_own[9 * side + k];
    }
    int wall[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
#ifdef LINK_WALLS
    region_walls(region_mask, c, wall);
#endif
    real push[9];
    link_pushes(code, wall, own, wrap(x, NX), REGION_GRID_ROW(y), push);
    interpolate_links(code, own, push, g);
#ifdef FORCE_BODIES
    // The cell's links' force, which the walk adds where it adds the
    // cell's: slots are taken in no fixed order, so an item here would sum
    // different cells from run to run (and forces.csv would differ).
    real force[BODY_FORCE_SLOTS];
    for (int q = 0; q < BODY_FORCE_SLOTS; ++q) force[q] = (real)0;
    add_link_forces(force, code, wall, own, g, wrap(x, NX), REGION_GRID_ROW(y));
    for (int q = 0; q < BODY_FORCE_SLOTS; ++q) curved_force[BODY_FORCE_SLOTS * side + q] = force[q];
#endif
    for (int k = 1; k < 9; ++k) curved_own[9 * side + k] = g[k];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#include "blocked_probes.cl"

#ifdef THERMAL
// Region cell c's incoming temperature distributions in step s (heat.cl's
// pull_heat on the region): a heated outlet's unknown is the cell's own of
// the step before (OUTLET_OWN).
ALWAYS_INLINE void region_heat(LOCAL_ARG const blocked_region* region, const int c, const int s, const int kind,
                               real* h) {
  for (int k = 0; k < HEAT_SPEEDS; ++k) h[k] = tile_value(HEAT_PLANE + k, region->f[slot_in(HEAT_PLANE + k, c, s)]);
#ifdef HEATED_OUTLET
  const int unknown = heat_outlet_unknown(kind);
  if (unknown) set_heat_speed(h, unknown, tile_value(HEAT_PLANE + unknown, region->f[OUTLET_OWN + c]));
#else
  (void)kind;
#endif
}
#endif

// Step s (1 to BLOCK_STEPS) of a blocked launch of `steps`, on the region
// (the kernel below loads it). full: the tile's class (TILE_CLASSES), a
// constant where this is inlined. sums: the item's sums of each step. No
// `restrict` on its pointers: see pull_from.
ALWAYS_INLINE void blocked_step(const int full, const int s, const int steps, const int step,
                                const int accelerate_next, const int x0, const int y0, const int lid,
                                __global stored* dst, __global const uchar* obstacles,
                                LOCAL_ARG blocked_region* region, LOCAL_ARG const uchar* region_mask,
                                LOCAL_ARG const uchar* accelerated_row, real* sums CURVED_SIDE_PARAMS PROBE_PARAMS) {
  (void)obstacles;
  for (int q = 0; q < SUMS_PER_GROUP; ++q) sums[(s - 1) * SUMS_PER_GROUP + q] = (real)0;
  if (s > steps) return;
  const int last = s == steps;
  // After step s a cell is exact if it is s cells inside the region (the
  // last step: the tile). BLOCKED_COMPACT walks exactly that window, so that
  // no warp idles on stale halo cells; else the walk covers the whole region
  // and skips the rest.
  const int margin = last ? BLOCK_STEPS : s;
#ifdef CURVED_SIDE
  if (full) correct_curved_pulls(s, margin, x0, y0, lid, obstacles, region, region_mask CURVED_SIDE_ARGS_IN_STEP);
#endif
  const int off = BLOCKED_COMPACT ? margin : 0;
  const int w = REGION_X - 2 * off, h = REGION_Y - 2 * off;
  // The item's walk position, and how far it moves per WG_SIZE cells.
  int wy = lid / w, wx = lid - wy * w;
  const int dy = WG_SIZE / w, dx = WG_SIZE - dy * w;
  for (; wy < h; wy += dy) {
    const int rx = wx + off, ry = wy + off, c = rx + ry * REGION_X;
    if (BLOCKED_COMPACT ||
        (rx >= margin && rx < REGION_X - margin && ry >= margin && ry < REGION_Y - margin)) {
      real g[9], f[9];
      for (int k = 0; k < 9; ++k) g[k] = tile_value(k, region->f[slot_in(k, c, s)]);
      const int x = x0 + rx, y = y0 + ry;
#ifdef CURVED_LINKS
#ifdef CURVED_SIDE
      const int side = (region_mask[c] & CURVED_BIT) ? curved_slot[c] : CURVED_SLOTS;
      const int curved = full && side < CURVED_SLOTS;  // (never past the slots: see the kernel's overflow test)
      if (curved)
        for (int k = 1; k < 9; ++k) g[k] = curved_own[9 * side + k];  // the corrected pull, from above
#else
      int code[9];
      real own[9];
      const int curved = full && (region_mask[c] & CURVED_BIT);
      if (curved) {
        code[0] = 0;
        own[0] = g[0];
        for (int k = 1; k < 9; ++k) {
          code[k] = obstacles[k * NCELLS + CELL(wrap(x, NX), REGION_LATTICE_ROW(y))];
          own[k] = tile_value(k, region->f[slot_own(k, c, s)]);
        }
        int wall[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
#ifdef LINK_WALLS
        region_walls(region_mask, c, wall);
#endif
        real push[9];
        link_pushes(code, wall, own, wrap(x, NX), REGION_GRID_ROW(y), push);
        interpolate_links(code, own, push, g);
      }
#endif
#endif
      const int accelerate = accelerated_row[ry] && (!last || accelerate_next);
      const int blocked = REGION_BYTE(c);
      real h[HEAT_SPEEDS];
#ifdef THERMAL
      region_heat(region, c, s, blocked, h);
#endif
      const real cell_speed = collide_cell(g, h, blocked, wrap(x, NX), REGION_GRID_ROW(y), step + s - 1, accelerate, full, f);
      // The tile's own cells inside the grid (a slab: its own rows) count towards |u|.
      const int in_tile = rx >= BLOCK_STEPS && rx < BLOCK_STEPS + TILE_X && ry >= BLOCK_STEPS &&
                          ry < BLOCK_STEPS + TILE_Y && x < NX && y <= LAST_ROW;
      if (in_tile) {
        sums[(s - 1) * SUMS_PER_GROUP] += cell_speed;
#ifdef FORCE_BODIES
        if (full) add_body_force(sums + (s - 1) * SUMS_PER_GROUP + 1, blocked, g, f, region_fluid_links(region_mask, c, blocked));
#if defined(CURVED_SIDE)
        if (curved)
          for (int q = 0; q < BODY_FORCE_SLOTS; ++q)
            sums[(s - 1) * SUMS_PER_GROUP + 1 + q] += curved_force[BODY_FORCE_SLOTS * side + q];
#elif defined(CURVED_LINKS)
        if (curved) {
          int wall[9];
          region_walls(region_mask, c, wall);
          add_link_forces(sums + (s - 1) * SUMS_PER_GROUP + 1, code, wall, own, g, wrap(x, NX), REGION_GRID_ROW(y));
        }
#endif
#endif
      }
      if (last) {
        if (in_tile) store(dst, CELL(x, y), f);
#ifdef THERMAL
        if (in_tile) store_heat(dst, CELL(x, y), h);
#endif
      } else {
        for (int k = 0; k < 9; ++k) region->f[slot_out(k, c, s)] = tile_code(k, f[k]);
#ifdef THERMAL
        for (int k = 0; k < HEAT_SPEEDS; ++k) region->f[slot_out(HEAT_PLANE + k, c, s)] = tile_code(HEAT_PLANE + k, h[k]);
#endif
#ifdef HEATED_OUTLET
        // Its own for its next step (only this cell reads it; the steps' barrier orders them).
        const int unknown = heat_outlet_unknown(blocked);
        if (unknown) region->f[OUTLET_OWN + c] = tile_code(HEAT_PLANE + unknown, h[unknown]);
#endif
#ifdef CURVED_SIDE
        // The cell's own state for its next step (only this item reads it).
        if (curved)
          for (int k = 1; k < 9; ++k) curved_own[9 * side + k] = tile_value(k, tile_code(k, f[k]));
#endif
      }
    }
    wx += dx;
    if (wx >= w) {
      wx -= w;
      ++wy;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // the step is written before the next reads it
#ifdef PROBES_IN_LAUNCH
  // Only the tiles holding probes sample, and they take the full steps: the
  // plain steps carry no sampling code (nor its registers and barriers).
  if (full) sample_probes_in_launch(s, last, x0, y0, lid, dst, region PROBE_ARGS);
#endif
}

// The blocked kernel's phases, in the order it runs them: place the tile,
// take its probes, load its region, the steps (blocked_step), reduce the
// steps' sums.

// Where a work-group's tile lies: its index among the launch's groups (for
// the sums), the groups whose sums each step spans, and the lattice position
// of its region cell (0, 0); the tile starts BLOCK_STEPS further on (a slab's
// tiles from its first own row, FIRST_ROW).
typedef struct {
  int num_groups, group, x0, y0;
} tile_place;

ALWAYS_INLINE tile_place place_tile(const int first_group_row, __global const int* tile_order) {
  tile_place p;
#ifdef BLOCKED_SLAB
  // A slab launches its tile rows in bands (edge rows first): each step's
  // sums span all of its tiles, from the band's first_group_row on.
  p.num_groups = SLAB_GROUPS;
  const int tile_row = first_group_row + (int)get_group_id(1);
#else
  p.num_groups = (int)get_num_groups(0) * (int)get_num_groups(1);
  const int tile_row = (int)get_group_id(1);
  (void)first_group_row;
#endif
  // The tile this work-group takes: tile_order's (the host's
  // blocked_tile_order: the slower tiles first), or its own.
  p.group = (int)get_group_id(0) + (int)get_group_id(1) * (int)get_num_groups(0);
  int tile_x = (int)get_group_id(0), tile_y = tile_row;
#ifndef BLOCKED_SLAB
  if (tile_order) {
    p.group = tile_order[p.group];
    tile_y = p.group / (int)get_num_groups(0);
    tile_x = p.group - tile_y * (int)get_num_groups(0);
  }
#else
  (void)tile_order;
#endif
  p.x0 = tile_x * TILE_X - BLOCK_STEPS;
  p.y0 = FIRST_ROW + tile_y * TILE_Y - BLOCK_STEPS;
  return p;
}


#ifdef CURVED_SIDE
#define CURVED_LOAD_PARAMS                                                                    \
  , LOCAL_ARG int *curved_cells, LOCAL_ARG real *curved_own, LOCAL_ARG short *curved_slot, \
      LOCAL_ARG short *curved_cell
#define CURVED_LOAD_ARGS , &curved_cells, curved_own, curved_slot, curved_cell
#else
#define CURVED_LOAD_PARAMS
#define CURVED_LOAD_ARGS
#endif

// The region's distributions and mask bytes from the lattice, its curved
// cells given slots (CURVED_SIDE), and which of its rows is the accelerated
// one. Returns whether this item found a cell of a special kind (TILE_CLASSES).
ALWAYS_INLINE int load_region(__global const stored* src, __global const uchar* obstacles, const int x0, const int y0,
                              const int lid, LOCAL_ARG blocked_region* region, LOCAL_ARG uchar* region_mask,
                              LOCAL_ARG uchar* accelerated_row CURVED_LOAD_PARAMS) {
  int special = 0;
  for (int c = lid; c < REGION_CELLS; c += WG_SIZE) {
    const int ry = c / REGION_X, rx = c - ry * REGION_X;
    const idx_t cell = CELL(wrap(x0 + rx, NX), REGION_LATTICE_ROW(y0 + ry));
    for (int k = 0; k < REGION_PLANES; ++k) region->f[slot_loaded(k, c)] = src[k * NCELLS + cell];
    region_mask[c] = obstacles[cell];
#ifdef HEATED_OUTLET
    const int unknown = heat_outlet_unknown(obstacles[cell]);
    if (unknown) region->f[OUTLET_OWN + c] = src[(HEAT_PLANE + unknown) * NCELLS + cell];
#endif
    int any = 0;  // whether the cell has curved links
#ifdef CURVED_LINKS
    // A fluid cell with a curved link gets bit 7 (free: bodies use bits 2-6),
    // so that the steps read the links of those cells alone.
    // (The links' planes, then a plane saying whether a cell has any:
    // obstacle_buffer, kernel_source.cpp. One byte per cell, not eight.)
    any = obstacles[9 * NCELLS + cell];
#ifdef BLOCKED_SLAB
    // Rows clamped past a slab's lattice feed no exact cell: no slot for
    // them (the host's bound counts the grid's windows, once each).
    if (y0 + ry < 0 || y0 + ry >= NY) any = 0;
#endif
    if (any && CELL_CLASS(region_mask[c]) == CELL_FLUID) {
      region_mask[c] |= CURVED_BIT;  // an open boundary's cell keeps its kind beside it
#ifdef CURVED_SIDE
      // A slot in any order (the values are the cell's, wherever they sit).
      const int slot = atomic_inc(curved_cells);
      curved_slot[c] = (short)slot;
      if (slot < CURVED_SLOTS) {
        curved_cell[slot] = (short)c;
        for (int k = 0; k < 9; ++k) curved_own[9 * slot + k] = tile_value(k, region->f[slot_loaded(k, c)]);
      }
#endif
    }
#endif
#ifdef TILE_CLASSES
    special |= special_cell(wrap(x0 + rx, NX), REGION_GRID_ROW(y0 + ry), obstacles[cell], any);
#endif
  }
  for (int ry = lid; ry < REGION_Y; ry += WG_SIZE) accelerated_row[ry] = REGION_GRID_ROW(y0 + ry) == REGION_ACCEL_ROW;
  return special;
}

// Every step's sums in one tree, in the region's memory, which the last step
// no longer reads; then the launch's steps' sums of this group into
// partial_sums.
ALWAYS_INLINE void reduce_launch_sums(const real* sums, const int steps, const int lid, const int num_groups,
                                      const int group, __global real* partial_sums, const int partial_offset,
                                      LOCAL_ARG blocked_region* region) {
  // Sum i (step i / SUMS_PER_GROUP, value i % SUMS_PER_GROUP) at region->sums[i * WG_SIZE].
  for (int i = 0; i < BLOCK_STEPS * SUMS_PER_GROUP; ++i) region->sums[i * WG_SIZE + lid] = sums[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int stride = REDUCE_POW2; stride > 0; stride >>= 1) {
    if (lid < stride && lid + stride < WG_SIZE)
      for (int i = 0; i < BLOCK_STEPS * SUMS_PER_GROUP; ++i)
        region->sums[i * WG_SIZE + lid] += region->sums[i * WG_SIZE + lid + stride];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (int i = lid; i < steps * SUMS_PER_GROUP; i += WG_SIZE) {
    const int s = i / SUMS_PER_GROUP, q = i - s * SUMS_PER_GROUP;
    partial_sums[(partial_offset + s * num_groups + group) * SUMS_PER_GROUP + q] = region->sums[i * WG_SIZE];
  }
}

// `steps` (1 to BLOCK_STEPS) steps from src to dst. Step s's |u| partial sum
// of group g goes to partial_sums[partial_offset + s * groups + g]; the
// accelerated row is accelerated between the launch's steps, and after its
// last when accelerate_next.
// Probes inside a launch (PROBES_IN_LAUNCH): after step sample_first and every sample_every
// steps after it (sample_first 0: never), its last included, the group copies
// the state of the probes its tile owns (sample_index, by group:
// blocked_sample_index), as stored, into their columns of the next row of
// samples from sample_row past the base after sample_index (sample_cells' layout; sample_count columns): no
// launch of sample_cells after it. Between steps the accelerated row's
// values are accelerated: the host samples here only when no probe lies on it.
BLOCKED_KERNEL void propagate_rebound_collide_blocked(__global const stored* restrict src, __global stored* restrict dst,
                                                __global const uchar* restrict obstacles,
                                                __global real* restrict partial_sums, const int partial_offset,
                                                const int accelerate_next, const int steps,
                                                const int first_group_row, const int step,
                                                __global stored* restrict samples,
                                                __global const int* restrict sample_index, const int sample_count,
                                                const int sample_first, const int sample_every,
                                                const int sample_row, __global const int* restrict tile_order) {
  LAUNCH_SIZED_LOCAL(blocked_region, region);
  __local uchar region_mask[REGION_CELLS];
  __local uchar accelerated_row[REGION_Y];  // whether region row y is the grid's row ACCEL_ROW
#ifdef CURVED_SIDE
  // A curved cell's state of the step before (the value its stored code
  // gives), replaced by its corrected pull before each step's walk.
  __local real curved_own[9 * CURVED_SLOTS];
  __local short curved_slot[REGION_CELLS];      // the slot of each curved cell
  __local short curved_cell[CURVED_SLOTS];      // the region cell of each slot
#ifdef FORCE_BODIES
  __local real curved_force[BODY_FORCE_SLOTS * CURVED_SLOTS];  // its links' share of its bodies' forces
#else
  __local real curved_force[1];  // (no measured bodies: unused)
#endif
  __local int curved_cells;
#endif
  const int lid = (int)get_local_id(0) + (int)get_local_id(1) * LOCAL_SIZE_X;
#ifdef TILE_CLASSES
  __local int special_cells;  // items that found a special cell in the region (TILE_CLASSES)
  int special = 0;
  if (lid == 0) special_cells = 0;
#endif
#ifdef CURVED_SIDE
  if (lid == 0) curved_cells = 0;
#endif
#if defined(CURVED_SIDE) || defined(TILE_CLASSES)
  barrier(CLK_LOCAL_MEM_FENCE);
#endif
  const tile_place place = place_tile(first_group_row, tile_order);
  const int num_groups = place.num_groups, group = place.group, x0 = place.x0, y0 = place.y0;
#ifdef PROBES_IN_LAUNCH
  __local int tile_probes[2];  // the first of the tile's probes in sample_index, and how many
  // column << 16 | region cell (a region holds fewer than 2^16 cells; the host
  // samples here for fewer than 2^15 probes; shifts, not / and %: oclgrind)
  int probes_here = 0;
  const int my_probe = take_tile_probes(sample_index, sample_count, num_groups, group, first_group_row, lid,
                                        tile_probes, &probes_here);
#ifdef TILE_CLASSES
  special |= probes_here > 0;  // a tile holding probes takes the full steps, which sample them
#endif
#endif
  const int special_found =
      load_region(src, obstacles, x0, y0, lid, region, region_mask, accelerated_row CURVED_LOAD_ARGS);
#ifdef TILE_CLASSES
  special |= special_found;
  if (special) atomic_inc(&special_cells);
#else
  (void)special_found;
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
#ifdef TILE_CLASSES
  const int tile_special = special_cells > 0;  // the same for every item
#endif

  // This item's sums of each step over its tile cells: |u| (and each
  // body's force) of step s at sums[(s - 1) * SUMS_PER_GROUP].
  real sums[BLOCK_STEPS * SUMS_PER_GROUP];
#define BLOCKED_STEP_ARGS                                                                                     \
  s, steps, step, accelerate_next, x0, y0, lid, dst, obstacles, region, region_mask, accelerated_row, sums \
      CURVED_SIDE_ARGS PROBE_ARGS
  // Unrolled so that each step's slots (odd or even in the AA order) are
  // known when compiled and the sums stay in registers.
#ifdef TILE_CLASSES
  if (!tile_special) {
#pragma unroll
    for (int s = 1; s <= BLOCK_STEPS; ++s) blocked_step(0, BLOCKED_STEP_ARGS);
  } else
#endif
  {
// With a sponge, unrolled by two only, because its code in every step's copy
// spills under the register cap; a curved wall alone runs faster fully
// unrolled.
#ifdef SPONGE
#pragma unroll 2
#else
#pragma unroll
#endif
    for (int s = 1; s <= BLOCK_STEPS; ++s) blocked_step(1, BLOCKED_STEP_ARGS);
  }
#undef BLOCKED_STEP_ARGS

#ifdef CURVED_SIDE
  // More curved cells than the host's bound left some uncorrected: never
  // silently; the launch's |u| sums become NaN, which stops the run.
  if (curved_cells > CURVED_SLOTS)
    for (int s = 0; s < BLOCK_STEPS; ++s) sums[s * SUMS_PER_GROUP] = (real)NAN;
#endif
  reduce_launch_sums(sums, steps, lid, num_groups, group, partial_sums, partial_offset, region);
}
#endif
