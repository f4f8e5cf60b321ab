#include "device/launch_plan.hpp"

#include <algorithm>
#include <stdexcept>

#include "model/lattice.hpp"

namespace d2q9 {

const char* to_string(KernelVariant v) {
  switch (v) {
    case KernelVariant::Auto: return "auto";
    case KernelVariant::Split: return "split";
    case KernelVariant::Fused: return "fused";
    case KernelVariant::FusedX2: return "fused-x2";
    case KernelVariant::FusedRows: return "fused-rows";
  }
  return "?";
}

KernelVariant parse_kernel_variant(const std::string& text) {
  for (KernelVariant v : {KernelVariant::Auto, KernelVariant::Split, KernelVariant::Fused, KernelVariant::FusedX2,
                          KernelVariant::FusedRows})
    if (text == to_string(v)) return v;
  throw std::invalid_argument("--kernel-variant must be auto, split, fused, fused-x2 or fused-rows, got '" + text + "'");
}

KernelVariant resolve_kernel_variant(KernelVariant v, const Params& params, bool gpu, bool local_size_given) {
  if (v != KernelVariant::Auto) return v;
  if (!gpu) return local_size_given ? KernelVariant::Fused : KernelVariant::FusedRows;
  return params.cells() <= kTwoStepMaxCells ? KernelVariant::FusedX2 : KernelVariant::Fused;
}

std::string variant_reason(KernelVariant requested, const Params& params, bool gpu, bool local_size_given) {
  const KernelVariant v = resolve_kernel_variant(requested, params, gpu, local_size_given);
  const std::string name = to_string(v);
  if (requested != KernelVariant::Auto) return name + " as given";
  if (!gpu)
    return local_size_given ? name + ": a local size was given, and fused-rows (the CPU default) takes none"
                            : name + ": the default on CPU devices (a row per work-item, no barriers)";
  return v == KernelVariant::FusedX2 ? name + ": the default on GPUs for grids of up to " +
                                           std::to_string(kTwoStepMaxCells) + " cells (two steps per launch)"
                                     : name + ": the default on GPUs for grids above " +
                                           std::to_string(kTwoStepMaxCells) + " cells";
}

std::vector<KernelVariant> runnable_variants(const DeviceLimits& device, bool slabs) {
  std::vector<KernelVariant> out;
  if (!slabs) out = {KernelVariant::Split, KernelVariant::Fused, KernelVariant::FusedX2};
  else out = {KernelVariant::Fused};
  if (device.has_rows_kernel) out.push_back(KernelVariant::FusedRows);
  return out;
}

int rows_per_item_for(const Params& params, KernelVariant resolved, int requested) {
  // The two-step kernel updates one row per item; the rows kernel a whole row.
  if (resolved == KernelVariant::FusedX2 || resolved == KernelVariant::FusedRows) return 1;
  if (requested > 0) return requested;
  return params.cells() >= (std::size_t{1} << 20) ? 4 : 1;
}

LaunchPlan plan_launch(const Params& params, const DeviceLimits& device, const LaunchRequest& request) {
  LaunchPlan plan;
  plan.variant = resolve_kernel_variant(request.variant, params, device.gpu, !request.local.is_auto());
  if (request.slabs && (plan.variant == KernelVariant::Split || plan.variant == KernelVariant::FusedX2)) {
    // Two steps per launch would need two halo rows; split has no slab kernels.
    if (request.variant != KernelVariant::Auto)
      throw DeviceError(std::string("--kernel-variant ") + to_string(request.variant) +
                        " is not available with several MPI ranks: they run fused or fused-rows (or auto)");
    plan.variant = KernelVariant::Fused;
  }
  if (plan.variant == KernelVariant::FusedRows && !device.has_rows_kernel)
    throw DeviceError("--kernel-variant fused-rows is for CPU OpenCL devices; " + device.name +
                      " runs split, fused or fused-x2");
  if (plan.variant == KernelVariant::FusedRows) {
    // A row per work-item, each its own group: there is no shape to choose.
    if (!request.local.is_auto() && (request.local.x != 1 || request.local.y != 1))
      throw DeviceError("--kernel-variant fused-rows runs a whole row per work-item and takes no --local-size (got " +
                        request.local.text() + "): leave it out, or choose another variant");
    plan.local = {1, 1};
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
  plan.groups_x = plan.variant == KernelVariant::FusedRows ? 1 : (params.nx + l.x - 1) / l.x;
  plan.groups_y = (params.ny + plan.group_height() - 1) / plan.group_height();
  if (plan.groups_y > device.max_groups_y)
    throw DeviceError("grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny) + " needs " +
                      std::to_string(plan.groups_y) + " rows of work-groups with local size " + l.text() +
                      ", more than the " + std::to_string(device.max_groups_y) + " " + device.name +
                      " allows; use a taller --local-size");
  if (request.chunk_steps > 0) {
    plan.chunk_steps = request.chunk_steps;
  } else {
    plan.chunk_steps = std::max(1, std::min({params.max_iters, kMaxChunkSteps, kMaxChunkValues / plan.num_groups()}));
    if (plan.chunk_steps > 1) plan.chunk_steps &= ~1;
  }
  return plan;
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
  const unsigned long long lattice = kSpeeds * cells * stored_size(precision);
  const unsigned long long partials = 2ULL * plan.chunk_steps * plan.num_groups() * real_size(precision);
  return 2 * lattice + cells + partials;
}

}  // namespace d2q9
