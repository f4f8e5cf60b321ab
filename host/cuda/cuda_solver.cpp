#include "cuda/cuda_solver.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <tuple>

#include "device/kernel_source.hpp"
#include "device/chunked_solver.hpp"
#include "core/stopwatch.hpp"
#include "cuda/cuda_device.hpp"

namespace d2q9 {

namespace {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

class CudaSolver final : public ChunkedSolver {
 public:
  CudaSolver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config, const LaunchPlan& plan,
             bool use_graphs);
  ~CudaSolver() override;
  CudaSolver(const CudaSolver&) = delete;
  CudaSolver& operator=(const CudaSolver&) = delete;

  Backend backend() const override { return Backend::Cuda; }
  std::string device_name() const override { return lattice_.device_name(); }
  SetupTimes setup_times() const override { return lattice_.setup; }
  std::vector<double> distributions() override;
  // Nine small copies per cell, not the whole lattice: probes every few steps.
  std::vector<double> cell_distributions(const std::vector<std::size_t>& cells) override;
  void load_distributions(const std::vector<double>& f) override;

  std::string launch_mode() const {
    return graphs_failed_.empty() ? (use_graphs_ ? "graphs" : "plain launches (graphs turned off)")
                                  : "plain launches (" + graphs_failed_ + ")";
  }

 private:
  // A chunk is fully described by where its partial sums go, which buffer
  // holds the state when it starts, its length, and whether it ends the call.
  using ChunkKey = std::tuple<int, int, int, bool>;  // half, parity, steps, ends call

  void setup();
  void release();
  // `first_step`: the number of the chunk's first step (the kernels' `step`).
  void launch_chunk(const ChunkKey& key, int first_step);
  CUgraphExec chunk_graph(const ChunkKey& key);
  CUgraphExec capture_chunk(const ChunkKey& key);
  void release_graphs();

  void accelerate_first() override { lattice_.launch_accelerate(stream_, current_); }
  void enqueue_chunk(const Chunk& chunk) override;
  const void* wait_partials(int half) override;

  const CudaDriver& drv_;
  Params params_;
  bool use_graphs_;
  std::string graphs_failed_;  // why graphs were given up, empty while they work

  CudaLattice lattice_;
  CUstream stream_ = nullptr;
  void* host_partials_[2] = {nullptr, nullptr};  // pinned, so read-backs are asynchronous
  CUevent read_done_[2] = {nullptr, nullptr};
  std::map<ChunkKey, CUgraphExec> graphs_;

  int current_ = 0;  // which of cells_ holds the current state
};

CudaSolver::CudaSolver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                       const LaunchPlan& plan, bool use_graphs)
    : ChunkedSolver(plan, config.precision, mask.fluid_cells(), params.extensions.sums_per_group()),
      drv_(cuda_driver()),
      params_(params),
      use_graphs_(use_graphs),
      lattice_(config, params, plan, kernel_defines(params, config.precision, plan),
               2 * half_values() * real_size(config.precision), mask,
               "grid " + std::to_string(params.nx) + "x" + std::to_string(params.ny)) {
  // A throwing constructor runs no destructor (but lattice_'s): free what was made so far.
  try {
    setup();
  } catch (...) {
    release();
    throw;
  }
}

