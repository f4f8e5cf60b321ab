// A lattice (the whole grid or a slab) on a CUDA device: kernels on one
// stream, copies on another, events between them; the edge buffers and
// partial sums in pinned host memory, so that every copy is asynchronous.
// Prepared launch sequences (a single device's chunks) replay as CUDA graphs.
// A slab whose neighbours run on the same host may instead copy their edge
// rows straight into its halo rows: CUDA IPC handles of their lattices and of
// their marks (interprocess events), opened once.
#include <algorithm>
#include <utility>
#include <cstring>
#include <map>
#include <tuple>

#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_device.hpp"
#include "core/stopwatch.hpp"
#include "device/kernel_source.hpp"
#include "device/lattice_device.hpp"

namespace d2q9 {

namespace {

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

constexpr std::size_t kPassingGraphs = 8;

// What a slab shares with its neighbours (share_lattice's bytes): handles of
// its two lattices and of its two marks, where they lie, and enough of its
// layout to find its edge rows. Plain bytes: every rank runs this binary.
struct IpcLattice {
  CUipcMemHandle cells[2];
  CUipcEventHandle marks[2];
  char pci_bus_id[32];  // of its device, to ask whether this one reaches it
  unsigned long long cell_count;
  int nx;
  int rows;  // its own, halo rows not counted
  int halo_depth;
  int stored_bytes;  // per value
};

class CudaDevice final : public LatticeDevice {
 public:
  CudaDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab, bool use_graphs);
  ~CudaDevice() override { release(); }
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  std::string device_name() const override { return lattice_.device_name(); }
  SetupTimes setup_times() const override { return lattice_.setup; }
  std::string launch_mode() const override {
    if (halo_depth_ > 0) return "plain launches (a slab's steps are launched band by band)";
    return graphs_failed_.empty() ? (use_graphs_ ? "graphs" : "plain launches (graphs turned off)")
                                  : "plain launches (" + graphs_failed_ + ")";
  }
  EdgeBuffers edge_buffers() override { return edges_; }
  void fill_at_rest(int state) override;
  void upload(int state, const std::vector<double>& f) override;
  std::optional<FieldImage> render(int state, const FieldImageRequest& request) override {
    if (halo_depth_ > 0) return std::nullopt;  // a slab: the host draws the gathered grid
    return lattice_.render(kernels_, state, nx_, rows_, request);
  }
  std::vector<unsigned char> read_rows(int state, int first_row, int rows) override;
  std::vector<unsigned char> read_cells(int state, const std::vector<std::size_t>& cells) override;
  void set_sample_cells(const std::vector<std::size_t>& cells, int rows) override;
  void sample(int state, int row) override;
  void read_samples(int first, int rows) override;
  std::vector<unsigned char> samples_read() override;
  void accelerate(int state) override;
  void launch(const std::vector<StepLaunch>& launches) override;
  void prepare(const std::vector<std::vector<StepLaunch>>& sequences) override;
  void read_edges(int state, const EdgeBuffers& into) override;
  void wait_edges() override { CU_CALL(cuEventSynchronize, edges_read_); }
  void write_halos(int state, const EdgeBuffers& from) override;
  SharedLattice share_lattice() override;
  std::string open_neighbours(const std::vector<unsigned char>& below, const std::vector<unsigned char>& above) override;
  void pull_halos(int state) override;
  void close_neighbours() noexcept override;
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
  // A sequence is fully described by its launches, apart from the steps'
  // numbers, which only an inlet's ramp reads (and the base of the blocked
  // kernel's sample rows, which launch() sets on the device before them).
  using GraphKey = std::vector<std::tuple<int, int, int, int, bool, bool, int, int, int, int>>;
  static GraphKey graph_key(const std::vector<StepLaunch>& launches);
  void launch_plainly(const std::vector<StepLaunch>& launches);
  // The sequence's graph, captured on first use; nullptr once graphs have
  // failed, so that the caller launches plainly. `prepared`: kept all run long.
  CUgraphExec graph_for(const std::vector<StepLaunch>& launches, bool prepared);
  CUgraphExec capture(const std::vector<StepLaunch>& launches);
  CUdeviceptr row_at(int state, int speed, int row) const {
    return lattice_.cells(state) +
           (static_cast<std::size_t>(speed) * lattice_.cell_count() + static_cast<std::size_t>(row) * nx_) *
               stored_size(precision_);
  }
  // The copy stream's later work waits for the kernel stream's work so far.
  void copies_after_kernels();
  // A neighbour's lattice as this device reaches it (direct halos).
  struct Neighbour {
    CUdeviceptr cells[2] = {0, 0};
    CUevent marks[2] = {nullptr, nullptr};
    std::size_t cell_count = 0;
    int rows = 0;
    bool opened = false;  // opened here, so closed here (not this device's own, nor a copy of the other neighbour)
  };
  Neighbour open_neighbour(const std::vector<unsigned char>& shared);
  void close_neighbour(Neighbour& n) noexcept;
  CUdeviceptr neighbour_row(const Neighbour& n, int state, int speed, int row) const {
    return n.cells[state] +
           (static_cast<std::size_t>(speed) * n.cell_count + static_cast<std::size_t>(row) * nx_) *
               stored_size(precision_);
  }
  void synchronize() {
    CU_CALL(cuStreamSynchronize, kernels_);
    CU_CALL(cuStreamSynchronize, copies_);
  }

