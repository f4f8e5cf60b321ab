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

  std::string device_name() const override { return lattice_.device_name(); }
  EdgeBuffers edge_buffers() override { return edges_; }
  void fill_at_rest(int state) override;
  void upload(int state, const std::vector<double>& f) override;
  std::vector<unsigned char> read_rows(int state, int first_row, int rows) override;
  void accelerate(int state) override;
  void collide(int state, int first_group_row, int group_rows, int partial_offset, bool accelerate_next,
               int step) override;
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
  void setup();
  void release() noexcept;
  CUdeviceptr row_at(int state, int speed, int row) const {
    return lattice_.cells(state) +
           (static_cast<std::size_t>(speed) * lattice_.cell_count() + static_cast<std::size_t>(row) * nx_) *
               stored_size(precision_);
  }
  // The copy stream's later work waits for the kernel stream's work so far.
  void copies_after_kernels();
  void synchronize() {
    CU_CALL(cuStreamSynchronize, kernels_);
    CU_CALL(cuStreamSynchronize, copies_);
  }

  const CudaDriver& drv_;
  Precision precision_;
  double density_;
  int nx_;
  int rows_;  // the slab's own, halo rows not counted
  std::size_t row_bytes_;
  std::size_t slot_bytes_;
  CudaLattice lattice_;
  CUstream kernels_ = nullptr;
  CUstream copies_ = nullptr;
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
      precision_(config.precision),
      density_(slab.lattice.density),
      nx_(slab.lattice.nx),
      rows_(slab.rows()),
      row_bytes_(static_cast<std::size_t>(slab.lattice.nx) * stored_size(config.precision)),
      slot_bytes_(slab.chunk_values * real_size(config.precision)),
      lattice_(config, slab.lattice, plan, slab.defines, slab.partial_values * real_size(config.precision),
               slab.obstacles,
               "slab " + std::to_string(slab.lattice.nx) + "x" + std::to_string(slab.rows()) + " (with its halo rows)") {
  // A throwing constructor runs no destructor (but lattice_'s): free what was made so far.
  try {
    setup();
  } catch (...) {
    release();
    throw;
  }
}

void CudaSlabDevice::setup() {
  CU_CALL(cuStreamCreate, &kernels_, CU_STREAM_NON_BLOCKING);
  CU_CALL(cuStreamCreate, &copies_, CU_STREAM_NON_BLOCKING);
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
}

// Errors cannot be reported from here; frees what exists (the lattice frees its own).
void CudaSlabDevice::release() noexcept {
  try {
    lattice_.make_current();
  } catch (const DeviceError&) {
  }
  drain();
  for (const PartialsSlot& s : slots_) {
    if (s.read) drv_.cuEventDestroy(s.read);
    if (s.host) drv_.cuMemFreeHost(s.host);
  }
  slots_.clear();
  for (CUevent e : {halos_written_, edges_read_, kernels_done_})
    if (e) drv_.cuEventDestroy(e);
  if (staging_) drv_.cuMemFreeHost(staging_);
  for (CUstream s : {copies_, kernels_})
    if (s) drv_.cuStreamDestroy(s);
  halos_written_ = edges_read_ = kernels_done_ = nullptr;
  staging_ = nullptr;
  copies_ = kernels_ = nullptr;
}

void CudaSlabDevice::fill_at_rest(int state) {
  lattice_.make_current();
  synchronize();
  lattice_.fill_at_rest(kernels_, state);
}

void CudaSlabDevice::upload(int state, const std::vector<double>& f) {
  if (f.size() != kSpeeds * lattice_.cell_count()) throw std::invalid_argument("load_distributions: wrong number of values");
  const std::vector<unsigned char> raw = to_device_reals(f, precision_, density_);
  lattice_.make_current();
  synchronize();
  CU_CALL(cuMemcpyHtoDAsync, lattice_.cells(state), raw.data(), raw.size(), kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
}

std::vector<unsigned char> CudaSlabDevice::read_rows(int state, int first_row, int rows) {
  const std::size_t plane = static_cast<std::size_t>(rows) * row_bytes_;
  std::vector<unsigned char> out(kSpeeds * plane);
  lattice_.make_current();
  synchronize();
  for (int k = 0; k < kSpeeds; ++k)
    CU_CALL(cuMemcpyDtoHAsync, out.data() + k * plane, row_at(state, k, first_row), plane, kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
  return out;
}

void CudaSlabDevice::accelerate(int state) { lattice_.launch_accelerate(kernels_, state); }

void CudaSlabDevice::collide(int state, int first_group_row, int group_rows, int partial_offset,
                             bool accelerate_next, int step) {
  lattice_.launch_step(kernels_, state, false, group_rows, first_group_row, partial_offset, accelerate_next, 1, step);
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
  CU_CALL(cuMemcpyDtoHAsync, s.host, lattice_.partials() + first * size, count * size, copies_);
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
