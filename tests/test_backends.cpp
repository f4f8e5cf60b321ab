// The conformance suite every backend runs: the same problems, the same
// answers. A backend added to the registry gets it by adding its tag to
// BACKENDS; one that is not built, or has no device here, says so.
#include <doctest/doctest.h>

#include <algorithm>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "solver_runs.hpp"
#ifdef D2Q9_HAVE_CUDA
#include "cuda/cuda_driver.hpp"
#include "cuda/cuda_solver.hpp"
#endif
#include "opencl/opencl_solver.hpp"

using namespace d2q9;
using d2q9::test::config;
using d2q9::test::max_relative_difference;
using d2q9::test::reference;
using d2q9::test::run;
using d2q9::test::RunOutput;

namespace {

template <Backend B>
struct On {
  static constexpr Backend backend = B;
};
#define BACKENDS On<Backend::Reference>, On<Backend::OpenCL>, On<Backend::Cuda>

// Why `b` cannot run here; empty when it can.
std::string unavailable(Backend b) {
  const auto built = built_backends();
  if (std::find(built.begin(), built.end(), b) == built.end()) return "not built into this program";
  if (b == Backend::OpenCL && list_opencl_devices().empty()) return "no OpenCL device (install pocl-opencl-icd)";
#ifdef D2Q9_HAVE_CUDA
  if (b == Backend::Cuda) {
    if (const std::string why = cuda_driver_unavailable_reason(); !why.empty()) return why;
    if (list_cuda_devices().empty()) return "the CUDA driver reports no device";
  }
#endif
  return {};
}

#define SKIP_IF_UNAVAILABLE(b)                                                 \
  if (const std::string why_skipped = unavailable(b); !why_skipped.empty()) { \
    D2Q9_SKIP("backend " << std::string(to_string(b)) << " cannot run here: " << why_skipped); \
  }

// The one-cell-per-item variants every device backend has; fused-rows, an
// OpenCL CPU kernel that sums |u| in another order, is tested in test_opencl.cpp.
std::vector<KernelVariant> variants_of(Backend) {
  return {KernelVariant::Split, KernelVariant::Fused, KernelVariant::FusedX2};
}

}  // namespace

TEST_CASE_TEMPLATE("conformance: each backend matches the reference on small grids with obstacles", T, BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  // Odd sizes, so that work-groups overhang the grid; several steps of flow.
  const Params p = d2q9::test::make_params(23, 17, 300, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    const RunOutput ref = reference(p, m, precision);
    REQUIRE(ref.av_vels.back() > 1e-4);
    // Rounding differs (reduction order, fused constants) and grows over the
    // run: measured 7.2e-6 (float) and 9.3e-15 (double) on PoCL; about 3x and
    // 50x that, for FMA contraction on other devices.
    const double tol = precision == Precision::Float ? 2e-5 : 5e-13;
    const std::vector<LocalSize> shapes =
        b == Backend::Reference ? std::vector<LocalSize>{LocalSize{}}
                                : std::vector<LocalSize>{{1, 1}, {8, 1}, {16, 4}, {32, 2}, {64, 1},
                                                          // Not powers of two: the reduction's tree has odd levels.
                                                          {5, 3}, {3, 1}, {7, 3}, {6, 5}, {24, 1}};
    for (LocalSize local : shapes) {
      CAPTURE(std::string(to_string(precision)));
      CAPTURE(local.text());
      auto solver = make_solver(b, p, m, config(precision, local));
      CHECK(solver->backend() == b);
      CHECK(solver->precision() == precision);
      if (!local.is_auto()) CHECK(solver->local_size() == local);
      const RunOutput got = run(*solver, p.max_iters);
      REQUIRE(got.av_vels.size() == ref.av_vels.size());
      CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-6) < tol);
      CHECK(max_relative_difference(got.f, ref.f, 1e-6) < tol);
    }
  }
}

TEST_CASE_TEMPLATE("conformance: each backend matches the reference on the open channel shape", T, BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  Params p = d2q9::test::make_params(16, 32, 200, 0.01);
  ObstacleMask m(16, 32);
  for (int y = 0; y < 32; ++y) m.blocked[y * 16] = m.blocked[15 + y * 16] = 1;
  for (int x = 0; x < 16; ++x) m.blocked[x + 15 * 16] = 1;
  const RunOutput ref = reference(p, m, Precision::Double);
  auto solver = make_solver(b, p, m, config(Precision::Double));
  const RunOutput got = run(*solver, p.max_iters);
  CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-9) < 1e-11);
  CHECK(max_relative_difference(got.f, ref.f, 1e-9) < 1e-11);
}

