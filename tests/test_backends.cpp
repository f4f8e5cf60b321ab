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
#include "cuda/cuda_backend.hpp"
#endif
#include "opencl/opencl_backend.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::config;

namespace d2q9::test {
// What the plan knows of the default device.
DeviceLimits limits_of(Backend b) {
#ifdef D2Q9_HAVE_CUDA
  if (b == Backend::Cuda) return cuda_limits(-1);
#endif
  (void)b;
  return opencl_limits(-1);
}
long long local_memory_bytes(Backend b) { return limits_of(b).local_mem_bytes; }
}  // namespace d2q9::test
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

// True (and says so) where `local` has more work-items than `b`'s default
// device takes in a group (rusticl's llvmpipe: 32): a shape not run there.
bool over_group_limit(Backend b, LocalSize local) {
  if (b == Backend::Reference || local.is_auto()) return false;
  const DeviceLimits limits = d2q9::test::limits_of(b);
  if (local.x * local.y <= limits.max_threads) return false;
  MESSAGE("shape " << local.text() << " not run: " << limits.name << " takes at most " << limits.max_threads
                   << " work-items per group");
  return true;
}

#define SKIP_IF_UNAVAILABLE(b)                                                 \
  if (const std::string why_skipped = unavailable(b); !why_skipped.empty()) { \
    D2Q9_SKIP("backend " << std::string(to_string(b)) << " cannot run here: " << why_skipped); \
  }

// The one-cell-per-item variants every device backend has; fused-rows, an
// OpenCL CPU kernel that sums |u| in another order, is tested in test_opencl.cpp.
std::vector<KernelVariant> variants_of(Backend) {
  return {KernelVariant::Split, KernelVariant::Fused};
}

}  // namespace

