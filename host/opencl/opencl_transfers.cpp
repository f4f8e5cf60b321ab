#include "opencl/opencl_transfers.hpp"

namespace d2q9 {

OpenCLTransfers::OpenCLTransfers(OpenCLLattice& lattice, int halo_depth, std::size_t partials_bytes)
    : lattice_(lattice),
      halo_depth_(halo_depth),
      row_bytes_(static_cast<std::size_t>(lattice.lattice.nx) * stored_size(lattice.precision)),
      slot_bytes_(partials_bytes) {
  lattice_.guarded("setting up", [&] { copies_ = cl::CommandQueue(lattice_.context, lattice_.device); });
}

OpenCLTransfers::~OpenCLTransfers() {
  try {
    for (const Pinned& p : pinned_) copies_.enqueueUnmapMemObject(p.buffer, p.host);
    copies_.finish();
  } catch (const cl::Error&) {
  }
}

unsigned char* OpenCLTransfers::pinned(std::size_t bytes) {
  return lattice_.guarded("allocating host memory", [&] {
    Pinned p;
    p.buffer = cl::Buffer(lattice_.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
    p.host = static_cast<unsigned char*>(
        copies_.enqueueMapBuffer(p.buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes));
    pinned_.push_back(p);
    return p.host;
  });
}

std::vector<cl::Event> OpenCLTransfers::kernels_so_far() {
  cl::Event marker;
  lattice_.queue.enqueueMarkerWithWaitList(nullptr, &marker);
  lattice_.queue.flush();  // so that the copy queue's wait can end
  return {marker};
}

void OpenCLTransfers::kernels_wait_for(const cl::Event& event) {
  const std::vector<cl::Event> waits = {event};
  lattice_.queue.enqueueBarrierWithWaitList(&waits);
}

void OpenCLTransfers::make_edge_buffers() {
  if (halo_depth_ == 0) return;
  const std::size_t edge_bytes = edge_buffer_bytes(halo_depth_, lattice_.lattice.extensions.planes(), row_bytes_);
  unsigned char* p = pinned(4 * edge_bytes);
  for (unsigned char** edge : {&edges_.send_up, &edges_.send_down, &edges_.from_below, &edges_.from_above}) {
    *edge = p;
    p += edge_bytes;
  }
}

// Each plane's halo_depth_ rows are consecutive in it, and the blocked
// kernel's halos (several rows) take every plane: one
// rectangular copy for them, whose rows are the planes, so that a launch
// queues one copy per edge instead of one per speed.
void OpenCLTransfers::copy_edge_rows(bool read, int state, int row, const int* speeds, int count, unsigned char* host,
                                     const std::vector<cl::Event>* after, cl::Event* done) {
  const std::size_t bytes = halo_depth_ * row_bytes_;
  bool consecutive = true;
  for (int i = 1; i < count; ++i) consecutive = consecutive && speeds[i] == speeds[0] + i;
  if (consecutive) {
    const std::size_t plane = lattice_.offset_bytes(1, 0);
    const cl::array<cl::size_type, 3> origin{lattice_.offset_bytes(speeds[0], row) % plane,
                                             static_cast<cl::size_type>(speeds[0]), 0};
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
      copies_.enqueueReadBuffer(lattice_.lattices[state], CL_FALSE, lattice_.offset_bytes(speeds[i], row), bytes,
                                host + i * bytes, after, last);
    else
      copies_.enqueueWriteBuffer(lattice_.lattices[state], CL_FALSE, lattice_.offset_bytes(speeds[i], row), bytes,
                                 host + i * bytes, after, last);
  }
}

void OpenCLTransfers::read_edges(int state, const LatticeDevice::EdgeBuffers& into) {
  lattice_.guarded("reading edge rows", [&] {
    const std::vector<cl::Event> after = kernels_so_far();
    const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.lattice.extensions.planes());
    const int top = lattice_.lattice.ny - 2 * halo_depth_;  // the first of the top own rows
    copy_edge_rows(true, state, top, speeds.up, speeds.count, into.send_up, &after, nullptr);
    copy_edge_rows(true, state, halo_depth_, speeds.down, speeds.count, into.send_down, &after, &edges_read_);
    copies_.flush();
  });
}

void OpenCLTransfers::wait_edges() {
  lattice_.guarded("reading edge rows", [&] { edges_read_.wait(); });
}

void OpenCLTransfers::write_halos(int state, const LatticeDevice::EdgeBuffers& from) {
  lattice_.guarded("writing halo rows", [&] {
    cl::Event written;
    const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.lattice.extensions.planes());
    const int top_halo = lattice_.lattice.ny - halo_depth_;  // the first of the top halo rows
    copy_edge_rows(false, state, 0, speeds.up, speeds.count, from.from_below, nullptr, nullptr);
    copy_edge_rows(false, state, top_halo, speeds.down, speeds.count, from.from_above, nullptr, &written);
    copies_.flush();
    kernels_wait_for(written);
  });
}

// A buffer made over the memory (CL_MEM_USE_HOST_PTR) and kept, because
// NVIDIA's driver then copies to and from that memory as fast as from its own
// pinned memory (docs/mpi.md, Halo paths); PoCL's buffer is that memory.
bool OpenCLTransfers::pin_host_memory(unsigned char* p, std::size_t bytes) {
  try {
    host_memory_.emplace_back(lattice_.context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, p);
    return true;
  } catch (const cl::Error&) {
    return false;
  }
}

int OpenCLTransfers::read_partials(std::size_t first, std::size_t count) {
  int slot = 0;
  while (slot < static_cast<int>(slots_.size()) && slots_[slot].in_use) ++slot;
  if (slot == static_cast<int>(slots_.size())) slots_.push_back({pinned(slot_bytes_), cl::Event(), false});
  PartialsSlot& s = slots_[slot];
  lattice_.guarded("reading partial sums", [&] {
    const std::size_t size = real_size(lattice_.precision);
    const std::vector<cl::Event> after = kernels_so_far();
    copies_.enqueueReadBuffer(lattice_.partials, CL_FALSE, first * size, count * size, s.host, &after, &s.read);
    copies_.flush();
  });
  s.in_use = true;
  last_read_from_[first] = s.read;
  return slot;
}

const void* OpenCLTransfers::partials(int slot, bool wait) {
  PartialsSlot& s = slots_.at(slot);
  return lattice_.guarded("reading partial sums", [&]() -> const void* {
    if (wait)
      s.read.wait();
    else if (s.read.getInfo<CL_EVENT_COMMAND_EXECUTION_STATUS>() != CL_COMPLETE)
      return nullptr;
    return s.host;
  });
}

void OpenCLTransfers::reuse_partials(std::size_t first) {
  const auto read = last_read_from_.find(first);
  if (read != last_read_from_.end()) lattice_.guarded("running", [&] { kernels_wait_for(read->second); });
}

}  // namespace d2q9
