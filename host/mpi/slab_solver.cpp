#include "slab_solver.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <sstream>

#include "../kernel_source.hpp"
#include "../opencl/cl_common.hpp"

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
constexpr int kMaxChunkSteps = 64;

// A range of whole work-group rows of the slab, launched with a global offset.
struct Band {
  int first_group_row = 0;
  int group_rows = 0;
};

class SlabSolver final : public Solver {
 public:
  SlabSolver(const Params& params, const ObstacleMask& mask, const SlabSolverOptions& options, MPI_Comm comm);

  std::string backend() const override { return "opencl+mpi"; }
  std::string device_name() const override { return device_name_; }
  Precision precision() const override { return precision_; }
  LocalSize local_size() const override { return local_; }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> distributions() override;
  void load_distributions(const std::vector<double>& f) override;

 private:
  std::size_t offset_bytes(int speed, int row) const {
    return (static_cast<std::size_t>(speed) * local_cells_ + static_cast<std::size_t>(row) * params_.nx) * real_size_;
  }
  void build(const std::string& kernels_dir);
  void launch(int b, const Band& band, int partial_base, bool accelerate_next);
  void exchange_halos();
  void continue_sums(bool drain);

  Params params_;
  Params local_params_;  // the slab with its two halo rows: ny = rows + 2
  std::vector<Slab> slabs_;
  Slab slab_;
  int rank_ = 0;
  int ranks_ = 1;
  MPI_Comm comm_ = MPI_COMM_NULL;
  Precision precision_;
  std::size_t real_size_;
  LocalSize local_;
  std::string device_name_;
  std::size_t fluid_cells_;  // of the whole grid
  std::size_t local_cells_;
  std::size_t row_bytes_;

  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  cl::Program program_;
  cl::Buffer cells_[2];
  cl::Buffer obstacles_;
  cl::Buffer partials_;
  cl::Kernel accelerate_[2];  // acting on cells_[0] / cells_[1]
  cl::Kernel collide_[2];     // reading cells_[0] / cells_[1]
  int current_ = 0;
  int groups_x_ = 0;
  int group_rows_ = 0;
  int rows_per_item_ = 1;
  int num_groups_ = 0;        // this slab's
  int total_groups_ = 0;      // the whole grid's
  int chunk_steps_ = 0;
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

SlabSolver::SlabSolver(const Params& params, const ObstacleMask& mask, const SlabSolverOptions& options,
                       MPI_Comm comm)
    : params_(params),
      slabs_(options.slabs),
      precision_(options.precision),
      real_size_(options.precision == Precision::Float ? sizeof(float) : sizeof(double)),
      local_(options.local_size),
      fluid_cells_(mask.fluid_cells()) {
  comm_ = comm;
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &ranks_);
  if (static_cast<int>(slabs_.size()) != ranks_)
    throw std::invalid_argument("slab solver: " + std::to_string(slabs_.size()) + " slabs for " +
                                std::to_string(ranks_) + " ranks");
  if (local_.is_auto()) throw std::invalid_argument("slab solver: the work-group shape must be given");
  slab_ = slabs_[rank_];
  local_params_ = params;
  local_params_.ny = slab_.rows + 2;
  check_index_range(local_params_);
  local_cells_ = local_params_.cells();
  row_bytes_ = static_cast<std::size_t>(params.nx) * real_size_;

  // Rows per work-item as the single-device solver picks them for the whole
  // grid, so that every slab's groups are groups of the whole grid.
  rows_per_item_ = rows_per_item_for(params, KernelVariant::Fused);
  const int group_height = local_.y * rows_per_item_;
  groups_x_ = (params.nx + local_.x - 1) / local_.x;
  group_rows_ = (slab_.rows + group_height - 1) / group_height;
  num_groups_ = groups_x_ * group_rows_;
  total_groups_ = groups_x_ * ((params.ny + group_height - 1) / group_height);
  edge_bands_[0] = {0, 1};
  edge_band_count_ = 1;
  if (group_rows_ > 1) edge_bands_[edge_band_count_++] = {group_rows_ - 1, 1};
  interior_ = {1, std::max(0, group_rows_ - 2)};
  // Every rank must agree on the chunks: running sums travel per chunk.
  // Short chunks keep the sums moving up the ranks soon after their steps.
  chunk_steps_ = options.max_chunk_steps > 0
                     ? options.max_chunk_steps
                     : std::max(1, std::min({params.max_iters, kMaxChunkSteps, (1 << 22) / total_groups_}));

  device_ = opencl_device_at(options.device_index);
  device_name_ = trimmed(device_.getInfo<CL_DEVICE_NAME>());
  if (precision_ == Precision::Double && device_.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() == 0)
    throw DeviceError(device_name_ + " does not support double precision (cl_khr_fp64); use --precision float");
  check_opencl_local_size(device_, local_);
  const std::string shape = std::to_string(local_.x) + "x" + std::to_string(local_.y);

