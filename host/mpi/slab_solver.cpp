#include "mpi/slab_solver.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <sstream>

#include "device/kernel_source.hpp"
#include "model/stability.hpp"
#include "model/state_rows.hpp"
#include "opencl/cl_common.hpp"
#include "opencl/opencl_lattice.hpp"

namespace d2q9 {

namespace {

// Speeds a slab's top row sends up (into the upper neighbour's bottom halo row)
// and its bottom row sends down: exactly what the pull stencil reads across a
// slab edge.
constexpr std::array<int, 3> kNorthGoing = {2, 5, 6};
constexpr std::array<int, 3> kSouthGoing = {4, 7, 8};
constexpr int kTagNorth = 1;  // data moving to the rank above
constexpr int kTagSouth = 2;  // data moving to the rank below
constexpr int kTagSums = 3;   // running sums of |u|, to the rank above
// Steps of partial sums a rank adds while its device runs one step: one, to
// keep pace, or two while older chunks wait, to catch up.
constexpr int kSumStepsPerPoll = 1;
constexpr int kCatchUpSumStepsPerPoll = 2;

// A range of whole work-group rows of the slab, launched with a global offset.
struct Band {
  int first_group_row = 0;
  int group_rows = 0;
};

class SlabSolver final : public Solver, public HoldsRows {
 public:
  SlabSolver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config, const LaunchPlan& plan,
             const std::vector<Slab>& slabs, MPI_Comm comm);

  Backend backend() const override { return Backend::OpenCL; }
  std::string backend_name() const override { return "opencl+mpi"; }
  std::string device_name() const override { return lattice_.device_name; }
  Precision precision() const override { return precision_; }
  std::optional<LaunchPlan> launch_plan() const override { return plan_; }
  std::string decomposition() const override {
    return std::to_string(ranks_) + " (slab rows, bottom to top: " + heights_text(slabs_) + ")";
  }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> distributions() override;
  void load_distributions(const std::vector<double>& f) override;
  StateRows own_rows() override;

 private:
  // This slab's own rows of the current state as stored (all nine planes).
  std::vector<unsigned char> read_own_rows();
  std::size_t offset_bytes(int speed, int row) const {
    return (static_cast<std::size_t>(speed) * local_cells_ + static_cast<std::size_t>(row) * params_.nx) * stored_size_;
  }
  void launch(int b, const Band& band, int partial_base, bool accelerate_next);
  void exchange_halos();
  void continue_sums(bool drain);

  Params params_;
  Params local_params_;  // the slab with its two halo rows: ny = rows + 2
  LaunchPlan plan_;      // the whole grid's
  std::vector<Slab> slabs_;
  Slab slab_;
  int rank_ = 0;
  int ranks_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Precision precision_;
  std::size_t real_size_;    // of the arithmetic and the partial sums
  std::size_t stored_size_;  // of a stored distribution (2 with 16-bit storage)
  std::size_t fluid_cells_;  // of the whole grid
  std::size_t local_cells_;
  std::size_t row_bytes_;
  OpenCLLattice lattice_;

