#include "device/step_loop.hpp"

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "core/stopwatch.hpp"
#include "device/kernel_source.hpp"
#include "problem/stability.hpp"

namespace d2q9 {

namespace {

// Steps of partial sums a slab adds per step its device runs: one, to keep
// pace, or two while older chunks wait, to catch up (a blocked launch runs
// several steps: its poll adds as many).
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
    out.tile_order = blocked_tile_order(params, mask, plan);
  }
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
      slabs_(std::move(decomposition.slabs)),
      links_(std::move(decomposition.links)),
      fluid_cells_(mask.fluid_cells()),
      halo_depth_(slab_halo_rows(plan)),
      edge_bytes_(edge_buffer_bytes(halo_depth_, params.extensions.planes(),
                                    static_cast<std::size_t>(params.nx) * stored_size(precision))),
      device_(std::move(device)),
      edges_(device_->edge_buffers()),
      sample_buffer_bytes_(sample_buffer_bytes) {
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

StepLoop::~StepLoop() {
  device_->drain();
  if (direct_halos_) {
    // Every rank closes its neighbours' lattices before any rank frees its
    // own (CUDA: freeing memory another process has open is undefined). A
    // rank unwinding alone from a failure does not wait: MPI_Abort follows.
    device_->close_neighbours();
    if (std::uncaught_exceptions() == 0) links_->barrier();
  }
}

std::string StepLoop::backend_name() const {
  return std::string(to_string(backend_)) + (split() ? "+mpi" : "");
}

std::string StepLoop::decomposition() const {
  if (!split()) return "";
  return std::to_string(ranks_) + " (slab rows, bottom to top: " + heights_text(slabs_) +
         (halo_note_.empty() ? "" : "; halos " + halo_note_) + ")";
}

void StepLoop::choose_halo_path() {
  const std::string asked = std::getenv("D2Q9_HALOS") ? std::getenv("D2Q9_HALOS") : "";
  if (!asked.empty() && asked != "host" && asked != "copied" && asked != "mpi" && asked != "auto")
    throw DeviceError("D2Q9_HALOS must be auto, host (halo rows through host memory), copied (through host memory the "
                      "ranks share, copied by threads) or mpi (through host memory and MPI messages), not '" + asked + "'");
  // Each question is asked of every rank alike, so that all take one path.
  bool direct = links_->on_every_rank(asked.empty() || asked == "auto");
  std::string why_not = direct ? "" : "D2Q9_HALOS=" + asked;
  LatticeDevice::SharedLattice mine;
  if (direct) {
    mine = device_->share_lattice();
    direct = links_->on_every_rank(!mine.bytes.empty());
    if (!direct) why_not = mine.bytes.empty() ? mine.why_not : "another rank's device cannot share its lattice";
  }
  if (direct) {
    direct = links_->on_every_rank(links_->neighbours_on_this_host());
    if (!direct) why_not = "ranks on several hosts";
  }
  if (direct) {
    // The neighbours' bytes, or none where the neighbour is this rank (one rank's slab).
    auto [below, above] = links_->swap_with_neighbours(mine.bytes);
    if (ranks_ == 1) below.clear(), above.clear();
    const std::string failed = device_->open_neighbours(below, above);
    direct = links_->on_every_rank(failed.empty());
    if (!direct) {
      device_->close_neighbours();
      why_not = failed.empty() ? "another rank could not open its neighbours' lattices" : failed;
    }
  }
  direct_halos_ = direct;
  // Staged: through memory the ranks of one host share, or MPI messages.
  // Each device pins that memory where it can: its edge rows are read into
  // it and its halo rows written from the neighbours' parts, no host copy.
  // Else copied from one pinned buffer to the other by several threads,
  // because Open MPI's shared-memory messages copy in and out with one core,
  // which takes longer than a large slab's launch.
  const int copy_threads = !direct && asked != "mpi" ? links_->share_edges(edge_bytes_) : 0;
  const bool shared = copy_threads > 0;
  if (!direct && !shared && asked != "mpi") why_not += std::string(why_not.empty() ? "" : "; ") + "ranks on several hosts";
  if (shared && asked != "copied") {
    bool pinned = true;
    for (const auto& [memory, bytes] : links_->shared_memory()) pinned = pinned && device_->pin_host_memory(memory, bytes);
    in_place_ = links_->on_every_rank(pinned);
    if (!in_place_)
      why_not += std::string(why_not.empty() ? "" : "; ") +
                 (pinned ? "another rank's device cannot pin it" : "the device cannot pin it");
  }
  halo_path_ = direct ? "cuda-ipc" : in_place_ ? "host-shared" : shared ? "host-shared-copied" : "host-staging";
  halo_note_ = direct      ? "device to device (CUDA IPC)"
               : in_place_ ? "through host memory the ranks of one host share, pinned by each device (no host copies)"
               : shared    ? "through pinned host memory, shared by the ranks of one host, copied by " +
                              std::to_string(copy_threads) + (copy_threads == 1 ? " thread" : " threads")
                           : "through pinned host memory and MPI";
  if (!direct && !why_not.empty()) halo_note_ += " (" + why_not + ")";
}

void StepLoop::read_edges(int state) {
  if (in_place_) in_place_edges_ = links_->next_edges_in_place();
  device_->read_edges(state, in_place_ ? in_place_edges_ : edges_);
  // Marked on the device: the neighbours may now queue their copies of them.
  if (direct_halos_) links_->announce_marks(exchanges_);
}

std::vector<StepLaunch> StepLoop::chunk_launches(int state, int half, int steps, int first_step,
                                                 bool ends_call, int end_every) const {
  std::vector<StepLaunch> out;
  for (int t = 0; t < steps;) {
    StepLaunch l;
    l.state = state;
    l.first_group_row = 0;
    l.group_rows = group_rows_;
    // The blocked kernel runs any number up to its maximum.
    l.steps = plan_.variant == KernelVariant::Blocked ? std::min(plan_.block_steps, steps - t) : 1;
    if (end_every > 0) l.steps = std::min(l.steps, end_every - (first_step + t) % end_every);
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
  if (direct_halos_) {
    links_->await_marks(exchanges_++);
    device_->pull_halos(state);
    return;
  }
  Stopwatch watch;
  device_->wait_edges();
  halo_times_.read_wait_s += watch.lap();
  if (in_place_)
    links_->exchange_edges_in_place();
  else
    links_->exchange_edges(edges_, edge_bytes_);
  halo_times_.copies_s += watch.lap();
  device_->write_halos(state, in_place_ ? in_place_edges_ : edges_);
  halo_times_.write_queue_s += watch.lap();
  ++halo_times_.exchanges;
}

HaloTimes StepLoop::halo_times() const {
  HaloTimes t = halo_times_;
  if (links_ && !direct_halos_) {
    t.neighbour_wait_s = links_->neighbour_wait_s();
    t.copies_s -= t.neighbour_wait_s;
  }
  return t;
}

// Room for the run's samples at once, so that the loop pays for no vector
// copies and fresh pages as the samples grow.
void StepLoop::reserve_samples(int first_step, int steps) {
  const std::size_t rows = pending_steps_.size() + reading_steps_.size() +
                           static_cast<std::size_t>((first_step + steps) / sample_every_ - first_step / sample_every_);
  samples_.steps.reserve(samples_.steps.size() + rows);
  samples_.values.reserve(samples_.values.size() + rows * values_per_cell() * device_samples_);
}

// The first step's acceleration runs alone, each later one inside the step
// before it. A slab's halo rows then take the accelerated state.
void StepLoop::accelerate_first_step() {
  if (!split() || slab_kernel_rows(own_, params_.ny, halo_depth_).accel_row >= 0) device_->accelerate(current_);
  if (split()) {
    read_edges(current_);
    exchange_halos(current_);
  }
}

int StepLoop::chunk_length(int first, int left, bool& probe) {
  int n = std::min(plan_.chunk_steps, left);
  // Probes are sampled in and after the chunk's launches (sample_in);
  // one on the accelerated row ends the chunk at its step instead, to be
  // sampled as a run() that ended there would leave it: unaccelerated
  // (the next chunk then starts as a run() does).
  probe = false;
  if (sample_every_ > 0 && !sample_in_launches_) {
    const int to_probe = sample_every_ - first % sample_every_;
    if (to_probe <= n) n = to_probe, probe = true;
  } else if (sample_every_ > 0) {
    n = make_room_for_samples(first, n);
    // Chunks of whole periods of probes and launches sample alike, so
    // that CUDA replays their graphs; their launches start where those
    // of a run without probes do (whole launches a chunk).
    const int period = std::lcm(sample_every_, plan_.block_steps);
    if (samples_inside_ && plan_.chunk_steps % plan_.block_steps == 0 && n >= period) n -= n % period;
  }
  return n;
}

void StepLoop::launch_chunk(int half, int n, int first, bool ends, bool probe) {
  const bool sampling = sample_every_ > 0 && sample_in_launches_;
  std::vector<StepLaunch> launches = chunk_launches(current_, half, n, first, ends || probe,
                                                    sampling && !samples_inside_ ? sample_every_ : 0);
  if (sampling) sample_in(launches);
  device_->launch(launches);
  current_ = (current_ + static_cast<int>(launches.size())) % 2;
  if (probe) {
    sample_now(first + n);
    if (!ends && plan_.fused()) device_->accelerate(current_);
  }
}

// Each launch (one step, or blocked's several) on its edge bands first, so
// that their rows' exchange travels while the interior is updated. Probes
// are sampled in the bands' launches (blocked: each band's tiles their own)
// or after the step's last band.
void StepLoop::launch_slab_chunk(int half, int n, int first, bool ends_call, int run_end) {
  std::vector<StepLaunch> launches = chunk_launches(current_, half, n, first, ends_call,
                                                    sample_every_ > 0 && !samples_inside_ ? sample_every_ : 0);
  if (sample_every_ > 0) sample_in(launches);
  for (const StepLaunch& l : launches) {
    const bool last = ends_call && l.step + l.steps == run_end;
    for (int e = 0; e < edge_band_count_; ++e) {
      StepLaunch band = band_launch(l, edge_bands_[e]);
      if (e + 1 < edge_band_count_ || interior_.group_rows > 0) band.sample_after_row = -1;
      device_->launch({band});
    }
    if (!last) read_edges(1 - current_);
    if (interior_.group_rows > 0) device_->launch({band_launch(l, interior_)});
    device_->flush();
    continue_sums(true, 0, l.steps);  // host work while the device runs the interior
    if (!last) exchange_halos(1 - current_);
    current_ = 1 - current_;
  }
}

void StepLoop::read_chunk_partials(int base, int n) {
  chunks_.emplace_back();
  ChunkSums& c = chunks_.back();
  c.slot = device_->read_partials(static_cast<std::size_t>(base) * sums_,
                                  static_cast<std::size_t>(n) * num_groups_ * sums_);
  c.steps = n;
  c.sums.assign(static_cast<std::size_t>(n) * sums_, 0.0);
  if (rank_ > 0) c.incoming = links_->receive_sums_from_below(c.sums.data(), n * sums_);
}

void StepLoop::abandon_run() {
  device_->drain();
  for (ChunkSums& c : chunks_) device_->release_partials(c.slot);
  chunks_.clear();
  av_vels_ = nullptr;
  pending_steps_.clear();  // the steps they followed may not have run
}

void StepLoop::run(int steps, std::vector<double>& av_vels) {
  finished_sums_.clear();
  av_vels_ = &av_vels;
  const int first_step = static_cast<int>(av_vels.size());
  if (sample_every_ > 0) reserve_samples(first_step, steps);
  try {
    if (split() && halo_path_.empty()) choose_halo_path();
    if (steps > 0 && plan_.fused()) accelerate_first_step();
    int half = 0;
    for (int done = 0; done < steps;) {
      bool probe = false;
      const int n = chunk_length(first_step + done, steps - done, probe);
      const int base = half * plan_.chunk_steps * num_groups_;
      device_->reuse_partials(static_cast<std::size_t>(base) * sums_);  // read back two chunks ago
      if (!split())
        launch_chunk(half, n, first_step + done, done + n == steps, probe);
      else
        launch_slab_chunk(half, n, first_step + done, done + n == steps, first_step + steps);
      read_chunk_partials(base, n);
      done += n;
      half = 1 - half;
      if (!split()) {
        // The older chunk is summed while the device works on this one.
        device_->flush();
        continue_sums(false, 1);
      } else {
        // The host runs at most two chunks ahead of the sums (direct halos
        // never hold it back): the partial sums' host slots stay few.
        device_->flush();
        continue_sums(false, 2);
      }
    }
    device_->flush();
    continue_sums(false, 0);
    for (auto& out : outgoing_sums_) links_->done(out.first, true);
    outgoing_sums_.clear();
    read_samples();
  } catch (...) {
    abandon_run();
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

void StepLoop::continue_sums(bool poll, std::size_t keep, int pace) {
  while (!outgoing_sums_.empty() && links_->done(outgoing_sums_.front().first, false)) outgoing_sums_.pop_front();
  int budget = (chunks_.size() > 1 ? kCatchUpSumStepsPerPoll : kSumStepsPerPoll) * pace;
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
          from_device_reals(mine.data(), params_.extensions.planes() * static_cast<std::size_t>(own_.rows) * params_.nx, precision_,
                            params_)};
}

std::vector<double> StepLoop::distributions() {
  if (!split()) return own_rows().f;
  const std::vector<unsigned char> mine = device_->read_rows(current_, halo_depth_, own_.rows);
  // Values as stored (16-bit codes too), so rank 0 converts them exactly as
  // one device's read-back would.
  const std::vector<unsigned char> all = links_->gather_planes(mine, slabs_, params_.nx, params_.extensions.planes(),
                                                                   stored_size(precision_));
  if (rank_ != 0) return {};
  return from_device_reals(all.data(), params_.extensions.planes() * params_.cells(), precision_, params_);
}

// Nine small reads per cell, not the whole lattice (probes every few steps).
// Split: each rank reads the cells in its own rows and gather_cells makes
// them whole.
std::optional<std::size_t> StepLoop::lattice_cell(std::size_t cell) const {
  const std::size_t nx = static_cast<std::size_t>(params_.nx);
  const int row = static_cast<int>(cell / nx);
  if (row < own_.first_row || row >= own_.first_row + own_.rows) return std::nullopt;
  return static_cast<std::size_t>(row - own_.first_row + (split() ? halo_depth_ : 0)) * nx + cell % nx;
}

std::vector<double> StepLoop::cell_distributions(const std::vector<std::size_t>& cells) {
  const int planes = values_per_cell();
  if (!split()) return cells_from_device(device_->read_cells(current_, cells), cells.size(), planes, precision_, params_);
  std::vector<std::size_t> local;
  std::vector<bool> mine(cells.size(), false);
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (const auto at = lattice_cell(cells[i])) {
      local.push_back(*at);
      mine[i] = true;
    }
  std::vector<double> values(planes * cells.size(), 0.0);
  if (!local.empty()) {
    const std::vector<double> f = cells_from_device(device_->read_cells(current_, local), local.size(), planes,
                                                    precision_, params_);
    for (std::size_t i = 0, j = 0; i < cells.size(); ++i)
      if (mine[i]) std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(planes * j++), planes,
                               values.begin() + static_cast<std::ptrdiff_t>(planes * i));
  }
  gather_cells(values, mine);
  if (rank_ != 0) return {};
  return values;
}

void StepLoop::gather_cells(std::vector<double>& values, const std::vector<bool>& mine) {
  const std::size_t cells = mine.size();
  if (cells == 0 || values.empty()) return;
  // In pieces of whole rows that MPI counts in an int.
  const std::size_t per_cell = static_cast<std::size_t>(values_per_cell()), row = per_cell * cells;
  const std::size_t piece = std::max<std::size_t>(1, (std::size_t{1} << 26) / row) * row;
  std::vector<double> below;
  for (std::size_t first = 0; first < values.size(); first += piece) {
    const int count = static_cast<int>(std::min(piece, values.size() - first));
    double* part = values.data() + first;
    if (rank_ > 0) {
      // The cells another rank owns come from below as they are (not added:
      // a -0.0 stays one).
      below.resize(static_cast<std::size_t>(count));
      links_->done(links_->receive_sums_from_below(below.data(), count), true);
      for (std::size_t v = 0; v < below.size(); ++v)
        if (!mine[(v % row) / per_cell]) part[v] = below[v];
    }
    if (rank_ + 1 < ranks_) links_->done(links_->send_sums_up(part, count), true);
    links_->broadcast_from_top(part, count);
  }
}

// A few megabytes of samples on the device at most (unless
// DeviceConfig::sample_buffer_bytes says otherwise): read back whenever full.
constexpr std::size_t kSampleBytes = std::size_t{16} << 20;
constexpr int kMaxSampleRows = 4096;

bool StepLoop::sample_cells_every(const std::vector<std::size_t>& cells, int every) {
  read_samples();
  // Sampled inside and after launches (blocked: between its steps) where the
  // state holds the next step's acceleration on the accelerated row already:
  // a probe there ends the chunk instead, unaccelerated, on one device; a
  // split grid leaves those to its caller (cell_distributions at its steps).
  const std::size_t nx = static_cast<std::size_t>(params_.nx), accel_row = static_cast<std::size_t>(params_.ny - 2);
  sample_in_launches_ = std::none_of(cells.begin(), cells.end(), [&](std::size_t c) { return c / nx == accel_row; });
  const bool sampling = every > 0 && !cells.empty() && (!split() || sample_in_launches_);
  sample_count_ = sampling ? cells.size() : 0;
  sample_every_ = sampling ? every : 0;
  // A slab's device samples the probes in its own rows.
  own_probes_.clear();
  std::vector<std::size_t> device_cells;
  for (std::size_t i = 0; i < sample_count_; ++i)
    if (const auto at = lattice_cell(cells[i])) {
      device_cells.push_back(*at);
      own_probes_.push_back(i);
    }
  device_samples_ = device_cells.size();
  // Between a blocked launch's steps where its kernel can; else launches end at them.
  // (A tile keeps a probe's column in 15 bits: cl/d2q9_bgk.cl, my_probe.)
  samples_inside_ = blocked_samples_inside(params_, plan_) && cells.size() < (std::size_t{1} << 15);
  const std::size_t row_bytes = std::max<std::size_t>(1, values_per_cell() * sample_count_ * stored_size(precision_));
  const std::size_t buffer_bytes = sample_buffer_bytes_ > 0 ? sample_buffer_bytes_ : kSampleBytes;
  sample_rows_ = static_cast<int>(std::clamp<std::size_t>(buffer_bytes / row_bytes / 2, 1, kMaxSampleRows / 2));
  sample_base_ = 0;
  device_->set_sample_cells(device_cells, 2 * sample_rows_);
  return sampling;
}

int StepLoop::make_room_for_samples(int first, int steps) {
  const int to_first = sample_every_ - first % sample_every_;
  steps = std::min(steps, to_first + (sample_rows_ - 1) * sample_every_);  // one half's rows at most
  const int rows = (first + steps) / sample_every_ - first / sample_every_;
  if (static_cast<int>(pending_steps_.size()) + rows > sample_rows_) flip_samples();
  return steps;
}

void StepLoop::sample_in(std::vector<StepLaunch>& launches) {
  // A slab without probes keeps the steps alone (its rows are empty).
  const bool device_samples = device_samples_ > 0;
  for (StepLaunch& l : launches) {
    const int to_first = sample_every_ - l.step % sample_every_;
    if (to_first > l.steps) continue;
    if (samples_inside_) {
      // The blocked kernel samples after its steps to_first, to_first + every, ..., its last included.
      if (device_samples) {
        l.sample_first = to_first;
        l.sample_every = sample_every_;
        l.sample_row = sample_base_ + static_cast<int>(pending_steps_.size());
      }
      for (int s = to_first; s <= l.steps; s += sample_every_) pending_steps_.push_back(l.step + s);
      continue;
    }
    if (to_first < l.steps) throw std::logic_error("step loop: a launch runs past a probe's step");
    if (device_samples) l.sample_after_row = sample_base_ + static_cast<int>(pending_steps_.size());  // sample_cells after the launch
    pending_steps_.push_back(l.step + l.steps);
  }
}

void StepLoop::sample_now(int step) {
  device_->sample(current_, sample_base_ + static_cast<int>(pending_steps_.size()));
  pending_steps_.push_back(step);
  if (static_cast<int>(pending_steps_.size()) == sample_rows_) flip_samples();
}

// The half being filled starts its read and the other half, whose read
// (started a half's worth of samples ago) is taken first, is filled next:
// the device never waits for the host's reads.
void StepLoop::flip_samples() {
  take_samples_read();
  if (pending_steps_.empty()) return;
  device_->read_samples(sample_base_, static_cast<int>(pending_steps_.size()));
  reading_steps_ = std::exchange(pending_steps_, {});
  sample_base_ = sample_rows_ - sample_base_;
}

void StepLoop::take_samples_read() {
  if (reading_steps_.empty()) return;
  const std::vector<unsigned char> raw = device_->samples_read();
  const int planes = values_per_cell();
  const std::size_t row_bytes = planes * device_samples_ * stored_size(precision_);
  for (std::size_t r = 0; r < reading_steps_.size(); ++r) {
    // Converted as read_cells' values are: the same bytes in probes.csv.
    // (Row by row in place, because a vector per row, and a file read per
    // row finding the threads to convert with, would leave the device idle.)
    if (device_samples_ > 0)
      append_cells_from_device(raw.data() + r * row_bytes, device_samples_, planes, precision_, params_,
                               samples_.values);
    samples_.steps.push_back(reading_steps_[r]);
  }
  reading_steps_.clear();
}

void StepLoop::read_samples() {
  flip_samples();
  take_samples_read();
}

Solver::CellSamples StepLoop::take_cell_samples() {
  read_samples();
  CellSamples taken = std::exchange(samples_, {});
  if (!split() || sample_count_ == 0) return taken;
  // This rank's probes into their columns of every row, and the rows made whole.
  const std::size_t rows = taken.steps.size(), own = own_probes_.size();
  const std::size_t planes = static_cast<std::size_t>(values_per_cell());
  std::vector<double> values(rows * planes * sample_count_, 0.0);
  std::vector<bool> mine(sample_count_, false);
  for (std::size_t p : own_probes_) mine[p] = true;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < own; ++j)
      std::copy_n(taken.values.begin() + static_cast<std::ptrdiff_t>((r * own + j) * planes), planes,
                  values.begin() + static_cast<std::ptrdiff_t>((r * sample_count_ + own_probes_[j]) * planes));
  gather_cells(values, mine);
  taken.values = rank_ == 0 ? std::move(values) : std::vector<double>{};
  return taken;
}

void StepLoop::load_distributions(const std::vector<double>& f) {
  const std::size_t cells = params_.cells();
  const int planes = params_.extensions.planes();
  if (f.size() != planes * cells) throw std::invalid_argument("load_distributions: wrong number of values");
  if (!split()) {
    device_->upload(current_, f);
    return;
  }
  const int lattice_rows = own_.rows + 2 * halo_depth_;  // halo rows included
  const std::size_t local_cells = static_cast<std::size_t>(lattice_rows) * params_.nx;
  std::vector<double> local(planes * local_cells);
  for (int k = 0; k < planes; ++k)
    for (int row = 0; row < lattice_rows; ++row) {
      const std::size_t global_row = grid_row_of(own_, halo_depth_, row, params_.ny);
      std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(k * cells + global_row * params_.nx), params_.nx,
                  local.begin() + static_cast<std::ptrdiff_t>(k * local_cells + row * params_.nx));
    }
  device_->upload(current_, local);
}

}  // namespace d2q9
