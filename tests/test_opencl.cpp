// The OpenCL backend against the serial reference (the oracle).
#include <doctest/doctest.h>

#include "helpers.hpp"
#include "solver_runs.hpp"
#include "kernel_source.hpp"
#include "opencl/opencl_solver.hpp"
#include "reference/reference_solver.hpp"

using namespace d2q9;
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

OpenCLOptions options(Precision precision, LocalSize local) {
  OpenCLOptions o;
  o.precision = precision;
  o.local_size = local;
  o.kernels_dir = D2Q9_KERNELS_DIR;
  return o;
}

}  // namespace

TEST_CASE("an OpenCL device is present (PoCL on machines without a GPU)") {
  const auto devices = list_opencl_devices();
  REQUIRE_MESSAGE(!devices.empty(), "no OpenCL device: install pocl-opencl-icd; the OpenCL tests below need one");
  MESSAGE("default device: " << devices[default_opencl_device(devices)].name);
}

TEST_CASE("OpenCL matches the reference on small grids with obstacles") {
  // Odd sizes, so that work-groups overhang the grid; several steps of flow.
  const Params p = d2q9::test::make_params(23, 17, 300, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    const RunOutput ref = reference(p, m, precision);
    REQUIRE(ref.av_vels.back() > 1e-4);
    // Float: rounding differs (reduction order, fused constants) and grows over the run.
    const double tol = precision == Precision::Float ? 2e-4 : 1e-11;
    for (LocalSize local : {LocalSize{1, 1}, LocalSize{8, 1}, LocalSize{16, 4}, LocalSize{5, 3}, LocalSize{32, 2},
                            LocalSize{64, 1}}) {
      CAPTURE(to_string(precision));
      CAPTURE(local.x);
      CAPTURE(local.y);
      auto solver = make_opencl_solver(p, m, options(precision, local));
      CHECK(solver->local_size().x == local.x);
      const RunOutput got = run(*solver, p.max_iters);
      REQUIRE(got.av_vels.size() == ref.av_vels.size());
      CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-6) < tol);
      CHECK(max_relative_difference(got.f, ref.f, 1e-6) < tol);
    }
  }
}

TEST_CASE("OpenCL: several rows per work-item match the reference") {
  const Params p = d2q9::test::make_params(23, 17, 150, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  const RunOutput ref = reference(p, m, Precision::Double);
  for (int rows : {2, 4, 7}) {
    for (LocalSize local : {LocalSize{8, 1}, LocalSize{16, 2}}) {
      CAPTURE(rows);
      CAPTURE(local.y);
      OpenCLOptions o = options(Precision::Double, local);
      o.variant = KernelVariant::Fused;
      o.rows_per_item = rows;
      auto solver = make_opencl_solver(p, m, o);
      const RunOutput got = run(*solver, p.max_iters);
      CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-6) < 1e-11);
      CHECK(max_relative_difference(got.f, ref.f, 1e-6) < 1e-11);
    }
  }
}

TEST_CASE("OpenCL matches the reference on the open channel shape (no bottom wall)") {
  Params p = d2q9::test::make_params(16, 32, 200, 0.01);
  ObstacleMask m(16, 32);
  for (int y = 0; y < 32; ++y) m.blocked[y * 16] = m.blocked[15 + y * 16] = 1;
  for (int x = 0; x < 16; ++x) m.blocked[x + 15 * 16] = 1;
  const RunOutput ref = reference(p, m, Precision::Double);
  auto solver = make_opencl_solver(p, m, options(Precision::Double, LocalSize{}));
  const RunOutput got = run(*solver, p.max_iters);
  CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-9) < 1e-11);
  CHECK(max_relative_difference(got.f, ref.f, 1e-9) < 1e-11);
}

