// A lattice (the whole grid or a slab) on an OpenCL device: the lattice's
// in-order queue runs the kernels, a second in-order queue the copies
// (opencl_transfers.*); markers and barriers order them.
#include <memory>

#include "device/lattice_device.hpp"
#include "core/stopwatch.hpp"
#include "opencl/opencl_backend.hpp"
#include "opencl/opencl_lattice.hpp"
#include "opencl/opencl_probes.hpp"
#include "opencl/opencl_render.hpp"
#include "opencl/opencl_transfers.hpp"

namespace d2q9 {

namespace {

class OpenCLDevice final : public LatticeDevice {
 public:
  OpenCLDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab);
  ~OpenCLDevice() override { drain(); }
  OpenCLDevice(const OpenCLDevice&) = delete;
  OpenCLDevice& operator=(const OpenCLDevice&) = delete;

  std::string device_name() const override { return lattice_.device_name; }
  SetupTimes setup_times() const override { return lattice_.setup; }
  EdgeBuffers edge_buffers() override { return transfers_.edge_buffers(); }
  void fill_at_rest(int state) override;
  void upload(int state, const std::vector<double>& f) override;
  std::vector<unsigned char> read_rows(int state, int first_row, int rows) override;
  std::vector<unsigned char> read_cells(int state, const std::vector<std::size_t>& cells) override;
  void set_sample_cells(const std::vector<std::size_t>& cells, int rows) override {
    drain();
    probes_.set_cells(cells, rows);
  }
  void sample(int state, int row) override { probes_.sample(state, row); }
  void read_samples(int first, int rows) override { probes_.read(first, rows); }
  std::vector<unsigned char> samples_read() override { return probes_.samples_read(); }
  void accelerate(int state) override;
  void launch(const std::vector<StepLaunch>& launches) override;
  void read_edges(int state, const EdgeBuffers& into) override { transfers_.read_edges(state, into); }
  void wait_edges() override { transfers_.wait_edges(); }
  void write_halos(int state, const EdgeBuffers& from) override { transfers_.write_halos(state, from); }
  bool pin_host_memory(unsigned char* p, std::size_t bytes) override { return transfers_.pin_host_memory(p, bytes); }
  int read_partials(std::size_t first, std::size_t count) override { return transfers_.read_partials(first, count); }
  const void* partials(int slot, bool wait) override { return transfers_.partials(slot, wait); }
  void release_partials(int slot) override { transfers_.release_partials(slot); }
  void reuse_partials(std::size_t first) override { transfers_.reuse_partials(first); }
  void flush() override;
  void drain() noexcept override;
  std::optional<std::vector<float>> render(int state, const FieldImageRequest& request, const RenderPart& part,
                                           const std::vector<float>& edge_ux) override {
    return renderer().render(lattice_.queue, lattice_.lattices[state], lattice_.obstacles, request, part, edge_ux);
  }
  std::optional<std::vector<float>> render_edges(int state, const FieldImageRequest& request,
                                                 const RenderPart& part) override {
    (void)request;
    return renderer().edges(lattice_.queue, lattice_.lattices[state], lattice_.obstacles, part);
  }

 private:
  Params params_;  // the lattice's
  int halo_depth_;  // a slab's halo rows each side; 0: the whole grid
  LaunchPlan plan_;
  OpenCLLattice lattice_;
  std::size_t row_bytes_;
  OpenCLTransfers transfers_;
  OpenCLProbes probes_;
  cl::Buffer tile_order_;  // blocked: the order of the tiles (blocked_tile_order)
  // The live view's pictures: built at the first one asked for (none asked, nothing built).
  std::string kernels_dir_;
  std::vector<std::string> defines_;
  std::unique_ptr<OpenCLRenderer> renderer_;
  OpenCLRenderer& renderer() {
    if (!renderer_) renderer_ = std::make_unique<OpenCLRenderer>(lattice_.context, lattice_.device, kernels_dir_, defines_);
    return *renderer_;
  }
};

OpenCLDevice::OpenCLDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab)
    : params_(slab.lattice),
      halo_depth_(slab.halo_depth),
      plan_(plan),
      lattice_(opencl_device_at(config.device), slab.lattice, plan, config.precision, config.kernels_dir, slab.defines,
               slab.partial_values, slab.obstacles),
      row_bytes_(static_cast<std::size_t>(slab.lattice.nx) * stored_size(config.precision)),
      transfers_(lattice_, slab.halo_depth, slab.chunk_values * real_size(config.precision)),
      probes_(lattice_, transfers_, plan, slab.halo_depth),
      kernels_dir_(config.kernels_dir),
      defines_(slab.defines) {
  lattice_.guarded("setting up", [&] {
    if (plan_.variant == KernelVariant::Blocked && !slab.tile_order.empty()) {
      const std::size_t bytes = slab.tile_order.size() * sizeof(cl_int);
      tile_order_ = cl::Buffer(lattice_.context, CL_MEM_READ_ONLY, bytes);
      lattice_.queue.enqueueWriteBuffer(tile_order_, CL_TRUE, 0, bytes, slab.tile_order.data());
      for (int b = 0; b < 2; ++b) lattice_.set_step_arg(b, 15, tile_order_);
    }
  });
  transfers_.make_edge_buffers();
}

