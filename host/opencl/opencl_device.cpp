// A lattice (the whole grid or a slab) on an OpenCL device: the lattice's
// in-order queue runs the kernels, a second in-order queue the copies;
// markers and barriers order them.
#include <algorithm>
#include <utility>
#include <map>
#include <memory>

#include "device/lattice_device.hpp"
#include "core/stopwatch.hpp"
#include "opencl/opencl_backend.hpp"
#include "opencl/opencl_lattice.hpp"
#include "opencl/opencl_render.hpp"

namespace d2q9 {

namespace {

class OpenCLDevice final : public LatticeDevice {
 public:
  OpenCLDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab);
  ~OpenCLDevice() override;
  OpenCLDevice(const OpenCLDevice&) = delete;
  OpenCLDevice& operator=(const OpenCLDevice&) = delete;

  std::string device_name() const override { return lattice_.device_name; }
  SetupTimes setup_times() const override { return lattice_.setup; }
  EdgeBuffers edge_buffers() override { return edges_; }
  void fill_at_rest(int state) override;
  void upload(int state, const std::vector<double>& f) override;
  std::vector<unsigned char> read_rows(int state, int first_row, int rows) override;
  std::vector<unsigned char> read_cells(int state, const std::vector<std::size_t>& cells) override;
  void set_sample_cells(const std::vector<std::size_t>& cells, int rows) override;
  void sample(int state, int row) override;
  void read_samples(int first, int rows) override;
  std::vector<unsigned char> samples_read() override;
  void accelerate(int state) override;
  void launch(const std::vector<StepLaunch>& launches) override;
  void read_edges(int state, const EdgeBuffers& into) override;
  void wait_edges() override;
  void write_halos(int state, const EdgeBuffers& from) override;
  bool pin_host_memory(unsigned char* p, std::size_t bytes) override;
  int read_partials(std::size_t first, std::size_t count) override;
  const void* partials(int slot, bool wait) override;
  void release_partials(int slot) override { slots_.at(slot).in_use = false; }
  void reuse_partials(std::size_t first) override;
  void flush() override;
  void drain() noexcept override;
  std::optional<FieldImage> render(int state, const FieldImageRequest& request) override;

 private:
  template <class F>
  auto guarded(const char* what, F&& f) {
    try {
      return f();
    } catch (const cl::Error& e) {
      rethrow_cl(e, std::string(what) + " on " + lattice_.device_name);
    }
  }
  std::size_t offset_bytes(int speed, int row) const {
    return (static_cast<std::size_t>(speed) * lattice_.cells + static_cast<std::size_t>(row) * params_.nx) *
           stored_size(lattice_.precision);
  }
  // The kernel queue's work so far, for the copy queue to wait on.
  std::vector<cl::Event> kernels_so_far();
  // On the copy queue: rows [row, row + halo_depth_) of `count` speeds of
  // lattice `state` to (read) or from `host` (an edge buffer, speed after
  // speed), after `after`; `done` marks the last copy.
  void copy_edge_rows(bool read, int state, int row, const int* speeds, int count, unsigned char* host,
                      const std::vector<cl::Event>* after, cl::Event* done);
  // The kernel queue's later work waits for `event`.
  void kernels_wait_for(const cl::Event& event);

