#include "opencl_solver.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <sstream>

#include "../kernel_source.hpp"
#include "../stability.hpp"
#include "cl_common.hpp"

namespace d2q9 {

namespace {

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

// Steps per read-back of the partial sums when max_chunk_steps is not given.
constexpr int kMaxChunkSteps = 1024;

LocalSize default_local_size(const cl::Device& device, const Params& params) {
  // One row of cells per work-group: coalesced on GPUs, long vector loops on CPUs.
  const bool gpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0;
  int x = gpu ? 128 : 256;
  const auto max_wg = static_cast<int>(device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>());
  while (x > 1 && (x / 2 >= params.nx || x > max_wg)) x /= 2;
  return {x, 1};
}

class OpenCLSolver final : public Solver {
 public:
  OpenCLSolver(const Params& params, const ObstacleMask& mask, const OpenCLOptions& options);

  std::string backend() const override { return "opencl"; }
  std::string device_name() const override { return device_name_; }
  Precision precision() const override { return precision_; }
  LocalSize local_size() const override { return local_; }
  std::string kernel_variant() const override { return to_string(variant_); }
  int rows_per_item() const override { return rows_per_item_; }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> distributions() override;
  void load_distributions(const std::vector<double>& f) override;

 private:
  void build(const std::string& kernels_dir);
  void consume_partials(int half, int steps, std::vector<double>& av_vels);

  Params params_;
  Precision precision_;
  std::size_t real_size_;
  LocalSize local_;
  std::string device_name_;
  std::size_t fluid_cells_;
  KernelVariant variant_;
  int rows_per_item_ = 1;

  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  cl::Program program_;
  cl::Buffer cells_[2];
  cl::Buffer obstacles_;
  cl::Buffer partials_;
  cl::Kernel accelerate_[2];  // acting on cells_[0] / cells_[1]
  cl::Kernel collide_[2];     // reading cells_[0] / cells_[1]
  cl::Kernel collide_x2_[2];  // two steps, reading cells_[0] / cells_[1]
  cl::NDRange global_, local_range_;
  int current_ = 0;  // which of cells_ holds the current state
  int num_groups_ = 0;
  int chunk_steps_ = 0;                       // steps whose partial sums fit in one half of partials_
  std::vector<unsigned char> host_partials_[2];  // raw partial sums read back, per half
};

OpenCLSolver::OpenCLSolver(const Params& params, const ObstacleMask& mask, const OpenCLOptions& options)
    : params_(params),
      precision_(options.precision),
      real_size_(options.precision == Precision::Float ? sizeof(float) : sizeof(double)),
      fluid_cells_(mask.fluid_cells()),
      variant_(options.variant) {
  check_index_range(params);
  device_ = opencl_device_at(options.device_index);
  device_name_ = trimmed(device_.getInfo<CL_DEVICE_NAME>());
  variant_ = resolve_kernel_variant(variant_, params, (device_.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_GPU) != 0,
                                    !options.local_size.is_auto());

  if (precision_ == Precision::Double && device_.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() == 0)
    throw DeviceError(device_name_ + " does not support double precision (cl_khr_fp64); use --precision float");

  local_ = options.local_size.is_auto() ? default_local_size(device_, params) : options.local_size;
  // A row per work-item, each its own group: the shape is fixed.
  if (variant_ == KernelVariant::FusedRows) local_ = {1, 1};
  check_opencl_local_size(device_, local_);
  const std::string shape = std::to_string(local_.x) + "x" + std::to_string(local_.y);

  const std::size_t cells = params.cells();
  const std::size_t lattice_bytes = kSpeeds * cells * real_size_;
  const bool rows_kernel = variant_ == KernelVariant::FusedRows;
  const auto groups_x = rows_kernel ? 1 : (params.nx + local_.x - 1) / local_.x;
  rows_per_item_ = rows_per_item_for(params, variant_, options.rows_per_item);
  const auto groups_y = (params.ny + local_.y * rows_per_item_ - 1) / (local_.y * rows_per_item_);
  num_groups_ = groups_x * groups_y;
  // Bounded memory for the per-step partial sums, however long the run, and
  // a bounded delay (two chunks) before an unstable flow is noticed.
  chunk_steps_ = options.max_chunk_steps > 0
                     ? options.max_chunk_steps
                     : std::max(1, std::min({params.max_iters, (1 << 22) / num_groups_, kMaxChunkSteps}));
  const std::size_t partial_bytes = 2 * static_cast<std::size_t>(chunk_steps_) * num_groups_ * real_size_;

  check_opencl_memory(device_, "grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny),
                      2ULL * lattice_bytes + cells + partial_bytes, lattice_bytes);

  try {
    context_ = cl::Context(device_);
    queue_ = cl::CommandQueue(context_, device_);
    build(options.kernels_dir);

    for (auto& buf : cells_) buf = cl::Buffer(context_, CL_MEM_READ_WRITE, lattice_bytes);
    obstacles_ = cl::Buffer(context_, CL_MEM_READ_ONLY, cells);
    partials_ = cl::Buffer(context_, CL_MEM_READ_WRITE, partial_bytes);
    queue_.enqueueWriteBuffer(obstacles_, CL_TRUE, 0, cells, mask.blocked.data());

    for (int b = 0; b < 2; ++b) {
      accelerate_[b] = cl::Kernel(program_, "accelerate_flow");
      accelerate_[b].setArg(0, cells_[b]);
      accelerate_[b].setArg(1, obstacles_);
      collide_[b] = cl::Kernel(program_, rows_kernel ? "propagate_rebound_collide_rows" : "propagate_rebound_collide");
      collide_[b].setArg(0, cells_[b]);
      collide_[b].setArg(1, cells_[1 - b]);
      collide_[b].setArg(2, obstacles_);
      collide_[b].setArg(3, partials_);
      collide_[b].setArg(4, 0);
      collide_[b].setArg(5, 0);
      collide_x2_[b] = cl::Kernel(program_, "propagate_rebound_collide_x2");
      for (cl_uint arg = 0; arg < 4; ++arg) collide_x2_[b].setArg(arg, arg == 0 ? cells_[b] : arg == 1 ? cells_[1 - b] : arg == 2 ? obstacles_ : partials_);
      collide_x2_[b].setArg(4, 0);
      collide_x2_[b].setArg(5, 0);
    }
    const auto kernel_max = std::min(collide_[0].getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_),
                                     collide_x2_[0].getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_));
    if (static_cast<std::size_t>(local_.x) * static_cast<std::size_t>(local_.y) > kernel_max)
      throw DeviceError("local size " + shape + " is too large for propagate_rebound_collide on " + device_name_ +
                        " (at most " + std::to_string(kernel_max) + " work-items)");
  } catch (const cl::Error& e) {
    rethrow_cl(e, "setting up " + device_name_);
  }
  global_ = cl::NDRange(static_cast<std::size_t>(groups_x) * local_.x, static_cast<std::size_t>(groups_y) * local_.y);
  local_range_ = cl::NDRange(local_.x, local_.y);
  load_distributions(initial_distributions(params));
}