  int current_ = 0;
  int group_rows_ = 0;
  int num_groups_ = 0;        // this slab's
  Band edge_bands_[2];        // the group rows touching the halo rows (one band when the slab has one group row)
  int edge_band_count_ = 0;
  Band interior_;             // the rest: needs no halo, so it runs while halos travel
  // Per chunk of steps, the running sums of |u| over the grid's groups in
  // order: in from the rank below (zeros on rank 0), continued over this
  // slab's groups (which follow the lower slabs' in the grid's numbering),
  // out to the rank above. The top rank ends with the single-device sums.
  struct ChunkSums {
    int steps = 0;
    std::vector<unsigned char> partials;  // this slab's, steps x num_groups_
    cl::Event read_done;
    bool read_complete = false;
    std::vector<double> sums;
    MPI_Request incoming = MPI_REQUEST_NULL;
    int continued = 0;  // steps whose sums include this slab's groups
  };
  std::deque<ChunkSums> chunks_;  // oldest first
  std::deque<std::pair<MPI_Request, std::vector<double>>> outgoing_sums_;
  std::vector<double> finished_sums_;  // top rank: this run() call's, in step order
  std::vector<unsigned char> send_up_, send_down_;  // top row's north-going, bottom row's south-going speeds
  // Safe to receive into each step: the Irecv follows the wait for this step's
  // edge-row reads, which the in-order queue runs after the last step's uploads.
  std::vector<unsigned char> recv_below_, recv_above_;
};

// The slab's lattice with its halo rows: pulled from, never updated, so
// their obstacle flags are never read (copied periodically all the same).
Params slab_lattice(const Params& params, const Slab& slab) {
  Params p = params;
  p.ny = slab.rows + 2;
  return p;
}

std::vector<std::uint8_t> slab_mask(const Params& params, const ObstacleMask& mask, const Slab& slab) {
  std::vector<std::uint8_t> local(static_cast<std::size_t>(slab.rows + 2) * params.nx);
  for (int row = 0; row < slab.rows + 2; ++row) {
    const int global_row = (slab.first_row - 1 + row + params.ny) % params.ny;
    std::copy_n(mask.blocked.begin() + static_cast<std::ptrdiff_t>(global_row) * params.nx, params.nx,
                local.begin() + static_cast<std::ptrdiff_t>(row) * params.nx);
  }
  return local;
}

int rank_of(MPI_Comm comm) {
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  return rank;
}

int slab_group_rows(const Slab& slab, const LaunchPlan& plan) {
  return (slab.rows + plan.group_height() - 1) / plan.group_height();
}

SlabSolver::SlabSolver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                       const LaunchPlan& plan, const std::vector<Slab>& slabs, MPI_Comm comm)
    : params_(params),
      local_params_(slab_lattice(params, slabs.at(rank_of(comm)))),
      plan_(plan),
      slabs_(slabs),
      slab_(slabs.at(rank_of(comm))),
      comm_(comm),
      precision_(config.precision),
      real_size_(real_size(config.precision)),
      stored_size_(stored_size(config.precision)),
      fluid_cells_(mask.fluid_cells()),
      local_cells_(local_params_.cells()),
      row_bytes_(static_cast<std::size_t>(params.nx) * stored_size_),
      lattice_(opencl_device_at(config.device), local_params_, plan, config.precision, config.kernels_dir,
               kernel_defines(local_params_, config.precision, plan, slab_kernel_rows(slab_, params.ny)),
               2 * static_cast<std::size_t>(plan.chunk_steps) * plan.groups_x * slab_group_rows(slab_, plan),
               slab_mask(params, mask, slab_)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  if (static_cast<int>(slabs_.size()) != ranks_)
    throw std::invalid_argument("slab solver: " + std::to_string(slabs_.size()) + " slabs for " +
                                std::to_string(ranks_) + " ranks");
  group_rows_ = slab_group_rows(slab_, plan_);
  num_groups_ = plan_.groups_x * group_rows_;
  edge_bands_[0] = {0, 1};
  edge_band_count_ = 1;
  if (group_rows_ > 1) edge_bands_[edge_band_count_++] = {group_rows_ - 1, 1};
  interior_ = {1, std::max(0, group_rows_ - 2)};
  send_up_.resize(3 * row_bytes_);
  send_down_.resize(3 * row_bytes_);
  recv_below_.resize(3 * row_bytes_);
  recv_above_.resize(3 * row_bytes_);
  lattice_.fill_at_rest(current_, params);
}

void SlabSolver::launch(int b, const Band& band, int partial_base, bool accelerate_next) {
  if (band.group_rows == 0) return;
  cl::Kernel& k = lattice_.collide[b];
  // Groups are numbered from the launch's first row: shift the partial index
  // so that every group lands where the whole slab's launch would put it.
  k.setArg(4, partial_base + band.first_group_row * plan_.groups_x);
  k.setArg(5, accelerate_next ? 1 : 0);
  const LocalSize l = plan_.local;
  lattice_.queue.enqueueNDRangeKernel(
      k, cl::NDRange(0, static_cast<std::size_t>(band.first_group_row) * l.y),
      cl::NDRange(static_cast<std::size_t>(plan_.groups_x) * l.x, static_cast<std::size_t>(band.group_rows) * l.y),
      cl::NDRange(l.x, l.y));
}

