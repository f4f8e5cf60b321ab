#include "cuda/cuda_probes.hpp"

#include <utility>

#include "cuda/cuda_driver.hpp"
#include "device/launch_plan.hpp"

namespace d2q9 {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

CudaProbes::CudaProbes(CudaLattice& lattice, CudaTransfers& transfers, int halo_depth, int rows)
    : lattice_(lattice), transfers_(transfers), drv_(lattice.drv()), halo_depth_(halo_depth), rows_(rows) {
  CU_CALL(cuEventCreate, &samples_read_, CU_EVENT_DISABLE_TIMING);
}

// Errors cannot be reported from here.
void CudaProbes::release() noexcept {
  if (samples_read_) drv_.cuEventDestroy(samples_read_);
  if (sample_host_) drv_.cuMemFreeHost(sample_host_);
  sample_host_ = nullptr;
  samples_read_ = nullptr;
  for (CUdeviceptr p : {samples_, sample_cells_, sample_index_})
    if (p) drv_.cuMemFree(p);
  samples_ = sample_cells_ = sample_index_ = 0;
}

void CudaProbes::set_cells(const std::vector<std::size_t>& cells, int rows) {
  for (CUdeviceptr* p : {&samples_, &sample_cells_, &sample_index_})
    if (*p) {
      CU_CALL(cuMemFree, *p);
      *p = 0;
    }
  sample_base_ = 0;
  if (sample_host_) {
    CU_CALL(cuMemFreeHost, sample_host_);
    sample_host_ = nullptr;
  }
  sample_count_ = static_cast<int>(cells.size());
  if (cells.empty()) return;
  const std::vector<int> which(cells.begin(), cells.end());
  CU_CALL(cuMemAlloc, &sample_cells_, which.size() * sizeof(int));
  CU_CALL(cuMemcpyHtoD, sample_cells_, which.data(), which.size() * sizeof(int));
  const std::size_t bytes =
      static_cast<std::size_t>(rows) * lattice_.planes() * cells.size() * stored_size(lattice_.precision());
  CU_CALL(cuMemAlloc, &samples_, bytes);
  void* host = nullptr;
  CU_CALL(cuMemAllocHost, &host, bytes);
  sample_host_ = static_cast<unsigned char*>(host);
  if (lattice_.plan().variant == KernelVariant::Blocked) {
    const std::vector<int> index = blocked_sample_index(lattice_.plan(), lattice_.nx(), halo_depth_, rows_, cells);
    CU_CALL(cuMemAlloc, &sample_index_, index.size() * sizeof(int));
    CU_CALL(cuMemcpyHtoD, sample_index_, index.data(), index.size() * sizeof(int));
    sample_base_ = sample_index_ + (index.size() - 1) * sizeof(int);
  }
}

void CudaProbes::sample(int state, int row) {
  lattice_.launch_sample(transfers_.kernels(), state, sample_cells_, samples_, sample_count_, row);
}

void CudaProbes::read(int first, int rows) {
  const std::size_t row_bytes =
      lattice_.planes() * static_cast<std::size_t>(sample_count_) * stored_size(lattice_.precision());
  sample_read_bytes_ = static_cast<std::size_t>(rows) * row_bytes;
  if (sample_read_bytes_ == 0) return;
  lattice_.make_current();
  transfers_.copies_after_kernels();
  CU_CALL(cuMemcpyDtoHAsync, sample_host_, samples_ + static_cast<std::size_t>(first) * row_bytes, sample_read_bytes_,
          transfers_.copies());
  CU_CALL(cuEventRecord, samples_read_, transfers_.copies());
}

std::vector<unsigned char> CudaProbes::samples_read() {
  if (sample_read_bytes_ == 0) return {};
  lattice_.make_current();
  CU_CALL(cuEventSynchronize, samples_read_);
  return std::vector<unsigned char>(sample_host_, sample_host_ + std::exchange(sample_read_bytes_, 0));
}

void CudaProbes::set_row_base(int base) {
  CU_CALL(cuMemsetD32Async, sample_base_, static_cast<unsigned>(base), 1, transfers_.kernels());
}

}  // namespace d2q9
