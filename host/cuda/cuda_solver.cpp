#include "cuda_solver.hpp"

#include <algorithm>
#include <chrono>
#include <deque>
#include <map>
#include <tuple>

#include "../kernel_source.hpp"
#include "cuda_driver.hpp"
#include "nvrtc_compile.hpp"

namespace d2q9 {

namespace {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

int device_attribute(const CudaDriver& drv, CUdevice device, CUdevice_attribute attribute, const char* what) {
  int value = 0;
  check_cuda(drv.cuDeviceGetAttribute(&value, attribute, device), what);
  return value;
}

CudaDeviceInfo describe(const CudaDriver& drv, int index) {
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  char name[256] = {};
  check_cuda(drv.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  std::size_t bytes = 0;
  check_cuda(drv.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem");
  CudaDeviceInfo info;
  info.index = index;
  info.name = name;
  info.compute_major =
      device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, "cuDeviceGetAttribute");
  info.compute_minor =
      device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, "cuDeviceGetAttribute");
  info.multiprocessors =
      device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, "cuDeviceGetAttribute");
  info.global_mem_bytes = bytes;
  return info;
}

// CUBIN for the device's own architecture when this NVRTC knows it, else PTX
// for the newest older one, which the driver compiles when it loads it.
NvrtcTarget pick_target(int major, int minor, const std::string& device_name) {
  const int wanted = 10 * major + minor;
  const auto archs = nvrtc_supported_architectures();
  if (std::find(archs.begin(), archs.end(), wanted) != archs.end()) return {major, minor, true};
  int best = 0;
  for (int a : archs)
    if (a <= wanted) best = std::max(best, a);
  if (best == 0)
    throw DeviceError(device_name + " has compute capability " + std::to_string(major) + "." + std::to_string(minor) +
                      ", which " + nvrtc_version() + " cannot compile for");
  return {best / 10, best % 10, false};
}

class CudaSolver final : public Solver {
 public:
  CudaSolver(const Params& params, const ObstacleMask& mask, const CudaOptions& options);
  ~CudaSolver() override;
  CudaSolver(const CudaSolver&) = delete;
  CudaSolver& operator=(const CudaSolver&) = delete;

  std::string backend() const override { return "cuda"; }
  std::string device_name() const override { return device_name_; }
  Precision precision() const override { return precision_; }
  LocalSize local_size() const override { return local_; }
  std::string kernel_variant() const override { return to_string(variant_); }
  int rows_per_item() const override { return rows_per_item_; }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> distributions() override;
  void load_distributions(const std::vector<double>& f) override;

  std::string launch_mode() const {
    return graphs_failed_.empty() ? (use_graphs_ ? "graphs" : "plain launches (graphs turned off)")
                                  : "plain launches (" + graphs_failed_ + ")";
  }

 private:
  // A chunk of steps is fully described by where its partial sums go, which
  // buffer holds the state when it starts, its length, and whether it ends the
  // run() call (the last step then leaves the state unaccelerated).
  using ChunkKey = std::tuple<int, int, int, bool>;  // half, parity, steps, ends call

  void setup(const ObstacleMask& mask, const CudaOptions& options);
  void release();
  void build(const std::string& kernels_dir, int major, int minor);
  void launch_accelerate(int parity);
  void launch_chunk(const ChunkKey& chunk);
  void enqueue_chunk(const ChunkKey& chunk);
  CUgraphExec chunk_graph(const ChunkKey& chunk);
  CUgraphExec capture_chunk(const ChunkKey& chunk);
  std::vector<ChunkKey> plan(int steps, int parity) const;
  // Kernel launches for `steps` steps: each swaps the buffers once, whether it
  // advances one step or two.
  int launches(int steps) const { return variant_ == KernelVariant::FusedX2 ? steps / 2 + steps % 2 : steps; }
  void consume_partials(int half, int steps, std::vector<double>& av_vels);
  void release_graphs();

  const CudaDriver& drv_;
  Params params_;
  Precision precision_;
  std::size_t real_size_;
  LocalSize local_;
  std::string device_name_;
  std::size_t fluid_cells_;
  KernelVariant variant_;
  bool use_graphs_;
  std::string graphs_failed_;  // why graphs were given up, empty while they work

