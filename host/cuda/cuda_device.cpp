#include "cuda/cuda_device.hpp"

#include <algorithm>
#include <cstring>
#include <future>
#include <mutex>
#include <set>
#include <vector>

#include "device/kernel_source.hpp"
#include "core/stopwatch.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

int cuda_device_attribute(const CudaDriver& drv, CUdevice device, CUdevice_attribute attribute) {
  int value = 0;
  check_cuda(drv.cuDeviceGetAttribute(&value, attribute, device), "cuDeviceGetAttribute");
  return value;
}

CudaDeviceInfo describe_cuda_device(const CudaDriver& drv, int index) {
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  char name[256] = {};
  check_cuda(drv.cuDeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
  std::size_t bytes = 0;
  check_cuda(drv.cuDeviceTotalMem(&bytes, device), "cuDeviceTotalMem");
  CudaDeviceInfo info;
  info.index = index;
  info.name = name;
  info.compute_major = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info.compute_minor = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info.multiprocessors = cuda_device_attribute(drv, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info.global_mem_bytes = bytes;
  return info;
}

CUdevice cuda_device_at(const CudaDriver& drv, int requested, int* index_out) {
  int count = 0;
  check_cuda(drv.cuDeviceGetCount(&count), "cuDeviceGetCount");
  if (count == 0) throw DeviceError("no CUDA device found");
  const int index = requested < 0 ? 0 : requested;
  if (index >= count)
    throw DeviceError("--device " + std::to_string(index) + " does not exist: there are " + std::to_string(count) +
                      " CUDA device(s), see --list-devices");
  CUdevice device{};
  check_cuda(drv.cuDeviceGet(&device, index), "cuDeviceGet");
  if (index_out) *index_out = index;
  return device;
}

NvrtcTarget pick_nvrtc_target(int major, int minor, const std::string& device_name) {
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

namespace {

// Every cell of the `cells`-cell lattice at `lattice` at rest with `density`,
// filled on the device (blocking, on `stream`): a large grid's worth of
// doubles on the host would cost more memory than the device holds.
void fill_cuda_lattice_at_rest(const CudaDriver& drv, CUdeviceptr lattice, std::size_t cells, const Params& one_cell,
                               Precision precision, CUstream stream) {
  const std::vector<double> rest = initial_distributions(one_cell);
  const std::size_t plane_bytes = cells * stored_size(precision);
  for (int k = 0; k < one_cell.extensions.planes(); ++k) {
    const CUdeviceptr plane = lattice + k * plane_bytes;
    if (is_16bit(precision)) {  // a value at rest is stored as 0 in both formats
      check_cuda(drv.cuMemsetD16Async(plane, 0, cells, stream), "cuMemsetD16Async");
    } else if (precision == Precision::Float) {
      const float value = static_cast<float>(rest[k]);
      unsigned bits = 0;
      std::memcpy(&bits, &value, sizeof bits);
      check_cuda(drv.cuMemsetD32Async(plane, bits, cells, stream), "cuMemsetD32Async");
    } else {  // no 64-bit memset: copies of a block of values
      const std::vector<double> block(std::min<std::size_t>(cells, 1 << 20), rest[k]);
      for (std::size_t done = 0; done < cells; done += block.size()) {
        const std::size_t n = std::min(block.size(), cells - done);
        check_cuda(drv.cuMemcpyHtoDAsync(plane + done * sizeof(double), block.data(), n * sizeof(double), stream),
                   "cuMemcpyHtoDAsync");
      }
    }
    check_cuda(drv.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
}

}  // namespace

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

// The device's primary context lives as long as the process once made, as
// OpenCL's shared contexts do: a program that runs one simulation after
// another (the library API, the launch search) pays for it once. Returns
// whether this call made it so (false: kept already).
static bool keep_primary_context(const CudaDriver& drv, CUdevice device) {
  static std::mutex guard;
  static auto* kept = new std::set<CUdevice>();  // never freed: the contexts stay until exit
  const std::lock_guard<std::mutex> lock(guard);
  if (!kept->insert(device).second) return false;
  CUcontext context = nullptr;
  if (drv.cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS) kept->erase(device);
  return true;
}

CudaLattice::CudaLattice(const DeviceConfig& config, const Params& lattice, const LaunchPlan& plan,
                         const std::vector<std::string>& defines, std::size_t partial_bytes,
                         const ObstacleMask& mask, const std::string& what)
    : drv_(cuda_driver()),
      plan_(plan),
      precision_(config.precision),
      density_(lattice.density),
      nx_(lattice.nx),
      cells_count_(lattice.cells()),
      one_cell_(lattice),
      kernels_dir_(config.kernels_dir),
      defines_(defines) {
  // A throwing constructor runs no destructor: free what was made so far.
  try {
    Stopwatch watch;
    int index = 0;
    device_ = cuda_device_at(drv_, config.device, &index);
    const CudaDeviceInfo info = describe_cuda_device(drv_, index);
    device_name_ = info.name;
    // NVRTC needs no context: the kernels compile while the driver makes one
    // (a first run's two largest costs, overlapped).
    const NvrtcTarget target = pick_nvrtc_target(info.compute_major, info.compute_minor, device_name_);
    target_ = target;
    std::future<CompiledKernels> compiling = std::async(std::launch::async, [&config, &defines, target] {
      return compile_kernels_nvrtc(config.kernels_dir, kKernelFile, defines, target);
    });
    const std::vector<std::string> plain = defines_without_probes(defines);
    std::future<CompiledKernels> compiling_plain;
    if (!plain.empty())
      compiling_plain = std::async(std::launch::async, [&config, &plain, target] {
        return compile_kernels_nvrtc(config.kernels_dir, kKernelFile, plain, target);
      });
    CU_CALL(cuDevicePrimaryCtxRetain, &context_, device_);
    setup.context_reused = !keep_primary_context(drv_, device_);
    CU_CALL(cuCtxSetCurrent, context_);
    setup.context_s = watch.lap();

    one_cell_.nx = one_cell_.ny = 1;
    const std::size_t lattice_bytes = planes() * cells_count_ * stored_size(precision_);
    const std::vector<std::uint8_t> obstacle_bytes = obstacle_buffer(mask);
    std::size_t free_bytes = 0, total_bytes = 0;
    CU_CALL(cuMemGetInfo, &free_bytes, &total_bytes);
    check_device_memory(what, 2ULL * lattice_bytes + obstacle_bytes.size() + partial_bytes, lattice_bytes, free_bytes,
                        free_bytes, device_name_ + " (free memory)");

    const CompiledKernels compiled = compiling.get();
    setup.kernels_cached = compiled.from_cache;
    setup.compile_cost_s = compiled.compile_s;
    CU_CALL(cuModuleLoadData, &module_, compiled.image.data());
    CU_CALL(cuModuleGetFunction, &accelerate_, module_, "accelerate_flow");
    CU_CALL(cuModuleGetFunction, &sample_, module_, "sample_cells");
    CU_CALL(cuModuleGetFunction, &collide_, module_, plan_.step_kernel());
    collide_plain_ = collide_;
    if (compiling_plain.valid()) {
      const CompiledKernels twin = compiling_plain.get();
      setup.kernels_cached = setup.kernels_cached && twin.from_cache;
      setup.compile_cost_s += twin.compile_s;
      CU_CALL(cuModuleLoadData, &module_plain_, twin.image.data());
      CU_CALL(cuModuleGetFunction, &collide_plain_, module_plain_, plan_.step_kernel());
    }
    // The blocked kernel's region is dynamic shared memory (cl/cuda_prelude.h): past 48 KB only on request.
    if (plan_.region_bytes > 0)
      for (CUfunction f : {collide_, collide_plain_})
        CU_CALL(cuFuncSetAttribute, f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                static_cast<int>(plan_.region_bytes));
    int kernel_max = 0;
    CU_CALL(cuFuncGetAttribute, &kernel_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, collide_);
    check_kernel_group_limit(plan_, kernel_max, "propagate_rebound_collide", device_name_);
    int accelerate_max = 0;
    CU_CALL(cuFuncGetAttribute, &accelerate_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, accelerate_);
    accelerate_block_ = static_cast<unsigned>(std::min({128, accelerate_max, nx_}));
    setup.compile_s = watch.lap();

    for (auto& buf : cells_) CU_CALL(cuMemAlloc, &buf, lattice_bytes);
    CU_CALL(cuMemAlloc, &obstacles_, obstacle_bytes.size());
    CU_CALL(cuMemAlloc, &partials_, partial_bytes);
    CU_CALL(cuMemcpyHtoD, obstacles_, obstacle_bytes.data(), obstacle_bytes.size());
    setup.upload_s = watch.lap();
  } catch (...) {
    release();
    throw;
  }
}

// Errors cannot be reported from here; frees what exists, in reverse order.
void CudaLattice::release() noexcept {
  if (!context_) return;
  drv_.cuCtxSetCurrent(context_);
  for (CUdeviceptr p : {render_edge_ux_, render_values_, tile_order_, partials_, obstacles_, cells_[1], cells_[0]})
    if (p) drv_.cuMemFree(p);
  if (render_module_) drv_.cuModuleUnload(render_module_);
  if (module_plain_) drv_.cuModuleUnload(module_plain_);
  if (module_) drv_.cuModuleUnload(module_);
  drv_.cuDevicePrimaryCtxRelease(device_);
  context_ = nullptr;
}

void CudaLattice::make_current() const { CU_CALL(cuCtxSetCurrent, context_); }

void CudaLattice::set_tile_order(const std::vector<int>& order) {
  if (tile_order_) CU_CALL(cuMemFree, tile_order_);
  tile_order_ = 0;
  if (order.empty() || plan_.variant != KernelVariant::Blocked) return;
  CU_CALL(cuMemAlloc, &tile_order_, order.size() * sizeof(int));
  CU_CALL(cuMemcpyHtoD, tile_order_, order.data(), order.size() * sizeof(int));
}

void CudaLattice::launch_accelerate(CUstream stream, int state) {
  void* args[] = {&cells_[state], &obstacles_};
  const unsigned blocks = (static_cast<unsigned>(nx_) + accelerate_block_ - 1) / accelerate_block_;
  CU_CALL(cuLaunchKernel, accelerate_, blocks, 1, 1, accelerate_block_, 1, 1, 0, stream, args, nullptr);
}

void CudaLattice::launch_step(CUstream stream, int state, int group_rows, int first_group_row,
                              int partial_offset, bool accelerate_next, int steps, int step, StepSamples samples) {
  int accelerate_next_arg = accelerate_next ? 1 : 0;
  void* args[] = {&cells_[state],  &cells_[1 - state],    &obstacles_, &partials_, &partial_offset,
                  &accelerate_next_arg, &steps,      &first_group_row, &step,
                  &samples.samples, &samples.index, &samples.count, &samples.first, &samples.every, &samples.row,
                  &tile_order_};
  CU_CALL(cuLaunchKernel, samples.inside ? collide_ : collide_plain_, static_cast<unsigned>(plan_.groups_x),
          static_cast<unsigned>(group_rows), 1, static_cast<unsigned>(plan_.local.x),
          static_cast<unsigned>(plan_.local.y), 1, static_cast<unsigned>(plan_.region_bytes), stream, args, nullptr);
}

void CudaLattice::launch_sample(CUstream stream, int state, CUdeviceptr which, CUdeviceptr samples, int count,
                                int row) {
  void* args[] = {&cells_[state], &which, &samples, &count, &row};
  const unsigned items = static_cast<unsigned>(planes() * count), block = 64;
  CU_CALL(cuLaunchKernel, sample_, (items + block - 1) / block, 1, 1, block, 1, 1, 0, stream, args, nullptr);
}

void CudaLattice::fill_at_rest(CUstream stream, int state) {
  fill_cuda_lattice_at_rest(drv_, cells_[state], cells_count_, one_cell_, precision_, stream);
}

void CudaLattice::prepare_render(int width) {
  make_current();
  if (!render_module_) {
    const CompiledKernels compiled = compile_kernels_nvrtc(kernels_dir_, "render.cl", defines_, target_);
    CU_CALL(cuModuleLoadData, &render_module_, compiled.image.data());
    CU_CALL(cuModuleGetFunction, &render_field_, render_module_, "render_field");
    CU_CALL(cuModuleGetFunction, &render_edges_, render_module_, "render_edges");
  }
  const std::size_t values = 2 * static_cast<std::size_t>(std::max(width, 1));
  if (values > render_edge_values_) {  // grows to the widest picture asked for, and is kept
    if (render_edge_ux_) CU_CALL(cuMemFree, render_edge_ux_);
    render_edge_ux_ = 0;
    CU_CALL(cuMemAlloc, &render_edge_ux_, values * sizeof(float));
    render_edge_values_ = values;
  }
}

std::vector<float> CudaLattice::render(CUstream stream, int state, const FieldImageRequest& request,
                                       const RenderPart& part, const std::vector<float>& edge_ux) {
  const FieldImageLayout& l = part.layout;
  const std::size_t pixels = static_cast<std::size_t>(l.width) * part.pixels.count;
  std::vector<float> values(pixels);
  if (pixels == 0) return values;
  prepare_render(l.width);
  if (pixels > render_pixels_) {  // grows to the largest picture asked for, and is kept
    if (render_values_) CU_CALL(cuMemFree, render_values_);
    render_values_ = 0;
    CU_CALL(cuMemAlloc, &render_values_, pixels * sizeof(float));
    render_pixels_ = pixels;
  }
  if (!edge_ux.empty())
    CU_CALL(cuMemcpyHtoDAsync, render_edge_ux_, edge_ux.data(), edge_ux.size() * sizeof(float), stream);
  int field = static_cast<int>(request.field), scale = l.scale, width = l.width, height = l.height;
  int first_py = part.pixels.first, pixel_rows = part.pixels.count, grid_ny = part.grid_ny;
  int first_row = part.first_row, rows = part.rows, first_local = part.first_local;
  void* args[] = {&cells_[state], &obstacles_, &field,     &scale,      &width,       &height,          &first_py,
                  &pixel_rows,    &grid_ny,    &first_row, &rows,       &first_local, &render_edge_ux_, &render_values_};
  constexpr unsigned kBlock = 16;
  CU_CALL(cuLaunchKernel, render_field_, (static_cast<unsigned>(width) + kBlock - 1) / kBlock,
          (static_cast<unsigned>(pixel_rows) + kBlock - 1) / kBlock, 1, kBlock, kBlock, 1, 0, stream, args, nullptr);
  CU_CALL(cuMemcpyDtoHAsync, values.data(), render_values_, pixels * sizeof(float), stream);
  CU_CALL(cuStreamSynchronize, stream);
  return values;
}

std::vector<float> CudaLattice::render_edges(CUstream stream, int state, const RenderPart& part) {
  const FieldImageLayout& l = part.layout;
  prepare_render(l.width);
  std::vector<float> out(2 * static_cast<std::size_t>(l.width));
  int scale = l.scale, width = l.width, rows = part.rows, first_local = part.first_local;
  void* args[] = {&cells_[state], &obstacles_, &scale, &width, &rows, &first_local, &render_edge_ux_};
  constexpr unsigned kBlock = 128;
  CU_CALL(cuLaunchKernel, render_edges_, (static_cast<unsigned>(width) + kBlock - 1) / kBlock, 2, 1, kBlock, 1, 1, 0,
          stream, args, nullptr);
  CU_CALL(cuMemcpyDtoHAsync, out.data(), render_edge_ux_, out.size() * sizeof(float), stream);
  CU_CALL(cuStreamSynchronize, stream);
  return out;
}

}  // namespace d2q9
