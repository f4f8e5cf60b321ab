#include "device/step_loop.hpp"

#include <algorithm>
#include <utility>

#include "device/kernel_source.hpp"

namespace d2q9 {

namespace {

// The slab's rows of the mask, halo rows included; of each link plane too.
ObstacleMask slab_mask(const Params& params, const ObstacleMask& mask, const Slab& slab, int halo) {
  ObstacleMask local(params.nx, slab.rows + 2 * halo);
  const std::size_t nx = static_cast<std::size_t>(params.nx);
  const std::size_t grid_cells = mask.kinds.size(), local_cells = local.kinds.size();
  if (!mask.links.empty()) local.links.resize(8 * local_cells);
  for (int row = 0; row < slab.rows + 2 * halo; ++row) {
    const std::size_t from = grid_row_of(slab, halo, row, params.ny) * nx;
    const std::size_t to = static_cast<std::size_t>(row) * nx;
    std::copy_n(mask.kinds.begin() + from, nx, local.kinds.begin() + to);
    for (std::size_t plane = 0; plane < 8 && !mask.links.empty(); ++plane)
      std::copy_n(mask.links.begin() + plane * grid_cells + from, nx, local.links.begin() + plane * local_cells + to);
  }
  return local;
}

}  // namespace

DeviceLattice device_lattice(const Params& params, const ObstacleMask& mask, Precision precision,
                             const LaunchPlan& plan, const std::optional<Slab>& slab) {
  DeviceLattice out;
  out.lattice = params;
  out.halo_depth = slab ? slab_halo_rows(plan) : 0;
  if (slab) {
    out.lattice.ny = slab->rows + 2 * out.halo_depth;
    out.defines = kernel_defines(out.lattice, precision, plan, slab_kernel_rows(*slab, params.ny, out.halo_depth));
    out.obstacles = slab_mask(params, mask, *slab, out.halo_depth);
  } else {
    out.defines = kernel_defines(params, precision, plan);
    out.obstacles = mask;
    out.tile_order = blocked_tile_order(params, mask, plan);
  }
  const int group_rows = LaunchSchedule(plan, slab).group_rows();
  out.chunk_values = static_cast<std::size_t>(plan.chunk_steps) * plan.groups_x * group_rows *
                     params.extensions.sums_per_group();
  out.partial_values = 2 * out.chunk_values;
  return out;
}

StepLoop::StepLoop(Backend backend, Precision precision, const Params& params, const ObstacleMask& mask,
                   const LaunchPlan& plan, Decomposition decomposition, std::unique_ptr<LatticeDevice> device,
                   std::size_t sample_buffer_bytes)
    : backend_(backend),
      precision_(precision),
      params_(params),
      plan_(plan),
      links_(std::move(decomposition.links)),
      device_(std::move(device)),
      rows_(params_, precision, plan, std::move(decomposition.slabs), links_.get(), *device_),
      schedule_(plan, rows_.split() ? std::optional<Slab>(rows_.own()) : std::nullopt),
      sums_(*device_, rows_.split() ? links_.get() : nullptr, rows_.rank(), rows_.ranks(), precision,
            schedule_.num_groups(), params.extensions.sums_per_group(), mask.fluid_cells()),
      probes_(*device_, rows_, params_, plan, precision, sample_buffer_bytes) {
  if (split())
    halos_.emplace(*device_, *links_,
                   edge_buffer_bytes(rows_.halo_depth(), params.extensions.planes(),
                                     static_cast<std::size_t>(params.nx) * stored_size(precision)));
  device_->fill_at_rest(current_);
  // The chunks a whole run submits, for a backend that records them now
  // rather than in the timed loop (CUDA graphs), as the kernels' build is.
  if (!split()) device_->prepare(schedule_.run_sequences(current_, params.max_iters));
}

StepLoop::~StepLoop() {
  device_->drain();
  if (halos_) halos_->close();
}

std::string StepLoop::backend_name() const {
  return std::string(to_string(backend_)) + (split() ? "+mpi" : "");
}

std::string StepLoop::decomposition() const {
  if (!split()) return "";
  return std::to_string(rows_.ranks()) + " (slab rows, bottom to top: " + heights_text(rows_.slabs()) +
         (halos_->note().empty() ? "" : "; halos " + halos_->note()) + ")";
}

// The first step's acceleration runs alone, each later one inside the step
// before it. A slab's halo rows then take the accelerated state.
void StepLoop::accelerate_first_step() {
  if (!split() || slab_kernel_rows(rows_.own(), params_.ny, rows_.halo_depth()).accel_row >= 0)
    device_->accelerate(current_);
  if (split()) {
    halos_->read_edges(current_);
    halos_->exchange(current_);
  }
}

void StepLoop::launch_chunk(int half, int n, int first, bool ends, bool probe) {
  const bool sampling = probes_.sampling() && probes_.in_launches();
  std::vector<StepLaunch> launches = schedule_.chunk_launches(current_, half, n, first, ends || probe,
                                                              sampling && !probes_.inside() ? probes_.every() : 0);
  if (sampling) probes_.sample_in(launches);
  device_->launch(launches);
  current_ = (current_ + static_cast<int>(launches.size())) % 2;
  if (probe) {
    probes_.sample_now(current_, first + n);
    if (!ends && plan_.fused()) device_->accelerate(current_);
  }
}

// Each launch (one step, or blocked's several) on its edge bands first, so
// that their rows' exchange travels while the interior is updated. Probes
// are sampled in the bands' launches (blocked: each band's tiles their own)
// or after the step's last band.
void StepLoop::launch_slab_chunk(int half, int n, int first, bool ends_call, int run_end) {
  std::vector<StepLaunch> launches = schedule_.chunk_launches(
      current_, half, n, first, ends_call, probes_.sampling() && !probes_.inside() ? probes_.every() : 0);
  if (probes_.sampling()) probes_.sample_in(launches);
  const LaunchSchedule::Band& interior = schedule_.interior();
  for (const StepLaunch& l : launches) {
    const bool last = ends_call && l.step + l.steps == run_end;
    for (int e = 0; e < schedule_.edge_band_count(); ++e) {
      StepLaunch band = schedule_.band_launch(l, schedule_.edge_band(e));
      if (e + 1 < schedule_.edge_band_count() || interior.group_rows > 0) band.sample_after_row = -1;
      device_->launch({band});
    }
    if (!last) halos_->read_edges(1 - current_);
    if (interior.group_rows > 0) device_->launch({schedule_.band_launch(l, interior)});
    device_->flush();
    sums_.continue_sums(true, 0, l.steps);  // host work while the device runs the interior
    if (!last) halos_->exchange(1 - current_);
    current_ = 1 - current_;
  }
}

void StepLoop::abandon_run() {
  device_->drain();
  sums_.abandon_run();
  probes_.forget_pending();
}

void StepLoop::run(int steps, std::vector<double>& av_vels) {
  sums_.start_run(av_vels);
  const int first_step = static_cast<int>(av_vels.size());
  if (probes_.sampling()) probes_.reserve(first_step, steps);
  try {
    if (split() && !halos_->chosen()) halos_->choose_path();
    if (steps > 0 && plan_.fused()) accelerate_first_step();
    int half = 0;
    for (int done = 0; done < steps;) {
      bool probe = false;
      const int n = probes_.chunk_length(first_step + done, steps - done, probe);
      const int base = half * plan_.chunk_steps * schedule_.num_groups();
      device_->reuse_partials(static_cast<std::size_t>(base) * params_.extensions.sums_per_group());  // read back two chunks ago
      if (!split())
        launch_chunk(half, n, first_step + done, done + n == steps, probe);
      else
        launch_slab_chunk(half, n, first_step + done, done + n == steps, first_step + steps);
      sums_.read_chunk(base, n);
      done += n;
      half = 1 - half;
      // One device: the older chunk is summed while the device works on
      // this one. Slabs: the host runs at most two chunks ahead of the sums
      // (direct halos never hold it back): the partial sums' host slots stay few.
      device_->flush();
      sums_.continue_sums(false, split() ? 2 : 1);
    }
    device_->flush();
    sums_.finish_chunks();
    probes_.read_all();
  } catch (...) {
    abandon_run();
    throw;
  }
  sums_.end_run(steps);
}

}  // namespace d2q9
