// A lattice (the whole grid or a slab) on a CUDA device: kernels on one
// stream, copies on another, events between them (cuda_transfers.*); the
// probes (cuda_probes.*); prepared launch sequences (a single device's
// chunks) replayed as CUDA graphs (cuda_graphs.*); and a slab's halo rows
// straight from neighbours on the same host (cuda_ipc_halos.*).
#include <algorithm>

#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_device.hpp"
#include "cuda/cuda_graphs.hpp"
#include "cuda/cuda_ipc_halos.hpp"
#include "cuda/cuda_probes.hpp"
#include "cuda/cuda_transfers.hpp"
#include "core/stopwatch.hpp"
#include "device/lattice_device.hpp"

namespace d2q9 {

namespace {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

class CudaDevice final : public LatticeDevice {
 public:
  CudaDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab, bool use_graphs);
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  std::string device_name() const override { return lattice_.device_name(); }
  SetupTimes setup_times() const override { return lattice_.setup; }
  std::string launch_mode() const override {
    if (halo_depth_ > 0) return "plain launches (a slab's steps are launched band by band)";
    return graphs_.launch_mode();
  }
  EdgeBuffers edge_buffers() override { return transfers_.edge_buffers(); }
  void fill_at_rest(int state) override;
  void upload(int state, const std::vector<double>& f) override;
  std::optional<std::vector<float>> render(int state, const FieldImageRequest& request, const RenderPart& part,
                                           const std::vector<float>& edge_ux) override {
    return lattice_.render(transfers_.kernels(), state, request, part, edge_ux);
  }
  std::optional<std::vector<float>> render_edges(int state, const FieldImageRequest& request,
                                                 const RenderPart& part) override {
    (void)request;
    return lattice_.render_edges(transfers_.kernels(), state, part);
  }
  std::vector<unsigned char> read_rows(int state, int first_row, int rows) override;
  std::vector<unsigned char> read_cells(int state, const std::vector<std::size_t>& cells) override;
  void set_sample_cells(const std::vector<std::size_t>& cells, int rows) override {
    lattice_.make_current();
    transfers_.synchronize();
    probes_.set_cells(cells, rows);
  }
  void sample(int state, int row) override {
    lattice_.make_current();
    probes_.sample(state, row);
  }
  void read_samples(int first, int rows) override { probes_.read(first, rows); }
  std::vector<unsigned char> samples_read() override { return probes_.samples_read(); }
  void accelerate(int state) override { lattice_.launch_accelerate(transfers_.kernels(), state); }
  void launch(const std::vector<StepLaunch>& launches) override;
  void prepare(const std::vector<std::vector<StepLaunch>>& sequences) override;
  void read_edges(int state, const EdgeBuffers& into) override;
  void wait_edges() override { transfers_.wait_edges(); }
  void write_halos(int state, const EdgeBuffers& from) override { transfers_.write_halos(state, from); }
  SharedLattice share_lattice() override { return ipc_.share_lattice(); }
  std::string open_neighbours(const std::vector<unsigned char>& below, const std::vector<unsigned char>& above) override {
    return ipc_.open_neighbours(below, above);
  }
  void pull_halos(int state) override { ipc_.pull_halos(state); }
  void close_neighbours() noexcept override { ipc_.close_neighbours(); }
  int read_partials(std::size_t first, std::size_t count) override { return transfers_.read_partials(first, count); }
  const void* partials(int slot, bool wait) override { return transfers_.partials(slot, wait); }
  void release_partials(int slot) override { transfers_.release_partials(slot); }
  void reuse_partials(std::size_t first) override { transfers_.reuse_partials(first); }
  void flush() override {}  // launches and copies are submitted as they are made
  void drain() noexcept override { transfers_.drain(); }

 private:
  void launch_plainly(const std::vector<StepLaunch>& launches);

  const CudaDriver& drv_;
  Precision precision_;
  Params lattice_params_;  // the slab's problem: what 16-bit codes are relative to (Storage16)
  int nx_;
  int rows_;  // the lattice's own, halo rows not counted
  int halo_depth_;  // a slab's halo rows each side; 0: the whole grid
  int ramp_steps_;  // an inlet's ramp: steps whose launches are never replayed
  std::size_t row_bytes_;
  // The parts free what they hold in reverse order, the lattice's context
  // current (~CudaDevice), before the lattice goes.
  CudaLattice lattice_;
  CudaTransfers transfers_;
  CudaProbes probes_;
  CudaGraphs graphs_;
  CudaIpcHalos ipc_;
};

CudaDevice::CudaDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab, bool use_graphs)
    : drv_(cuda_driver()),
      precision_(config.precision),
      lattice_params_(slab.lattice),
      nx_(slab.lattice.nx),
      rows_(slab.rows()),
      halo_depth_(slab.halo_depth),
      ramp_steps_(slab.lattice.extensions.inlet_ramp_steps),
      row_bytes_(static_cast<std::size_t>(slab.lattice.nx) * stored_size(config.precision)),
      lattice_(config, slab.lattice, plan, slab.defines, slab.partial_values * real_size(config.precision),
               slab.obstacles, slab.what()),
      transfers_(lattice_, slab.halo_depth, slab.rows(), slab.chunk_values * real_size(config.precision)),
      probes_(lattice_, transfers_, slab.halo_depth, slab.rows()),
      graphs_(drv_, use_graphs, slab.lattice.extensions.inlet_ramp_steps),
      ipc_(lattice_, transfers_, slab.halo_depth, slab.rows()) {
  lattice_.set_tile_order(slab.tile_order);
}

