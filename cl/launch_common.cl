// What every launch scheme shares: the acceleration and probe kernels, and
// pulling a cell's distributions from its neighbours and storing them.
// Moves momentum into +x along row ACCEL_ROW where no distribution would go negative.
__kernel void accelerate_flow(__global stored* restrict cells, __global const uchar* restrict obstacles) {
  const int ii = (int)get_global_id(0);
  if (ACCEL_ROW < 0) return;  // the row is another slab's
  if (ii >= NX) return;
  const idx_t cell = CELL(ii, ACCEL_ROW);
  if (CELL_CLASS(obstacles[cell]) != CELL_FLUID) return;  // open boundaries are fluid

  const real w1 = ACCEL_W1;
  const real w2 = ACCEL_W2;
  const real f3 = load_f(cells, 3, cell);
  const real f6 = load_f(cells, 6, cell);
  const real f7 = load_f(cells, 7, cell);
  if (f3 - w1 > (real)0 && f6 - w2 > (real)0 && f7 - w2 > (real)0) {
    store_f(cells, 1, cell, load_f(cells, 1, cell) + w1);
    store_f(cells, 5, cell, load_f(cells, 5, cell) + w2);
    store_f(cells, 8, cell, load_f(cells, 8, cell) + w2);
    store_f(cells, 3, cell, f3 - w1);
    store_f(cells, 6, cell, f6 - w2);
    store_f(cells, 7, cell, f7 - w2);
  }
}

// Probes: the LATTICE_PLANES stored values of each of `count` lattice cells
// (`which`) copied, as stored, into row `row` of `samples` (LATTICE_PLANES
// planes of `count` values a row), so that a run samples its probes on the device between
// launches and reads many rows back at once instead of draining the device
// for each.
__kernel void sample_cells(__global const stored* restrict cells, __global const int* restrict which,
                           __global stored* restrict samples, const int count, const int row) {
  const idx_t i = (idx_t)get_global_id(0);
  if (i >= (idx_t)LATTICE_PLANES * count) return;
  const int k = (int)(i / count), c = (int)(i - (idx_t)k * count);
  samples[(idx_t)row * LATTICE_PLANES * count + i] = cells[k * NCELLS + (idx_t)which[c]];
}

// Incoming distributions of cell (ii, jj) from the given neighbouring columns
// and rows: g_k = f_k((ii, jj) - e_k).
// The helpers take no `restrict` (the kernels' arguments carry it): inlined
// restrict parameters inside the rows kernel's loop leave
// llvm.experimental.noalias.scope.decl calls that oclgrind cannot run.
ALWAYS_INLINE void pull_from(__global const stored* src, const int ii, const int jj, const int x_e, const int x_w,
                      const int y_n, const int y_s, real* g) {
  g[0] = load_f(src, 0, CELL(ii, jj));
  g[1] = load_f(src, 1, CELL(x_w, jj));
  g[2] = load_f(src, 2, CELL(ii, y_s));
  g[3] = load_f(src, 3, CELL(x_e, jj));
  g[4] = load_f(src, 4, CELL(ii, y_n));
  g[5] = load_f(src, 5, CELL(x_w, y_s));
  g[6] = load_f(src, 6, CELL(x_e, y_s));
  g[7] = load_f(src, 7, CELL(x_e, y_n));
  g[8] = load_f(src, 8, CELL(x_w, y_n));
}

// The neighbouring columns and rows of cell (ii, jj), periodic in both directions.
#define PERIODIC_NEIGHBOURS(ii, jj)                \
  const int x_e = ((ii) + 1 == NX) ? 0 : (ii) + 1; \
  const int x_w = ((ii) == 0) ? NX - 1 : (ii) - 1; \
  const int y_n = ((jj) + 1 == NY) ? 0 : (jj) + 1; \
  const int y_s = ((jj) == 0) ? NY - 1 : (jj) - 1

// Incoming distributions of cell (ii, jj), periodic in both directions.
ALWAYS_INLINE void pull(__global const stored* src, const int ii, const int jj, real* g) {
  PERIODIC_NEIGHBOURS(ii, jj);
  pull_from(src, ii, jj, x_e, x_w, y_n, y_s, g);
}

// Nine stores written out, not a loop over k: PoCL's LLVM vectorises only
// innermost loops, and a k-loop left inside the rows kernel's column loop
// keeps that loop scalar.
ALWAYS_INLINE void store(__global stored* dst, const idx_t cell, const real* f) {
  store_f(dst, 0, cell, f[0]);
  store_f(dst, 1, cell, f[1]);
  store_f(dst, 2, cell, f[2]);
  store_f(dst, 3, cell, f[3]);
  store_f(dst, 4, cell, f[4]);
  store_f(dst, 5, cell, f[5]);
  store_f(dst, 6, cell, f[6]);
  store_f(dst, 7, cell, f[7]);
  store_f(dst, 8, cell, f[8]);
}
