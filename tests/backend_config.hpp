// Building solvers through the registry, as the programs do, for the tests.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

#include "sim/backend.hpp"

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

// True where building `v`'s kernels in `precision` takes this run's OpenCL
// implementation minutes: on rusticl's llvmpipe (Mesa 22.3, LLVM 15; the
// suite's rusticl copies set D2Q9_TEST_PLATFORM) a 23x17 problem's 16-bit
// fused-rows build took 65 s of CPU (19 s in float), the others 1-12 s, on a
// 2-core machine like CI's. The test leaves that variant out there and says
// so; PoCL, NVIDIA's OpenCL, CUDA and oclgrind run it.
inline bool build_too_slow_here(KernelVariant v, Precision precision) {
  const char* platform = std::getenv("D2Q9_TEST_PLATFORM");
  if (!platform || std::string(platform) != "rusticl") return false;
  if (!(v == KernelVariant::FusedRows && is_16bit(precision))) return false;
  MESSAGE(to_string(v) << " in " << to_string(precision)
                       << " not run: its kernel build takes rusticl's llvmpipe minutes (65 s of CPU measured for "
                          "16-bit fused-rows); PoCL runs it");
  return true;
}

// split is the plain oracle the other variants are compared with; where a
// test's oracle is the reference instead, rusticl (each build seconds of its
// CPU) leaves split out and says so. PoCL, oclgrind and the GPUs run it.
inline bool split_not_needed_here(KernelVariant v) {
  const char* platform = std::getenv("D2Q9_TEST_PLATFORM");
  if (v != KernelVariant::Split || !platform || std::string(platform) != "rusticl") return false;
  MESSAGE("split not run on rusticl: this test's oracle is the reference (rusticl builds split only as the "
          "variants' oracle)");
  return true;
}

}  // namespace d2q9::test
