// What the single-device and slab solvers hold on an OpenCL device: context
// and in-order queue, the program built for a launch plan, two lattices, the
// obstacle flags, the partial sums, and the kernels bound to them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/launch_plan.hpp"
#include "device/solver.hpp"
#include "opencl/cl_common.hpp"

namespace d2q9 {

// The limits decide_launch reads, from the device (and a probe kernel built
// once per device: the work-items per group its kernels may take).
DeviceLimits opencl_device_limits(const cl::Device& device);

struct OpenCLLattice {
  // `lattice` is the grid the device holds (a slab's has its halo rows);
  // `defines` the kernel build's; `partial_values` the size of the partial-sum buffer.
  OpenCLLattice(const cl::Device& device, const Params& lattice, const LaunchPlan& plan, Precision precision,
                const std::string& kernels_dir, const std::vector<std::string>& defines,
                std::size_t partial_values, const ObstacleMask& obstacles);

  cl::Device device;
  std::string device_name;
  // oclgrind, whose shadow of a buffer takes only its last host write as
  // initialised: a lattice is then uploaded in one write, never filled in pieces.
  bool one_write_per_buffer;
  Precision precision;
  Params lattice;     // the grid held and its problem (16-bit codes: relative to its density and temperatures)
  std::size_t cells;  // of the lattice held
  int planes;         // values per cell (Extensions::planes: 9, or 14 with heat)
  cl::Context context;
  cl::CommandQueue queue;  // in order: every solver relies on it
  cl::Program program;
  cl::Buffer lattices[2];
  cl::Buffer obstacles;
  cl::Buffer partials;
  cl::Kernel accelerate[2];  // acting on lattices[0] / [1]
  cl::Kernel collide[2];     // reading lattices[0] / [1], writing the other
  // The blocked kernel's twin without the probes' code (defines_without_probes),
  // for the launches that sample none; collide's own kernels where there is none.
  cl::Program program_plain;
  cl::Kernel collide_plain[2];
  SetupTimes setup;          // the context, the build, the obstacles' upload (a solver adds its state's)

  std::size_t plane_bytes() const { return cells * stored_size(precision); }
  // Where row `row` of plane `speed` starts in a lattice buffer, in bytes.
  std::size_t offset_bytes(int speed, int row) const {
    return (static_cast<std::size_t>(speed) * cells + static_cast<std::size_t>(row) * lattice.nx) * stored_size(precision);
  }
  // f(), its OpenCL errors rethrown as DeviceErrors naming `what` on this device.
  template <class F>
  auto guarded(const char* what, F&& f) {
    try {
      return f();
    } catch (const cl::Error& e) {
      rethrow_cl(e, std::string(what) + " on " + device_name);
    }
  }
  // The step kernel on lattice `which` for `launch` (its twin where it samples none).
  cl::Kernel& step_kernel(int which, const StepLaunch& launch) {
    return launch.samples_inside() ? collide[which] : collide_plain[which];
  }
  // Argument `index` of lattice `which`'s step kernels, the twin's too.
  template <class T>
  void set_step_arg(int which, cl_uint index, const T& value) {
    collide[which].setArg(index, value);
    if (collide_plain[which]() != collide[which]()) collide_plain[which].setArg(index, value);
  }

  // The whole of lattice `which` as doubles, and back (blocking).
  std::vector<double> download(int which);
  void upload(int which, const std::vector<double>& f);
  // Every cell of lattice `which` at rest with `params.density`, written from
  // one block of values: the whole lattice's worth on the host would cost
  // gigabytes.
  void fill_at_rest(int which, const Params& params);
};

}  // namespace d2q9