  const CudaDriver& drv_;
  Precision precision_;
  Params lattice_params_;  // the slab's problem: what 16-bit codes are relative to (Storage16)
  int nx_;
  int rows_;  // the lattice's own, halo rows not counted
  int halo_depth_;  // a slab's halo rows each side; 0: the whole grid
  int ramp_steps_;  // an inlet's ramp: steps whose launches are never replayed
  bool use_graphs_;
  std::string graphs_failed_;  // why graphs were given up, empty while they work
  std::map<GraphKey, CUgraphExec> graphs_;
  std::map<GraphKey, CUgraphExec> passing_graphs_;  // sequences not prepared (kPassingGraphs at most)
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
  // Probes (set_sample_cells): the cells' indices and the samples, on the device.
  int sample_count_ = 0;
  CUdeviceptr sample_cells_ = 0, samples_ = 0;
  CUdeviceptr sample_index_ = 0;  // blocked: the probes by tile (blocked_sample_index)
  CUdeviceptr sample_base_ = 0;   // its last value: the base of the launches' sample rows
  unsigned char* sample_host_ = nullptr;  // pinned: where read_samples copies to
  std::size_t sample_read_bytes_ = 0;
  CUevent samples_read_ = nullptr;
  // Direct halos: read_edges records marks_[exchange % 2] (interprocess
  // events) where the edge rows are written; the neighbours' copies wait on
  // it. Two, so that a mark is never re-recorded before the neighbours have
  // queued their wait on it (they have, once the next exchange's MPI
  // handshake is done).
  CUevent marks_[2] = {nullptr, nullptr};
  bool direct_ = false;
  long long marks_made_ = 0;
  long long halos_pulled_ = 0;
  Neighbour below_, above_;
};

CudaDevice::CudaDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab, bool use_graphs)
    : drv_(cuda_driver()),
      precision_(config.precision),
      lattice_params_(slab.lattice),
      nx_(slab.lattice.nx),
      rows_(slab.rows()),
      halo_depth_(slab.halo_depth),
      ramp_steps_(slab.lattice.extensions.inlet_ramp_steps),
      use_graphs_(use_graphs),
      row_bytes_(static_cast<std::size_t>(slab.lattice.nx) * stored_size(config.precision)),
      slot_bytes_(slab.chunk_values * real_size(config.precision)),
      lattice_(config, slab.lattice, plan, slab.defines, slab.partial_values * real_size(config.precision),
               slab.obstacles, slab.what()) {
  // A throwing constructor runs no destructor (but lattice_'s): free what was made so far.
  try {
    lattice_.set_tile_order(slab.tile_order);
    setup();
  } catch (...) {
    release();
    throw;
  }
}

