// A slab on a CUDA device: kernels on one stream, copies on another, events
// between them; the edge buffers and partial sums in pinned host memory, so
// that every copy is asynchronous.
#include <algorithm>
#include <map>

#include "cuda/cuda_device.hpp"
#include "device/kernel_source.hpp"
#include "device/slab_device.hpp"

namespace d2q9 {

namespace {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

class CudaSlabDevice final : public SlabDevice {
 public:
  CudaSlabDevice(const DeviceConfig& config, const LaunchPlan& plan, const SlabLattice& slab);
  ~CudaSlabDevice() override { release(); }
  CudaSlabDevice(const CudaSlabDevice&) = delete;
  CudaSlabDevice& operator=(const CudaSlabDevice&) = delete;

  std::string device_name() const override { return device_name_; }
  EdgeBuffers edge_buffers() override { return edges_; }
  void fill_at_rest(int state) override;
  void upload(int state, const std::vector<double>& f) override;
  std::vector<unsigned char> read_rows(int state, int first_row, int rows) override;
  void accelerate(int state) override;
  void collide(int state, int first_group_row, int group_rows, int partial_offset, bool accelerate_next) override;
  void read_edges(int state) override;
  void wait_edges() override { CU_CALL(cuEventSynchronize, edges_read_); }
  void write_halos(int state) override;
  int read_partials(std::size_t first, std::size_t count) override;
  const void* partials(int slot, bool wait) override;
  void release_partials(int slot) override { slots_.at(slot).in_use = false; }
  void reuse_partials(std::size_t first) override;
  void flush() override {}  // launches and copies are submitted as they are made
  void drain() noexcept override {
    if (kernels_) drv_.cuStreamSynchronize(kernels_);
    if (copies_) drv_.cuStreamSynchronize(copies_);
  }

 private:
  void setup(const DeviceConfig& config, const SlabLattice& slab);
  void release() noexcept;
  CUdeviceptr row_at(int state, int speed, int row) const {
    return cells_[state] + (static_cast<std::size_t>(speed) * cells_count_ + static_cast<std::size_t>(row) * nx_) *
                               stored_size(precision_);
  }
  // The copy stream's later work waits for the kernel stream's work so far.
  void copies_after_kernels();
  void synchronize() {
    CU_CALL(cuStreamSynchronize, kernels_);
    CU_CALL(cuStreamSynchronize, copies_);
  }

  const CudaDriver& drv_;
  LaunchPlan plan_;
  Precision precision_;
  double density_;
  int nx_;
  int rows_;  // the slab's own, halo rows not counted
  std::size_t cells_count_;
  std::size_t row_bytes_;
  std::size_t partial_bytes_;  // the device buffer
  std::size_t slot_bytes_;
  std::string device_name_;
  unsigned accelerate_block_ = 0;

