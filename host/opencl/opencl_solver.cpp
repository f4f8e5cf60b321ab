#include "opencl/opencl_solver.hpp"

#include <algorithm>
#include <chrono>

#include "device/kernel_source.hpp"
#include "device/chunked_solver.hpp"
#include "core/stopwatch.hpp"
#include "opencl/cl_common.hpp"
#include "opencl/opencl_lattice.hpp"

namespace d2q9 {

namespace {

std::string device_type_name(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return "GPU";
  if (type & CL_DEVICE_TYPE_CPU) return "CPU";
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

// One device, the whole grid: the shared chunked step loop with OpenCL launches.
class OpenCLSolver final : public ChunkedSolver {
 public:
  OpenCLSolver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config, const LaunchPlan& plan)
      : ChunkedSolver(plan, config.precision, mask.fluid_cells(), params.extensions.sums_per_group()),
        params_(params),
        lattice_(opencl_device_at(config.device), params, plan, config.precision, config.kernels_dir,
                 kernel_defines(params, config.precision, plan), 2 * half_values(), mask) {
    global_ = cl::NDRange(static_cast<std::size_t>(plan.groups_x) * plan.local.x,
                          static_cast<std::size_t>(plan.groups_y) * plan.local.y);
    local_range_ = cl::NDRange(plan.local.x, plan.local.y);
    // Uploaded whole, not filled on the device, so oclgrind can check reads
    // of uninitialised memory: its shadow of a buffer keeps only the last host
    // write (a fill is many small ones). One grid fits the host.
    Stopwatch watch;
    lattice_.upload(current_, initial_distributions(params));
    lattice_.setup.upload_s += watch.lap();
  }

  Backend backend() const override { return Backend::OpenCL; }
  std::string device_name() const override { return lattice_.device_name; }
  SetupTimes setup_times() const override { return lattice_.setup; }
  std::vector<double> distributions() override { return lattice_.download(current_); }
  // Nine small reads per cell, not the whole lattice: probes every few steps.
  std::vector<double> cell_distributions(const std::vector<std::size_t>& cells) override {
    const std::size_t size = stored_size(precision_);
    std::vector<unsigned char> raw(kSpeeds * cells.size() * size);
    try {
      for (int k = 0; k < kSpeeds; ++k)
        for (std::size_t c = 0; c < cells.size(); ++c)
          lattice_.queue.enqueueReadBuffer(lattice_.lattices[current_], CL_FALSE,
                                           (k * lattice_.cells + cells[c]) * size, size,
                                           raw.data() + (k * cells.size() + c) * size);
      lattice_.queue.finish();
    } catch (const cl::Error& e) {
      rethrow_cl(e, "reading probes from " + lattice_.device_name);
    }
    return cells_from_device(raw, cells.size(), precision_, params_.density);
  }
  void load_distributions(const std::vector<double>& f) override { lattice_.upload(current_, f); }

 private:
  void accelerate_first() override {
    try {
      lattice_.queue.enqueueNDRangeKernel(lattice_.accelerate[current_], cl::NullRange, cl::NDRange(params_.nx),
                                          cl::NullRange);
    } catch (const cl::Error& e) {
      rethrow_cl(e, "running on " + lattice_.device_name);
    }
  }

  void enqueue_chunk(const Chunk& chunk) override {
    try {
      for (const Launch& l : launches(chunk)) {
        if (!plan_.fused()) accelerate_first();
        cl::Kernel& k = l.two_step_kernel ? lattice_.collide_x2[current_] : lattice_.collide[current_];
        k.setArg(4, l.partial_offset);
        k.setArg(5, l.accelerate_next ? 1 : 0);
        k.setArg(6, l.steps);
        k.setArg(8, l.run_step);
        lattice_.queue.enqueueNDRangeKernel(k, cl::NullRange, global_, local_range_);
        current_ = 1 - current_;
      }
      const std::size_t bytes = chunk_values(chunk) * real_size(precision_);
      host_partials_[chunk.half].resize(bytes);
      lattice_.queue.enqueueReadBuffer(lattice_.partials, CL_FALSE, chunk.half * half_values() * real_size(precision_),
                                       bytes, host_partials_[chunk.half].data(), nullptr, &read_done_[chunk.half]);
      lattice_.queue.flush();
    } catch (const cl::Error& e) {
      rethrow_cl(e, "running on " + lattice_.device_name);
    }
  }

  const void* wait_partials(int half) override {
    try {
      read_done_[half].wait();
    } catch (const cl::Error& e) {
      rethrow_cl(e, "running on " + lattice_.device_name);
    }
    return host_partials_[half].data();
  }

  void drain() noexcept override {
    try {
      lattice_.queue.finish();
    } catch (const cl::Error&) {
    }
  }

  Params params_;
  OpenCLLattice lattice_;
  cl::NDRange global_, local_range_;
  int current_ = 0;  // which lattice holds the current state
  std::vector<unsigned char> host_partials_[2];
  cl::Event read_done_[2];
};

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

double measure_opencl_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes) {
  const cl::Device device = opencl_device_at(device_index);
  bytes -= bytes % 16;
  try {
    cl::Context context(device);
    cl::CommandQueue queue(context, device);
    cl::Program program = build_opencl_program(context, device, kernels_dir, "bandwidth.cl", {});
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

DeviceLimits opencl_limits(int device_index) { return opencl_device_limits(opencl_device_at(device_index)); }

std::unique_ptr<Solver> make_opencl_solver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                                           const LaunchPlan& plan) {
  return std::make_unique<OpenCLSolver>(params, mask, config, plan);
}

}  // namespace d2q9