void OpenCLDevice::fill_at_rest(int state) {
  drain();
  Stopwatch watch;
  // Filled from a block of cells at rest, not from the whole grid's values
  // in double, which are slow to build and large. Under oclgrind one grid is
  // uploaded whole, so that it can check reads of uninitialised memory (one
  // grid fits the host; a slab of a large grid may not).
  if (halo_depth_ == 0 && lattice_.one_write_per_buffer)
    lattice_.upload(state, initial_distributions(params_));
  else
    lattice_.fill_at_rest(state, params_);
  lattice_.setup.upload_s += watch.lap();
}

void OpenCLDevice::upload(int state, const std::vector<double>& f) {
  drain();
  lattice_.upload(state, f);
}

std::vector<unsigned char> OpenCLDevice::read_rows(int state, int first_row, int rows) {
  drain();
  const std::size_t plane = static_cast<std::size_t>(rows) * row_bytes_;
  std::vector<unsigned char> out(lattice_.planes * plane);
  lattice_.guarded("reading results", [&] {
    for (int k = 0; k < lattice_.planes; ++k)
      lattice_.queue.enqueueReadBuffer(lattice_.lattices[state], CL_FALSE, lattice_.offset_bytes(k, first_row), plane,
                                       out.data() + k * plane);
    lattice_.queue.finish();
  });
  return out;
}

// Nine small reads per cell, not the whole lattice: probes every few steps.
std::vector<unsigned char> OpenCLDevice::read_cells(int state, const std::vector<std::size_t>& cells) {
  drain();
  const std::size_t size = stored_size(lattice_.precision);
  std::vector<unsigned char> raw(lattice_.planes * cells.size() * size);
  lattice_.guarded("reading probes", [&] {
    for (int k = 0; k < lattice_.planes; ++k)
      for (std::size_t c = 0; c < cells.size(); ++c)
        lattice_.queue.enqueueReadBuffer(lattice_.lattices[state], CL_FALSE, (k * lattice_.cells + cells[c]) * size,
                                         size, raw.data() + (k * cells.size() + c) * size);
    lattice_.queue.finish();
  });
  return raw;
}

void OpenCLDevice::accelerate(int state) {
  lattice_.guarded("running", [&] {
    lattice_.queue.enqueueNDRangeKernel(lattice_.accelerate[state], cl::NullRange, cl::NDRange(params_.nx),
                                        cl::NullRange);
  });
}

void OpenCLDevice::launch(const std::vector<StepLaunch>& launches) {
  lattice_.guarded("running", [&] {
    const LocalSize l = plan_.local;
    for (const StepLaunch& s : launches) {
      if (s.accelerate_before) accelerate(s.state);
      cl::Kernel& k = lattice_.step_kernel(s.state, s);
      k.setArg(4, s.partial_offset);
      k.setArg(5, s.accelerate_next ? 1 : 0);
      k.setArg(6, s.steps);
      k.setArg(7, s.first_group_row);
      k.setArg(8, s.step);
      if (plan_.variant == KernelVariant::Blocked) {
        k.setArg(12, s.sample_first);
        k.setArg(13, s.sample_every);
        k.setArg(14, s.sample_row);
      }
      lattice_.queue.enqueueNDRangeKernel(
          k, cl::NullRange,
          cl::NDRange(static_cast<std::size_t>(plan_.groups_x) * l.x, static_cast<std::size_t>(s.group_rows) * l.y),
          cl::NDRange(l.x, l.y));
      if (s.sample_after_row >= 0) sample(1 - s.state, s.sample_after_row);
    }
  });
}

void OpenCLDevice::flush() {
  lattice_.guarded("running", [&] {
    lattice_.queue.flush();
    transfers_.queue().flush();
  });
}

void OpenCLDevice::drain() noexcept {
  try {
    lattice_.queue.finish();
    transfers_.queue().finish();
  } catch (const cl::Error&) {
  }
}

}  // namespace

std::unique_ptr<LatticeDevice> make_opencl_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                  const DeviceLattice& slab) {
  return std::make_unique<OpenCLDevice>(config, plan, slab);
}

}  // namespace d2q9
