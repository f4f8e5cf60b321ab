// Refusing problems that cannot fit in host memory up front, with the sizes,
// rather than failing with std::bad_alloc (or the OOM killer) part-way.
// Device memory and 32-bit indexing are checked by the OpenCL backend.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem/problem.hpp"
#include "core/types.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

// Host bytes a run needs at its peak: the backend's own lattices (reference
// only), the distributions as doubles plus their converted copy, the
// obstacle mask and one average velocity per step (twice while checkpointing).
std::uint64_t host_bytes_needed(const Params& params, bool reference_backend, Precision precision, bool checkpointing);

// A value the kernels compute with, named as the problem gives it.
struct LimitedValue {
  std::string name;
  double value;
};
// Every such value, whatever file gave the problem: density, accel, omega,
// both components of wall_velocity and body_force, and where set
// inlet_velocity, outlet_density and TRT's magic.
std::vector<LimitedValue> values_the_kernels_compute_with(const Params& params);

// InputError naming the params (or problem) file, the value and float's range
// when a value the kernels compute with is finite but beyond what the run's
// precision holds: above float's largest (1e39), or nonzero below its
// smallest normal number (1e-300; an omega that small, from a huge viscosity,
// would be 0); and when omega as that precision holds it is not strictly
// inside (0, 2) (1.99999999 is 2 in float).
void check_params_fit_precision(const Params& params, Precision precision, const std::string& param_file);

// Physical memory of this machine.
std::uint64_t host_memory_bytes();

// DeviceError naming both sizes when the run cannot fit in `available` bytes.
void check_host_memory(const Params& params, bool reference_backend, Precision precision, bool checkpointing,
                       std::uint64_t available = host_memory_bytes());

}  // namespace d2q9
