// Building solvers through the registry, as the programs do, for the tests.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "app/backend.hpp"

namespace d2q9::test {

inline SolverConfig config(Precision precision, LocalSize local = {}, KernelVariant variant = KernelVariant::Auto,
                           int chunk_steps = 0) {
  SolverConfig c;
  c.device.precision = precision;
  c.device.kernels_dir = D2Q9_KERNELS_DIR;
  c.launch.local = local;
  c.launch.variant = variant;
  c.launch.chunk_steps = chunk_steps;
  return c;
}

// True where `precision` is double and `b`'s default device has no fp64
// (rusticl's llvmpipe): the test leaves double out and says why in its
// output (a stated skip of one precision, not a silent one).
inline bool no_fp64(Backend b, Precision precision) {
  if (precision != Precision::Double || b == Backend::Reference) return false;
  const DeviceLimits l = device_limits(b, -1);
  if (l.fp64) return false;
  MESSAGE("double not run: " << l.name << " (" << l.platform << ") has no fp64 (cl_khr_fp64)");
  return true;
}

}  // namespace d2q9::test