void OpenCLSolver::build(const std::string& kernels_dir) {
  program_ = build_opencl_program(context_, device_, kernels_dir, kKernelFile,
                                  kernel_defines(params_, precision_, local_, rows_per_item_));
}

void OpenCLSolver::run(int steps, std::vector<double>& av_vels) {
  struct PendingRead {
    cl::Event done;
    int half;
    int steps;
  };
  try {
    const cl::NDRange row(static_cast<std::size_t>(params_.nx));
    std::deque<PendingRead> pending;
    int half = 0;
    // Fused: the first step's acceleration runs alone, each later one inside the
    // step before it; the last step of the call leaves the state unaccelerated,
    // so distributions() between calls sees the model's state.
    const bool fused = variant_ != KernelVariant::Split;
    if (fused && steps > 0) queue_.enqueueNDRangeKernel(accelerate_[current_], cl::NullRange, row, cl::NullRange);
    for (int done = 0; done < steps;) {
      const int n = std::min(chunk_steps_, steps - done);
      const int base = half * chunk_steps_ * num_groups_;
      for (int t = 0; t < n;) {
        const bool two = variant_ == KernelVariant::FusedX2 && t + 2 <= n;
        const int advance = two ? 2 : 1;
        cl::Kernel& k = two ? collide_x2_[current_] : collide_[current_];
        if (!fused) queue_.enqueueNDRangeKernel(accelerate_[current_], cl::NullRange, row, cl::NullRange);
        k.setArg(4, base + t * num_groups_);
        k.setArg(5, fused && done + t + advance < steps ? 1 : 0);
        queue_.enqueueNDRangeKernel(k, cl::NullRange, global_, local_range_);
        current_ = 1 - current_;
        t += advance;
      }
      // Read this half back while the device works on the other one.
      const std::size_t bytes = static_cast<std::size_t>(n) * num_groups_ * real_size_;
      host_partials_[half].resize(bytes);
      PendingRead read{cl::Event(), half, n};
      queue_.enqueueReadBuffer(partials_, CL_FALSE, static_cast<std::size_t>(base) * real_size_, bytes,
                               host_partials_[half].data(), nullptr, &read.done);
      pending.push_back(read);
      if (pending.size() == 2) {
        pending.front().done.wait();
        consume_partials(pending.front().half, pending.front().steps, av_vels);
        pending.pop_front();
      }
      done += n;
      half = 1 - half;
    }
    for (auto& p : pending) {
      p.done.wait();
      consume_partials(p.half, p.steps, av_vels);
    }
  } catch (const cl::Error& e) {
    rethrow_cl(e, "running on " + device_name_);
  } catch (const InstabilityError&) {
    // Let the queued steps drain before the solver (and its buffers) goes away.
    try {
      queue_.finish();
    } catch (const cl::Error&) {
    }
    throw;
  }
}

