#include "mpi/slab_solver.hpp"

#include <algorithm>
#include <deque>
#include <utility>

#include "device/kernel_source.hpp"
#include "problem/stability.hpp"
#include "io/state_rows.hpp"

namespace d2q9 {

namespace {

constexpr int kTagNorth = 1;  // data moving to the rank above
constexpr int kTagSouth = 2;  // data moving to the rank below
constexpr int kTagSums = 3;   // running sums of |u|, to the rank above
// Steps of partial sums a rank adds while its device runs one step: one, to
// keep pace, or two while older chunks wait, to catch up.
constexpr int kSumStepsPerPoll = 1;
constexpr int kCatchUpSumStepsPerPoll = 2;

// A range of whole work-group rows of the slab.
struct Band {
  int first_group_row = 0;
  int group_rows = 0;
};

int slab_group_rows(const Slab& slab, const LaunchPlan& plan) {
  return (slab.rows + plan.group_height() - 1) / plan.group_height();
}

class SlabSolver final : public Solver, public HoldsRows {
 public:
  SlabSolver(Backend backend, Precision precision, const Params& params, const ObstacleMask& mask,
             const LaunchPlan& plan, const std::vector<Slab>& slabs, MPI_Comm comm,
             std::unique_ptr<SlabDevice> device);

  Backend backend() const override { return backend_; }
  std::string backend_name() const override { return std::string(to_string(backend_)) + "+mpi"; }
  std::string device_name() const override { return device_->device_name(); }
  Precision precision() const override { return precision_; }
  std::optional<LaunchPlan> launch_plan() const override { return plan_; }
  std::string decomposition() const override {
    return std::to_string(ranks_) + " (slab rows, bottom to top: " + heights_text(slabs_) + ")";
  }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> take_body_forces() override { return std::exchange(body_forces_, {}); }
  std::vector<double> distributions() override;
  void load_distributions(const std::vector<double>& f) override;
  StateRows own_rows() override;

 private:
  void launch(const Band& band, int partial_base, bool accelerate_next, int step) {
    if (band.group_rows > 0)
      device_->collide(current_, band.first_group_row, band.group_rows,
                       partial_base + band.first_group_row * plan_.groups_x, accelerate_next, step);
  }
  // Sends lattice `state`'s edge rows (read into the edge buffers) to the
  // neighbours and queues what they sent into its halo rows.
  void exchange_halos(int state);
  void continue_sums(bool drain);

  Backend backend_;
  Precision precision_;
  Params params_;
  LaunchPlan plan_;  // the whole grid's
  std::vector<Slab> slabs_;
  Slab slab_;
  int rank_ = 0;
  int ranks_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::size_t real_size_;    // of the arithmetic and the partial sums
  std::size_t fluid_cells_;  // of the whole grid
  std::size_t local_cells_;  // of the slab's lattice, halo rows included
  std::size_t edge_bytes_;   // three rows as stored
  std::unique_ptr<SlabDevice> device_;
  SlabDevice::EdgeBuffers edges_;

