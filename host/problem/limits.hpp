// Refusing problems that cannot fit in host memory up front, with the sizes,
// rather than failing with std::bad_alloc (or the OOM killer) part-way.
// Device memory and 32-bit indexing are checked by the OpenCL backend.
#pragma once

#include <cstdint>
#include <string>

#include "problem/problem.hpp"
#include "core/types.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

// Host bytes a run needs at its peak: the backend's own lattices (reference
// only), the distributions as doubles plus their converted copy, the
// obstacle mask and one average velocity per step (twice while checkpointing).
std::uint64_t host_bytes_needed(const Params& params, bool reference_backend, Precision precision, bool checkpointing);

// InputError naming the params (or problem) file, the value and float's range
// when a value the kernels compute with is finite but beyond what the run's
// precision holds: above float's largest (1e39), or nonzero below its
// smallest normal number (1e-300; an omega that small, from a huge viscosity,
// would be 0). density, accel and omega; for a problem file its keys
// wall_velocity, body_force, inlet_velocity, outlet_density and magic.
void check_params_fit_precision(const Params& params, Precision precision, const std::string& param_file);

// Physical memory of this machine.
std::uint64_t host_memory_bytes();

// Host memory for the run (the device's is checked when its buffers are made).
void check_problem_fits(const Params& params, bool reference_backend, Precision precision, bool checkpointing);

// DeviceError naming both sizes when the run cannot fit in `available` bytes.
void check_host_memory(const Params& params, bool reference_backend, Precision precision, bool checkpointing,
                       std::uint64_t available = host_memory_bytes());

}  // namespace d2q9