// Errors cannot be reported from here; the parts then free what exists (the lattice its own).
CudaDevice::~CudaDevice() {
  try {
    lattice_.make_current();
  } catch (const DeviceError&) {
  }
}

void CudaDevice::fill_at_rest(int state) {
  lattice_.make_current();
  transfers_.synchronize();
  Stopwatch watch;
  lattice_.fill_at_rest(transfers_.kernels(), state);
  lattice_.setup.upload_s += watch.lap();
}

void CudaDevice::upload(int state, const std::vector<double>& f) {
  if (f.size() != lattice_.planes() * lattice_.cell_count()) throw std::invalid_argument("load_distributions: wrong number of values");
  const std::vector<unsigned char> raw = to_device_reals(f, precision_, lattice_params_);
  lattice_.make_current();
  transfers_.synchronize();
  CU_CALL(cuMemcpyHtoDAsync, lattice_.cells(state), raw.data(), raw.size(), transfers_.kernels());
  CU_CALL(cuStreamSynchronize, transfers_.kernels());
}

std::vector<unsigned char> CudaDevice::read_rows(int state, int first_row, int rows) {
  const std::size_t plane = static_cast<std::size_t>(rows) * row_bytes_;
  std::vector<unsigned char> out(lattice_.planes() * plane);
  lattice_.make_current();
  transfers_.synchronize();
  for (int k = 0; k < lattice_.planes(); ++k)
    CU_CALL(cuMemcpyDtoHAsync, out.data() + k * plane, lattice_.row_at(state, k, first_row), plane,
            transfers_.kernels());
  CU_CALL(cuStreamSynchronize, transfers_.kernels());
  return out;
}

// Nine small copies per cell, not the whole lattice: probes every few steps.
std::vector<unsigned char> CudaDevice::read_cells(int state, const std::vector<std::size_t>& cells) {
  const std::size_t size = stored_size(precision_);
  std::vector<unsigned char> raw(lattice_.planes() * cells.size() * size);
  lattice_.make_current();
  transfers_.synchronize();
  for (int k = 0; k < lattice_.planes(); ++k)
    for (std::size_t c = 0; c < cells.size(); ++c)
      CU_CALL(cuMemcpyDtoHAsync, raw.data() + (k * cells.size() + c) * size,
              lattice_.cells(state) + (k * lattice_.cell_count() + cells[c]) * size, size, transfers_.kernels());
  CU_CALL(cuStreamSynchronize, transfers_.kernels());
  return raw;
}

void CudaDevice::launch_plainly(const std::vector<StepLaunch>& launches) {
  const CUstream kernels = transfers_.kernels();
  for (const StepLaunch& l : launches) {
    if (l.accelerate_before) lattice_.launch_accelerate(kernels, l.state);
    lattice_.launch_step(kernels, l.state, l.group_rows, l.first_group_row, l.partial_offset, l.accelerate_next,
                         l.steps, l.step, probes_.step_samples(l));
    if (l.sample_after_row >= 0) probes_.sample(1 - l.state, l.sample_after_row);
  }
}

void CudaDevice::prepare(const std::vector<std::vector<StepLaunch>>& sequences) {
  lattice_.make_current();
  Stopwatch watch;
  const auto launch_plainly = [this](const std::vector<StepLaunch>& l) { this->launch_plainly(l); };
  for (const auto& launches : sequences)
    if (!launches.empty()) graphs_.graph_for(launches, true, transfers_.kernels(), launch_plainly);
  lattice_.setup.compile_s += watch.lap();  // the graphs are the kernels' launches, prepared
}

void CudaDevice::launch(const std::vector<StepLaunch>& launches) {
  if (launches.empty()) return;
  lattice_.make_current();
  const bool ramping = launches.front().step < ramp_steps_;
  // A graph holds its arguments: the blocked kernel's sample rows count from
  // a base on the device, set here to the sequence's first, so that chunks
  // alike but for their rows replay one graph. sample_cells after a launch
  // takes its row as an argument: such sequences run plainly.
  std::vector<StepLaunch> relative;
  const std::vector<StepLaunch>* to_launch = &launches;
  const auto sampling = std::find_if(launches.begin(), launches.end(), [](const StepLaunch& l) { return l.sample_first > 0; });
  if (sampling != launches.end()) {
    const int base = sampling->sample_row;
    probes_.set_row_base(base);
    relative = launches;
    for (StepLaunch& l : relative)
      if (l.sample_first > 0) l.sample_row -= base;
    to_launch = &relative;
  }
  const bool sampling_after = std::any_of(launches.begin(), launches.end(),
                                          [](const StepLaunch& l) { return l.sample_after_row >= 0; });
  const auto launch_plainly = [this](const std::vector<StepLaunch>& l) { this->launch_plainly(l); };
  // One launch (a slab's band) gains nothing from a graph.
  if (CUgraphExec graph = ramping || sampling_after || (launches.size() < 2 && halo_depth_ > 0)
                              ? nullptr
                              : graphs_.graph_for(*to_launch, false, transfers_.kernels(), launch_plainly))
    CU_CALL(cuGraphLaunch, graph, transfers_.kernels());
  else
    launch_plainly(*to_launch);
}

void CudaDevice::read_edges(int state, const EdgeBuffers& into) {
  if (ipc_.direct()) {
    // The halo rows pull_halos writes are read until now; the neighbours
    // copy the edge rows themselves once this mark is reached.
    transfers_.copies_after_kernels();
    ipc_.mark();
    return;
  }
  transfers_.read_edges(state, into);
}

}  // namespace

std::unique_ptr<LatticeDevice> make_cuda_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                const DeviceLattice& slab) {
  return std::make_unique<CudaDevice>(config, plan, slab, config.launch_graphs);
}

}  // namespace d2q9