  CUdevice device_{};
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction accelerate_ = nullptr;
  CUfunction collide_ = nullptr;
  CUfunction collide_x2_ = nullptr;
  CUstream stream_ = nullptr;
  CUdeviceptr cells_[2] = {0, 0};
  CUdeviceptr obstacles_ = 0;
  CUdeviceptr partials_ = 0;
  void* host_partials_[2] = {nullptr, nullptr};  // pinned, so read-backs are asynchronous
  CUevent read_done_[2] = {nullptr, nullptr};
  std::map<ChunkKey, CUgraphExec> graphs_;

  unsigned groups_x_ = 0, groups_y_ = 0;
  int rows_per_item_ = 1;
  unsigned accelerate_block_ = 0;
  int num_groups_ = 0;
  int chunk_steps_ = 0;  // steps whose partial sums fit in one half of partials_
  int current_ = 0;      // which of cells_ holds the current state
};

CudaSolver::CudaSolver(const Params& params, const ObstacleMask& mask, const CudaOptions& options)
    : drv_(cuda_driver()),
      params_(params),
      precision_(options.precision),
      real_size_(options.precision == Precision::Float ? sizeof(float) : sizeof(double)),
      fluid_cells_(mask.fluid_cells()),
      variant_(resolve_kernel_variant(options.variant, params, true)),
      use_graphs_(options.use_graphs) {
  if (variant_ == KernelVariant::FusedRows)
    throw DeviceError("--kernel-variant fused-rows is for CPU OpenCL devices; the CUDA backend runs split, fused or fused-x2");
  // A throwing constructor runs no destructor: free what was made so far.
  try {
    setup(mask, options);
  } catch (...) {
    release();
    throw;
  }
}

void CudaSolver::setup(const ObstacleMask& mask, const CudaOptions& options) {
  const Params& params = params_;
  check_index_range(params);
  int count = 0;
  CU_CALL(cuDeviceGetCount, &count);
  if (count == 0) throw DeviceError("no CUDA device found");
  const int index = options.device_index < 0 ? 0 : options.device_index;
  if (index >= count)
    throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " + std::to_string(count) +
                      " CUDA device(s), see --list-devices");
  const CudaDeviceInfo info = describe(drv_, index);
  device_name_ = info.name;
  CU_CALL(cuDeviceGet, &device_, index);

  const int max_x = device_attribute(drv_, device_, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, "cuDeviceGetAttribute");
  const int max_y = device_attribute(drv_, device_, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, "cuDeviceGetAttribute");
  const int max_threads =
      device_attribute(drv_, device_, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "cuDeviceGetAttribute");
  if (options.local_size.is_auto()) {
    // One row of cells per block keeps the loads coalesced.
    int x = 128;
    while (x > 1 && (x / 2 >= params.nx || x > max_threads)) x /= 2;
    local_ = {x, 1};
  } else {
    local_ = options.local_size;
  }
  const std::string shape = std::to_string(local_.x) + "x" + std::to_string(local_.y);
  if (local_.x < 1 || local_.y < 1 || local_.x > max_x || local_.y > max_y ||
      static_cast<long long>(local_.x) * local_.y > max_threads)
    throw DeviceError("local size " + shape + " is not valid on " + device_name_ + " (at most " +
                      std::to_string(max_x) + "x" + std::to_string(max_y) + " and " + std::to_string(max_threads) +
                      " work-items in all)");

  groups_x_ = static_cast<unsigned>((params.nx + local_.x - 1) / local_.x);
  rows_per_item_ = rows_per_item_for(params, variant_, options.rows_per_item);
  groups_y_ = static_cast<unsigned>((params.ny + local_.y * rows_per_item_ - 1) / (local_.y * rows_per_item_));
  const int max_grid_y = device_attribute(drv_, device_, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "cuDeviceGetAttribute");
  if (groups_y_ > static_cast<unsigned>(max_grid_y))
    throw DeviceError("grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny) + " needs " +
                      std::to_string(groups_y_) + " rows of blocks with local size " + shape + ", more than the " +
                      std::to_string(max_grid_y) + " " + device_name_ + " allows; use a taller --local-size");
  num_groups_ = static_cast<int>(groups_x_ * groups_y_);
  // Bounded memory for the per-step partial sums, however long the run; an
  // even chunk keeps the buffer parity the same at every chunk start, so few
  // distinct chunk graphs are needed.
  if (options.max_chunk_steps > 0) {
    chunk_steps_ = options.max_chunk_steps;
  } else {
    chunk_steps_ = std::max(1, std::min({params.max_iters, 512, (1 << 20) / num_groups_}));
    if (chunk_steps_ > 1) chunk_steps_ &= ~1;
  }