TEST_CASE("OpenCL runs split into pieces and small partial-sum chunks give the same answer") {
  const Params p = d2q9::test::make_params(20, 12, 50, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  auto whole = make_opencl_solver(p, m, options(Precision::Double, LocalSize{4, 4}));
  const RunOutput a = run(*whole, 50);

  OpenCLOptions o = options(Precision::Double, LocalSize{4, 4});
  o.max_chunk_steps = 3;  // forces many read-backs of the partial sums
  auto pieces = make_opencl_solver(p, m, o);
  RunOutput b;
  pieces->run(7, b.av_vels);
  pieces->run(43, b.av_vels);
  b.f = pieces->distributions();
  CHECK(b.av_vels == a.av_vels);
  CHECK(b.f == a.f);
}

TEST_CASE("OpenCL: the split, fused, fused-x2 and fused-rows kernel variants give bit-identical results") {
  const Params p = d2q9::test::make_params(24, 16, 120, 0.03);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(to_string(precision));
    OpenCLOptions split = options(precision, LocalSize{8, 2});
    split.variant = KernelVariant::Split;
    auto a = make_opencl_solver(p, m, split);
    const RunOutput ra = run(*a, 120);
    for (KernelVariant v : {KernelVariant::Fused, KernelVariant::FusedX2}) {
      CAPTURE(to_string(v));
      OpenCLOptions o = options(precision, LocalSize{8, 2});
      o.variant = v;
      o.max_chunk_steps = 7;  // odd chunks: two-step launches meet single-step remainders
      auto b = make_opencl_solver(p, m, o);
      RunOutput rb;
      b->run(51, rb.av_vels);  // in pieces, so the unaccelerated hand-over between calls is covered
      b->run(69, rb.av_vels);
      rb.f = b->distributions();
      CHECK(ra.av_vels == rb.av_vels);
      CHECK(ra.f == rb.f);
    }
    // A row per work-item: the same distributions; |u| summed in another order.
    OpenCLOptions rows = options(precision, LocalSize{});
    rows.variant = KernelVariant::FusedRows;
    auto c = make_opencl_solver(p, m, rows);
    CHECK(c->local_size().x == 1);
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
    for (int x = 0; x < nx; x += 3) m.blocked[x + 2 * nx] = 1;
    m.blocked[nx - 1 + 5 * nx] = 1;  // in the accelerated row, at the wrapping edge
    for (Precision precision : {Precision::Float, Precision::Double}) {
      CAPTURE(to_string(precision));
      OpenCLOptions split = options(precision, LocalSize{1, 1});
      split.variant = KernelVariant::Split;
      auto a = make_opencl_solver(p, m, split);
      const RunOutput ra = run(*a, 40);
      OpenCLOptions rows = options(precision, LocalSize{});
      rows.variant = KernelVariant::FusedRows;
      auto b = make_opencl_solver(p, m, rows);
      const RunOutput rb = run(*b, 40);
      check_rows_matches(rb, ra, precision);
    }
  }
}

TEST_CASE("OpenCL rejects local sizes the device cannot run") {
  const Params p = d2q9::test::make_params(16, 16, 1);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  CHECK_THROWS_AS(make_opencl_solver(p, m, options(Precision::Float, LocalSize{1 << 20, 1})), DeviceError);
  CHECK_THROWS_AS(make_opencl_solver(p, m, options(Precision::Float, LocalSize{4096, 4096})), DeviceError);
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

TEST_CASE("OpenCL: a run resumed from its distributions in a new solver continues identically") {
  const Params p = d2q9::test::make_params(20, 12, 60, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(to_string(precision));
    auto whole = make_opencl_solver(p, m, options(precision, LocalSize{8, 2}));
    const RunOutput a = run(*whole, 60);

    auto first = make_opencl_solver(p, m, options(precision, LocalSize{8, 2}));
    RunOutput b;
    first->run(25, b.av_vels);
    auto second = make_opencl_solver(p, m, options(precision, LocalSize{8, 2}));
    second->load_distributions(first->distributions());
    second->run(35, b.av_vels);
    b.f = second->distributions();
    CHECK(b.av_vels == a.av_vels);
    CHECK(b.f == a.f);
  }
}