void CudaSolver::setup() {
  const std::size_t half_bytes = half_values() * real_size(precision_);
  CU_CALL(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
  for (int h = 0; h < 2; ++h) {
    CU_CALL(cuMemAllocHost, &host_partials_[h], half_bytes);
    CU_CALL(cuEventCreate, &read_done_[h], CU_EVENT_DISABLE_TIMING);
  }
  Stopwatch watch;
  lattice_.fill_at_rest(stream_, current_);
  lattice_.setup.upload_s += watch.lap();

  // Like the kernel build, capturing the graphs a whole run needs happens
  // here rather than in the timed step loop.
  if (use_graphs_) {
    int parity = current_;
    for (const Chunk& c : chunks(params_.max_iters)) {
      chunk_graph({c.half, parity, c.steps, c.ends_call});
      parity = (parity + plan_.launches(c.steps)) % 2;
    }
  }
  lattice_.setup.compile_s += watch.lap();  // the graphs are the kernels' launches, prepared
}

CudaSolver::~CudaSolver() { release(); }

// Errors cannot be reported from here; frees what exists (the lattice frees its own).
void CudaSolver::release() {
  try {
    lattice_.make_current();
  } catch (const DeviceError&) {
  }
  release_graphs();
  for (auto& e : read_done_)
    if (e) drv_.cuEventDestroy(e);
  for (auto& p : host_partials_)
    if (p) drv_.cuMemFreeHost(p);
  if (stream_) drv_.cuStreamDestroy(stream_);
  host_partials_[0] = host_partials_[1] = nullptr;
  read_done_[0] = read_done_[1] = nullptr;
  stream_ = nullptr;
}

void CudaSolver::release_graphs() {
  for (auto& entry : graphs_) drv_.cuGraphExecDestroy(entry.second);
  graphs_.clear();
}

// The kernel launches of one chunk, onto stream_ (or into a graph capture).
void CudaSolver::launch_chunk(const ChunkKey& key, int first_step) {
  const auto [half, parity, steps, ends_call] = key;
  int state = parity;
  for (const Launch& l : launches(Chunk{half, steps, ends_call, first_step})) {
    if (!plan_.fused()) lattice_.launch_accelerate(stream_, state);
    lattice_.launch_step(stream_, state, l.two_step_kernel, plan_.groups_y, 0, l.partial_offset, l.accelerate_next,
                         l.steps, l.run_step);
    state = 1 - state;
  }
}

CUgraphExec CudaSolver::capture_chunk(const ChunkKey& key) {
  CU_CALL(cuStreamBeginCapture, stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  std::string failure;
  try {
    // Graphs hold their launches' arguments: captured past an inlet's ramp,
    // where the step no longer matters (chunks inside it launch plainly).
    launch_chunk(key, params_.extensions.inlet_ramp_steps);
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
CUgraphExec CudaSolver::chunk_graph(const ChunkKey& key) {
  if (!use_graphs_ || !graphs_failed_.empty()) return nullptr;
  const auto found = graphs_.find(key);
  if (found != graphs_.end()) return found->second;
  // Full chunks are reused all run long; a call's last chunk is kept only
  // until another call ends differently, so the cache stays small.
  if (std::get<3>(key)) {
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
    return graphs_[key] = capture_chunk(key);
  } catch (const DeviceError& e) {
    graphs_.erase(key);
    graphs_failed_ = std::string("graph capture failed: ") + e.what();
    return nullptr;
  }
}

void CudaSolver::enqueue_chunk(const Chunk& chunk) {
  lattice_.make_current();
  const ChunkKey key{chunk.half, current_, chunk.steps, chunk.ends_call};
  const bool ramping = chunk.run_step < params_.extensions.inlet_ramp_steps;
  if (CUgraphExec graph = ramping ? nullptr : chunk_graph(key))
    CU_CALL(cuGraphLaunch, graph, stream_);
  else
    launch_chunk(key, chunk.run_step);
  current_ = (current_ + plan_.launches(chunk.steps)) % 2;
  const std::size_t bytes = chunk_values(chunk) * real_size(precision_);
  const CUdeviceptr from = lattice_.partials() + chunk.half * half_values() * real_size(precision_);
  CU_CALL(cuMemcpyDtoHAsync, host_partials_[chunk.half], from, bytes, stream_);
  CU_CALL(cuEventRecord, read_done_[chunk.half], stream_);
}

const void* CudaSolver::wait_partials(int half) {
  CU_CALL(cuEventSynchronize, read_done_[half]);
  return host_partials_[half];
}

std::vector<double> CudaSolver::cell_distributions(const std::vector<std::size_t>& cells) {
  const std::size_t size = stored_size(precision_);
  std::vector<unsigned char> raw(kSpeeds * cells.size() * size);
  lattice_.make_current();
  for (int k = 0; k < kSpeeds; ++k)
    for (std::size_t c = 0; c < cells.size(); ++c)
      CU_CALL(cuMemcpyDtoHAsync, raw.data() + (k * cells.size() + c) * size,
              lattice_.cells(current_) + (k * params_.cells() + cells[c]) * size, size, stream_);
  CU_CALL(cuStreamSynchronize, stream_);
  return cells_from_device(raw, cells.size(), precision_, params_.density);
}

std::vector<double> CudaSolver::distributions() {
  const std::size_t count = kSpeeds * params_.cells();
  std::vector<unsigned char> raw(count * stored_size(precision_));
  lattice_.make_current();
  CU_CALL(cuMemcpyDtoHAsync, raw.data(), lattice_.cells(current_), raw.size(), stream_);
  CU_CALL(cuStreamSynchronize, stream_);
  return from_device_reals(raw.data(), count, precision_, params_.density);
}

void CudaSolver::load_distributions(const std::vector<double>& f) {
  if (f.size() != kSpeeds * params_.cells()) throw std::invalid_argument("load_distributions: wrong number of values");
  const std::vector<unsigned char> raw = to_device_reals(f, precision_, params_.density);
  lattice_.make_current();
  CU_CALL(cuMemcpyHtoDAsync, lattice_.cells(current_), raw.data(), raw.size(), stream_);
  CU_CALL(cuStreamSynchronize, stream_);
}

}  // namespace

std::vector<CudaDeviceInfo> list_cuda_devices() {
  const CudaDriver& drv = cuda_driver();
  int count = 0;
  check_cuda(drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
  std::vector<CudaDeviceInfo> out;
  for (int i = 0; i < count; ++i) out.push_back(describe_cuda_device(drv, i));
  return out;
}

std::string cuda_driver_version() {
  int version = 0;
  check_cuda(cuda_driver().cuDriverGetVersion(&version), "cuDriverGetVersion");
  return "CUDA driver " + std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

DeviceLimits cuda_limits(int device_index) {
  const CudaDriver& drv = cuda_driver();
  int index = 0;
  const CUdevice device = cuda_device_at(drv, device_index, &index);
  DeviceLimits l;
  l.name = describe_cuda_device(drv, index).name;
  l.gpu = true;
  l.max_x = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l.max_y = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l.max_threads = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  l.max_groups_y = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l.has_rows_kernel = false;
  // Static shared arrays: 48 KB per block whatever the device has.
  l.local_mem_bytes =
      cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  l.compute_units = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  return l;
}

double measure_cuda_copy_bandwidth(int device_index, const std::string& kernels_dir, std::size_t bytes) {
  const CudaDriver& drv = cuda_driver();
  const int index = device_index < 0 ? 0 : device_index;
  const CudaDeviceInfo info = describe_cuda_device(drv, index);
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
    const CompiledKernels compiled = compile_kernels_nvrtc(kernels_dir, "bandwidth.cl", {},
                                                           pick_nvrtc_target(info.compute_major, info.compute_minor, info.name));
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

std::unique_ptr<Solver> make_cuda_solver(const Params& params, const ObstacleMask& mask, const DeviceConfig& config,
                                         const LaunchPlan& plan, bool use_graphs) {
  return std::make_unique<CudaSolver>(params, mask, config, plan, use_graphs);
}

std::string cuda_launch_mode(const Solver& solver) {
  const auto* cuda = dynamic_cast<const CudaSolver*>(&solver);
  return cuda ? cuda->launch_mode() : std::string();
}

}  // namespace d2q9