  const std::size_t cells = params.cells();
  const std::size_t lattice_bytes = kSpeeds * cells * real_size_;
  const std::size_t half_bytes = static_cast<std::size_t>(chunk_steps_) * num_groups_ * real_size_;

  CU_CALL(cuDevicePrimaryCtxRetain, &context_, device_);
  CU_CALL(cuCtxSetCurrent, context_);
  std::size_t free_bytes = 0, total_bytes = 0;
  CU_CALL(cuMemGetInfo, &free_bytes, &total_bytes);
  const unsigned long long needed = 2ULL * lattice_bytes + cells + 2 * half_bytes;
  if (needed > free_bytes)
    throw DeviceError("grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny) + " needs " +
                      std::to_string(needed >> 20) + " MiB on the device but " + device_name_ + " has " +
                      std::to_string(free_bytes >> 20) + " MiB free (of " + std::to_string(total_bytes >> 20) +
                      " MiB): out of memory");

  build(options.kernels_dir, info.compute_major, info.compute_minor);

  int kernel_max = 0, kernel_x2_max = 0;
  CU_CALL(cuFuncGetAttribute, &kernel_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, collide_);
  CU_CALL(cuFuncGetAttribute, &kernel_x2_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, collide_x2_);
  if (variant_ == KernelVariant::FusedX2) kernel_max = std::min(kernel_max, kernel_x2_max);
  if (static_cast<long long>(local_.x) * local_.y > kernel_max)
    throw DeviceError("local size " + shape + " is too large for propagate_rebound_collide on " + device_name_ +
                      " (at most " + std::to_string(kernel_max) + " work-items)");
  int accelerate_max = 0;
  CU_CALL(cuFuncGetAttribute, &accelerate_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, accelerate_);
  accelerate_block_ = static_cast<unsigned>(std::min({128, accelerate_max, params.nx}));