  Params params_;  // the lattice's
  int halo_depth_;  // a slab's halo rows each side; 0: the whole grid
  LaunchPlan plan_;
  OpenCLLattice lattice_;
  std::size_t row_bytes_;
  cl::CommandQueue copies_;
  // Host memory the device copies to and from directly (allocated by the
  // driver, mapped for the object's life).
  struct Pinned {
    cl::Buffer buffer;
    unsigned char* host = nullptr;
  };
  Pinned pinned(std::size_t bytes);
  std::vector<Pinned> pinned_;
  EdgeBuffers edges_;
  std::vector<cl::Buffer> host_memory_;  // pin_host_memory's
  struct PartialsSlot {
    unsigned char* host = nullptr;
    cl::Event read;
    bool in_use = false;
  };
  std::vector<PartialsSlot> slots_;
  std::size_t slot_bytes_;
  std::map<std::size_t, cl::Event> last_read_from_;  // by first value
  cl::Event edges_read_;
  // Probes (set_sample_cells): the cells' indices and the samples' buffer;
  // read_samples' pinned host memory (kept as it grows) and its read.
  Pinned sample_host_;
  std::size_t sample_host_bytes_ = 0, sample_read_bytes_ = 0;
  cl::Event samples_read_;
  int sample_count_ = 0;
  cl::Buffer sample_cells_, samples_;
  cl::Buffer sample_index_;  // blocked: the probes by tile (blocked_sample_index)
  cl::Buffer tile_order_;    // blocked: the order of the tiles (blocked_tile_order)
  cl::Kernel sample_[2];  // from lattices[0] / [1]
  // The live view's pictures: built at the first one asked for (none asked, nothing built).
  std::string kernels_dir_;
  std::vector<std::string> defines_;
  std::unique_ptr<OpenCLRenderer> renderer_;
};

OpenCLDevice::OpenCLDevice(const DeviceConfig& config, const LaunchPlan& plan, const DeviceLattice& slab)
    : params_(slab.lattice),
      halo_depth_(slab.halo_depth),
      plan_(plan),
      lattice_(opencl_device_at(config.device), slab.lattice, plan, config.precision, config.kernels_dir, slab.defines,
               slab.partial_values, slab.obstacles),
      row_bytes_(static_cast<std::size_t>(slab.lattice.nx) * stored_size(config.precision)),
      slot_bytes_(slab.chunk_values * real_size(config.precision)),
      kernels_dir_(config.kernels_dir),
      defines_(slab.defines) {
  guarded("setting up", [&] {
    copies_ = cl::CommandQueue(lattice_.context, lattice_.device);
    if (plan_.variant == KernelVariant::Blocked && !slab.tile_order.empty()) {
      const std::size_t bytes = slab.tile_order.size() * sizeof(cl_int);
      tile_order_ = cl::Buffer(lattice_.context, CL_MEM_READ_ONLY, bytes);
      lattice_.queue.enqueueWriteBuffer(tile_order_, CL_TRUE, 0, bytes, slab.tile_order.data());
      for (int b = 0; b < 2; ++b) lattice_.set_step_arg(b, 15, tile_order_);
    }
  });
  if (halo_depth_ == 0) return;
  const std::size_t edge_bytes = edge_buffer_bytes(halo_depth_, params_.extensions.planes(), row_bytes_);
  unsigned char* p = pinned(4 * edge_bytes).host;
  for (unsigned char** edge : {&edges_.send_up, &edges_.send_down, &edges_.from_below, &edges_.from_above}) {
    *edge = p;
    p += edge_bytes;
  }
}

OpenCLDevice::~OpenCLDevice() {
  drain();
  try {
    for (const Pinned& p : pinned_) copies_.enqueueUnmapMemObject(p.buffer, p.host);
    copies_.finish();
  } catch (const cl::Error&) {
  }
}

OpenCLDevice::Pinned OpenCLDevice::pinned(std::size_t bytes) {
  return guarded("allocating host memory", [&] {
    Pinned p;
    p.buffer = cl::Buffer(lattice_.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
    p.host = static_cast<unsigned char*>(
        copies_.enqueueMapBuffer(p.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes));
    pinned_.push_back(p);
    return p;
  });
}

std::vector<cl::Event> OpenCLDevice::kernels_so_far() {
  cl::Event marker;
  lattice_.queue.enqueueMarkerWithWaitList(nullptr, &marker);
  lattice_.queue.flush();  // so that the copy queue's wait can end
  return {marker};
}

void OpenCLDevice::kernels_wait_for(const cl::Event& event) {
  const std::vector<cl::Event> waits = {event};
  lattice_.queue.enqueueBarrierWithWaitList(&waits);
}

void OpenCLDevice::fill_at_rest(int state) {
  drain();
  Stopwatch watch;
  // The whole grid is uploaded, not filled on the device, so that oclgrind
  // can check reads of uninitialised memory: its shadow of a buffer keeps
  // only the last host write (a fill is many small ones). One grid fits the
  // host; a slab of a large grid may not.
  if (halo_depth_ > 0)
    lattice_.fill_at_rest(state, params_);
  else
    lattice_.upload(state, initial_distributions(params_));
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
  guarded("reading results", [&] {
    for (int k = 0; k < lattice_.planes; ++k)
      lattice_.queue.enqueueReadBuffer(lattice_.lattices[state], CL_FALSE, offset_bytes(k, first_row), plane,
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
  guarded("reading probes", [&] {
    for (int k = 0; k < lattice_.planes; ++k)
      for (std::size_t c = 0; c < cells.size(); ++c)
        lattice_.queue.enqueueReadBuffer(lattice_.lattices[state], CL_FALSE, (k * lattice_.cells + cells[c]) * size,
                                         size, raw.data() + (k * cells.size() + c) * size);
    lattice_.queue.finish();
  });
  return raw;
}

void OpenCLDevice::set_sample_cells(const std::vector<std::size_t>& cells, int rows) {
  drain();
  sample_count_ = static_cast<int>(cells.size());
  if (cells.empty()) return;
  const std::vector<cl_int> which(cells.begin(), cells.end());
  guarded("setting up probes", [&] {
    sample_cells_ = cl::Buffer(lattice_.context, CL_MEM_READ_ONLY, which.size() * sizeof(cl_int));
    lattice_.queue.enqueueWriteBuffer(sample_cells_, CL_TRUE, 0, which.size() * sizeof(cl_int), which.data());
    if (plan_.variant == KernelVariant::Blocked) {
      const std::vector<int> index = blocked_sample_index(plan_, params_.nx, halo_depth_, params_.ny - 2 * halo_depth_, cells);
      sample_index_ = cl::Buffer(lattice_.context, CL_MEM_READ_ONLY, index.size() * sizeof(cl_int));
      lattice_.queue.enqueueWriteBuffer(sample_index_, CL_TRUE, 0, index.size() * sizeof(cl_int), index.data());
    }
    const std::size_t bytes = static_cast<std::size_t>(rows) * lattice_.planes * cells.size() * stored_size(lattice_.precision);
    samples_ = cl::Buffer(lattice_.context, CL_MEM_READ_WRITE, bytes);
    if (bytes > sample_host_bytes_) {
      sample_host_ = pinned(bytes);
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
  guarded("setting up probes", [&] { lattice_.queue.finish(); });
}

void OpenCLDevice::sample(int state, int row) {
  guarded("sampling probes", [&] {
    cl::Kernel& k = sample_[state];
    k.setArg(4, row);
    const std::size_t items = static_cast<std::size_t>(lattice_.planes) * sample_count_;
    const std::size_t group = std::min<std::size_t>(64, items);
    lattice_.queue.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange((items + group - 1) / group * group),
                                        cl::NDRange(group));
  });
}

// On the copy queue after the kernels so far, which go on meanwhile.
void OpenCLDevice::read_samples(int first, int rows) {
  const std::size_t row_bytes = lattice_.planes * static_cast<std::size_t>(sample_count_) * stored_size(lattice_.precision);
  sample_read_bytes_ = static_cast<std::size_t>(rows) * row_bytes;
  if (sample_read_bytes_ == 0) return;
  guarded("reading probes", [&] {
    const std::vector<cl::Event> after = kernels_so_far();
    copies_.enqueueReadBuffer(samples_, CL_FALSE, static_cast<std::size_t>(first) * row_bytes, sample_read_bytes_,
                              sample_host_.host, &after, &samples_read_);
    copies_.flush();
  });
}

std::vector<unsigned char> OpenCLDevice::samples_read() {
  if (sample_read_bytes_ == 0) return {};
  guarded("reading probes", [&] { samples_read_.wait(); });
  return std::vector<unsigned char>(sample_host_.host, sample_host_.host + std::exchange(sample_read_bytes_, 0));
}

void OpenCLDevice::accelerate(int state) {
  guarded("running", [&] {
    lattice_.queue.enqueueNDRangeKernel(lattice_.accelerate[state], cl::NullRange, cl::NDRange(params_.nx),
                                        cl::NullRange);
  });
}

void OpenCLDevice::launch(const std::vector<StepLaunch>& launches) {
  guarded("running", [&] {
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

// Each plane's halo_depth_ rows are consecutive in it, and the blocked
// kernel's halos (several rows) take every plane: one
// rectangular copy for them, whose rows are the planes, so that a launch
// queues one copy per edge instead of one per speed.
void OpenCLDevice::copy_edge_rows(bool read, int state, int row, const int* speeds, int count, unsigned char* host,
                                  const std::vector<cl::Event>* after, cl::Event* done) {
  const std::size_t bytes = halo_depth_ * row_bytes_;
  bool consecutive = true;
  for (int i = 1; i < count; ++i) consecutive = consecutive && speeds[i] == speeds[0] + i;
  if (consecutive) {
    const std::size_t plane = offset_bytes(1, 0);
    const cl::array<cl::size_type, 3> origin{offset_bytes(speeds[0], row) % plane, static_cast<cl::size_type>(speeds[0]), 0};
    const cl::array<cl::size_type, 3> host_origin{0, 0, 0};
    const cl::array<cl::size_type, 3> region{bytes, static_cast<cl::size_type>(count), 1};
    if (read)
      copies_.enqueueReadBufferRect(lattice_.lattices[state], CL_FALSE, origin, host_origin, region, plane, 0, bytes, 0,
                                    host, after, done);
    else
      copies_.enqueueWriteBufferRect(lattice_.lattices[state], CL_FALSE, origin, host_origin, region, plane, 0, bytes, 0,
                                     host, after, done);
    return;
  }
  for (int i = 0; i < count; ++i) {
    cl::Event* last = i == count - 1 ? done : nullptr;
    if (read)
      copies_.enqueueReadBuffer(lattice_.lattices[state], CL_FALSE, offset_bytes(speeds[i], row), bytes, host + i * bytes,
                                after, last);
    else
      copies_.enqueueWriteBuffer(lattice_.lattices[state], CL_FALSE, offset_bytes(speeds[i], row), bytes, host + i * bytes,
                                 after, last);
  }
}

void OpenCLDevice::read_edges(int state, const EdgeBuffers& into) {
  guarded("reading edge rows", [&] {
    const std::vector<cl::Event> after = kernels_so_far();
    const HaloSpeeds speeds = halo_speeds(halo_depth_, params_.extensions.planes());
    const int top = params_.ny - 2 * halo_depth_;  // the first of the top own rows
    copy_edge_rows(true, state, top, speeds.up, speeds.count, into.send_up, &after, nullptr);
    copy_edge_rows(true, state, halo_depth_, speeds.down, speeds.count, into.send_down, &after, &edges_read_);
    copies_.flush();
  });
}

void OpenCLDevice::wait_edges() {
  guarded("reading edge rows", [&] { edges_read_.wait(); });
}

void OpenCLDevice::write_halos(int state, const EdgeBuffers& from) {
  guarded("writing halo rows", [&] {
    cl::Event written;
    const HaloSpeeds speeds = halo_speeds(halo_depth_, params_.extensions.planes());
    const int top_halo = params_.ny - halo_depth_;  // the first of the top halo rows
    copy_edge_rows(false, state, 0, speeds.up, speeds.count, from.from_below, nullptr, nullptr);
    copy_edge_rows(false, state, top_halo, speeds.down, speeds.count, from.from_above, nullptr, &written);
    copies_.flush();
    kernels_wait_for(written);
  });
}

// A buffer made over the memory (CL_MEM_USE_HOST_PTR) and kept, because
// NVIDIA's driver then copies to and from that memory as fast as from its own
// pinned memory (docs/mpi.md, Halo paths); PoCL's buffer is that memory.
bool OpenCLDevice::pin_host_memory(unsigned char* p, std::size_t bytes) {
  try {
    host_memory_.emplace_back(lattice_.context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, p);
    return true;
  } catch (const cl::Error&) {
    return false;
  }
}

int OpenCLDevice::read_partials(std::size_t first, std::size_t count) {
  int slot = 0;
  while (slot < static_cast<int>(slots_.size()) && slots_[slot].in_use) ++slot;
  if (slot == static_cast<int>(slots_.size())) slots_.push_back({pinned(slot_bytes_).host, cl::Event(), false});
  PartialsSlot& s = slots_[slot];
  guarded("reading partial sums", [&] {
    const std::size_t size = real_size(lattice_.precision);
    const std::vector<cl::Event> after = kernels_so_far();
    copies_.enqueueReadBuffer(lattice_.partials, CL_FALSE, first * size, count * size, s.host, &after, &s.read);
    copies_.flush();
  });
  s.in_use = true;
  last_read_from_[first] = s.read;
  return slot;
}

const void* OpenCLDevice::partials(int slot, bool wait) {
  PartialsSlot& s = slots_.at(slot);
  return guarded("reading partial sums", [&]() -> const void* {
    if (wait)
      s.read.wait();
    else if (s.read.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
      return nullptr;
    return s.host;
  });
}

void OpenCLDevice::reuse_partials(std::size_t first) {
  const auto read = last_read_from_.find(first);
  if (read != last_read_from_.end()) guarded("running", [&] { kernels_wait_for(read->second); });
}

void OpenCLDevice::flush() {
  guarded("running", [&] {
    lattice_.queue.flush();
    copies_.flush();
  });
}

void OpenCLDevice::drain() noexcept {
  try {
    lattice_.queue.finish();
    copies_.finish();
  } catch (const cl::Error&) {
  }
}

std::optional<FieldImage> OpenCLDevice::render(int state, const FieldImageRequest& request) {
  if (halo_depth_ > 0) return std::nullopt;  // a slab: the picture is the whole grid's
  if (!renderer_) renderer_ = std::make_unique<OpenCLRenderer>(lattice_.context, lattice_.device, kernels_dir_, defines_);
  return renderer_->render(lattice_.queue, lattice_.lattices[state], lattice_.obstacles, params_.nx, params_.ny, request);
}

}  // namespace

std::unique_ptr<LatticeDevice> make_opencl_device(const DeviceConfig& config, const LaunchPlan& plan,
                                                  const DeviceLattice& slab) {
  return std::make_unique<OpenCLDevice>(config, plan, slab);
}

}  // namespace d2q9
