#include "device/step_loop.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "device/kernel_source.hpp"
#include "problem/stability.hpp"

namespace d2q9 {

namespace {

// Steps of partial sums a slab adds while its device runs one step: one, to
// keep pace, or two while older chunks wait, to catch up.
constexpr int kSumStepsPerPoll = 1;
constexpr int kCatchUpSumStepsPerPoll = 2;

int group_rows_of(int rows, const LaunchPlan& plan) { return (rows + plan.group_height() - 1) / plan.group_height(); }

// The grid's row of row `row` of a slab's lattice with `halo` halo rows each side.
std::size_t grid_row_of(const Slab& slab, int halo, int row, int ny) {
  return static_cast<std::size_t>(((slab.first_row - halo + row) % ny + ny) % ny);
}

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
  int group_rows = plan.groups_y;
  if (slab) {
    out.lattice.ny = slab->rows + 2 * out.halo_depth;
    out.defines = kernel_defines(out.lattice, precision, plan, slab_kernel_rows(*slab, params.ny, out.halo_depth));
    out.obstacles = slab_mask(params, mask, *slab, out.halo_depth);
    group_rows = group_rows_of(slab->rows, plan);
  } else {
    out.defines = kernel_defines(params, precision, plan);
    out.obstacles = mask;
  }
  out.chunk_values = static_cast<std::size_t>(plan.chunk_steps) * plan.groups_x * group_rows *
                     params.extensions.sums_per_group();
  out.partial_values = 2 * out.chunk_values;
  return out;
}

StepLoop::StepLoop(Backend backend, Precision precision, const Params& params, const ObstacleMask& mask,
                   const LaunchPlan& plan, Decomposition decomposition, std::unique_ptr<LatticeDevice> device)
    : backend_(backend),
      precision_(precision),
      params_(params),
      plan_(plan),
      slabs_(std::move(decomposition.slabs)),
      links_(std::move(decomposition.links)),
      fluid_cells_(mask.fluid_cells()),
      halo_depth_(slab_halo_rows(plan)),
      edge_bytes_(edge_buffer_bytes(halo_depth_, static_cast<std::size_t>(params.nx) * stored_size(precision))),
      device_(std::move(device)),
      edges_(device_->edge_buffers()) {
  if (split()) {
    if (!links_) throw std::invalid_argument("step loop: slabs without links between the ranks");
    rank_ = links_->rank();
    ranks_ = links_->ranks();
    if (static_cast<int>(slabs_.size()) != ranks_)
      throw std::invalid_argument("step loop: " + std::to_string(slabs_.size()) + " slabs for " +
                                  std::to_string(ranks_) + " ranks");
    own_ = slabs_[rank_];
    group_rows_ = group_rows_of(own_.rows, plan_);
  } else {
    own_ = {0, params.ny};
    group_rows_ = plan_.groups_y;
  }
  num_groups_ = plan_.groups_x * group_rows_;
  sums_ = params.extensions.sums_per_group();
  if (split()) {
    // The group rows holding the own rows the neighbours' halos take (the
    // bottom and top halo_depth_ rows), and the rest between them.
    const int bottom_end = std::min(group_rows_, (halo_depth_ - 1) / plan_.group_height() + 1);
    const int top_first = std::max(bottom_end, (own_.rows - halo_depth_) / plan_.group_height());
    edge_bands_[edge_band_count_++] = {0, bottom_end};
    if (top_first < group_rows_) edge_bands_[edge_band_count_++] = {top_first, group_rows_ - top_first};
    interior_ = {bottom_end, top_first - bottom_end};
  }
  device_->fill_at_rest(current_);
  if (!split()) {
    // The chunks a whole run submits, for a backend that records them now
    // rather than in the timed loop (CUDA graphs), as the kernels' build is.
    // Each distinct one once: a long run's chunks repeat after four at most
    // (the state's parity and the half of the partial buffer), so the list
    // stays a few sequences long however many steps the run has.
    std::vector<std::vector<StepLaunch>> sequences;
    std::set<std::tuple<int, int, int, bool>> seen;  // state, half, steps, ends the run
    int state = current_, half = 0;
    for (int done = 0; done < params.max_iters;) {
      const int n = std::min(plan_.chunk_steps, params.max_iters - done);
      const bool last = done + n == params.max_iters;
      if (seen.insert({state, half, n, last}).second) sequences.push_back(chunk_launches(state, half, n, done, last));
      state = (state + plan_.launches(n)) % 2;
      half = 1 - half;
      done += n;
    }
    device_->prepare(sequences);
  }
}

StepLoop::~StepLoop() { device_->drain(); }

std::string StepLoop::backend_name() const {
  return std::string(to_string(backend_)) + (split() ? "+mpi" : "");
}

std::string StepLoop::decomposition() const {
  if (!split()) return "";
  return std::to_string(ranks_) + " (slab rows, bottom to top: " + heights_text(slabs_) + ")";
}

std::vector<StepLaunch> StepLoop::chunk_launches(int state, int half, int steps, int first_step,
                                                 bool ends_call) const {
  std::vector<StepLaunch> out;
  for (int t = 0; t < steps;) {
    StepLaunch l;
    l.state = state;
    l.first_group_row = 0;
    l.group_rows = group_rows_;
    // The blocked kernel runs any number up to its maximum.
    l.steps = plan_.variant == KernelVariant::Blocked ? std::min(plan_.block_steps, steps - t) : 1;
    l.accelerate_before = !plan_.fused();
    l.accelerate_next = plan_.fused() && !(ends_call && t + l.steps == steps);
    l.partial_offset = (half * plan_.chunk_steps + t) * num_groups_;
    l.step = first_step + t;
    out.push_back(l);
    state = 1 - state;
    t += l.steps;
  }
  return out;
}

StepLaunch StepLoop::band_launch(const StepLaunch& launch, const Band& band) const {
  StepLaunch l = launch;
  l.first_group_row = band.first_group_row;
  l.group_rows = band.group_rows;
  l.partial_offset = launch.partial_offset + band.first_group_row * plan_.groups_x;
  return l;
}

void StepLoop::exchange_halos(int state) {
  device_->wait_edges();
  links_->exchange_edges(edges_, edge_bytes_);
  device_->write_halos(state);
}

void StepLoop::run(int steps, std::vector<double>& av_vels) {
  finished_sums_.clear();
  av_vels_ = &av_vels;
  const int first_step = static_cast<int>(av_vels.size());
  try {
    if (steps > 0 && plan_.fused()) {
      // The first step's acceleration runs alone, each later one inside the
      // step before it. A slab's halo rows then take the accelerated state.
      if (!split() || slab_kernel_rows(own_, params_.ny, halo_depth_).accel_row >= 0) device_->accelerate(current_);
      if (split()) {
        device_->read_edges(current_);
        exchange_halos(current_);
      }
    }
    int half = 0;
    for (int done = 0; done < steps;) {
      const int n = std::min(plan_.chunk_steps, steps - done);
      const int base = half * plan_.chunk_steps * num_groups_;
      device_->reuse_partials(static_cast<std::size_t>(base) * sums_);  // read back two chunks ago
      if (!split()) {
        const std::vector<StepLaunch> launches = chunk_launches(current_, half, n, first_step + done, done + n == steps);
        device_->launch(launches);
        current_ = (current_ + static_cast<int>(launches.size())) % 2;
      } else {
        // Each launch (one step, or blocked's several) on its edge bands
        // first, so that their rows' exchange travels while the interior is
        // updated.
        const bool ends_call = done + n == steps;
        for (const StepLaunch& l : chunk_launches(current_, half, n, first_step + done, ends_call)) {
          const bool last = ends_call && l.step + l.steps == first_step + steps;
          for (int e = 0; e < edge_band_count_; ++e) device_->launch({band_launch(l, edge_bands_[e])});
          if (!last) device_->read_edges(1 - current_);
          if (interior_.group_rows > 0) device_->launch({band_launch(l, interior_)});
          device_->flush();
          continue_sums(true, 0);  // host work while the device runs the interior
          if (!last) exchange_halos(1 - current_);
          current_ = 1 - current_;
        }
      }
      chunks_.emplace_back();
      ChunkSums& c = chunks_.back();
      c.slot = device_->read_partials(static_cast<std::size_t>(base) * sums_,
                                      static_cast<std::size_t>(n) * num_groups_ * sums_);
      c.steps = n;
      c.sums.assign(static_cast<std::size_t>(n) * sums_, 0.0);
      if (rank_ > 0) c.incoming = links_->receive_sums_from_below(c.sums.data(), n * sums_);
      done += n;
      half = 1 - half;
      if (!split()) {
        // The older chunk is summed while the device works on this one.
        device_->flush();
        continue_sums(false, 1);
      }
    }
    device_->flush();
    continue_sums(false, 0);
    for (auto& out : outgoing_sums_) links_->done(out.first, true);
    outgoing_sums_.clear();
  } catch (...) {
    device_->drain();
    for (ChunkSums& c : chunks_) device_->release_partials(c.slot);
    chunks_.clear();
    av_vels_ = nullptr;
    throw;
  }
  if (split()) {
    finished_sums_.resize(static_cast<std::size_t>(steps) * sums_);
    links_->broadcast_from_top(finished_sums_.data(), steps * sums_);
    // Every rank holds the same values, so every rank stops at the same step.
    append(finished_sums_.data(), steps);
  }
  av_vels_ = nullptr;
}

void StepLoop::append(const double* sums, int steps) {
  for (int t = 0; t < steps; ++t) {
    const double* step = sums + static_cast<std::size_t>(t) * sums_;
    av_vels_->push_back(step[0] / static_cast<double>(fluid_cells_));
    check_average_velocity(av_vels_->back(), av_vels_->size() - 1);
    body_forces_.insert(body_forces_.end(), step + 1, step + sums_);
  }
}

void StepLoop::finish_sums(std::vector<double>& sums) {
  if (split()) {
    finished_sums_.insert(finished_sums_.end(), sums.begin(), sums.end());
    return;
  }
  append(sums.data(), static_cast<int>(sums.size()) / sums_);
}

void StepLoop::continue_sums(bool poll, std::size_t keep) {
  while (!outgoing_sums_.empty() && links_->done(outgoing_sums_.front().first, false)) outgoing_sums_.pop_front();
  int budget = chunks_.size() > 1 ? kCatchUpSumStepsPerPoll : kSumStepsPerPoll;
  while (chunks_.size() > keep && (!poll || budget > 0)) {
    ChunkSums& c = chunks_.front();
    if (!c.partials) c.partials = device_->partials(c.slot, !poll);
    if (!c.partials) return;
    if (c.incoming >= 0) {
      if (!links_->done(c.incoming, !poll)) return;
      c.incoming = -1;
    }
    for (; c.continued < c.steps && (!poll || budget > 0); ++c.continued, --budget) {
      // Each value's sum over the groups in order, as one device's read-back sums them.
      const std::size_t first = static_cast<std::size_t>(c.continued) * num_groups_ * sums_;
      for (int q = 0; q < sums_; ++q) {
        double sum = c.sums[static_cast<std::size_t>(c.continued) * sums_ + q];
        if (precision_ == Precision::Double) {
          const double* p = static_cast<const double*>(c.partials) + first + q;
          for (int g = 0; g < num_groups_; ++g) sum += p[static_cast<std::size_t>(g) * sums_];
        } else {
          const float* p = static_cast<const float*>(c.partials) + first + q;
          for (int g = 0; g < num_groups_; ++g) sum += p[static_cast<std::size_t>(g) * sums_];
        }
        c.sums[static_cast<std::size_t>(c.continued) * sums_ + q] = sum;
      }
    }
    if (c.continued < c.steps) return;
    device_->release_partials(c.slot);
    std::vector<double> sums = std::move(c.sums);
    chunks_.pop_front();
    if (rank_ + 1 < ranks_) {
      outgoing_sums_.emplace_back(-1, std::move(sums));
      auto& out = outgoing_sums_.back();
      out.first = links_->send_sums_up(out.second.data(), static_cast<int>(out.second.size()));
    } else {
      finish_sums(sums);  // may throw InstabilityError (one device)
    }
  }
}

StateRows StepLoop::own_rows() {
  const std::vector<unsigned char> mine = device_->read_rows(current_, split() ? halo_depth_ : 0, own_.rows);  // past a slab's halo rows
  // Converted as one device's read-back converts them (16-bit codes too).
  return {own_.first_row, own_.rows,
          from_device_reals(mine.data(), kSpeeds * static_cast<std::size_t>(own_.rows) * params_.nx, precision_,
                            params_.density)};
}

std::vector<double> StepLoop::distributions() {
  if (!split()) return own_rows().f;
  const std::vector<unsigned char> mine = device_->read_rows(current_, halo_depth_, own_.rows);
  // Values as stored (16-bit codes too), so rank 0 converts them exactly as
  // one device's read-back would.
  const std::vector<unsigned char> all = links_->gather_planes(mine, slabs_, params_.nx, stored_size(precision_));
  if (rank_ != 0) return {};
  return from_device_reals(all.data(), kSpeeds * params_.cells(), precision_, params_.density);
}

// One device: nine small reads per cell, not the whole lattice (probes every
// few steps); split, from the gathered grid.
std::vector<double> StepLoop::cell_distributions(const std::vector<std::size_t>& cells) {
  if (split()) return Solver::cell_distributions(cells);
  return cells_from_device(device_->read_cells(current_, cells), cells.size(), precision_, params_.density);
}

void StepLoop::load_distributions(const std::vector<double>& f) {
  const std::size_t cells = params_.cells();
  if (f.size() != kSpeeds * cells) throw std::invalid_argument("load_distributions: wrong number of values");
  if (!split()) {
    device_->upload(current_, f);
    return;
  }
  const int lattice_rows = own_.rows + 2 * halo_depth_;  // halo rows included
  const std::size_t local_cells = static_cast<std::size_t>(lattice_rows) * params_.nx;
  std::vector<double> local(kSpeeds * local_cells);
  for (int k = 0; k < kSpeeds; ++k)
    for (int row = 0; row < lattice_rows; ++row) {
      const std::size_t global_row = grid_row_of(own_, halo_depth_, row, params_.ny);
      std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(k * cells + global_row * params_.nx), params_.nx,
                  local.begin() + static_cast<std::ptrdiff_t>(k * local_cells + row * params_.nx));
    }
  device_->upload(current_, local);
}

}  // namespace d2q9