TEST_CASE_TEMPLATE("conformance: runs in pieces and small partial-sum chunks give the same answer", T, BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  const Params p = d2q9::test::make_params(20, 12, 50, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    const LocalSize shape = b == Backend::Reference ? LocalSize{} : LocalSize{4, 4};
    auto whole = make_solver(b, p, m, config(precision, shape));
    const RunOutput a = run(*whole, 50);
    // Chunks of 3 steps: many read-backs, and both buffer parities at chunk starts.
    auto pieces = make_solver(b, p, m, config(precision, shape, KernelVariant::Auto, 3));
    RunOutput c;
    for (int steps : {7, 1, 13, 6, 23}) pieces->run(steps, c.av_vels);
    c.f = pieces->distributions();
    CHECK(c.av_vels == a.av_vels);
    CHECK(c.f == a.f);
  }
}

TEST_CASE_TEMPLATE("conformance: every kernel variant gives bit-identical results", T, BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  if (b == Backend::Reference) D2Q9_SKIP("the serial reference has no kernel variants");
  const Params p = d2q9::test::make_params(24, 16, 120, 0.03);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    const LocalSize shape = b == Backend::Reference ? LocalSize{} : LocalSize{8, 2};
    const KernelVariant first = variants_of(b).front();
    auto a = make_solver(b, p, m, config(precision, shape, first));
    const RunOutput ra = run(*a, 120);
    for (KernelVariant v : variants_of(b)) {
      CAPTURE(std::string(to_string(v)));
      // Odd chunks: two-step launches meet single-step remainders.
      auto s = make_solver(b, p, m, config(precision, shape, v, 7));
      if (b != Backend::Reference) CHECK(s->launch_plan()->variant == v);
      RunOutput rb;
      s->run(51, rb.av_vels);  // in pieces: the unaccelerated hand-over between calls is covered
      s->run(69, rb.av_vels);
      rb.f = s->distributions();
      CHECK(ra.av_vels == rb.av_vels);
      CHECK(ra.f == rb.f);
    }
  }
}

TEST_CASE_TEMPLATE("conformance: a run resumed from its distributions in a new solver continues identically", T,
                   BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  const Params p = d2q9::test::make_params(20, 12, 60, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    const LocalSize shape = b == Backend::Reference ? LocalSize{} : LocalSize{8, 2};
    auto whole = make_solver(b, p, m, config(precision, shape));
    const RunOutput a = run(*whole, 60);
    auto first = make_solver(b, p, m, config(precision, shape));
    RunOutput c;
    first->run(25, c.av_vels);
    auto second = make_solver(b, p, m, config(precision, shape));
    second->load_distributions(first->distributions());
    second->run(35, c.av_vels);
    c.f = second->distributions();
    CHECK(c.av_vels == a.av_vels);
    CHECK(c.f == a.f);
  }
}

TEST_CASE_TEMPLATE("conformance: device backends refuse shapes and devices they cannot use, and still work", T,
                   BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  const Params p = d2q9::test::make_params(16, 16, 1);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  if (b == Backend::Reference) {
    CHECK_FALSE(plan_for(b, p, config(Precision::Float)).has_value());  // nothing to launch
    return;
  }
  CHECK_THROWS_WITH_AS(make_solver(b, p, m, config(Precision::Float, LocalSize{1 << 20, 1})),
                       doctest::Contains("local size 1048576x1 is not valid on "), DeviceError);
  CHECK_THROWS_AS(make_solver(b, p, m, config(Precision::Float, LocalSize{4096, 4096})), DeviceError);
  SolverConfig far = config(Precision::Float);
  far.device.device = 99;
  CHECK_THROWS_WITH_AS(make_solver(b, p, m, far), doctest::Contains("--device 99 does not exist: there are "),
                       DeviceError);
  auto ok = make_solver(b, p, m, config(Precision::Float));
  std::vector<double> av;
  ok->run(3, av);
  CHECK(av.size() == 3);
}