  const std::size_t lattice_bytes = kSpeeds * local_cells_ * real_size_;
  const std::size_t partial_bytes = 2 * static_cast<std::size_t>(chunk_steps_) * num_groups_ * real_size_;
  check_opencl_memory(device_, "slab of " + std::to_string(params.nx) + "x" + std::to_string(slab_.rows),
                      2ULL * lattice_bytes + local_cells_ + partial_bytes, lattice_bytes, "; use more ranks");

  send_up_.resize(3 * row_bytes_);
  send_down_.resize(3 * row_bytes_);
  recv_below_.resize(3 * row_bytes_);
  recv_above_.resize(3 * row_bytes_);

  // Obstacle flags of the slab and, periodically, of its halo rows (these are
  // only pulled from, never updated, so their flags are never read).
  std::vector<std::uint8_t> local_mask(local_cells_);
  for (int row = 0; row < slab_.rows + 2; ++row) {
    const int global_row = (slab_.first_row - 1 + row + params.ny) % params.ny;
    std::copy_n(mask.blocked.begin() + static_cast<std::ptrdiff_t>(global_row) * params.nx, params.nx,
                local_mask.begin() + static_cast<std::ptrdiff_t>(row) * params.nx);
  }

  try {
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_);  // in order: the step's commands rely on it
    build(options.kernels_dir);
    for (auto& buf : cells_) buf = cl::Buffer(context_, CL_MEM_READ_WRITE, lattice_bytes);
    obstacles_ = cl::Buffer(context_, CL_MEM_READ_ONLY, local_cells_);
    partials_ = cl::Buffer(context_, CL_MEM_READ_WRITE, partial_bytes);
    queue_.enqueueWriteBuffer(obstacles_, CL_TRUE, 0, local_cells_, local_mask.data());
    for (int b = 0; b < 2; ++b) {
      accelerate_[b] = cl::Kernel(program_, "accelerate_flow");
      accelerate_[b].setArg(0, cells_[b]);
      accelerate_[b].setArg(1, obstacles_);
      collide_[b] = cl::Kernel(program_, "propagate_rebound_collide");
      collide_[b].setArg(0, cells_[b]);
      collide_[b].setArg(1, cells_[1 - b]);
      collide_[b].setArg(2, obstacles_);
      collide_[b].setArg(3, partials_);
      collide_[b].setArg(4, 0);
      collide_[b].setArg(5, 0);
    }
    const auto kernel_max = collide_[0].getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
    if (static_cast<std::size_t>(local_.x) * static_cast<std::size_t>(local_.y) > kernel_max)
      throw DeviceError("local size " + shape + " is too large for propagate_rebound_collide on " + device_name_ +
                        " (at most " + std::to_string(kernel_max) + " work-items)");
    // The uniform initial state, filled on the device: a slab's worth of it on
    // the host would cost gigabytes at 8192 columns.
    Params one_cell = params;
    one_cell.nx = one_cell.ny = 1;
    const std::vector<double> initial = initial_distributions(one_cell);
    const std::size_t speed_bytes = local_cells_ * real_size_;
    for (int k = 0; k < kSpeeds; ++k) {
      if (precision_ == Precision::Float)
        queue_.enqueueFillBuffer(cells_[current_], static_cast<float>(initial[k]), k * speed_bytes, speed_bytes);
      else
        queue_.enqueueFillBuffer(cells_[current_], initial[k], k * speed_bytes, speed_bytes);
    }
    queue_.finish();
  } catch (const cl::Error& e) {
    rethrow_cl(e, "setting up " + device_name_);
  }
}

void SlabSolver::build(const std::string& kernels_dir) {
  program_ = build_opencl_program(
      context_, device_, kernels_dir, kKernelFile,
      kernel_defines(local_params_, precision_, local_, rows_per_item_, slab_kernel_rows(slab_, params_.ny)));
}

void SlabSolver::launch(int b, const Band& band, int partial_base, bool accelerate_next) {
  if (band.group_rows == 0) return;
  cl::Kernel& k = collide_[b];
  // Groups are numbered from the launch's first row: shift the partial index
  // so that every group lands where the whole slab's launch would put it.
  k.setArg(4, partial_base + band.first_group_row * groups_x_);
  k.setArg(5, accelerate_next ? 1 : 0);
  queue_.enqueueNDRangeKernel(
      k, cl::NDRange(0, static_cast<std::size_t>(band.first_group_row) * local_.y),
      cl::NDRange(static_cast<std::size_t>(groups_x_) * local_.x, static_cast<std::size_t>(band.group_rows) * local_.y),
      cl::NDRange(local_.x, local_.y));
}