  CU_CALL(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
  for (auto& buf : cells_) CU_CALL(cuMemAlloc, &buf, lattice_bytes);
  CU_CALL(cuMemAlloc, &obstacles_, cells);
  CU_CALL(cuMemAlloc, &partials_, 2 * half_bytes);
  for (int h = 0; h < 2; ++h) {
    CU_CALL(cuMemAllocHost, &host_partials_[h], half_bytes);
    CU_CALL(cuEventCreate, &read_done_[h], CU_EVENT_DISABLE_TIMING);
  }
  CU_CALL(cuMemcpyHtoDAsync, obstacles_, mask.blocked.data(), cells, stream_);
  CU_CALL(cuStreamSynchronize, stream_);
  load_distributions(initial_distributions(params));

  // Like the kernel build, capturing the graphs a whole run needs happens
  // here rather than in the timed step loop.
  if (use_graphs_)
    for (const ChunkKey& chunk : plan(params.max_iters, current_)) chunk_graph(chunk);
}

CudaSolver::~CudaSolver() { release(); }

// Errors cannot be reported from here; frees what exists, in reverse order.
void CudaSolver::release() {
  if (context_) drv_.cuCtxSetCurrent(context_);
  release_graphs();
  for (auto& e : read_done_)
    if (e) drv_.cuEventDestroy(e);
  for (auto& p : host_partials_)
    if (p) drv_.cuMemFreeHost(p);
  for (CUdeviceptr p : {partials_, obstacles_, cells_[1], cells_[0]})
    if (p) drv_.cuMemFree(p);
  if (stream_) drv_.cuStreamDestroy(stream_);
  if (module_) drv_.cuModuleUnload(module_);
  if (context_) drv_.cuDevicePrimaryCtxRelease(device_);
  partials_ = obstacles_ = cells_[0] = cells_[1] = 0;
  host_partials_[0] = host_partials_[1] = nullptr;
  read_done_[0] = read_done_[1] = nullptr;
  stream_ = nullptr;
  module_ = nullptr;
  context_ = nullptr;
}

void CudaSolver::release_graphs() {
  for (auto& entry : graphs_) drv_.cuGraphExecDestroy(entry.second);
  graphs_.clear();
}

void CudaSolver::build(const std::string& kernels_dir, int major, int minor) {
  const NvrtcTarget target = pick_target(major, minor, device_name_);
  const CompiledKernels compiled =
      compile_kernels_nvrtc(kernels_dir, kKernelFile, kernel_defines(params_, precision_, local_, rows_per_item_), target);
  CU_CALL(cuModuleLoadData, &module_, compiled.image.data());
  CU_CALL(cuModuleGetFunction, &accelerate_, module_, "accelerate_flow");
  CU_CALL(cuModuleGetFunction, &collide_, module_, "propagate_rebound_collide");
  CU_CALL(cuModuleGetFunction, &collide_x2_, module_, "propagate_rebound_collide_x2");
}

void CudaSolver::launch_accelerate(int parity) {
  void* args[] = {&cells_[parity], &obstacles_};
  const unsigned blocks = (static_cast<unsigned>(params_.nx) + accelerate_block_ - 1) / accelerate_block_;
  CU_CALL(cuLaunchKernel, accelerate_, blocks, 1, 1, accelerate_block_, 1, 1, 0, stream_, args, nullptr);
}

// The kernel launches of one chunk, onto stream_ (or into a graph capture).
void CudaSolver::launch_chunk(const ChunkKey& chunk) {
  const auto [half, parity, steps, ends_call] = chunk;
  const bool fused = variant_ != KernelVariant::Split;
  int state = parity;
  for (int t = 0; t < steps;) {
    const bool two = variant_ == KernelVariant::FusedX2 && t + 2 <= steps;
    const int advance = two ? 2 : 1;
    if (!fused) launch_accelerate(state);
    int partial_offset = (half * chunk_steps_ + t) * num_groups_;
    int accelerate_next = fused && !(ends_call && t + advance == steps) ? 1 : 0;
    void* args[] = {&cells_[state], &cells_[1 - state], &obstacles_, &partials_, &partial_offset, &accelerate_next};
    CU_CALL(cuLaunchKernel, two ? collide_x2_ : collide_, groups_x_, groups_y_, 1, static_cast<unsigned>(local_.x),
            static_cast<unsigned>(local_.y), 1, 0, stream_, args, nullptr);
    state = 1 - state;
    t += advance;
  }
}

CUgraphExec CudaSolver::capture_chunk(const ChunkKey& chunk) {
  CU_CALL(cuStreamBeginCapture, stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  std::string failure;
  try {
    launch_chunk(chunk);
  } catch (const DeviceError& e) {
    failure = e.what();
  }
  CUgraph graph = nullptr;
  const CUresult ended = drv_.cuStreamEndCapture(stream_, &graph);
  if (!failure.empty() || ended != CUDA_SUCCESS) {
    if (graph) drv_.cuGraphDestroy(graph);
    if (failure.empty()) check_cuda(ended, "cuStreamEndCapture");
    throw DeviceError(failure);
  }
  CUgraphExec exec = nullptr;
  const CUresult instantiated = drv_.cuGraphInstantiate(&exec, graph, 0);
  drv_.cuGraphDestroy(graph);
  check_cuda(instantiated, "cuGraphInstantiate");
  return exec;
}

// The chunk's graph, captured on first use. Returns nullptr once graphs have
// failed, so that the caller launches plainly.
CUgraphExec CudaSolver::chunk_graph(const ChunkKey& chunk) {
  if (!use_graphs_ || !graphs_failed_.empty()) return nullptr;
  const auto found = graphs_.find(chunk);
  if (found != graphs_.end()) return found->second;
  // Full chunks are reused all run long; a call's last chunk is kept only
  // until another call ends differently, so the cache stays small.
  if (std::get<3>(chunk)) {
    for (auto it = graphs_.begin(); it != graphs_.end();) {
      if (std::get<3>(it->first)) {
        drv_.cuGraphExecDestroy(it->second);
        it = graphs_.erase(it);
      } else {
        ++it;
      }
    }
  }
  try {
    return graphs_[chunk] = capture_chunk(chunk);
  } catch (const DeviceError& e) {
    graphs_.erase(chunk);
    graphs_failed_ = std::string("graph capture failed: ") + e.what();
    return nullptr;
  }
}

void CudaSolver::enqueue_chunk(const ChunkKey& chunk) {
  if (CUgraphExec graph = chunk_graph(chunk))
    CU_CALL(cuGraphLaunch, graph, stream_);
  else
    launch_chunk(chunk);
}

// The chunks of a call of `steps` steps starting from buffer `parity`: the
// halves of partials_ alternate, and only the last chunk ends the call.
std::vector<CudaSolver::ChunkKey> CudaSolver::plan(int steps, int parity) const {
  std::vector<ChunkKey> chunks;
  int half = 0;
  for (int done = 0; done < steps;) {
    const int n = std::min(chunk_steps_, steps - done);
    chunks.emplace_back(half, parity, n, done + n == steps);
    parity = (parity + launches(n)) % 2;
    half = 1 - half;
    done += n;
  }
  return chunks;
}

void CudaSolver::run(int steps, std::vector<double>& av_vels) {
  struct PendingRead {
    int half;
    int steps;
  };
  CU_CALL(cuCtxSetCurrent, context_);
  std::deque<PendingRead> pending;
  // Fused: the first step's acceleration runs alone, each later one inside the
  // step before it; the last step of the call leaves the state unaccelerated,
  // so distributions() between calls sees the model's state.
  if (variant_ != KernelVariant::Split && steps > 0) launch_accelerate(current_);
  for (const ChunkKey& chunk : plan(steps, current_)) {
    const int half = std::get<0>(chunk), n = std::get<2>(chunk);
    enqueue_chunk(chunk);
    current_ = (current_ + launches(n)) % 2;
    // Read this half back while the device works on the next chunk.
    const std::size_t bytes = static_cast<std::size_t>(n) * num_groups_ * real_size_;
    const CUdeviceptr from = partials_ + static_cast<std::size_t>(half) * chunk_steps_ * num_groups_ * real_size_;
    CU_CALL(cuMemcpyDtoHAsync, host_partials_[half], from, bytes, stream_);
    CU_CALL(cuEventRecord, read_done_[half], stream_);
    pending.push_back({half, n});
    if (pending.size() == 2) {
      CU_CALL(cuEventSynchronize, read_done_[pending.front().half]);
      consume_partials(pending.front().half, pending.front().steps, av_vels);
      pending.pop_front();
    }
  }
  for (const auto& p : pending) {
    CU_CALL(cuEventSynchronize, read_done_[p.half]);
    consume_partials(p.half, p.steps, av_vels);
  }
}

void CudaSolver::consume_partials(int half, int steps, std::vector<double>& av_vels) {
  append_average_velocities(host_partials_[half], precision_, steps, num_groups_, fluid_cells_, av_vels);
}

std::vector<double> CudaSolver::distributions() {
  const std::size_t count = kSpeeds * params_.cells();
  std::vector<double> f(count);
  CU_CALL(cuCtxSetCurrent, context_);
  if (precision_ == Precision::Float) {
    std::vector<float> tmp(count);
    CU_CALL(cuMemcpyDtoHAsync, tmp.data(), cells_[current_], count * sizeof(float), stream_);
    CU_CALL(cuStreamSynchronize, stream_);
    std::copy(tmp.begin(), tmp.end(), f.begin());
  } else {
    CU_CALL(cuMemcpyDtoHAsync, f.data(), cells_[current_], count * sizeof(double), stream_);
    CU_CALL(cuStreamSynchronize, stream_);
  }
  return f;
}

void CudaSolver::load_distributions(const std::vector<double>& f) {
  const std::size_t count = kSpeeds * params_.cells();
  if (f.size() != count) throw std::invalid_argument("load_distributions: wrong number of values");
  CU_CALL(cuCtxSetCurrent, context_);
  if (precision_ == Precision::Float) {
    const std::vector<float> tmp(f.begin(), f.end());
    CU_CALL(cuMemcpyHtoDAsync, cells_[current_], tmp.data(), count * sizeof(float), stream_);
    CU_CALL(cuStreamSynchronize, stream_);
  } else {
    CU_CALL(cuMemcpyHtoDAsync, cells_[current_], f.data(), count * sizeof(double), stream_);
    CU_CALL(cuStreamSynchronize, stream_);
  }
}

}  // namespace

std::vector<CudaDeviceInfo> list_cuda_devices() {
  const CudaDriver& drv = cuda_driver();
  int count = 0;
  check_cuda(drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < count; ++i) out.push_back(describe(drv, i));
  return out;
}

std::string cuda_driver_version() {
  int version = 0;
  check_cuda(cuda_driver().cuDriverGetVersion(&version), "cuDriverGetVersion");
  return "CUDA driver " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

double measure_cuda_copy_bandwidth(const CudaOptions& options, std::size_t bytes) {
  const CudaDriver& drv = cuda_driver();
  const int index = options.device_index < 0 ? 0 : options.device_index;
  const CudaDeviceInfo info = describe(drv, index);
  bytes -= bytes % 16;
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  CUcontext context = nullptr;
  check_cuda(drv.cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  CUmodule module = nullptr;
  CUdeviceptr a = 0, b = 0;
  CUstream stream = nullptr;
  auto release = [&] {
    if (stream) drv.cuStreamDestroy(stream);
    if (b) drv.cuMemFree(b);
    if (a) drv.cuMemFree(a);
    if (module) drv.cuModuleUnload(module);
    drv.cuDevicePrimaryCtxRelease(device);
  };
  try {
    check_cuda(drv.cuCtxSetCurrent(context), "cuCtxSetCurrent");
    const CompiledKernels compiled = compile_kernels_nvrtc(options.kernels_dir, "bandwidth.cl", {},
                                                           pick_target(info.compute_major, info.compute_minor, info.name));
    check_cuda(drv.cuModuleLoadData(&module, compiled.image.data()), "cuModuleLoadData");
    CUfunction copy = nullptr;
    check_cuda(drv.cuModuleGetFunction(&copy, module, "copy_float4"), "cuModuleGetFunction");
    check_cuda(drv.cuMemAlloc(&a, bytes), "cuMemAlloc");
    check_cuda(drv.cuMemAlloc(&b, bytes), "cuMemAlloc");
    check_cuda(drv.cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    void* args[] = {&a, &b};
    const unsigned block = 256;
    const unsigned blocks = static_cast<unsigned>(bytes / 16 / block);
    auto launch = [&] {
      check_cuda(drv.cuLaunchKernel(copy, blocks, 1, 1, block, 1, 1, 0, stream, args, nullptr), "cuLaunchKernel");
    };
    for (int i = 0; i < 2; ++i) launch();
    check_cuda(drv.cuStreamSynchronize(stream), "cuStreamSynchronize");
    // Best of several timed batches: the machine is shared and noisy.
    double best = 0.0;
    for (int batch = 0; batch < 5; ++batch) {
      const int reps = 5;
      const auto t0 = std::chrono::steady_clock::now();
      for (int i = 0; i < reps; ++i) launch();
      check_cuda(drv.cuStreamSynchronize(stream), "cuStreamSynchronize");
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::max(best, 2.0 * static_cast<double>(bytes / (16 * block) * 16 * block) * reps / t);
    }
    release();
    return best;
  } catch (...) {
    release();
    throw;
  }
}

std::unique_ptr<Solver> make_cuda_solver(const Params& params, const ObstacleMask& mask, const CudaOptions& options) {
  return std::make_unique<CudaSolver>(params, mask, options);
}

std::string cuda_launch_mode(const Solver& solver) {
  const auto* cuda = dynamic_cast<const CudaSolver*>(&solver);
  return cuda ? cuda->launch_mode() : std::string();
}

}  // namespace d2q9