void CudaDevice::setup() {
  CU_CALL(cuStreamCreate, &kernels_, CU_STREAM_NON_BLOCKING);
  CU_CALL(cuStreamCreate, &copies_, CU_STREAM_NON_BLOCKING);
  for (CUevent* e : {&kernels_done_, &edges_read_, &halos_written_, &samples_read_})
    CU_CALL(cuEventCreate, e, CU_EVENT_DISABLE_TIMING);
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

// Errors cannot be reported from here; frees what exists (the lattice frees its own).
void CudaDevice::release() noexcept {
  try {
    lattice_.make_current();
  } catch (const DeviceError&) {
  }
  close_neighbours();  // drains too
  for (CUevent& e : marks_) {
    if (e) drv_.cuEventDestroy(e);
    e = nullptr;
  }
  for (auto* graphs : {&graphs_, &passing_graphs_}) {
    for (auto& entry : *graphs) drv_.cuGraphExecDestroy(entry.second);
    graphs->clear();
  }
  for (const PartialsSlot& s : slots_) {
    if (s.read) drv_.cuEventDestroy(s.read);
    if (s.host) drv_.cuMemFreeHost(s.host);
  }
  slots_.clear();
  for (CUevent e : {halos_written_, edges_read_, kernels_done_, samples_read_})
    if (e) drv_.cuEventDestroy(e);
  if (sample_host_) drv_.cuMemFreeHost(sample_host_);
  sample_host_ = nullptr;
  samples_read_ = nullptr;
  if (staging_) drv_.cuMemFreeHost(staging_);
  for (CUdeviceptr p : {samples_, sample_cells_, sample_index_})
    if (p) drv_.cuMemFree(p);
  samples_ = sample_cells_ = sample_index_ = 0;
  for (CUstream s : {copies_, kernels_})
    if (s) drv_.cuStreamDestroy(s);
  halos_written_ = edges_read_ = kernels_done_ = nullptr;
  staging_ = nullptr;
  copies_ = kernels_ = nullptr;
}

void CudaDevice::fill_at_rest(int state) {
  lattice_.make_current();
  synchronize();
  Stopwatch watch;
  lattice_.fill_at_rest(kernels_, state);
  lattice_.setup.upload_s += watch.lap();
}

void CudaDevice::upload(int state, const std::vector<double>& f) {
  if (f.size() != lattice_.planes() * lattice_.cell_count()) throw std::invalid_argument("load_distributions: wrong number of values");
  const std::vector<unsigned char> raw = to_device_reals(f, precision_, lattice_params_);
  lattice_.make_current();
  synchronize();
  CU_CALL(cuMemcpyHtoDAsync, lattice_.cells(state), raw.data(), raw.size(), kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
}

std::vector<unsigned char> CudaDevice::read_rows(int state, int first_row, int rows) {
  const std::size_t plane = static_cast<std::size_t>(rows) * row_bytes_;
  std::vector<unsigned char> out(lattice_.planes() * plane);
  lattice_.make_current();
  synchronize();
  for (int k = 0; k < lattice_.planes(); ++k)
    CU_CALL(cuMemcpyDtoHAsync, out.data() + k * plane, row_at(state, k, first_row), plane, kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
  return out;
}

// Nine small copies per cell, not the whole lattice: probes every few steps.
std::vector<unsigned char> CudaDevice::read_cells(int state, const std::vector<std::size_t>& cells) {
  const std::size_t size = stored_size(precision_);
  std::vector<unsigned char> raw(lattice_.planes() * cells.size() * size);
  lattice_.make_current();
  synchronize();
  for (int k = 0; k < lattice_.planes(); ++k)
    for (std::size_t c = 0; c < cells.size(); ++c)
      CU_CALL(cuMemcpyDtoHAsync, raw.data() + (k * cells.size() + c) * size,
              lattice_.cells(state) + (k * lattice_.cell_count() + cells[c]) * size, size, kernels_);
  CU_CALL(cuStreamSynchronize, kernels_);
  return raw;
}

void CudaDevice::set_sample_cells(const std::vector<std::size_t>& cells, int rows) {
  lattice_.make_current();
  synchronize();
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
  const std::size_t bytes = static_cast<std::size_t>(rows) * lattice_.planes() * cells.size() * stored_size(precision_);
  CU_CALL(cuMemAlloc, &samples_, bytes);
  void* host = nullptr;
  CU_CALL(cuMemAllocHost, &host, bytes);
  sample_host_ = static_cast<unsigned char*>(host);
  if (lattice_.plan().variant == KernelVariant::Blocked) {
    const std::vector<int> index = blocked_sample_index(lattice_.plan(), nx_, halo_depth_, rows_, cells);
    CU_CALL(cuMemAlloc, &sample_index_, index.size() * sizeof(int));
    CU_CALL(cuMemcpyHtoD, sample_index_, index.data(), index.size() * sizeof(int));
    sample_base_ = sample_index_ + (index.size() - 1) * sizeof(int);
  }
}

void CudaDevice::sample(int state, int row) {
  lattice_.make_current();
  lattice_.launch_sample(kernels_, state, sample_cells_, samples_, sample_count_, row);
}

// On the copy stream after the kernels so far, which go on meanwhile.
void CudaDevice::read_samples(int first, int rows) {
  const std::size_t row_bytes = lattice_.planes() * static_cast<std::size_t>(sample_count_) * stored_size(precision_);
  sample_read_bytes_ = static_cast<std::size_t>(rows) * row_bytes;
  if (sample_read_bytes_ == 0) return;
  lattice_.make_current();
  copies_after_kernels();
  CU_CALL(cuMemcpyDtoHAsync, sample_host_, samples_ + static_cast<std::size_t>(first) * row_bytes, sample_read_bytes_,
          copies_);
  CU_CALL(cuEventRecord, samples_read_, copies_);
}

std::vector<unsigned char> CudaDevice::samples_read() {
  if (sample_read_bytes_ == 0) return {};
  lattice_.make_current();
  CU_CALL(cuEventSynchronize, samples_read_);
  return std::vector<unsigned char>(sample_host_, sample_host_ + std::exchange(sample_read_bytes_, 0));
}

void CudaDevice::accelerate(int state) { lattice_.launch_accelerate(kernels_, state); }

CudaDevice::GraphKey CudaDevice::graph_key(const std::vector<StepLaunch>& launches) {
  GraphKey key;
  for (const StepLaunch& l : launches)
    key.emplace_back(l.state, l.first_group_row, l.group_rows, l.steps, l.accelerate_before,
                     l.accelerate_next, l.partial_offset, l.sample_first, l.sample_first > 0 ? l.sample_every : 0,
                     l.sample_first > 0 ? l.sample_row : 0);
  return key;
}

void CudaDevice::launch_plainly(const std::vector<StepLaunch>& launches) {
  for (const StepLaunch& l : launches) {
    if (l.accelerate_before) lattice_.launch_accelerate(kernels_, l.state);
    lattice_.launch_step(kernels_, l.state, l.group_rows, l.first_group_row, l.partial_offset,
                         l.accelerate_next, l.steps, l.step,
                         {samples_, sample_index_, sample_count_, l.sample_first, l.sample_every, l.sample_row,
                          l.samples_inside()});
    if (l.sample_after_row >= 0)
      lattice_.launch_sample(kernels_, 1 - l.state, sample_cells_, samples_, sample_count_, l.sample_after_row);
  }
}

CUgraphExec CudaDevice::capture(const std::vector<StepLaunch>& launches) {
  // Graphs hold their launches' arguments: captured past an inlet's ramp,
  // where the step no longer matters (sequences inside it launch plainly).
  std::vector<StepLaunch> past_ramp = launches;
  for (StepLaunch& l : past_ramp) l.step = ramp_steps_ + (l.step - launches.front().step);
  CU_CALL(cuStreamBeginCapture, kernels_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL);
  std::string failure;
  try {
    launch_plainly(past_ramp);
  } catch (const DeviceError& e) {
    failure = e.what();
  }
  CUgraph graph = nullptr;
  const CUresult ended = drv_.cuStreamEndCapture(kernels_, &graph);
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

CUgraphExec CudaDevice::graph_for(const std::vector<StepLaunch>& launches, bool prepared) {
  if (!use_graphs_ || !graphs_failed_.empty()) return nullptr;
  const GraphKey key = graph_key(launches);
  if (const auto found = graphs_.find(key); found != graphs_.end()) return found->second;
  if (const auto found = passing_graphs_.find(key); found != passing_graphs_.end()) return found->second;
  // Prepared sequences are reused all run long; others (a call's last
  // chunk, the chunks that end at probes: a few, alternating in state and
  // partial-sum half) are kept until there are kPassingGraphs of them, so
  // the cache stays small and alternating chunks are not captured anew.
  auto& graphs = prepared ? graphs_ : passing_graphs_;
  if (!prepared && passing_graphs_.size() >= kPassingGraphs) {
    for (auto& entry : passing_graphs_) drv_.cuGraphExecDestroy(entry.second);
    passing_graphs_.clear();
  }
  try {
    return graphs[key] = capture(launches);
  } catch (const DeviceError& e) {
    graphs.erase(key);
    graphs_failed_ = std::string("graph capture failed: ") + e.what();
    return nullptr;
  }
}

void CudaDevice::prepare(const std::vector<std::vector<StepLaunch>>& sequences) {
  lattice_.make_current();
  Stopwatch watch;
  for (const auto& launches : sequences)
    if (!launches.empty()) graph_for(launches, true);
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
    CU_CALL(cuMemsetD32Async, sample_base_, static_cast<unsigned>(base), 1, kernels_);
    relative = launches;
    for (StepLaunch& l : relative)
      if (l.sample_first > 0) l.sample_row -= base;
    to_launch = &relative;
  }
  const bool sampling_after = std::any_of(launches.begin(), launches.end(),
                                          [](const StepLaunch& l) { return l.sample_after_row >= 0; });
  // One launch (a slab's band) gains nothing from a graph.
  if (CUgraphExec graph = ramping || sampling_after || (launches.size() < 2 && halo_depth_ > 0)
                              ? nullptr
                              : graph_for(*to_launch, false))
    CU_CALL(cuGraphLaunch, graph, kernels_);
  else
    launch_plainly(*to_launch);
}

void CudaDevice::copies_after_kernels() {
  CU_CALL(cuEventRecord, kernels_done_, kernels_);
  CU_CALL(cuStreamWaitEvent, copies_, kernels_done_, 0);
}

// Each plane's halo_depth_ rows are consecutive in it: one copy each.
void CudaDevice::read_edges(int state, const EdgeBuffers& into) {
  copies_after_kernels();  // direct too: the halo rows pull_halos writes are read until now
  if (direct_) {
    // The neighbours copy the edge rows themselves once this mark is reached.
    CU_CALL(cuEventRecord, marks_[marks_made_ % 2], kernels_);
    ++marks_made_;
    return;
  }
  const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.planes());
  const std::size_t bytes = halo_depth_ * row_bytes_;
  const int top = rows_;  // the first of the top own rows (halo_depth_ + rows_ - halo_depth_)
  for (int i = 0; i < speeds.count; ++i) {
    CU_CALL(cuMemcpyDtoHAsync, into.send_up + i * bytes, row_at(state, speeds.up[i], top), bytes, copies_);
    CU_CALL(cuMemcpyDtoHAsync, into.send_down + i * bytes, row_at(state, speeds.down[i], halo_depth_), bytes,
            copies_);
  }
  CU_CALL(cuEventRecord, edges_read_, copies_);
}

void CudaDevice::write_halos(int state, const EdgeBuffers& from) {
  const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.planes());
  const std::size_t bytes = halo_depth_ * row_bytes_;
  const int top_halo = rows_ + halo_depth_;  // the first of the top halo rows
  for (int i = 0; i < speeds.count; ++i) {
    CU_CALL(cuMemcpyHtoDAsync, row_at(state, speeds.up[i], 0), from.from_below + i * bytes, bytes, copies_);
    CU_CALL(cuMemcpyHtoDAsync, row_at(state, speeds.down[i], top_halo), from.from_above + i * bytes, bytes,
            copies_);
  }
  CU_CALL(cuEventRecord, halos_written_, copies_);
  CU_CALL(cuStreamWaitEvent, kernels_, halos_written_, 0);
}

LatticeDevice::SharedLattice CudaDevice::share_lattice() {
  if (halo_depth_ == 0) return {{}, "the whole grid has no halo rows"};
  try {
    lattice_.make_current();
    const CUdevice device = lattice_.device();
    if (!cuda_device_attribute(drv_, device, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) ||
        !cuda_device_attribute(drv_, device, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED))
      return {{}, lattice_.device_name() + " does not support CUDA IPC"};
    for (CUevent& e : marks_)
      if (!e) CU_CALL(cuEventCreate, &e, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING);
    IpcLattice shared;
    std::memset(&shared, 0, sizeof shared);
    for (int s = 0; s < 2; ++s) {
      CU_CALL(cuIpcGetMemHandle, &shared.cells[s], lattice_.cells(s));
      CU_CALL(cuIpcGetEventHandle, &shared.marks[s], marks_[s]);
    }
    CU_CALL(cuDeviceGetPCIBusId, shared.pci_bus_id, static_cast<int>(sizeof shared.pci_bus_id) - 1, device);
    shared.cell_count = lattice_.cell_count();
    shared.nx = nx_;
    shared.rows = rows_;
    shared.halo_depth = halo_depth_;
    shared.stored_bytes = static_cast<int>(stored_size(precision_));
    std::vector<unsigned char> bytes(sizeof shared);
    std::memcpy(bytes.data(), &shared, sizeof shared);
    return {bytes, ""};
  } catch (const DeviceError& e) {
    return {{}, e.what()};
  }
}

CudaDevice::Neighbour CudaDevice::open_neighbour(const std::vector<unsigned char>& bytes) {
  Neighbour n;
  if (bytes.empty()) {  // this rank itself: its own lattice and marks
    for (int s = 0; s < 2; ++s) {
      n.cells[s] = lattice_.cells(s);
      n.marks[s] = marks_[s];
    }
    n.cell_count = lattice_.cell_count();
    n.rows = rows_;
    return n;
  }
  IpcLattice shared;
  if (bytes.size() != sizeof shared) throw DeviceError("a neighbour shared its lattice in another layout");
  std::memcpy(&shared, bytes.data(), sizeof shared);
  if (shared.nx != nx_ || shared.halo_depth != halo_depth_ ||
      shared.stored_bytes != static_cast<int>(stored_size(precision_)))
    throw DeviceError("a neighbour's lattice is laid out unlike this one");
  // A device this process sees (not hidden by CUDA_VISIBLE_DEVICES) is asked
  // whether this one reaches it; opening the handle fails where it cannot.
  const CUdevice device = lattice_.device();
  char own_bus_id[32] = {};
  CU_CALL(cuDeviceGetPCIBusId, own_bus_id, static_cast<int>(sizeof own_bus_id) - 1, device);
  CUdevice peer{};
  if (std::strcmp(own_bus_id, shared.pci_bus_id) != 0 &&
      drv_.cuDeviceGetByPCIBusId(&peer, shared.pci_bus_id) == CUDA_SUCCESS) {
    int can = 0;
    CU_CALL(cuDeviceCanAccessPeer, &can, device, peer);
    if (!can)
      throw DeviceError("the GPU at " + std::string(own_bus_id) + " cannot reach the GPU at " + shared.pci_bus_id +
                        " (no peer access)");
  }
  n.opened = true;
  try {
    for (int s = 0; s < 2; ++s) {
      CU_CALL(cuIpcOpenMemHandle, &n.cells[s], shared.cells[s], CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
      CU_CALL(cuIpcOpenEventHandle, &n.marks[s], shared.marks[s]);
    }
  } catch (...) {
    close_neighbour(n);
    throw;
  }
  n.cell_count = shared.cell_count;
  n.rows = shared.rows;
  return n;
}

void CudaDevice::close_neighbour(Neighbour& n) noexcept {
  if (n.opened) {
    for (CUevent e : n.marks)
      if (e) drv_.cuEventDestroy(e);
    for (CUdeviceptr p : n.cells)
      if (p) drv_.cuIpcCloseMemHandle(p);
  }
  n = Neighbour{};
}

std::string CudaDevice::open_neighbours(const std::vector<unsigned char>& below,
                                        const std::vector<unsigned char>& above) {
  try {
    lattice_.make_current();
    below_ = open_neighbour(below);
    if (above == below) {
      // Two ranks: one neighbour both ways, opened once.
      above_ = below_;
      above_.opened = false;
    } else {
      above_ = open_neighbour(above);
    }
  } catch (const DeviceError& e) {
    close_neighbours();
    return e.what();
  }
  direct_ = true;
  return "";
}

void CudaDevice::close_neighbours() noexcept {
  drain();  // no copy from their lattices still in flight
  close_neighbour(above_);
  close_neighbour(below_);
  direct_ = false;
}

// The neighbours' edge rows, as read_edges reads them for staging: the
// lower neighbour's top own rows (its rows from `rows`) into the bottom halo
// rows, the upper one's bottom own rows into the top halo rows.
void CudaDevice::pull_halos(int state) {
  if (!direct_ || halos_pulled_ >= marks_made_)
    throw DeviceError("pull_halos: no neighbours' lattices open, or no edge rows marked for this exchange");
  const int slot = static_cast<int>(halos_pulled_ % 2);
  ++halos_pulled_;
  CU_CALL(cuStreamWaitEvent, copies_, below_.marks[slot], 0);
  CU_CALL(cuStreamWaitEvent, copies_, above_.marks[slot], 0);
  const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.planes());
  const std::size_t bytes = halo_depth_ * row_bytes_;
  const int top_halo = rows_ + halo_depth_;  // the first of the top halo rows
  for (int i = 0; i < speeds.count; ++i) {
    CU_CALL(cuMemcpyDtoDAsync, row_at(state, speeds.up[i], 0), neighbour_row(below_, state, speeds.up[i], below_.rows),
            bytes, copies_);
    CU_CALL(cuMemcpyDtoDAsync, row_at(state, speeds.down[i], top_halo),
            neighbour_row(above_, state, speeds.down[i], halo_depth_), bytes, copies_);
  }
  CU_CALL(cuEventRecord, halos_written_, copies_);
  CU_CALL(cuStreamWaitEvent, kernels_, halos_written_, 0);
}

int CudaDevice::read_partials(std::size_t first, std::size_t count) {
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

const void* CudaDevice::partials(int slot, bool wait) {
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
void CudaDevice::reuse_partials(std::size_t first) {
  const auto read = last_read_from_.find(first);
  if (read != last_read_from_.end()) CU_CALL(cuStreamWaitEvent, kernels_, read->second, 0);
}

}  // namespace

std::unique_ptr<LatticeDevice> make_cuda_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                const DeviceLattice& slab) {
  return std::make_unique<CudaDevice>(config, plan, slab, config.launch_graphs);
}

}  // namespace d2q9
