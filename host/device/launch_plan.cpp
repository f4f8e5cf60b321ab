#include "device/launch_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "problem/lattice.hpp"

namespace d2q9 {

std::string variant_text(const LaunchPlan& plan) {
  std::string text = to_string(plan.variant);
  if (plan.variant == KernelVariant::Blocked) text += "-" + std::to_string(plan.block_steps) + "-" + plan.tile.text();
  return text;
}

std::string LaunchCandidate::text() const {
  return local.is_auto() ? to_string(variant) : std::string(to_string(variant)) + " " + local.text();
}

bool is_rusticl(const DeviceLimits& device) { return device.platform == "rusticl"; }

// Each CPU implementation's fastest variant (docs/performance.md): PoCL runs
// a row per work-item fastest; rusticl's llvmpipe runs fused fastest and
// fused-rows slowest.
KernelVariant cpu_default_variant(const DeviceLimits& device) {
  return is_rusticl(device) ? KernelVariant::Fused : KernelVariant::FusedRows;
}

std::vector<KernelVariant> runnable_variants(const DeviceLimits& device) {
  std::vector<KernelVariant> out = {KernelVariant::Fused};
  // Several steps per launch pay off where launches cost more than steps: GPUs.
  if (device.gpu || is_rusticl(device)) out.push_back(KernelVariant::Blocked);
  if (device.has_rows_kernel) out.push_back(KernelVariant::FusedRows);
  return out;
}

int rows_per_item_for(const Params& params, KernelVariant resolved, int requested) {
  // Only the one-step kernels take several rows per item.
  if (resolved != KernelVariant::Split && resolved != KernelVariant::Fused) return 1;
  if (requested > 0) return requested;
  return params.cells() >= (std::size_t{1} << 20) ? 4 : 1;
}

int blocked_region_copies(const Extensions& extensions, int curved_slots) {
  return extensions.curved_walls && curved_slots == 0 ? 2 : 1;
}

int blocked_region_extra_planes(const Extensions& extensions) {
  // A heated outlet's cell reads its own temperature of the step before: one plane keeps it.
  const bool heated_outlet = extensions.heat && std::any_of(extensions.open_boundaries.begin(), extensions.open_boundaries.end(),
                                                            [](const OpenBoundary& b) { return !b.inlet(); });
  return heated_outlet ? 1 : 0;
}

bool blocked_samples_inside(const Params& params, const LaunchPlan& plan) {
  const int every = params.extensions.probe_every;
  return plan.variant == KernelVariant::Blocked && every > 0;
}

std::vector<int> blocked_sample_index(const LaunchPlan& plan, int nx, int halo_depth, int rows,
                                     const std::vector<std::size_t>& cells) {
  // A slab's tiles start at its first own row (the kernel's FIRST_ROW).
  const int group_rows = (rows + plan.tile.y - 1) / plan.tile.y;
  const int groups = plan.groups_x * group_rows, count = static_cast<int>(cells.size());
  const int region_x = plan.tile.x + 2 * plan.block_steps;
  std::vector<int> group_of(cells.size()), region_cell(cells.size());
  std::vector<int> index(static_cast<std::size_t>(groups) + 1 + 2 * cells.size() + 1, 0);  // the rows' base last: 0
  for (int p = 0; p < count; ++p) {
    const int x = static_cast<int>(cells[p] % static_cast<std::size_t>(nx));
    const int y = static_cast<int>(cells[p] / static_cast<std::size_t>(nx)) - halo_depth;
    if (y < 0 || y >= rows) throw std::invalid_argument("blocked_sample_index: a probe outside the lattice's own rows");
    const int gx = x / plan.tile.x, gy = y / plan.tile.y;
    group_of[p] = gx + gy * plan.groups_x;
    region_cell[p] = (x - gx * plan.tile.x + plan.block_steps) + (y - gy * plan.tile.y + plan.block_steps) * region_x;
    ++index[static_cast<std::size_t>(group_of[p]) + 1];
  }
  for (int g = 0; g < groups; ++g) index[g + 1] += index[g];
  std::vector<int> next(index.begin(), index.begin() + groups);
  for (int p = 0; p < count; ++p) {
    const int at = next[group_of[p]]++;
    index[static_cast<std::size_t>(groups) + 1 + at] = p;
    index[static_cast<std::size_t>(groups) + 1 + count + at] = region_cell[p];
  }
  return index;
}

namespace {
// A curved cell's slot (cl/d2q9_bgk.cl, CURVED_SIDE): nine values as reals,
// its region cell and, with measured bodies, its links' force on each
// (sums_per_group - 1 reals).
long long curved_slot_bytes(Precision precision, int sums_per_group) {
  const long long real = static_cast<long long>(real_size(precision));
  return kSpeeds * real + 2 + (sums_per_group - 1) * real;
}
}  // namespace

int blocked_curved_slots(const Params& params, LocalSize tile, int steps, Precision precision) {
  const Extensions& extensions = params.extensions;
  if (!extensions.curved_walls || extensions.curved_window_cells <= 0) return 0;
  const long long rx = tile.x + 2LL * steps, ry = tile.y + 2LL * steps;
  // A region wraps round the grid: cut into spans no wider (taller) than a
  // window, or than the grid where that is narrower (each such span then a
  // window of the bound, once round the grid at most), it holds at most the
  // bound for each piece.
  const long long wx = std::min(Extensions::kCurvedWindow, params.nx), wy = std::min(Extensions::kCurvedWindow, params.ny);
  const long long slots = ((rx + wx - 1) / wx) * ((ry + wy - 1) / wy) * extensions.curved_window_cells;
  // Slots and their index per cell against a second copy of every cell.
  const long long stored = static_cast<long long>(stored_size(precision));
  if (slots * curved_slot_bytes(precision, extensions.sums_per_group()) + 2 * rx * ry >= kSpeeds * stored * rx * ry)
    return 0;
  return static_cast<int>(slots);
}

long long blocked_region_bytes(LocalSize tile, int steps, int items, Precision precision, int sums_per_group,
                               int region_copies, int planes, int extra_planes) {
  const long long region = static_cast<long long>(tile.x + 2 * steps) * (tile.y + 2 * steps);
  const long long real = static_cast<long long>(real_size(precision));
  const long long stored = static_cast<long long>(stored_size(precision));
  // The copies of the distributions as stored (16-bit codes with 16-bit
  // storage), sharing their memory with the reduction's sums (reals), in a
  // union aligned to a real.
  const long long shared = std::max((region_copies * planes + extra_planes) * region * stored,
                                    static_cast<long long>(steps) * sums_per_group * items * real);
  return (shared + real - 1) / real * real;
}

long long blocked_local_bytes(LocalSize tile, int steps, int items, Precision precision, int sums_per_group,
                              int region_copies, int curved_slots, int planes, int extra_planes) {
  const long long region = static_cast<long long>(tile.x + 2 * steps) * (tile.y + 2 * steps);
  const long long real = static_cast<long long>(real_size(precision));
  // The region, then the mask and a flag per row.
  long long bytes = blocked_region_bytes(tile, steps, items, precision, sums_per_group, region_copies, planes,
                                         extra_planes) +
                    region + (tile.y + 2 * steps);
  // Curved cells' slots: nine reals, a region cell and the links' forces
  // (one real unused without bodies) each; a slot index per region cell
  // and their count (each array aligned to 8).
  if (curved_slots > 0) {
    const auto aligned = [](long long b) { return (b + 7) / 8 * 8; };
    bytes = aligned(bytes) + aligned(curved_slots * kSpeeds * real) + aligned(2LL * curved_slots) +
            aligned((sums_per_group > 1 ? curved_slots * (sums_per_group - 1) : 1) * real) + aligned(2 * region) + 8;
  }
  return bytes;
}

namespace {

// The blocked kernel's steps per launch and tile: as requested, else the
// largest square tile whose region fits the device's local memory, no wider
// or taller than the grid, if that gives each compute unit two tiles; on
// smaller grids the largest power-of-two square that fits, halved (height
// first: rows stay coalesced) down to 8 cells until there is a tile for each
// compute unit, since a compute unit without a tile costs more than a
// smaller tile's extra halo.
// With heat, the tile is kHeatTileWidth wide and as tall as fits (launch_plan.hpp).
// Under MPI slabs (`ranks` of them), each slab is whole tile rows: an
// automatic tile is made short enough for a tile row per rank, and a given
// one that leaves fewer tile rows than ranks is refused.
void plan_blocked(LaunchPlan& plan, const Params& params, const DeviceLimits& device, const LaunchRequest& request,
                  Precision precision, int ranks) {
  const std::string what = "--kernel-variant blocked";
  const bool heat = params.extensions.heat;
  plan.block_steps = request.block_steps > 0 ? request.block_steps : heat ? kHeatBlockSteps : kDefaultBlockSteps;
  if (plan.block_steps > 64) throw DeviceError(what + " runs at most 64 steps per launch (--block-steps)");
  const int items = plan.local.x * plan.local.y;
  const int sums = params.extensions.sums_per_group();
  // Curved walls: their cells' slots where those are smaller than a second copy of the region.
  const auto local_bytes = [&](LocalSize tile) {
    const int slots = blocked_curved_slots(params, tile, plan.block_steps, precision);
    return blocked_local_bytes(tile, plan.block_steps, items, precision, sums,
                               blocked_region_copies(params.extensions, slots), slots, params.extensions.planes(),
                               blocked_region_extra_planes(params.extensions));
  };
  if (!request.tile.is_auto()) {
    plan.tile = request.tile;
  } else {
    int side = 1;
    while (local_bytes({side + 1, side + 1}) <= device.local_mem_bytes) ++side;
    LocalSize& t = plan.tile;
    t = {std::min(side, params.nx), std::min(side, params.ny)};
    if (heat && side < kHeatTileWidth && local_bytes({kHeatTileWidth, 1}) <= device.local_mem_bytes) {
      int height = 1;
      while (local_bytes({kHeatTileWidth, height + 1}) <= device.local_mem_bytes) ++height;
      t = {std::min(kHeatTileWidth, params.nx), std::min(height, params.ny)};
    }
    const auto tiles = [&] { return static_cast<long long>((params.nx + t.x - 1) / t.x) * ((params.ny + t.y - 1) / t.y); };
    if (tiles() < 2LL * device.compute_units) {
      int pow2 = 1;
      while (pow2 * 2 <= side) pow2 *= 2;
      t = {std::min(pow2, params.nx), std::min(pow2, params.ny)};
    }
    while (tiles() < device.compute_units) {
      if (t.y > 8 && t.y * 2 >= t.x) t.y = std::max(8, t.y / 2);
      else if (t.x > 8) t.x = std::max(8, t.x / 2);
      else break;
    }
    t.y = std::min(t.y, std::max(1, params.ny / ranks));
  }
  if (plan.tile.x < 1 || plan.tile.y < 1)
    throw DeviceError(what + ": the tile must be at least 1x1 cells (got " + plan.tile.text() + ")");
  const int tile_rows = (params.ny + plan.tile.y - 1) / plan.tile.y;
  if (tile_rows < ranks)
    throw DeviceError(what + " with tile " + plan.tile.text() + ": the grid's " + std::to_string(params.ny) +
                      " rows make " + std::to_string(tile_rows) + " row(s) of tiles, fewer than the " +
                      std::to_string(ranks) + " MPI ranks, and each rank's slab must be whole tile rows: "
                      "use a lower --tile height or fewer ranks");
  plan.curved_slots = blocked_curved_slots(params, plan.tile, plan.block_steps, precision);
  plan.region_bytes = blocked_region_bytes(plan.tile, plan.block_steps, items, precision, sums,
                                           blocked_region_copies(params.extensions, plan.curved_slots),
                                           params.extensions.planes(), blocked_region_extra_planes(params.extensions));
  const long long bytes = local_bytes(plan.tile);
  const long long most = std::max(device.local_mem_bytes, device.opt_in_local_mem_bytes);
  if (bytes > most)
    throw DeviceError(what + " with tile " + plan.tile.text() + ", " + std::to_string(plan.block_steps) +
                      " steps per launch and work-groups of " + std::to_string(items) + " needs " +
                      std::to_string(bytes) + " bytes of local memory, but " + device.name + " has " +
                      std::to_string(most) + ": use a smaller --tile or fewer --block-steps");
}

}  // namespace

namespace {

// The variant "auto" stands for, and why: on CPU devices the
// implementation's default (cpu_default_variant), fused where the user gave a
// shape that fused-rows cannot take; on GPUs what was measured fastest:
// several steps per launch (blocked), in every precision at every size
// (the measurements are cited in launch_plan.hpp). MPI slabs take the same choice:
// each runs blocked with halo rows as deep as its steps per launch.
struct Resolved {
  KernelVariant variant;
  std::string reason;
};

Resolved resolve_variant(const DeviceLimits& device, const LaunchRequest& request,
                         Precision precision) {
  const bool local_given = !request.local.is_auto();
  if (request.variant != KernelVariant::Auto) return {request.variant, std::string(to_string(request.variant)) + " " + request.origin};
  KernelVariant v;
  std::string why;
  if (!device.gpu) {
    const KernelVariant cpu = cpu_default_variant(device);
    if (cpu == KernelVariant::FusedRows && local_given) {
      v = KernelVariant::Fused;
      why = ": a local size was given, and fused-rows (the CPU default) takes none";
    } else {
      v = cpu;
      why = cpu == KernelVariant::FusedRows
                ? ": the default on CPU devices (a row per work-item, no barriers)"
                : ": the default on " + device.platform + "'s CPU device (measured in results/cpu-implementations/)";
    }
  } else {
    v = KernelVariant::Blocked;
    why = std::string(": the default on GPUs in ") + to_string(precision) + " (several steps per launch" +
          (is_16bit(precision) ? ", the tile kept as 16-bit codes)" : ")");
  }
  return {v, to_string(v) + why};
}

LaunchPlan plan_variant(const Params& params, const DeviceLimits& device, const LaunchRequest& request,
                        Precision precision, KernelVariant variant, bool slabs, int ranks) {
  LaunchPlan plan;
  plan.variant = variant;
  // Only an explicit request gets here with a kernel slabs lack (auto never chooses them).
  if (slabs && variant == KernelVariant::Split)
    throw DeviceError(std::string("--kernel-variant ") + to_string(variant) +
                      " is not available with several MPI ranks: they run fused, fused-rows or blocked (or auto)");
  if (plan.variant == KernelVariant::FusedRows && !device.has_rows_kernel)
    throw DeviceError("--kernel-variant fused-rows is for CPU OpenCL devices; " + device.name +
                      " runs split, fused or blocked");
  if (plan.variant == KernelVariant::FusedRows) {
    // A row per work-item, each its own group: there is no shape to choose.
    if (!request.local.is_auto() && (request.local.x != 1 || request.local.y != 1))
      throw DeviceError("--kernel-variant fused-rows runs a whole row per work-item and takes no --local-size (got " +
                        request.local.text() + "): leave it out, or choose another variant");
    plan.local = {1, 1};
  } else if (request.local.is_auto() && plan.variant == KernelVariant::Blocked) {
    // Items walk the whole region each step: enough of them to hide latency.
    plan.local = {std::min(256, device.max_threads), 1};
  } else if (request.local.is_auto()) {
    // One row of cells per work-group: coalesced on GPUs, long vector loops on CPUs.
    int x = device.gpu ? 128 : 256;
    while (x > 1 && (x / 2 >= params.nx || x > device.max_threads || x > device.max_x)) x /= 2;
    plan.local = {x, 1};
  } else {
    plan.local = request.local;
  }
  const LocalSize l = plan.local;
  if (l.x < 1 || l.y < 1 || l.x > device.max_x || l.y > device.max_y ||
      static_cast<long long>(l.x) * l.y > device.max_threads)
    throw DeviceError("local size " + l.text() + " is not valid on " + device.name + " (at most " +
                      std::to_string(device.max_x) + "x" + std::to_string(device.max_y) + " and " +
                      std::to_string(device.max_threads) + " work-items in all)");

  plan.rows_per_item = rows_per_item_for(params, plan.variant, request.rows_per_item);
  if (plan.variant == KernelVariant::Blocked) {
    plan_blocked(plan, params, device, request, precision, ranks);
    plan.groups_x = (params.nx + plan.tile.x - 1) / plan.tile.x;
    plan.groups_y = (params.ny + plan.tile.y - 1) / plan.tile.y;
  } else {
    if (request.block_steps > 0 || !request.tile.is_auto())
      throw DeviceError("--block-steps and --tile are for --kernel-variant blocked, not " +
                        std::string(to_string(plan.variant)));
    plan.groups_x = plan.variant == KernelVariant::FusedRows ? 1 : (params.nx + l.x - 1) / l.x;
    plan.groups_y = (params.ny + plan.group_height() - 1) / plan.group_height();
  }
  if (plan.groups_y > device.max_groups_y)
    throw DeviceError("grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny) + " needs " +
                      std::to_string(plan.groups_y) + " rows of work-groups with local size " + l.text() +
                      ", more than the " + std::to_string(device.max_groups_y) + " " + device.name +
                      " allows; use a taller --local-size");
  if (request.chunk_steps > 0) {
    plan.chunk_steps = request.chunk_steps;
  } else {
    // An even number of whole launches per chunk, so that every chunk starts
    // from the same buffer; at least two, whatever the grid, so that the
    // host's bound on a chunk's values never cuts the largest grids' blocked
    // launches short.
    const int unit = 2 * plan.steps_per_launch();
    plan.chunk_steps = std::max(1, std::min({params.max_iters, kMaxChunkSteps,
                                             std::max(unit, kMaxChunkValues / plan.num_groups())}));
    if (plan.chunk_steps >= unit) plan.chunk_steps -= plan.chunk_steps % unit;
    else if (plan.chunk_steps > 1) plan.chunk_steps &= ~1;
  }
  return plan;
}

}  // namespace

LaunchDecision decide_launch(const Params& params, const DeviceLimits& device, const LaunchRequest& request,
                             Precision precision, int ranks, const std::optional<CachedLaunch>& cached) {
  if (precision == Precision::Double && !device.fp64)
    throw DeviceError(device.name + " does not support double precision (cl_khr_fp64); use --precision float");
  const bool slabs = request.slabs || ranks > 1;
  const bool local_given = !request.local.is_auto();
  if (cached && !local_given && !slabs) {
    LaunchRequest asked = request;
    asked.variant = cached->launch.variant;
    asked.local = cached->launch.local;
    try {
      return {plan_variant(params, device, asked, precision, asked.variant, slabs, ranks),
              cached->launch.text() + ": the fastest in an earlier search, cached in " + cached->where,
              LaunchSource::Cached};
    } catch (const DeviceError&) {
      // A stale entry (a changed driver limit, say): decided afresh below.
    }
  }
  Resolved r = resolve_variant(device, request, precision);
  if (params.extensions.heat && precision == Precision::Double && r.variant == KernelVariant::Blocked &&
      request.variant == KernelVariant::Auto)
    r = {KernelVariant::Fused, "fused: the default for heat in double, whose 14 values a cell leave blocked's tiles "
                               "too small (8192^2 on an H200: 17.7 GLUPS fused, 15.3 blocked; results/nvidia-h200/heat-9e328ca/)"};
  LaunchPlan plan;
  try {
    plan = plan_variant(params, device, request, precision, r.variant, slabs, ranks);
  } catch (const DeviceError&) {
    // Blocked by default, but not even its smallest tile fits the device's
    // local memory: one step per launch, which needs none.
    if (request.variant != KernelVariant::Auto || r.variant != KernelVariant::Blocked || request.block_steps > 0 ||
        !request.tile.is_auto())
      throw;
    r = {KernelVariant::Fused, "fused: blocked's smallest tile does not fit the " +
                                   std::to_string(device.local_mem_bytes) + " bytes of local memory of " + device.name};
    plan = plan_variant(params, device, request, precision, r.variant, slabs, ranks);
  }
  LaunchDecision d{plan, r.reason, local_given ? LaunchSource::Given : LaunchSource::Default};
  if (local_given) d.reason = "local size " + request.origin + "; " + d.reason;
  return d;
}

void check_kernel_group_limit(const LaunchPlan& plan, long long kernel_max, const std::string& kernel,
                              const std::string& device) {
  if (static_cast<long long>(plan.local.x) * plan.local.y > kernel_max)
    throw DeviceError("local size " + plan.local.text() + " is too large for " + kernel + " on " + device +
                      " (at most " + std::to_string(kernel_max) + " work-items)");
}

void check_device_memory(const std::string& what, unsigned long long needed, unsigned long long largest_buffer,
                         unsigned long long capacity, unsigned long long max_buffer, const std::string& device,
                         const std::string& hint) {
  if (needed <= capacity && largest_buffer <= max_buffer) return;
  throw DeviceError(what + " needs " + std::to_string(needed >> 20) + " MiB on the device (largest buffer " +
                    std::to_string(largest_buffer >> 20) + " MiB) but " + device + " has " +
                    std::to_string(capacity >> 20) + " MiB (largest buffer " + std::to_string(max_buffer >> 20) +
                    " MiB): out of memory" + hint);
}

unsigned long long device_bytes_needed(const Params& params, const LaunchPlan& plan, Precision precision) {
  const unsigned long long cells = params.cells();
  const unsigned long long lattice = params.extensions.planes() * cells * stored_size(precision);
  const unsigned long long partials =
      2ULL * plan.chunk_steps * plan.num_groups() * params.extensions.sums_per_group() * real_size(precision);
  // The obstacles buffer: kinds, and with curved walls 8 link planes and their "any" plane (obstacle_buffer).
  const unsigned long long obstacles = params.extensions.curved_walls ? 10 * cells : cells;
  return 2 * lattice + obstacles + partials;
}

std::vector<int> blocked_tile_order(const Params& params, const ObstacleMask& mask, const LaunchPlan& plan) {
  const Extensions& x = params.extensions;
  const bool measured = x.measured_bodies > 0;
  if (plan.variant != KernelVariant::Blocked || !(x.open() || x.curved_walls || measured)) return {};
  const int gx = plan.groups_x, gy = plan.groups_y, steps = plan.block_steps;
  // The tiles whose region (the tile and `steps` cells round it, wrapping
  // round the grid as the kernel's does) holds coordinate v, per axis.
  const auto covering = [steps](int n, int tile, int groups) {
    std::vector<std::vector<int>> tiles(static_cast<std::size_t>(n));
    for (int t = 0; t < groups; ++t)
      for (int i = 0; i < tile + 2 * steps; ++i) {
        const int v = ((t * tile - steps + i) % n + n) % n;
        std::vector<int>& at = tiles[static_cast<std::size_t>(v)];
        if (at.empty() || at.back() != t) at.push_back(t);
      }
    return tiles;
  };
  const auto columns = covering(params.nx, plan.tile.x, gx), rows = covering(params.ny, plan.tile.y, gy);
  const auto rows_of = [&](int jj) -> const std::vector<int>& { return rows[static_cast<std::size_t>(jj)]; };
  enum : unsigned char { kPlain = 0, kEdge = 1, kHeavy = 2 };
  std::vector<unsigned char> kind(static_cast<std::size_t>(gx) * gy, kPlain);
  const auto mark_column = [&](int ii) {
    for (int tx : columns[static_cast<std::size_t>(ii)])
      for (int ty = 0; ty < gy; ++ty) kind[static_cast<std::size_t>(tx + ty * gx)] |= kEdge;
  };
  // Sponges are layers of columns or rows beside their edges.
  const auto mark_row = [&](int jj) {
    for (int ty : rows_of(jj))
      for (int tx = 0; tx < gx; ++tx) kind[static_cast<std::size_t>(tx + ty * gx)] |= kEdge;
  };
  for (const OpenBoundary& b : x.open_boundaries) {
    const int width = std::min(b.sponge, b.edge == Edge::Left || b.edge == Edge::Right ? params.nx : params.ny);
    for (int d = 0; d < width; ++d) {
      if (b.edge == Edge::Left) mark_column(d);
      if (b.edge == Edge::Right) mark_column(params.nx - 1 - d);
      if (b.edge == Edge::Bottom) mark_row(d);
      if (b.edge == Edge::Top) mark_row(params.ny - 1 - d);
    }
  }
  const std::size_t cells = mask.kinds.size();
  // Open edges' cells take the full steps (kEdge), as a measured body's or a
  // curved link's (kHeavy): the kinds the kernel's special_cell finds.
  const bool any_heavy = measured || !mask.links.empty() || x.open();  // else no cell to look at
  for (int jj = 0; jj < params.ny && any_heavy; ++jj)
    for (int ii = 0; ii < params.nx; ++ii) {
      const std::size_t c = static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * params.nx;
      const std::uint8_t byte = mask.kinds[c];
      if (open_edge_of(byte) >= 0) {
        for (int tx : columns[static_cast<std::size_t>(ii)])
          for (int ty : rows_of(jj)) kind[static_cast<std::size_t>(tx + ty * gx)] |= kEdge;
        continue;
      }
      bool heavy = measured && cell_body(byte, x.measured_bodies) != 0;
      for (std::size_t k = 0; k < 8 && !heavy && !mask.links.empty() && !is_obstacle(byte); ++k)
        heavy = mask.links[k * cells + c] != 0;
      if (!heavy) continue;
      for (int ty : rows[static_cast<std::size_t>(jj)])
        for (int tx : columns[static_cast<std::size_t>(ii)]) kind[static_cast<std::size_t>(tx + ty * gx)] |= kHeavy;
    }
  std::vector<int> order;
  order.reserve(kind.size());
  for (unsigned char want : {kHeavy, kEdge, kPlain})
    for (std::size_t t = 0; t < kind.size(); ++t)
      if ((want == kHeavy && (kind[t] & kHeavy)) || (want != kHeavy && kind[t] == want)) order.push_back(static_cast<int>(t));
  return order;
}

}  // namespace d2q9