TEST_CASE_TEMPLATE("conformance: each backend matches the reference on small grids with obstacles", T, BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  // Odd sizes, so that work-groups overhang the grid; several steps of flow.
  const Params p = d2q9::test::make_params(23, 17, 300, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    if (d2q9::test::no_fp64(b, precision)) continue;
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
      if (over_group_limit(b, local)) continue;
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
  if (d2q9::test::no_fp64(b, Precision::Double)) D2Q9_SKIP("this case runs in double only");
  Params p = d2q9::test::make_params(16, 32, 200, 0.01);
  ObstacleMask m(16, 32);
  for (int y = 0; y < 32; ++y) m.kinds[y * 16] = m.kinds[15 + y * 16] = 1;
  for (int x = 0; x < 16; ++x) m.kinds[x + 15 * 16] = 1;
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
    if (d2q9::test::no_fp64(b, precision)) continue;
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
    if (d2q9::test::no_fp64(b, precision)) continue;
    CAPTURE(std::string(to_string(precision)));
    const LocalSize shape = b == Backend::Reference ? LocalSize{} : LocalSize{8, 2};
    const KernelVariant first = variants_of(b).front();
    auto a = make_solver(b, p, m, config(precision, shape, first));
    const RunOutput ra = run(*a, 120);
    for (KernelVariant v : variants_of(b)) {
      CAPTURE(std::string(to_string(v)));
      // Odd chunks: launches end mid-chunk, and calls hand over between chunks.
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

TEST_CASE_TEMPLATE("conformance: the blocked kernel (several steps per launch) gives split's distributions", T,
                   BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  if (b == Backend::Reference) D2Q9_SKIP("the serial reference has no kernel variants");
  struct Case {
    int nx, ny;
    LocalSize tile;
    int steps_per_launch;
    LocalSize local;
  };
  // Grids that are not multiples of the tile; a grid smaller than the halo
  // (the region wraps around it more than once); groups with more items than
  // region cells, and shapes whose reduction tree has odd levels; a group
  // of fewer items than a row of the step's window (16-bit storage walks the
  // window: a walk step of no whole row).
  // Each fits 32 KB of local memory in double, the least an OpenCL GPU has.
  const Case cases[] = {{23, 17, {5, 4}, 3, {16, 1}}, {23, 17, {8, 5}, 4, {7, 3}}, {12, 9, {12, 9}, 2, {32, 2}},
                        {20, 12, {6, 5}, 1, {64, 1}}, {6, 5, {4, 4}, 5, {16, 2}},
                        {23, 17, {9, 4}, 3, {5, 1}}};
  for (const Case& c : cases) {
    if (over_group_limit(b, c.local)) continue;
    const Params p = d2q9::test::make_params(c.nx, c.ny, 40, 0.03);
    ObstacleMask m = d2q9::test::test_obstacles(p);
    // Obstacles on both sides of tile edges, and in the accelerated row
    // where a tile edge crosses it.
    for (int y = 0; y < p.ny; ++y)
      if (y % c.tile.y == 0 && c.tile.x < p.nx) m.kinds[c.tile.x - 1 + y * p.nx] = m.kinds[c.tile.x + y * p.nx] = 1;
    if (c.tile.x < p.nx) m.kinds[c.tile.x + (p.ny - 2) * p.nx] = 1;
    for (Precision precision : {Precision::Float, Precision::Double, Precision::Fp16s, Precision::Fp16c}) {
      if (d2q9::test::no_fp64(b, precision)) continue;
      CAPTURE(std::string(to_string(precision)));
      CAPTURE(c.nx);
      CAPTURE(c.tile.text());
      CAPTURE(c.steps_per_launch);
      auto split = make_solver(b, p, m, config(precision, LocalSize{8, 2}, KernelVariant::Split));
      const RunOutput want = run(*split, 40);
      SolverConfig blocked = config(precision, c.local, KernelVariant::Blocked, 7);  // chunks of 7: short launches
      blocked.launch.block_steps = c.steps_per_launch;
      blocked.launch.tile = c.tile;
      auto s = make_solver(b, p, m, blocked);
      REQUIRE(s->launch_plan()->variant == KernelVariant::Blocked);
      CHECK(s->launch_plan()->tile == c.tile);
      CHECK(s->launch_plan()->block_steps == c.steps_per_launch);
      RunOutput got;
      s->run(17, got.av_vels);  // in pieces: launches end mid-way and calls hand over unaccelerated
      s->run(23, got.av_vels);
      got.f = s->distributions();
      CHECK(got.f == want.f);
      // |u| is summed per tile, in another order.
      CHECK(max_relative_difference(got.av_vels, want.av_vels, 1e-6) < (precision == Precision::Double ? 1e-13 : 1e-5));
    }
  }
}

TEST_CASE_TEMPLATE("conformance: a variant named without a shape runs at one the device takes, with split's distributions",
                   T, BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  if (b == Backend::Reference) D2Q9_SKIP("the serial reference has no kernel variants");
  // rusticl's llvmpipe takes 32 work-items per group of 1024 its device
  // reports: blocked planned 256x1 here and failed to build.
  const Params p = d2q9::test::make_params(23, 17, 40, 0.03);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  const DeviceLimits limits = d2q9::test::limits_of(b);
  for (Precision precision : {Precision::Float, Precision::Fp16s}) {
    CAPTURE(std::string(to_string(precision)));
    auto split = make_solver(b, p, m, config(precision, LocalSize{8, 2}, KernelVariant::Split));
    const RunOutput want = run(*split, 40);
    for (KernelVariant v : {KernelVariant::Fused, KernelVariant::Blocked}) {  // against split, the plain oracle
      if (d2q9::test::build_too_slow_here(v, precision)) continue;
      CAPTURE(std::string(to_string(v)));
      auto s = make_solver(b, p, m, config(precision, LocalSize{}, v));
      const LaunchPlan plan = *s->launch_plan();
      CHECK(plan.variant == v);
      CHECK(plan.local.x * plan.local.y <= limits.max_threads);
      const RunOutput got = run(*s, 40);
      CHECK(got.f == want.f);
      CHECK(max_relative_difference(got.av_vels, want.av_vels, 1e-6) < 1e-5);
    }
  }
}

TEST_CASE("the blocked kernel's default tile: the largest square that fits, on small grids a power of two halved until each compute unit has one") {
  DeviceLimits gpu;  // an H200 as NVIDIA's OpenCL reports it
  gpu.name = "GPU";
  gpu.local_mem_bytes = 49152;
  gpu.compute_units = 132;
  gpu.max_threads = 1024;
  const LaunchRequest blocked{KernelVariant::Blocked};
  const auto tile_of = [&](int nx, int ny, Precision precision) {
    const LaunchPlan plan = decide_launch(d2q9::test::make_params(nx, ny, 100), gpu, blocked, precision).plan;
    CHECK(plan.block_steps == 4);
    CHECK(plan.local == LocalSize{256, 1});
    CHECK(plan.num_groups() == ((nx + plan.tile.x - 1) / plan.tile.x) * ((ny + plan.tile.y - 1) / plan.tile.y));
    return plan.tile;
  };
  // Float: one copy of 9 x 4 bytes, a mask byte and a share of the row
  // flags per region cell: a 36x36 region, so a 28x28 tile at 4 steps.
  CHECK(tile_of(1024, 1024, Precision::Float) == LocalSize{28, 28});
  // Grids where the largest square gives a compute unit fewer than two
  // tiles start from the largest power-of-two square (16x16) instead.
  CHECK(tile_of(256, 256, Precision::Float) == LocalSize{16, 16});  // 28x28 would make 100 tiles
  CHECK(tile_of(128, 256, Precision::Float) == LocalSize{16, 8});   // 16x16 would make 128
  CHECK(tile_of(128, 128, Precision::Float) == LocalSize{8, 8});
  CHECK(tile_of(1024, 1024, Precision::Fp16s) == LocalSize{42, 42});  // keeps 16-bit codes: a 50x50 region
  CHECK(tile_of(1024, 1024, Precision::Double) == LocalSize{17, 17});  // a 25x25 region
  // Curved links keep two copies of the region (their cells read their own
  // state of the step before): float's 25x25 region again.
  Params curved = d2q9::test::make_params(1024, 1024, 100);
  curved.extensions.curved_walls = true;
  CHECK(decide_launch(curved, gpu, blocked, Precision::Float).plan.tile == LocalSize{17, 17});
  CHECK(tile_of(12, 5, Precision::Float) == LocalSize{8, 5});  // no larger than the grid, halved to 8 at most
  // A grid of one row of cells per group in x.
  const LaunchPlan plan = decide_launch(d2q9::test::make_params(20, 20, 100), gpu, blocked, Precision::Float).plan;
  CHECK(plan.chunk_steps % 8 == 0);  // an even number of whole launches
}

TEST_CASE_TEMPLATE("conformance: the blocked kernel's tile fits local memory, and one that does not is refused", T,
                   BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  if (b == Backend::Reference) D2Q9_SKIP("the serial reference has no kernel variants");
  const Params p = d2q9::test::make_params(512, 512, 10);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    if (d2q9::test::no_fp64(b, precision)) continue;
    SolverConfig c = config(precision, LocalSize{}, KernelVariant::Blocked);
    const LaunchPlan plan = *plan_for(b, p, c);
    CHECK(plan.block_steps == kDefaultBlockSteps);
    CHECK(plan.groups_x == (p.nx + plan.tile.x - 1) / plan.tile.x);
    CHECK(plan.groups_y == (p.ny + plan.tile.y - 1) / plan.tile.y);
    const long long limit = d2q9::test::local_memory_bytes(b);
    const int items = plan.local.x * plan.local.y;
    CHECK(blocked_local_bytes(plan.tile, plan.block_steps, items, precision) <= limit);
    // The chosen tile is the largest square that fits (or the whole grid),
    // unless there would be fewer tiles than compute units.
    if (plan.tile.x == plan.tile.y && plan.tile.x < p.nx)
      CHECK(blocked_local_bytes({plan.tile.x + 1, plan.tile.y + 1}, plan.block_steps, items, precision) > limit);
    c.launch.tile = {4096, 4096};
    CHECK_THROWS_WITH_AS(plan_for(b, p, c), doctest::Contains("bytes of local memory"), DeviceError);
  }
  SolverConfig fused = config(Precision::Float, LocalSize{}, KernelVariant::Fused);
  fused.launch.block_steps = 4;
  CHECK_THROWS_WITH_AS(plan_for(b, p, fused), doctest::Contains("--block-steps and --tile are for --kernel-variant blocked"),
                       DeviceError);
}

TEST_CASE_TEMPLATE("conformance: a run resumed from its distributions in a new solver continues identically", T,
                   BACKENDS) {
  constexpr Backend b = T::backend;
  SKIP_IF_UNAVAILABLE(b);
  const Params p = d2q9::test::make_params(20, 12, 60, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    if (d2q9::test::no_fp64(b, precision)) continue;
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

namespace {

// probes.csv's last row (step, then rho, ux, uy per probe) and final_state.dat.
std::vector<double> csv_numbers(const std::string& line) {
  std::vector<double> v;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) v.push_back(std::strtod(cell.c_str(), nullptr));
  return v;
}

}  // namespace

TEST_CASE_TEMPLATE("conformance: probes.csv's last row is the final field at the probe cells, every variant", T, BACKENDS) {
  SKIP_IF_UNAVAILABLE(T::backend);
  // A forced channel round a block: the probes sit where the flow varies
  // from cell to cell, so a probe read one cell off is another value.
  d2q9::test::TempDir dir;
  const std::string toml = std::string(D2Q9_SOURCE_DIR) + "/tests/problems/forced_channel_probes.toml";
  const int probes[3][2] = {{11, 6}, {9, 8}, {7, 3}};
  std::vector<std::string> launches = {""};
  if (T::backend != Backend::Reference) {
    launches.clear();
    for (KernelVariant v : variants_of(T::backend)) launches.push_back(std::string(" --kernel-variant ") + to_string(v) + " -l 8x2");
    launches.push_back(" --kernel-variant blocked -l 8x2");
    if (T::backend == Backend::OpenCL) launches.push_back(" --kernel-variant fused-rows");
  }
  for (const std::string& launch : launches) {
    CAPTURE(launch);
    // The text final state: its 13 digits are compared below.
    const auto r = d2q9::test::run_program("'" + toml + "' -q --no-png --final-state text -o '" + dir.path + "' -b " +
                                           to_string(T::backend) + launch);
    REQUIRE(r.status == 0);
    const std::string csv = d2q9::test::slurp(dir.file("probes.csv"));
    const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
    const std::vector<double> row = csv_numbers(last);
    REQUIRE(row.size() == 1 + 3 * 3);
    CHECK(row[0] == 120);
    // final_state.dat: "i j ux uy |u| pressure obstacle", pressure = rho / 3.
    std::stringstream state(d2q9::test::slurp(dir.file("final_state.dat")));
    int i = 0, j = 0, blocked = 0;
    double ux = 0, uy = 0, speed = 0, pressure = 0;
    int found = 0;
    while (state >> i >> j >> ux >> uy >> speed >> pressure >> blocked)
      for (int p = 0; p < 3; ++p)
        if (i == probes[p][0] && j == probes[p][1]) {
          CAPTURE(p);
          CHECK(row[1 + 3 * p] == doctest::Approx(3 * pressure).epsilon(1e-11));
          CHECK(row[2 + 3 * p] == doctest::Approx(ux).epsilon(1e-10));
          CHECK(row[3 + 3 * p] == doctest::Approx(uy).epsilon(1e-10));
          CHECK(std::fabs(ux) > 1e-6);
          ++found;
        }
    CHECK(found == 3);
  }
}

TEST_SUITE_END();