// Fills the halo rows of lattice_.lattices[current_] from the neighbours' edge rows of
// the same state. Enqueues the uploads and returns; the interior update
// enqueued before the wait keeps the device busy meanwhile.
void SlabSolver::exchange_halos() {
  const int below = (rank_ + ranks_ - 1) % ranks_;
  const int above = (rank_ + 1) % ranks_;
  const int top_row = slab_.rows;  // local numbering: rows 1..rows are the slab's own
  std::vector<unsigned char>& from_below = recv_below_;
  std::vector<unsigned char>& from_above = recv_above_;
  const int bytes = static_cast<int>(3 * row_bytes_);
  MPI_Request requests[4];
  MPI_Irecv(from_below.data(), bytes, MPI_BYTE, below, kTagNorth, comm_, &requests[0]);
  MPI_Irecv(from_above.data(), bytes, MPI_BYTE, above, kTagSouth, comm_, &requests[1]);
  MPI_Isend(send_up_.data(), bytes, MPI_BYTE, above, kTagNorth, comm_, &requests[2]);
  MPI_Isend(send_down_.data(), bytes, MPI_BYTE, below, kTagSouth, comm_, &requests[3]);
  MPI_Waitall(4, requests, MPI_STATUSES_IGNORE);
  for (int i = 0; i < 3; ++i) {
    lattice_.queue.enqueueWriteBuffer(lattice_.lattices[current_], CL_FALSE, offset_bytes(kNorthGoing[i], 0), row_bytes_,
                              from_below.data() + i * row_bytes_);
    lattice_.queue.enqueueWriteBuffer(lattice_.lattices[current_], CL_FALSE, offset_bytes(kSouthGoing[i], top_row + 1), row_bytes_,
                              from_above.data() + i * row_bytes_);
  }
}

