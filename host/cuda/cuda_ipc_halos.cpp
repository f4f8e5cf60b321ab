#include "cuda/cuda_ipc_halos.hpp"

#include <cstring>

#include "cuda/cuda_driver.hpp"

namespace d2q9 {

namespace {

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

}  // namespace

#define CU_CALL(call, ...) check_cuda(drv_.call(__VA_ARGS__), #call)

CudaIpcHalos::CudaIpcHalos(const CudaLattice& lattice, CudaTransfers& transfers, int halo_depth, int rows)
    : lattice_(lattice),
      transfers_(transfers),
      drv_(lattice.drv()),
      halo_depth_(halo_depth),
      rows_(rows),
      row_bytes_(static_cast<std::size_t>(lattice.nx()) * stored_size(lattice.precision())) {}

// Errors cannot be reported from here.
CudaIpcHalos::~CudaIpcHalos() {
  close_neighbours();  // drains too
  for (CUevent& e : marks_) {
    if (e) drv_.cuEventDestroy(e);
    e = nullptr;
  }
}

void CudaIpcHalos::mark() {
  CU_CALL(cuEventRecord, marks_[marks_made_ % 2], transfers_.kernels());
  ++marks_made_;
}

LatticeDevice::SharedLattice CudaIpcHalos::share_lattice() {
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
    shared.nx = lattice_.nx();
    shared.rows = rows_;
    shared.halo_depth = halo_depth_;
    shared.stored_bytes = static_cast<int>(stored_size(lattice_.precision()));
    std::vector<unsigned char> bytes(sizeof shared);
    std::memcpy(bytes.data(), &shared, sizeof shared);
    return {bytes, ""};
  } catch (const DeviceError& e) {
    return {{}, e.what()};
  }
}

CudaIpcHalos::Neighbour CudaIpcHalos::open_neighbour(const std::vector<unsigned char>& bytes) {
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
  if (shared.nx != lattice_.nx() || shared.halo_depth != halo_depth_ ||
      shared.stored_bytes != static_cast<int>(stored_size(lattice_.precision())))
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

void CudaIpcHalos::close_neighbour(Neighbour& n) noexcept {
  if (n.opened) {
    for (CUevent e : n.marks)
      if (e) drv_.cuEventDestroy(e);
    for (CUdeviceptr p : n.cells)
      if (p) drv_.cuIpcCloseMemHandle(p);
  }
  n = Neighbour{};
}

std::string CudaIpcHalos::open_neighbours(const std::vector<unsigned char>& below,
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

void CudaIpcHalos::close_neighbours() noexcept {
  transfers_.drain();  // no copy from their lattices still in flight
  close_neighbour(above_);
  close_neighbour(below_);
  direct_ = false;
}

CUdeviceptr CudaIpcHalos::neighbour_row(const Neighbour& n, int state, int speed, int row) const {
  return n.cells[state] +
         (static_cast<std::size_t>(speed) * n.cell_count + static_cast<std::size_t>(row) * lattice_.nx()) *
             stored_size(lattice_.precision());
}

// The neighbours' edge rows, as read_edges reads them for staging: the
// lower neighbour's top own rows (its rows from `rows`) into the bottom halo
// rows, the upper one's bottom own rows into the top halo rows.
void CudaIpcHalos::pull_halos(int state) {
  if (!direct_ || halos_pulled_ >= marks_made_)
    throw DeviceError("pull_halos: no neighbours' lattices open, or no edge rows marked for this exchange");
  const int slot = static_cast<int>(halos_pulled_ % 2);
  ++halos_pulled_;
  const CUstream copies = transfers_.copies();
  CU_CALL(cuStreamWaitEvent, copies, below_.marks[slot], 0);
  CU_CALL(cuStreamWaitEvent, copies, above_.marks[slot], 0);
  const HaloSpeeds speeds = halo_speeds(halo_depth_, lattice_.planes());
  const std::size_t bytes = halo_depth_ * row_bytes_;
  const int top_halo = rows_ + halo_depth_;  // the first of the top halo rows
  for (int i = 0; i < speeds.count; ++i) {
    CU_CALL(cuMemcpyDtoDAsync, lattice_.row_at(state, speeds.up[i], 0),
            neighbour_row(below_, state, speeds.up[i], below_.rows), bytes, copies);
    CU_CALL(cuMemcpyDtoDAsync, lattice_.row_at(state, speeds.down[i], top_halo),
            neighbour_row(above_, state, speeds.down[i], halo_depth_), bytes, copies);
  }
  transfers_.kernels_after_copies();
}

}  // namespace d2q9
