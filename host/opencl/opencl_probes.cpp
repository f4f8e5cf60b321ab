#include "opencl/opencl_probes.hpp"

#include <algorithm>
#include <utility>

namespace d2q9 {

OpenCLProbes::OpenCLProbes(OpenCLLattice& lattice, OpenCLTransfers& transfers, const LaunchPlan& plan, int halo_depth)
    : lattice_(lattice), transfers_(transfers), plan_(plan), halo_depth_(halo_depth) {}

void OpenCLProbes::set_cells(const std::vector<std::size_t>& cells, int rows) {
  sample_count_ = static_cast<int>(cells.size());
  if (cells.empty()) return;
  const std::vector<cl_int> which(cells.begin(), cells.end());
  const Params& params = lattice_.lattice;
  lattice_.guarded("setting up probes", [&] {
    sample_cells_ = cl::Buffer(lattice_.context, CL_MEM_READ_ONLY, which.size() * sizeof(cl_int));
    lattice_.queue.enqueueWriteBuffer(sample_cells_, CL_TRUE, 0, which.size() * sizeof(cl_int), which.data());
    if (plan_.variant == KernelVariant::Blocked) {
      const std::vector<int> index = blocked_sample_index(plan_, params.nx, halo_depth_, params.ny - 2 * halo_depth_, cells);
      sample_index_ = cl::Buffer(lattice_.context, CL_MEM_READ_ONLY, index.size() * sizeof(cl_int));
      lattice_.queue.enqueueWriteBuffer(sample_index_, CL_TRUE, 0, index.size() * sizeof(cl_int), index.data());
    }
    const std::size_t bytes = static_cast<std::size_t>(rows) * lattice_.planes * cells.size() * stored_size(lattice_.precision);
    samples_ = cl::Buffer(lattice_.context, CL_MEM_READ_WRITE, bytes);
    if (bytes > sample_host_bytes_) {
      sample_host_ = transfers_.pinned(bytes);
      sample_host_bytes_ = bytes;
    }
    for (int b = 0; b < 2; ++b) {
      sample_[b] = cl::Kernel(lattice_.program, "sample_cells");
      sample_[b].setArg(0, lattice_.lattices[b]);
      sample_[b].setArg(1, sample_cells_);
      sample_[b].setArg(2, samples_);
      sample_[b].setArg(3, sample_count_);
      if (plan_.variant == KernelVariant::Blocked) {  // probes inside its launches
        lattice_.set_step_arg(b, 9, samples_);
        lattice_.set_step_arg(b, 10, sample_index_);
        lattice_.set_step_arg(b, 11, sample_count_);
      }
    }
  });
  // Run once now: some implementations (PoCL) compile a kernel at its first
  // launch, which belongs to the set-up, not to the first probe's step.
  sample(0, 0);
  lattice_.guarded("setting up probes", [&] { lattice_.queue.finish(); });
}

void OpenCLProbes::sample(int state, int row) {
  lattice_.guarded("sampling probes", [&] {
    cl::Kernel& k = sample_[state];
    k.setArg(4, row);
    const std::size_t items = static_cast<std::size_t>(lattice_.planes) * sample_count_;
    const std::size_t group = std::min<std::size_t>(64, items);
    lattice_.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange((items + group - 1) / group * group),
                                        cl::NDRange(group));
  });
}

void OpenCLProbes::read(int first, int rows) {
  const std::size_t row_bytes = lattice_.planes * static_cast<std::size_t>(sample_count_) * stored_size(lattice_.precision);
  sample_read_bytes_ = static_cast<std::size_t>(rows) * row_bytes;
  if (sample_read_bytes_ == 0) return;
  lattice_.guarded("reading probes", [&] {
    const std::vector<cl::Event> after = transfers_.kernels_so_far();
    transfers_.queue().enqueueReadBuffer(samples_, CL_FALSE, static_cast<std::size_t>(first) * row_bytes,
                                         sample_read_bytes_, sample_host_, &after, &samples_read_);
    transfers_.queue().flush();
  });
}

std::vector<unsigned char> OpenCLProbes::samples_read() {
  if (sample_read_bytes_ == 0) return {};
  lattice_.guarded("reading probes", [&] { samples_read_.wait(); });
  return std::vector<unsigned char>(sample_host_, sample_host_ + std::exchange(sample_read_bytes_, 0));
}

}  // namespace d2q9