void SlabSolver::run(int steps, std::vector<double>& av_vels) {
  try {
    const bool owns_accel_row = slab_kernel_rows(slab_, params_.ny).accel_row >= 0;
    const int top_row = slab_.rows;
    finished_sums_.clear();
    int half = 0;
    // As the single-device fused variant: the first step's acceleration runs
    // alone, each later one inside the step before it.
    if (steps > 0 && owns_accel_row)
      lattice_.queue.enqueueNDRangeKernel(lattice_.accelerate[current_], cl::NullRange, cl::NDRange(params_.nx), cl::NullRange);
    for (int done = 0; done < steps;) {
      const int n = std::min(plan_.chunk_steps, steps - done);
      const int base = half * plan_.chunk_steps * num_groups_;
      for (int t = 0; t < n; ++t) {
        const bool accelerate_next = done + t + 1 < steps;
        const int partial_base = base + t * num_groups_;
        // Edge rows of the current state, for the neighbours; the last read's
        // event covers all six (the queue is in order).
        cl::Event edges_read;
        for (int i = 0; i < 3; ++i) {
          lattice_.queue.enqueueReadBuffer(lattice_.lattices[current_], CL_FALSE, offset_bytes(kNorthGoing[i], top_row), row_bytes_,
                                   send_up_.data() + i * row_bytes_);
          lattice_.queue.enqueueReadBuffer(lattice_.lattices[current_], CL_FALSE, offset_bytes(kSouthGoing[i], 1), row_bytes_,
                                   send_down_.data() + i * row_bytes_, nullptr, i == 2 ? &edges_read : nullptr);
        }
        launch(current_, interior_, partial_base, accelerate_next);
        lattice_.queue.flush();
        continue_sums(false);  // host work while the device runs the interior
        edges_read.wait();
        exchange_halos();
        for (int e = 0; e < edge_band_count_; ++e) launch(current_, edge_bands_[e], partial_base, accelerate_next);
        current_ = 1 - current_;
      }
      // Read this chunk's partial sums back; the in-order queue finishes the
      // read before a later chunk overwrites this half of partials_.
      chunks_.emplace_back();
      ChunkSums& c = chunks_.back();
      c.steps = n;
      c.partials.resize(static_cast<std::size_t>(n) * num_groups_ * real_size_);
      lattice_.queue.enqueueReadBuffer(lattice_.partials, CL_FALSE, static_cast<std::size_t>(base) * real_size_, c.partials.size(),
                               c.partials.data(), nullptr, &c.read_done);
      c.sums.assign(n, 0.0);
      if (rank_ > 0) MPI_Irecv(c.sums.data(), n, MPI_DOUBLE, rank_ - 1, kTagSums, comm_, &c.incoming);
      done += n;
      half = 1 - half;
    }
    lattice_.queue.flush();
    continue_sums(true);
    for (auto& out : outgoing_sums_) MPI_Wait(&out.first, MPI_STATUS_IGNORE);
    outgoing_sums_.clear();
  } catch (const cl::Error& e) {
    rethrow_cl(e, "running on " + lattice_.device_name);
  }
  finished_sums_.resize(steps);
  MPI_Bcast(finished_sums_.data(), steps, MPI_DOUBLE, ranks_ - 1, comm_);
  // Every rank holds the same values, so every rank stops at the same step.
  for (double sum : finished_sums_) {
    av_vels.push_back(sum / static_cast<double>(fluid_cells_));
    check_average_velocity(av_vels.back(), av_vels.size() - 1);
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
    if (!c.read_complete) {
      if (drain)
        c.read_done.wait();
      else if (c.read_done.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
        return;
      c.read_complete = true;
    }
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
      const std::size_t first = static_cast<std::size_t>(c.continued) * num_groups_;
      double sum = c.sums[c.continued];
      if (real_size_ == sizeof(float)) {
        const float* p = reinterpret_cast<const float*>(c.partials.data()) + first;
        for (int g = 0; g < num_groups_; ++g) sum += p[g];
      } else {
        const double* p = reinterpret_cast<const double*>(c.partials.data()) + first;
        for (int g = 0; g < num_groups_; ++g) sum += p[g];
      }
      c.sums[c.continued] = sum;
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
    chunks_.pop_front();
  }
}

std::vector<unsigned char> SlabSolver::read_own_rows() {
  const std::size_t own = static_cast<std::size_t>(slab_.rows) * params_.nx;
  std::vector<unsigned char> mine(kSpeeds * own * stored_size_);
  try {
    for (int k = 0; k < kSpeeds; ++k)
      lattice_.queue.enqueueReadBuffer(lattice_.lattices[current_], CL_FALSE, offset_bytes(k, 1), own * stored_size_,
                               mine.data() + k * own * stored_size_);
    lattice_.queue.finish();
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading results from " + lattice_.device_name);
  }
  return mine;
}

StateRows SlabSolver::own_rows() {
  const std::vector<unsigned char> mine = read_own_rows();
  // Converted as one device's read-back converts them (16-bit codes too).
  return {slab_.first_row, slab_.rows,
          from_device_reals(mine.data(), kSpeeds * static_cast<std::size_t>(slab_.rows) * params_.nx, precision_,
                            params_.density)};
}

std::vector<double> SlabSolver::distributions() {
  const std::size_t own = static_cast<std::size_t>(slab_.rows) * params_.nx;
  const std::vector<unsigned char> mine = read_own_rows();
  // Values as stored (16-bit codes too), so rank 0 converts them exactly as
  // one device's read-back would.
  const MPI_Datatype type = stored_size_ == 2 ? MPI_UINT16_T : stored_size_ == 4 ? MPI_FLOAT : MPI_DOUBLE;
  std::vector<int> counts(ranks_), displs(ranks_);
  for (int r = 0; r < ranks_; ++r) {
    counts[r] = slabs_[r].rows * params_.nx;
    displs[r] = slabs_[r].first_row * params_.nx;
  }
  const std::size_t cells = params_.cells();
  std::vector<unsigned char> all;
  if (rank_ == 0) all.resize(kSpeeds * cells * stored_size_);
  for (int k = 0; k < kSpeeds; ++k)
    MPI_Gatherv(mine.data() + k * own * stored_size_, static_cast<int>(own), type,
                rank_ == 0 ? all.data() + k * cells * stored_size_ : nullptr, counts.data(), displs.data(), type, 0,
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
  lattice_.upload(current_, local);
}

}  // namespace

std::unique_ptr<Solver> make_slab_solver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                                         const LaunchPlan& plan, const std::vector<Slab>& slabs, MPI_Comm comm) {
  return std::make_unique<SlabSolver>(params, mask, config, plan, slabs, comm);
}

}  // namespace d2q9