void OpenCLSolver::consume_partials(int half, int steps, std::vector<double>& av_vels) {
  append_average_velocities(host_partials_[half].data(), precision_, steps, num_groups_, fluid_cells_, av_vels);
}

std::vector<double> OpenCLSolver::distributions() {
  const std::size_t count = kSpeeds * params_.cells();
  std::vector<double> f(count);
  try {
    if (precision_ == Precision::Float) {
      std::vector<float> tmp(count);
      queue_.enqueueReadBuffer(cells_[current_], CL_TRUE, 0, count * sizeof(float), tmp.data());
      std::copy(tmp.begin(), tmp.end(), f.begin());
    } else {
      queue_.enqueueReadBuffer(cells_[current_], CL_TRUE, 0, count * sizeof(double), f.data());
    }
  } catch (const cl::Error& e) {
    rethrow_cl(e, "reading results from " + device_name_);
  }
  return f;
}

void OpenCLSolver::load_distributions(const std::vector<double>& f) {
  const std::size_t count = kSpeeds * params_.cells();
  if (f.size() != count) throw std::invalid_argument("load_distributions: wrong number of values");
  try {
    if (precision_ == Precision::Float) {
      const std::vector<float> tmp(f.begin(), f.end());
      queue_.enqueueWriteBuffer(cells_[current_], CL_TRUE, 0, count * sizeof(float), tmp.data());
    } else {
      queue_.enqueueWriteBuffer(cells_[current_], CL_TRUE, 0, count * sizeof(double), f.data());
    }
  } catch (const cl::Error& e) {
    rethrow_cl(e, "uploading distributions to " + device_name_);
  }
}

}  // namespace

std::vector<OpenCLDeviceInfo> list_opencl_devices() {
  std::vector<OpenCLDeviceInfo> out;
  try {
    int index = 0;
    for (const auto& fd : all_opencl_devices()) {
      OpenCLDeviceInfo info;
      info.index = index++;
      info.platform = fd.platform.getInfo<CL_PLATFORM_NAME>();
      info.name = fd.device.getInfo<CL_DEVICE_NAME>();
      info.platform = trimmed(info.platform);
      info.name = trimmed(info.name);
      const auto type = fd.device.getInfo<CL_DEVICE_TYPE>();
      info.type = device_type_name(type);
      info.is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
      info.compute_units = fd.device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
      info.global_mem_bytes = fd.device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
      info.has_fp64 = fd.device.getInfo<CL_DEVICE_DOUBLE_FP_CONFIG>() != 0;
      info.driver_version = fd.device.getInfo<CL_DRIVER_VERSION>();
      info.opencl_version = fd.device.getInfo<CL_DEVICE_VERSION>();
      info.driver_version = trimmed(info.driver_version);
      info.opencl_version = trimmed(info.opencl_version);
      out.push_back(info);
    }
  } catch (const cl::Error& e) {
    rethrow_cl(e, "listing OpenCL devices");
  }
  return out;
}

int default_opencl_device(const std::vector<OpenCLDeviceInfo>& devices) {
  for (const auto& d : devices)
    if (d.is_gpu) return d.index;
  return 0;
}

double measure_opencl_copy_bandwidth(const OpenCLOptions& options, std::size_t bytes) {
  const cl::Device device = opencl_device_at(options.device_index);
  bytes -= bytes % 16;
  try {
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program = build_opencl_program(context, device, options.kernels_dir, "bandwidth.cl", {});
    cl::Kernel copy(program, "copy_float4");
    cl::Buffer a(context, CL_MEM_READ_WRITE, bytes), b(context, CL_MEM_READ_WRITE, bytes);
    queue.enqueueFillBuffer(a, 1.0f, 0, bytes);
    copy.setArg(0, a);
    copy.setArg(1, b);
    const cl::NDRange global(bytes / 16);
    for (int i = 0; i < 2; ++i) queue.enqueueNDRangeKernel(copy, cl::NullRange, global, cl::NullRange);
    queue.finish();
    // Best of several timed batches: the machine is shared and noisy.
    double best = 0.0;
    for (int batch = 0; batch < 5; ++batch) {
      const int reps = 5;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; ++i) queue.enqueueNDRangeKernel(copy, cl::NullRange, global, cl::NullRange);
      queue.finish();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 2.0 * bytes * reps / t);
    }
    return best;
  } catch (const cl::Error& e) {
    rethrow_cl(e, "measuring copy bandwidth");
  }
}

std::unique_ptr<Solver> make_opencl_solver(const Params& params, const ObstacleMask& mask, const OpenCLOptions& options) {
  return std::make_unique<OpenCLSolver>(params, mask, options);
}

}  // namespace d2q9
