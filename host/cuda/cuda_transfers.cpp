#include "cuda/cuda_transfers.hpp"

#include "cuda/cuda_driver.hpp"

namespace d2q9 {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

CudaTransfers::CudaTransfers(const CudaLattice& lattice, int halo_depth, int rows, std::size_t slot_bytes)
    : lattice_(lattice),
      drv_(lattice.drv()),
      halo_depth_(halo_depth),
      rows_(rows),
      row_bytes_(static_cast<std::size_t>(lattice.nx()) * stored_size(lattice.precision())),
      slot_bytes_(slot_bytes) {
  // A throwing constructor runs no destructor: free what was made so far.
  try {
    setup();
  } catch (...) {
    release();
    throw;
  }
}

void CudaTransfers::setup() {
  CU_CALL(cuStreamCreate, &kernels_, CU_STREAM_NON_BLOCKING);
  CU_CALL(cuStreamCreate, &copies_, CU_STREAM_NON_BLOCKING);
  for (CUevent* e : {&kernels_done_, &edges_read_, &halos_written_}) CU_CALL(cuEventCreate, e, CU_EVENT_DISABLE_TIMING);
  if (halo_depth_ == 0) return;
  const std::size_t edge_bytes = edge_buffer_bytes(halo_depth_, lattice_.planes(), row_bytes_);
  void* staging = nullptr;
  CU_CALL(cuMemAllocHost, &staging, 4 * edge_bytes);
  staging_ = static_cast<unsigned char*>(staging);
  unsigned char* p = staging_;
  for (unsigned char** edge : {&edges_.send_up, &edges_.send_down, &edges_.from_below, &edges_.from_above}) {
    *edge = p;
    p += edge_bytes;
  }
}

// Errors cannot be reported from here.
void CudaTransfers::release() noexcept {
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

void CudaTransfers::copies_after_kernels() {
  CU_CALL(cuEventRecord, kernels_done_, kernels_);
  CU_CALL(cuStreamWaitEvent, copies_, kernels_done_, 0);
}

void CudaTransfers::kernels_after_copies() {
  CU_CALL(cuEventRecord, halos_written_, copies_);
  CU_CALL(cuStreamWaitEvent, kernels_, halos_written_, 0);
}

void CudaTransfers::synchronize() {
  CU_CALL(cuStreamSynchronize, kernels_);
  CU_CALL(cuStreamSynchronize, copies_);
}

void CudaTransfers::drain() noexcept {
  if (kernels_) drv_.cuStreamSynchronize(kernels_);
  if (copies_) drv_.cuStreamSynchronize(copies_);
}

void CudaTransfers::read_edges(int state, const LatticeDevice::EdgeBuffers& into) {
  copies_after_kernels();
  const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.planes());
  const std::size_t bytes = halo_depth_ * row_bytes_;
  const int top = rows_;  // the first of the top own rows (halo_depth_ + rows_ - halo_depth_)
  for (int i = 0; i < speeds.count; ++i) {
    CU_CALL(cuMemcpyDtoHAsync, into.send_up + i * bytes, lattice_.row_at(state, speeds.up[i], top), bytes, copies_);
    CU_CALL(cuMemcpyDtoHAsync, into.send_down + i * bytes, lattice_.row_at(state, speeds.down[i], halo_depth_), bytes,
            copies_);
  }
  CU_CALL(cuEventRecord, edges_read_, copies_);
}

void CudaTransfers::wait_edges() { CU_CALL(cuEventSynchronize, edges_read_); }

void CudaTransfers::write_halos(int state, const LatticeDevice::EdgeBuffers& from) {
  const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.planes());
  const std::size_t bytes = halo_depth_ * row_bytes_;
  const int top_halo = rows_ + halo_depth_;  // the first of the top halo rows
  for (int i = 0; i < speeds.count; ++i) {
    CU_CALL(cuMemcpyHtoDAsync, lattice_.row_at(state, speeds.up[i], 0), from.from_below + i * bytes, bytes, copies_);
    CU_CALL(cuMemcpyHtoDAsync, lattice_.row_at(state, speeds.down[i], top_halo), from.from_above + i * bytes, bytes,
            copies_);
  }
  kernels_after_copies();
}

int CudaTransfers::read_partials(std::size_t first, std::size_t count) {
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
  const std::size_t size = real_size(lattice_.precision());
  copies_after_kernels();
  CU_CALL(cuMemcpyDtoHAsync, s.host, lattice_.partials() + first * size, count * size, copies_);
  CU_CALL(cuEventRecord, s.read, copies_);
  s.in_use = true;
  last_read_from_[first] = s.read;
  return slot;
}

const void* CudaTransfers::partials(int slot, bool wait) {
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
void CudaTransfers::reuse_partials(std::size_t first) {
  const auto read = last_read_from_.find(first);
  if (read != last_read_from_.end()) CU_CALL(cuStreamWaitEvent, kernels_, read->second, 0);
}

}  // namespace d2q9
