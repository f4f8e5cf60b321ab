// Building solvers through the registry, as the programs do, for the tests.
#pragma once

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

}  // namespace d2q9::test
