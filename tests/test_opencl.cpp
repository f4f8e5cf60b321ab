// What only the OpenCL backend has: rows per work-item, the fused-rows CPU
// kernel, the kernel defines. The suite every backend runs is test_backends.cpp.
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "solver_runs.hpp"
#include "device/kernel_source.hpp"
#include "backend_config.hpp"
#include "opencl/opencl_backend.hpp"
#include "reference/reference_solver.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::config;
using d2q9::test::max_relative_difference;
using d2q9::test::reference;
using d2q9::test::run;
using d2q9::test::RunOutput;

namespace {

// The fused-rows kernel against another variant: the same distributions,
// |u| summed in another order.
void check_rows_matches(const RunOutput& rows, const RunOutput& other, Precision precision) {
  CHECK(rows.f == other.f);
  CHECK(max_relative_difference(rows.av_vels, other.av_vels, 1e-6) < (precision == Precision::Float ? 1e-5 : 1e-13));
}


}  // namespace

TEST_CASE("an OpenCL device is present (PoCL on machines without a GPU)") {
  const auto devices = list_opencl_devices();
  REQUIRE_MESSAGE(!devices.empty(), "no OpenCL device: install pocl-opencl-icd; the OpenCL tests below need one");
  MESSAGE("default device: " << devices[default_opencl_device(devices)].name);
}

TEST_CASE("OpenCL: several rows per work-item match the reference") {
  if (d2q9::test::no_fp64(Backend::OpenCL, Precision::Double)) D2Q9_SKIP("this case runs in double only");
  const Params p = d2q9::test::make_params(23, 17, 150, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  const RunOutput ref = reference(p, m, Precision::Double);
  for (int rows : {2, 4, 7}) {
    for (LocalSize local : {LocalSize{8, 1}, LocalSize{16, 2}}) {
      CAPTURE(rows);
      CAPTURE(local.y);
      SolverConfig o = config(Precision::Double, local, KernelVariant::Fused);
      o.launch.rows_per_item = rows;
      auto solver = make_solver(Backend::OpenCL, p, m, o);
      CHECK(solver->launch_plan()->rows_per_item == rows);
      const RunOutput got = run(*solver, p.max_iters);
      CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-6) < 1e-11);
      CHECK(max_relative_difference(got.f, ref.f, 1e-6) < 1e-11);
    }
  }
}

TEST_CASE("OpenCL: the fused-rows kernel gives the split kernel's distributions, in pieces too") {
  const Params p = d2q9::test::make_params(24, 16, 120, 0.03);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    if (d2q9::test::no_fp64(Backend::OpenCL, precision)) continue;
    CAPTURE(std::string(to_string(precision)));
    auto a = make_solver(Backend::OpenCL, p, m, config(precision, LocalSize{8, 2}, KernelVariant::Split));
    const RunOutput ra = run(*a, 120);
    auto c = make_solver(Backend::OpenCL, p, m, config(precision, LocalSize{}, KernelVariant::FusedRows));
    CHECK(c->local_size() == LocalSize{1, 1});
    RunOutput rc;
    c->run(51, rc.av_vels);
    c->run(69, rc.av_vels);
    rc.f = c->distributions();
    check_rows_matches(rc, ra, precision);
  }
}

TEST_CASE("OpenCL: the fused-rows kernel's peeled edge columns and column chunks match the split kernel") {
  // No side walls, so every row wraps in x; widths 1-3 have no interior
  // columns or only one, 150 spans two full 64-column chunks and a partial one.
  for (int nx : {1, 2, 3, 150}) {
    CAPTURE(nx);
    const Params p = d2q9::test::make_params(nx, 7, 40, 0.02);
    ObstacleMask m(p.nx, p.ny);
    for (int x = 0; x < nx; x += 3) m.kinds[x + 2 * nx] = 1;
    m.kinds[nx - 1 + 5 * nx] = 1;  // in the accelerated row, at the wrapping edge
    for (Precision precision : {Precision::Float, Precision::Double}) {
      if (d2q9::test::no_fp64(Backend::OpenCL, precision)) continue;
      CAPTURE(std::string(to_string(precision)));
      auto a = make_solver(Backend::OpenCL, p, m, config(precision, LocalSize{1, 1}, KernelVariant::Split));
      const RunOutput ra = run(*a, 40);
      auto b = make_solver(Backend::OpenCL, p, m, config(precision, LocalSize{}, KernelVariant::FusedRows));
      const RunOutput rb = run(*b, 40);
      check_rows_matches(rb, ra, precision);
    }
  }
}

TEST_CASE("kernel defines carry exact constants") {
  Params p = d2q9::test::make_params(128, 64, 1, 0.005, 1.85);
  const auto f = kernel_defines(p, Precision::Float, LocalSize{16, 4});
  CHECK(f[0] == "NX=128");
  CHECK(f[1] == "NY=64");
  CHECK(f[4] == "OMEGA=1.850000024e+00f");  // the float nearest 1.85, as the coursework's fscanf("%f") reads it
  CHECK(f[7] == "REDUCE_POW2=32");
  const auto d = kernel_defines(p, Precision::Double, LocalSize{5, 3});
  CHECK(d[4] == "OMEGA=1.85000000000000009e+00");
  CHECK(d[7] == "REDUCE_POW2=8");
  CHECK(d.back() == "REAL_IS_DOUBLE=1");
}

TEST_SUITE_END();