// Fills the halo rows of cells_[current_] from the neighbours' edge rows of
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
    queue_.enqueueWriteBuffer(cells_[current_], CL_FALSE, offset_bytes(kNorthGoing[i], 0), row_bytes_,
                              from_below.data() + i * row_bytes_);
    queue_.enqueueWriteBuffer(cells_[current_], CL_FALSE, offset_bytes(kSouthGoing[i], top_row + 1), row_bytes_,
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
      queue_.enqueueNDRangeKernel(accelerate_[current_], cl::NullRange, cl::NDRange(params_.nx), cl::NullRange);
    for (int done = 0; done < steps;) {
      const int n = std::min(chunk_steps_, steps - done);
      const int base = half * chunk_steps_ * num_groups_;
      for (int t = 0; t < n; ++t) {
        const bool accelerate_next = done + t + 1 < steps;
        const int partial_base = base + t * num_groups_;
        // Edge rows of the current state, for the neighbours; the last read's
        // event covers all six (the queue is in order).
        cl::Event edges_read;
        for (int i = 0; i < 3; ++i) {
          queue_.enqueueReadBuffer(cells_[current_], CL_FALSE, offset_bytes(kNorthGoing[i], top_row), row_bytes_,
                                   send_up_.data() + i * row_bytes_);
          queue_.enqueueReadBuffer(cells_[current_], CL_FALSE, offset_bytes(kSouthGoing[i], 1), row_bytes_,
                                   send_down_.data() + i * row_bytes_, nullptr, i == 2 ? &edges_read : nullptr);
        }
        launch(current_, interior_, partial_base, accelerate_next);
        queue_.flush();
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
      queue_.enqueueReadBuffer(partials_, CL_FALSE, static_cast<std::size_t>(base) * real_size_, c.partials.size(),
                               c.partials.data(), nullptr, &c.read_done);
      c.sums.assign(n, 0.0);
      if (rank_ > 0) MPI_Irecv(c.sums.data(), n, MPI_DOUBLE, rank_ - 1, kTagSums, comm_, &c.incoming);
      done += n;
      half = 1 - half;
    }
    queue_.flush();
    continue_sums(true);
    for (auto& out : outgoing_sums_) MPI_Wait(&out.first, MPI_STATUS_IGNORE);
    outgoing_sums_.clear();
  } catch (const cl::Error& e) {
    rethrow_cl(e, "running on " + device_name_);
  }
  finished_sums_.resize(steps);
  MPI_Bcast(finished_sums_.data(), steps, MPI_DOUBLE, ranks_ - 1, comm_);
  for (double sum : finished_sums_) av_vels.push_back(sum / static_cast<double>(fluid_cells_));
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
      if (precision_ == Precision::Float) {
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

std::vector<double> SlabSolver::distributions() {
  const std::size_t own = static_cast<std::size_t>(slab_.rows) * params_.nx;
  std::vector<unsigned char> mine(kSpeeds * own * real_size_);
  try {
    for (int k = 0; k < kSpeeds; ++k)
      queue_.enqueueReadBuffer(cells_[current_], CL_FALSE, offset_bytes(k, 1), own * real_size_,
                               mine.data() + k * own * real_size_);
    queue_.finish();
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading results from " + device_name_);
  }
  const MPI_Datatype type = precision_ == Precision::Float ? MPI_FLOAT : MPI_DOUBLE;
  std::vector<int> counts(ranks_), displs(ranks_);
  for (int r = 0; r < ranks_; ++r) {
    counts[r] = slabs_[r].rows * params_.nx;
    displs[r] = slabs_[r].first_row * params_.nx;
  }
  const std::size_t cells = params_.cells();
  std::vector<double> f;
  std::vector<unsigned char> speed;
  if (rank_ == 0) {
    f.resize(kSpeeds * cells);
    speed.resize(cells * real_size_);
  }
  for (int k = 0; k < kSpeeds; ++k) {
    MPI_Gatherv(mine.data() + k * own * real_size_, static_cast<int>(own), type, speed.data(), counts.data(),
                displs.data(), type, 0, comm_);
    if (rank_ != 0) continue;
    for (std::size_t i = 0; i < cells; ++i)
      f[k * cells + i] = precision_ == Precision::Float ? reinterpret_cast<const float*>(speed.data())[i]
                                                        : reinterpret_cast<const double*>(speed.data())[i];
  }
  return f;
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
  try {
    if (precision_ == Precision::Float) {
      const std::vector<float> tmp(local.begin(), local.end());
      queue_.enqueueWriteBuffer(cells_[current_], CL_TRUE, 0, tmp.size() * sizeof(float), tmp.data());
    } else {
      queue_.enqueueWriteBuffer(cells_[current_], CL_TRUE, 0, local.size() * sizeof(double), local.data());
    }
  } catch (const cl::Error& e) {
    rethrow_cl(e, "uploading distributions to " + device_name_);
  }
}

}  // namespace

std::unique_ptr<Solver> make_slab_solver(const Params& params, const ObstacleMask& mask,
                                         const SlabSolverOptions& options, MPI_Comm comm) {
  return std::make_unique<SlabSolver>(params, mask, options, comm);
}

}  // namespace d2q9