  CUdevice device_{};
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction accelerate_ = nullptr;
  CUfunction collide_ = nullptr;
  CUstream kernels_ = nullptr;
  CUstream copies_ = nullptr;
  CUdeviceptr cells_[2] = {0, 0};
  CUdeviceptr obstacles_ = 0;
  CUdeviceptr partials_ = 0;
  unsigned char* staging_ = nullptr;  // pinned: the edge buffers
  EdgeBuffers edges_;
  struct PartialsSlot {
    void* host = nullptr;  // pinned
    CUevent read = nullptr;
    bool in_use = false;
  };
  std::vector<PartialsSlot> slots_;
  std::map<std::size_t, CUevent> last_read_from_;  // by first value: the slot event recorded after it
  CUevent kernels_done_ = nullptr;  // re-recorded whenever the copy stream must wait for the kernels
  CUevent edges_read_ = nullptr;
  CUevent halos_written_ = nullptr;
};

CudaSlabDevice::CudaSlabDevice(const DeviceConfig& config, const LaunchPlan& plan, const SlabLattice& slab)
    : drv_(cuda_driver()),
      plan_(plan),
      precision_(config.precision),
      density_(slab.lattice.density),
      nx_(slab.lattice.nx),
      rows_(slab.rows()),
      cells_count_(slab.lattice.cells()),
      row_bytes_(static_cast<std::size_t>(slab.lattice.nx) * stored_size(config.precision)),
      partial_bytes_(slab.partial_values * real_size(config.precision)),
      slot_bytes_(slab.chunk_values * real_size(config.precision)) {
  // A throwing constructor runs no destructor: free what was made so far.
  try {
    setup(config, slab);
  } catch (...) {
    release();
    throw;
  }
}

void CudaSlabDevice::setup(const DeviceConfig& config, const SlabLattice& slab) {
  int index = 0;
  device_ = cuda_device_at(drv_, config.device, &index);
  const CudaDeviceInfo info = describe_cuda_device(drv_, index);
  device_name_ = info.name;
  CU_CALL(cuDevicePrimaryCtxRetain, &context_, device_);
  CU_CALL(cuCtxSetCurrent, context_);

  const std::size_t lattice_bytes = kSpeeds * cells_count_ * stored_size(precision_);
  std::size_t free_bytes = 0, total_bytes = 0;
  CU_CALL(cuMemGetInfo, &free_bytes, &total_bytes);
  check_device_memory("slab " + std::to_string(nx_) + "x" + std::to_string(rows_) + " (with its halo rows)",
                      2ULL * lattice_bytes + cells_count_ + partial_bytes_, lattice_bytes, free_bytes, free_bytes,
                      device_name_ + " (free memory)");

  const CompiledKernels compiled =
      compile_kernels_nvrtc(config.kernels_dir, kKernelFile, slab.defines,
                            pick_nvrtc_target(info.compute_major, info.compute_minor, device_name_));
  CU_CALL(cuModuleLoadData, &module_, compiled.image.data());
  CU_CALL(cuModuleGetFunction, &accelerate_, module_, "accelerate_flow");
  CU_CALL(cuModuleGetFunction, &collide_, module_, plan_.step_kernel());
  int kernel_max = 0;
  CU_CALL(cuFuncGetAttribute, &kernel_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, collide_);
  check_kernel_group_limit(plan_, kernel_max, "propagate_rebound_collide", device_name_);
  int accelerate_max = 0;
  CU_CALL(cuFuncGetAttribute, &accelerate_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, accelerate_);
  accelerate_block_ = static_cast<unsigned>(std::min({128, accelerate_max, nx_}));

  CU_CALL(cuStreamCreate, &kernels_, CU_STREAM_NON_BLOCKING);
  CU_CALL(cuStreamCreate, &copies_, CU_STREAM_NON_BLOCKING);
  for (auto& buf : cells_) CU_CALL(cuMemAlloc, &buf, lattice_bytes);
  CU_CALL(cuMemAlloc, &obstacles_, cells_count_);
  CU_CALL(cuMemAlloc, &partials_, partial_bytes_);
  void* staging = nullptr;
  CU_CALL(cuMemAllocHost, &staging, 12 * row_bytes_);
  staging_ = static_cast<unsigned char*>(staging);
  unsigned char* p = staging_;
  for (unsigned char** edge : {&edges_.send_up, &edges_.send_down, &edges_.from_below, &edges_.from_above}) {
    *edge = p;
    p += 3 * row_bytes_;
  }
  for (CUevent* e : {&kernels_done_, &edges_read_, &halos_written_})
    CU_CALL(cuEventCreate, e, CU_EVENT_DISABLE_TIMING);
  CU_CALL(cuMemcpyHtoDAsync, obstacles_, slab.blocked.data(), cells_count_, kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
}

// Errors cannot be reported from here; frees what exists, in reverse order.
void CudaSlabDevice::release() noexcept {
  if (!context_) return;
  drv_.cuCtxSetCurrent(context_);
  drain();
  for (const PartialsSlot& s : slots_) {
    if (s.read) drv_.cuEventDestroy(s.read);
    if (s.host) drv_.cuMemFreeHost(s.host);
  }
  for (CUevent e : {halos_written_, edges_read_, kernels_done_})
    if (e) drv_.cuEventDestroy(e);
  if (staging_) drv_.cuMemFreeHost(staging_);
  for (CUdeviceptr p : {partials_, obstacles_, cells_[1], cells_[0]})
    if (p) drv_.cuMemFree(p);
  for (CUstream s : {copies_, kernels_})
    if (s) drv_.cuStreamDestroy(s);
  if (module_) drv_.cuModuleUnload(module_);
  drv_.cuDevicePrimaryCtxRelease(device_);
  context_ = nullptr;
}

void CudaSlabDevice::fill_at_rest(int state) {
  CU_CALL(cuCtxSetCurrent, context_);
  synchronize();
  fill_cuda_lattice_at_rest(drv_, cells_[state], cells_count_, density_, precision_, kernels_);
}

void CudaSlabDevice::upload(int state, const std::vector<double>& f) {
  if (f.size() != kSpeeds * cells_count_) throw std::invalid_argument("load_distributions: wrong number of values");
  const std::vector<unsigned char> raw = to_device_reals(f, precision_, density_);
  CU_CALL(cuCtxSetCurrent, context_);
  synchronize();
  CU_CALL(cuMemcpyHtoDAsync, cells_[state], raw.data(), raw.size(), kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
}

std::vector<unsigned char> CudaSlabDevice::read_rows(int state, int first_row, int rows) {
  const std::size_t plane = static_cast<std::size_t>(rows) * row_bytes_;
  std::vector<unsigned char> out(kSpeeds * plane);
  CU_CALL(cuCtxSetCurrent, context_);
  synchronize();
  for (int k = 0; k < kSpeeds; ++k)
    CU_CALL(cuMemcpyDtoHAsync, out.data() + k * plane, row_at(state, k, first_row), plane, kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
  return out;
}

void CudaSlabDevice::accelerate(int state) {
  void* args[] = {&cells_[state], &obstacles_};
  const unsigned blocks = (static_cast<unsigned>(nx_) + accelerate_block_ - 1) / accelerate_block_;
  CU_CALL(cuLaunchKernel, accelerate_, blocks, 1, 1, accelerate_block_, 1, 1, 0, kernels_, args, nullptr);
}

void CudaSlabDevice::collide(int state, int first_group_row, int group_rows, int partial_offset,
                             bool accelerate_next) {
  int accelerate_next_arg = accelerate_next ? 1 : 0;
  int steps = 1;
  void* args[] = {&cells_[state], &cells_[1 - state], &obstacles_,      &partials_,
                  &partial_offset, &accelerate_next_arg, &steps, &first_group_row};
  CU_CALL(cuLaunchKernel, collide_, static_cast<unsigned>(plan_.groups_x), static_cast<unsigned>(group_rows), 1,
          static_cast<unsigned>(plan_.local.x), static_cast<unsigned>(plan_.local.y), 1, 0, kernels_, args, nullptr);
}

void CudaSlabDevice::copies_after_kernels() {
  CU_CALL(cuEventRecord, kernels_done_, kernels_);
  CU_CALL(cuStreamWaitEvent, copies_, kernels_done_, 0);
}

void CudaSlabDevice::read_edges(int state) {
  copies_after_kernels();
  for (int i = 0; i < 3; ++i) {
    CU_CALL(cuMemcpyDtoHAsync, edges_.send_up + i * row_bytes_, row_at(state, kNorthGoing[i], rows_), row_bytes_,
            copies_);
    CU_CALL(cuMemcpyDtoHAsync, edges_.send_down + i * row_bytes_, row_at(state, kSouthGoing[i], 1), row_bytes_,
            copies_);
  }
  CU_CALL(cuEventRecord, edges_read_, copies_);
}

void CudaSlabDevice::write_halos(int state) {
  for (int i = 0; i < 3; ++i) {
    CU_CALL(cuMemcpyHtoDAsync, row_at(state, kNorthGoing[i], 0), edges_.from_below + i * row_bytes_, row_bytes_,
            copies_);
    CU_CALL(cuMemcpyHtoDAsync, row_at(state, kSouthGoing[i], rows_ + 1), edges_.from_above + i * row_bytes_,
            row_bytes_, copies_);
  }
  CU_CALL(cuEventRecord, halos_written_, copies_);
  CU_CALL(cuStreamWaitEvent, kernels_, halos_written_, 0);
}

int CudaSlabDevice::read_partials(std::size_t first, std::size_t count) {
  int slot = 0;
  while (slot < static_cast<int>(slots_.size()) && slots_[slot].in_use) ++slot;
  if (slot == static_cast<int>(slots_.size())) {
    PartialsSlot fresh;
    CU_CALL(cuMemAllocHost, &fresh.host, slot_bytes_);
    const CUresult made = drv_.cuEventCreate(&fresh.read, CU_EVENT_DISABLE_TIMING);
    if (made != CUDA_SUCCESS) drv_.cuMemFreeHost(fresh.host);
    check_cuda(made, "cuEventCreate");
    slots_.push_back(fresh);
  }
  PartialsSlot& s = slots_[slot];
  const std::size_t size = real_size(precision_);
  copies_after_kernels();
  CU_CALL(cuMemcpyDtoHAsync, s.host, partials_ + first * size, count * size, copies_);
  CU_CALL(cuEventRecord, s.read, copies_);
  s.in_use = true;
  last_read_from_[first] = s.read;
  return slot;
}

const void* CudaSlabDevice::partials(int slot, bool wait) {
  const PartialsSlot& s = slots_.at(slot);
  if (wait) {
    CU_CALL(cuEventSynchronize, s.read);
  } else {
    const CUresult ready = drv_.cuEventQuery(s.read);
    if (ready == CUDA_ERROR_NOT_READY) return nullptr;
    check_cuda(ready, "cuEventQuery");
  }
  return s.host;
}

// A slot's event re-recorded for a later read still covers this one: the
// copy stream is in order.
void CudaSlabDevice::reuse_partials(std::size_t first) {
  const auto read = last_read_from_.find(first);
  if (read != last_read_from_.end()) CU_CALL(cuStreamWaitEvent, kernels_, read->second, 0);
}

}  // namespace

std::unique_ptr<SlabDevice> make_cuda_slab_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                  const SlabLattice& slab) {
  return std::make_unique<CudaSlabDevice>(config, plan, slab);
}

}  // namespace d2q9
