// What both CUDA solvers (one device, one MPI slab) share: finding and
// describing a device, the NVRTC target for it, and the lattice on it.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/launch_plan.hpp"
#include "io/field_image.hpp"

#include "cuda/cuda_driver.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/nvrtc_compile.hpp"

namespace d2q9 {

int cuda_device_attribute(const CudaDriver& drv, CUdevice device, CUdevice_attribute attribute);
CudaDeviceInfo describe_cuda_device(const CudaDriver& drv, int index);

// Device `requested` (-1: device 0); DeviceError naming --device when there
// is no such device. `index_out` gets the index used.
CUdevice cuda_device_at(const CudaDriver& drv, int requested, int* index_out = nullptr);

// CUBIN for the device's own architecture when this NVRTC knows it, else PTX
// for the newest older one, which the driver compiles when it loads it.
NvrtcTarget pick_nvrtc_target(int major, int minor, const std::string& device_name);

// A blocked launch's probes (StepLaunch's sample_*; the samples' buffer and
// cells): the other step kernels take nine arguments and ignore these.
struct StepSamples {
  CUdeviceptr samples = 0, index = 0;  // index: blocked_sample_index's
  int count = 0, first = 0, every = 1, row = 0;
  bool inside = false;  // the launch samples (StepLaunch::samples_inside): the kernel with the probes' code
};

// What a CUDA solver holds on its device: the primary context, the module
// built for a launch plan, two lattices, the obstacle flags and the partial
// sums; it launches the kernels on the solver's streams and frees it all
// when it goes. Streams, events and host buffers are the solver's own.
class CudaLattice {
 public:
  // `lattice` is the grid the device holds (a slab's has its halo rows),
  // `defines` the kernel build's, `partial_bytes` the partial-sum buffer's
  // size; `what` names the lattice in an out-of-memory error.
  CudaLattice(const DeviceConfig& config, const Params& lattice, const LaunchPlan& plan,
              const std::vector<std::string>& defines, std::size_t partial_bytes,
              const ObstacleMask& obstacles, const std::string& what);
  ~CudaLattice() { release(); }
  CudaLattice(const CudaLattice&) = delete;
  CudaLattice& operator=(const CudaLattice&) = delete;

  const CudaDriver& drv() const { return drv_; }
  const std::string& device_name() const { return device_name_; }
  CUdevice device() const { return device_; }
  std::size_t cell_count() const { return cells_count_; }
  int planes() const { return one_cell_.extensions.planes(); }
  CUdeviceptr cells(int state) const { return cells_[state]; }
  // Row `row` of speed `speed`'s plane of lattice `state`.
  CUdeviceptr row_at(int state, int speed, int row) const {
    return cells_[state] +
           (static_cast<std::size_t>(speed) * cells_count_ + static_cast<std::size_t>(row) * nx_) *
               stored_size(precision_);
  }
  int nx() const { return nx_; }
  Precision precision() const { return precision_; }
  CUdeviceptr partials() const { return partials_; }
  void make_current() const;
  const LaunchPlan& plan() const { return plan_; }

  // accelerate_flow on lattice `state`.
  void launch_accelerate(CUstream stream, int state);
  // The plan's step kernel from lattice
  // `state` into the other, over `group_rows` work-group rows from
  // `first_group_row`, the first step being number `step` (the kernels' nine
  // arguments, cl/d2q9_bgk.cl).
  void launch_step(CUstream stream, int state, int group_rows, int first_group_row,
                   int partial_offset, bool accelerate_next, int steps, int step, StepSamples samples = {});
  // sample_cells: lattice `state`'s values at `count` cells (indices at
  // `which`) into sample `row` of `samples` (cl/d2q9_bgk.cl).
  void launch_sample(CUstream stream, int state, CUdeviceptr which, CUdeviceptr samples, int count, int row);
  // Blocked launches take their tiles in this order (blocked_tile_order; empty: row by row).
  void set_tile_order(const std::vector<int>& order);
  // Lattice `state` at rest (blocking, on `stream`).
  void fill_at_rest(CUstream stream, int state);
  // The live view's picture of lattice `state`: the values of `part`'s pixel
  // rows (LatticeDevice::render), sampled by cl/render.cl (compiled on first
  // use) after the work queued on `stream`; blocking.
  std::vector<float> render(CUstream stream, int state, const FieldImageRequest& request, const RenderPart& part,
                            const std::vector<float>& edge_ux);
  // ux at the picture's columns of `part`'s first and last own rows (LatticeDevice::render_edges); blocking.
  std::vector<float> render_edges(CUstream stream, int state, const RenderPart& part);
  // The context, the compile and the obstacles' upload (a solver adds its state's).
  SetupTimes setup;

 private:
  void release() noexcept;

  const CudaDriver& drv_;
  LaunchPlan plan_;
  Precision precision_;
  double density_;
  int nx_;
  std::size_t cells_count_;
  Params one_cell_;  // the problem on one cell: the state at rest (initial_distributions)
  std::string device_name_;
  unsigned accelerate_block_ = 0;
  CUdevice device_{};
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction accelerate_ = nullptr;
  CUfunction collide_ = nullptr;
  // The blocked kernel's twin without the probes' code (defines_without_probes),
  // for the launches that sample none; collide_ where there is none.
  CUmodule module_plain_ = nullptr;
  CUfunction collide_plain_ = nullptr;
  CUfunction sample_ = nullptr;
  CUdeviceptr cells_[2] = {0, 0};
  CUdeviceptr obstacles_ = 0;
  CUdeviceptr partials_ = 0;
  CUdeviceptr tile_order_ = 0;  // 0: row by row
  // The live view's render kernel, built on first use from what built the steps'.
  std::string kernels_dir_;
  std::vector<std::string> defines_;
  NvrtcTarget target_;
  CUmodule render_module_ = nullptr;
  CUfunction render_field_ = nullptr;
  CUfunction render_edges_ = nullptr;
  CUdeviceptr render_values_ = 0;
  std::size_t render_pixels_ = 0;  // render_values_' size
  CUdeviceptr render_edge_ux_ = 0;  // render_field's edge_ux, and render_edges' out
  std::size_t render_edge_values_ = 0;
  // The render module built, and the edge buffer holding 2 * width values (one at least).
  void prepare_render(int width);
};

}  // namespace d2q9