  int current_ = 0;
  int num_groups_ = 0;        // this slab's
  Band edge_bands_[2];        // the group rows touching the halo rows (one band when the slab has one group row)
  int edge_band_count_ = 0;
  Band interior_;             // the rest: needs no halo, so it runs while halos travel
  // Per chunk of steps, the running sums of |u| over the grid's groups in
  // order: in from the rank below (zeros on rank 0), continued over this
  // slab's groups (which follow the lower slabs' in the grid's numbering),
  // out to the rank above. The top rank ends with the single-device sums.
  struct ChunkSums {
    int slot = 0;  // the device's host slot for this slab's partial sums, steps x num_groups_
    int steps = 0;
    const void* partials = nullptr;  // the slot's values, once they have arrived
    std::vector<double> sums;
    MPI_Request incoming = MPI_REQUEST_NULL;
    int continued = 0;  // steps whose sums include this slab's groups
  };
  std::deque<ChunkSums> chunks_;  // oldest first
  std::deque<std::pair<MPI_Request, std::vector<double>>> outgoing_sums_;
  std::vector<double> finished_sums_;  // top rank: this run() call's, in step order, sums_ per step
  int sums_ = 1;                       // per group and step: |u|, then Fx, Fy per measured body
  std::vector<double> body_forces_;    // the whole grid's, since take_body_forces()
};

// The slab's rows of the mask, halo rows included; of each link plane too.
ObstacleMask slab_mask(const Params& params, const ObstacleMask& mask, const Slab& slab) {
  ObstacleMask local(params.nx, slab.rows + 2);
  const std::size_t nx = static_cast<std::size_t>(params.nx);
  const std::size_t grid_cells = mask.kinds.size(), local_cells = local.kinds.size();
  if (!mask.links.empty()) local.links.resize(8 * local_cells);
  for (int row = 0; row < slab.rows + 2; ++row) {
    const std::size_t from = static_cast<std::size_t>((slab.first_row - 1 + row + params.ny) % params.ny) * nx;
    const std::size_t to = static_cast<std::size_t>(row) * nx;
    std::copy_n(mask.kinds.begin() + from, nx, local.kinds.begin() + to);
    for (std::size_t plane = 0; plane < 8 && !mask.links.empty(); ++plane)
      std::copy_n(mask.links.begin() + plane * grid_cells + from, nx, local.links.begin() + plane * local_cells + to);
  }
  return local;
}

SlabSolver::SlabSolver(Backend backend, Precision precision, const Params& params, const ObstacleMask& mask,
                       const LaunchPlan& plan, const std::vector<Slab>& slabs, MPI_Comm comm,
                       std::unique_ptr<SlabDevice> device)
    : backend_(backend),
      precision_(precision),
      params_(params),
      plan_(plan),
      slabs_(slabs),
      comm_(comm),
      real_size_(real_size(precision)),
      fluid_cells_(mask.fluid_cells()),
      device_(std::move(device)),
      edges_(device_->edge_buffers()) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  if (static_cast<int>(slabs_.size()) != ranks_)
    throw std::invalid_argument("slab solver: " + std::to_string(slabs_.size()) + " slabs for " +
                                std::to_string(ranks_) + " ranks");
  slab_ = slabs_[rank_];
  local_cells_ = static_cast<std::size_t>(slab_.rows + 2) * params.nx;
  edge_bytes_ = 3 * static_cast<std::size_t>(params.nx) * stored_size(precision);
  const int group_rows = slab_group_rows(slab_, plan_);
  num_groups_ = plan_.groups_x * group_rows;
  sums_ = params.extensions.sums_per_group();
  edge_bands_[0] = {0, 1};
  edge_band_count_ = 1;
  if (group_rows > 1) edge_bands_[edge_band_count_++] = {group_rows - 1, 1};
  interior_ = {1, std::max(0, group_rows - 2)};
  device_->fill_at_rest(current_);
}

void SlabSolver::exchange_halos(int state) {
  device_->wait_edges();
  const int below = (rank_ + ranks_ - 1) % ranks_;
  const int above = (rank_ + 1) % ranks_;
  const int bytes = static_cast<int>(edge_bytes_);
  MPI_Request requests[4];
  MPI_Irecv(edges_.from_below, bytes, MPI_BYTE, below, kTagNorth, comm_, &requests[0]);
  MPI_Irecv(edges_.from_above, bytes, MPI_BYTE, above, kTagSouth, comm_, &requests[1]);
  MPI_Isend(edges_.send_up, bytes, MPI_BYTE, above, kTagNorth, comm_, &requests[2]);
  MPI_Isend(edges_.send_down, bytes, MPI_BYTE, below, kTagSouth, comm_, &requests[3]);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  device_->write_halos(state);
}

void SlabSolver::run(int steps, std::vector<double>& av_vels) {
  finished_sums_.clear();
  const int first_step = static_cast<int>(av_vels.size());
  try {
    if (steps > 0) {
      // As the single-device fused variant: the first step's acceleration
      // runs alone, each later one inside the step before it. The halo rows
      // then take the accelerated state.
      if (slab_kernel_rows(slab_, params_.ny).accel_row >= 0) device_->accelerate(current_);
      device_->read_edges(current_);
      exchange_halos(current_);
    }
    int half = 0;
    for (int done = 0; done < steps;) {
      const int n = std::min(plan_.chunk_steps, steps - done);
      const int base = half * plan_.chunk_steps * num_groups_;
      device_->reuse_partials(static_cast<std::size_t>(base) * sums_);  // read back two chunks ago
      for (int t = 0; t < n; ++t) {
        const bool last = done + t + 1 == steps;
        const int partial_base = base + t * num_groups_;
        // The edge rows first, so that their exchange travels while the
        // interior is updated.
        const int step = first_step + done + t;
        for (int e = 0; e < edge_band_count_; ++e) launch(edge_bands_[e], partial_base, !last, step);
        if (!last) device_->read_edges(1 - current_);
        launch(interior_, partial_base, !last, step);
        device_->flush();
        continue_sums(false);  // host work while the device runs the interior
        if (!last) exchange_halos(1 - current_);
        current_ = 1 - current_;
      }
      chunks_.emplace_back();
      ChunkSums& c = chunks_.back();
      c.slot = device_->read_partials(static_cast<std::size_t>(base) * sums_,
                                      static_cast<std::size_t>(n) * num_groups_ * sums_);
      c.steps = n;
      c.sums.assign(static_cast<std::size_t>(n) * sums_, 0.0);
      if (rank_ > 0) MPI_Irecv(c.sums.data(), n * sums_, MPI_DOUBLE, rank_ - 1, kTagSums, comm_, &c.incoming);
      done += n;
      half = 1 - half;
    }
    device_->flush();
    continue_sums(true);
    for (auto& out : outgoing_sums_) MPI_Wait(&out.first, MPI_STATUS_IGNORE);
    outgoing_sums_.clear();
  } catch (...) {
    device_->drain();
    throw;
  }
  finished_sums_.resize(static_cast<std::size_t>(steps) * sums_);
  MPI_Bcast(finished_sums_.data(), steps * sums_, MPI_DOUBLE, ranks_ - 1, comm_);
  // Every rank holds the same values, so every rank stops at the same step.
  for (int t = 0; t < steps; ++t) {
    const double* sums = finished_sums_.data() + static_cast<std::size_t>(t) * sums_;
    av_vels.push_back(sums[0] / static_cast<double>(fluid_cells_));
    check_average_velocity(av_vels.back(), av_vels.size() - 1);
    body_forces_.insert(body_forces_.end(), sums + 1, sums + sums_);
  }
}

// Continues the oldest chunks' sums over this slab's groups, in group order:
// a little at a time between steps, or everything (`drain`, at the end).
void SlabSolver::continue_sums(bool drain) {
  while (!outgoing_sums_.empty()) {
    int sent = 0;
    MPI_Test(&outgoing_sums_.front().first, &sent, MPI_STATUS_IGNORE);
    if (!sent) break;
    outgoing_sums_.pop_front();
  }
  int budget = chunks_.size() > 1 ? kCatchUpSumStepsPerPoll : kSumStepsPerPoll;
  while (!chunks_.empty() && (drain || budget > 0)) {
    ChunkSums& c = chunks_.front();
    if (!c.partials) c.partials = device_->partials(c.slot, drain);
    if (!c.partials) return;
    if (c.incoming != MPI_REQUEST_NULL) {
      if (drain) {
        MPI_Wait(&c.incoming, MPI_STATUS_IGNORE);
      } else {
        int arrived = 0;
        MPI_Test(&c.incoming, &arrived, MPI_STATUS_IGNORE);
        if (!arrived) return;
      }
    }
    for (; c.continued < c.steps && (drain || budget > 0); ++c.continued, --budget) {
      // Each value's sum over the groups in order, as one device's read-back sums them.
      const std::size_t first = static_cast<std::size_t>(c.continued) * num_groups_ * sums_;
      for (int q = 0; q < sums_; ++q) {
        double sum = c.sums[static_cast<std::size_t>(c.continued) * sums_ + q];
        if (real_size_ == sizeof(float)) {
          const float* p = static_cast<const float*>(c.partials) + first + q;
          for (int g = 0; g < num_groups_; ++g) sum += p[static_cast<std::size_t>(g) * sums_];
        } else {
          const double* p = static_cast<const double*>(c.partials) + first + q;
          for (int g = 0; g < num_groups_; ++g) sum += p[static_cast<std::size_t>(g) * sums_];
        }
        c.sums[static_cast<std::size_t>(c.continued) * sums_ + q] = sum;
      }
    }
    if (c.continued < c.steps) return;
    if (rank_ + 1 < ranks_) {
      outgoing_sums_.emplace_back(MPI_REQUEST_NULL, std::move(c.sums));
      auto& out = outgoing_sums_.back();
      MPI_Isend(out.second.data(), static_cast<int>(out.second.size()), MPI_DOUBLE, rank_ + 1, kTagSums, comm_,
                &out.first);
    } else {
      finished_sums_.insert(finished_sums_.end(), c.sums.begin(), c.sums.end());
    }
    device_->release_partials(c.slot);
    chunks_.pop_front();
  }
}

StateRows SlabSolver::own_rows() {
  const std::vector<unsigned char> mine = device_->read_rows(current_, 1, slab_.rows);
  // Converted as one device's read-back converts them (16-bit codes too).
  return {slab_.first_row, slab_.rows,
          from_device_reals(mine.data(), kSpeeds * static_cast<std::size_t>(slab_.rows) * params_.nx, precision_,
                            params_.density)};
}

std::vector<double> SlabSolver::distributions() {
  const std::size_t own = static_cast<std::size_t>(slab_.rows) * params_.nx;
  const std::vector<unsigned char> mine = device_->read_rows(current_, 1, slab_.rows);
  const std::size_t value_bytes = stored_size(precision_);
  // Values as stored (16-bit codes too), so rank 0 converts them exactly as
  // one device's read-back would.
  const MPI_Datatype type = value_bytes == 2 ? MPI_UINT16_T : value_bytes == 4 ? MPI_FLOAT : MPI_DOUBLE;
  std::vector<int> counts(ranks_), displs(ranks_);
  for (int r = 0; r < ranks_; ++r) {
    counts[r] = slabs_[r].rows * params_.nx;
    displs[r] = slabs_[r].first_row * params_.nx;
  }
  const std::size_t cells = params_.cells();
  std::vector<unsigned char> all;
  if (rank_ == 0) all.resize(kSpeeds * cells * value_bytes);
  for (int k = 0; k < kSpeeds; ++k)
    MPI_Gatherv(mine.data() + k * own * value_bytes, static_cast<int>(own), type,
                rank_ == 0 ? all.data() + k * cells * value_bytes : nullptr, counts.data(), displs.data(), type, 0,
                comm_);
  if (rank_ != 0) return {};
  return from_device_reals(all.data(), kSpeeds * cells, precision_, params_.density);
}

void SlabSolver::load_distributions(const std::vector<double>& f) {
  const std::size_t cells = params_.cells();
  if (f.size() != kSpeeds * cells) throw std::invalid_argument("load_distributions: wrong number of values");
  std::vector<double> local(kSpeeds * local_cells_);
  for (int k = 0; k < kSpeeds; ++k)
    for (int row = 0; row < slab_.rows + 2; ++row) {
      const std::size_t global_row = static_cast<std::size_t>((slab_.first_row - 1 + row + params_.ny) % params_.ny);
      std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(k * cells + global_row * params_.nx), params_.nx,
                  local.begin() + static_cast<std::ptrdiff_t>(k * local_cells_ + row * params_.nx));
    }
  device_->upload(current_, local);
}

}  // namespace

SlabLattice slab_lattice(const Params& params, const ObstacleMask& mask, Precision precision, const LaunchPlan& plan,
                         const Slab& slab) {
  SlabLattice out;
  out.lattice = params;
  out.lattice.ny = slab.rows + 2;
  out.defines = kernel_defines(out.lattice, precision, plan, slab_kernel_rows(slab, params.ny));
  out.obstacles = slab_mask(params, mask, slab);
  out.chunk_values = static_cast<std::size_t>(plan.chunk_steps) * plan.groups_x * slab_group_rows(slab, plan) *
                     params.extensions.sums_per_group();
  out.partial_values = 2 * out.chunk_values;
  return out;
}

std::unique_ptr<Solver> make_slab_solver(Backend backend, Precision precision, const Params& params,
                                         const ObstacleMask& mask, const LaunchPlan& plan,
                                         const std::vector<Slab>& slabs, MPI_Comm comm,
                                         std::unique_ptr<SlabDevice> device) {
  return std::make_unique<SlabSolver>(backend, precision, params, mask, plan, slabs, comm, std::move(device));
}

}  // namespace d2q9
