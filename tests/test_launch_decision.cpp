// The launch decision (decide_launch) as the pure function it is: fake
// devices' limits in, a plan and its reason out. No device is used.
#include <doctest/doctest.h>

#include <utility>
#include <vector>

#include <string>

#include "device/launch_plan.hpp"
#include "helpers.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;

namespace {

// rusticl's llvmpipe as it reports itself (Mesa 22.3, Debian 12): 1024
// work-items per group for the device, 32 for any compiled kernel (which
// DeviceLimits::max_threads carries), 32 KiB of local memory, no fp64.
DeviceLimits llvmpipe() {
  DeviceLimits d;
  d.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
  d.platform = "rusticl";
  d.gpu = false;
  d.max_x = d.max_y = 1024;
  d.max_threads = 32;
  d.local_mem_bytes = 32 * 1024;
  d.compute_units = 8;
  d.fp64 = false;
  return d;
}

// PoCL on the 2-core CI machine.
DeviceLimits pocl() {
  DeviceLimits d;
  d.name = "pthread-haswell-AMD EPYC";
  d.platform = "Portable Computing Language";
  d.gpu = false;
  d.max_x = d.max_y = d.max_threads = 4096;
  d.local_mem_bytes = 512 * 1024;
  d.compute_units = 2;
  return d;
}

// An H100 as NVIDIA's OpenCL reports it.
DeviceLimits h100() {
  DeviceLimits d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.platform = "NVIDIA CUDA";
  d.local_mem_bytes = 49152;
  d.compute_units = 132;
  d.has_rows_kernel = true;
  return d;
}

// The same card through the CUDA backend.
DeviceLimits h100_cuda() {
  DeviceLimits d = h100();
  d.platform = "CUDA";
  d.has_rows_kernel = false;
  return d;
}

LaunchRequest asked(KernelVariant v, LocalSize local = {}) {
  LaunchRequest r;
  r.variant = v;
  r.local = local;
  return r;
}

}  // namespace

TEST_CASE("launch decision: an explicit variant without a shape gets one a 32-item device runs") {
  const Params p = d2q9::test::make_params(128, 128, 100);
  for (KernelVariant v : {KernelVariant::Split, KernelVariant::Fused, KernelVariant::Blocked}) {
    CAPTURE(std::string(to_string(v)));
    const LaunchDecision d = decide_launch(p, llvmpipe(), asked(v));
    CHECK(d.plan.variant == v);
    CHECK(d.plan.local == LocalSize{32, 1});
    CHECK(d.reason == std::string(to_string(v)) + " as given");
    CHECK(d.how == LaunchSource::Default);
  }
  // An explicit shape beyond the limit is refused, naming the device and the limit.
  CHECK_THROWS_WITH_AS(decide_launch(p, llvmpipe(), asked(KernelVariant::Blocked, {64, 1})),
                       doctest::Contains("local size 64x1 is not valid on llvmpipe (LLVM 15.0.6, 256 bits) (at most "
                                         "1024x1024 and 32 work-items in all)"),
                       DeviceError);
}

TEST_CASE("launch decision: the CPU default follows the implementation (rusticl fused, PoCL fused-rows)") {
  const Params p = d2q9::test::make_params(128, 128, 100);
  const LaunchDecision r = decide_launch(p, llvmpipe(), LaunchRequest{});
  CHECK(r.plan.variant == KernelVariant::Fused);
  CHECK(r.plan.local.x * r.plan.local.y <= 32);
  CHECK(r.reason == "fused: the default on rusticl's CPU device (measured in results/cpu-implementations/)");
  // An explicit blocked gets a tile in llvmpipe's 32 KiB of local memory.
  const LaunchDecision b = decide_launch(p, llvmpipe(), asked(KernelVariant::Blocked, {}));
  CHECK(b.plan.variant == KernelVariant::Blocked);
  CHECK(b.plan.local == LocalSize{32, 1});
  CHECK(blocked_local_bytes(b.plan.tile, b.plan.block_steps, 32, Precision::Float) <= 32 * 1024);
  const LaunchDecision q = decide_launch(p, pocl(), LaunchRequest{});
  CHECK(q.plan.variant == KernelVariant::FusedRows);
  CHECK(q.plan.local == LocalSize{1, 1});
  CHECK(q.reason == "fused-rows: the default on CPU devices (a row per work-item, no barriers)");
  // A shape given on PoCL: fused (fused-rows takes none); on rusticl the default takes it.
  const LaunchDecision qs = decide_launch(p, pocl(), asked(KernelVariant::Auto, {32, 1}));
  CHECK(qs.plan.variant == KernelVariant::Fused);
  CHECK(qs.how == LaunchSource::Given);
  CHECK(qs.reason == "local size as given; fused: a local size was given, and fused-rows (the CPU default) takes none");
  CHECK(decide_launch(p, llvmpipe(), asked(KernelVariant::Auto, {16, 2})).plan.variant == KernelVariant::Fused);
  // The search during a run tries blocked on GPUs and rusticl (close to fused there), not on PoCL.
  const auto has_blocked = [](const DeviceLimits& d) {
    for (KernelVariant v : runnable_variants(d))
      if (v == KernelVariant::Blocked) return true;
    return false;
  };
  CHECK(has_blocked(llvmpipe()));
  CHECK_FALSE(has_blocked(pocl()));
  CHECK(has_blocked(h100()));
  // split is the tests' plain oracle, never a search candidate; fused-x2 is gone.
  const std::vector<KernelVariant> fused_blocked = {KernelVariant::Fused, KernelVariant::Blocked};
  CHECK(runnable_variants(h100_cuda()) == fused_blocked);
  CHECK(runnable_variants(h100()) ==  // NVIDIA's OpenCL builds the rows kernel too
        std::vector<KernelVariant>{KernelVariant::Fused, KernelVariant::Blocked, KernelVariant::FusedRows});
  CHECK(runnable_variants(pocl()) == std::vector<KernelVariant>{KernelVariant::Fused, KernelVariant::FusedRows});
  CHECK_THROWS_WITH_AS(parse_kernel_variant("fused-x2"),
                       "--kernel-variant must be auto, split, fused, fused-rows or blocked, got 'fused-x2'",
                       std::invalid_argument);
}

TEST_CASE("launch decision: heat runs blocked on GPUs in float, fused in double, and its tiles hold 14 values a cell") {
  Params p = d2q9::test::make_params(1024, 1024, 100);
  p.extensions.heat = true;
  p.extensions.diffusivity = 0.02;
  const LaunchDecision f = decide_launch(p, h100(), LaunchRequest{}, Precision::Float);
  CHECK(f.plan.variant == KernelVariant::Blocked);
  const long long items = f.plan.local.x * f.plan.local.y;
  CHECK(blocked_local_bytes(f.plan.tile, f.plan.block_steps, items, Precision::Float, 1, 1, 0, 14) <=
        h100().local_mem_bytes);
  // 3 steps on a 32-wide tile, as tall as fits (kHeatTileWidth): one row taller would not.
  CHECK(f.plan.block_steps == 3);
  CHECK(f.plan.tile.x == 32);
  CHECK(blocked_local_bytes({32, f.plan.tile.y + 1}, 3, items, Precision::Float, 1, 1, 0, 14) > h100().local_mem_bytes);
  // A heated outlet's cells keep their own temperature in one more plane, not a second copy: the tile stays.
  Params open = p;
  open.extensions.open_boundaries.resize(1);
  open.extensions.open_boundaries[0].kind = OpenBoundary::Kind::PressureOutlet;
  const LaunchDecision o = decide_launch(open, h100(), LaunchRequest{}, Precision::Float);
  CHECK(o.plan.tile.x == 32);
  CHECK(o.plan.tile.y >= f.plan.tile.y - 1);
  // The isothermal box's tile would not fit with 14 values a cell.
  const LaunchDecision iso = decide_launch(d2q9::test::make_params(1024, 1024, 100), h100(), LaunchRequest{});
  CHECK(blocked_local_bytes(iso.plan.tile, iso.plan.block_steps, items, Precision::Float, 1, 1, 0, 14) >
        h100().local_mem_bytes);
  const LaunchDecision d = decide_launch(p, h100(), LaunchRequest{}, Precision::Double);
  CHECK(d.plan.variant == KernelVariant::Fused);
  CHECK(d2q9::test::contains(d.reason, "the default for heat in double"));
  // Asked for, blocked runs heat in double too.
  LaunchRequest blocked;
  blocked.variant = KernelVariant::Blocked;
  CHECK(decide_launch(p, h100(), blocked, Precision::Double).plan.variant == KernelVariant::Blocked);
}

TEST_CASE("launch decision: no fp64 refuses double up front, small local memory shrinks the tile or falls back") {
  const Params p = d2q9::test::make_params(64, 64, 100);
  CHECK_THROWS_WITH_AS(decide_launch(p, llvmpipe(), LaunchRequest{}, Precision::Double),
                       doctest::Contains("llvmpipe (LLVM 15.0.6, 256 bits) does not support double precision (cl_khr_fp64)"),
                       DeviceError);
  CHECK(decide_launch(p, llvmpipe(), LaunchRequest{}, Precision::Fp16s).plan.variant == KernelVariant::Fused);

  DeviceLimits small = h100();
  small.local_mem_bytes = 16384;  // a 21x21 float region: a 13x13 tile with 4 steps per launch,
  const LaunchDecision d = decide_launch(p, small, LaunchRequest{});
  CHECK(d.plan.variant == KernelVariant::Blocked);
  CHECK(d.plan.tile == LocalSize{8, 8});  // halved to 8x8 on 64x64 cells: 64 tiles for 132 compute units
  CHECK(blocked_local_bytes(d.plan.tile, 4, d.plan.local.x * d.plan.local.y, Precision::Float) <= 16384);

  small.local_mem_bytes = 1024;  // no tile fits with 4 steps per launch: auto runs fused instead
  const LaunchDecision f = decide_launch(p, small, LaunchRequest{});
  CHECK(f.plan.variant == KernelVariant::Fused);
  CHECK(f.plan.local == LocalSize{64, 1});
  CHECK(f.reason.find("fused: blocked's smallest tile does not fit the 1024 bytes of local memory") == 0);
  // Asked for explicitly, it is refused with the numbers.
  CHECK_THROWS_WITH_AS(decide_launch(p, small, asked(KernelVariant::Blocked)),
                       doctest::Contains("bytes of local memory, but NVIDIA H100 80GB HBM3 has 1024"), DeviceError);
}

TEST_CASE("launch decision: the GPU defaults of the H100 data, and MPI slabs") {
  const Params small = d2q9::test::make_params(128, 128, 100);
  const Params large = d2q9::test::make_params(1024, 1024, 100);
  const LaunchDecision b = decide_launch(small, h100(), LaunchRequest{});
  CHECK(b.plan.variant == KernelVariant::Blocked);
  CHECK(b.plan.local == LocalSize{256, 1});
  CHECK(b.reason == "blocked: the default on GPUs in float (several steps per launch)");
  // Blocked in every precision at every size, on OpenCL and CUDA
  // (docs/performance.md, Kernel variants): fp16c too, and
  // lattices that live in the L2 cache too (fp16s 512^2, float 512^2).
  const Params p256 = d2q9::test::make_params(256, 256, 100), p512 = d2q9::test::make_params(512, 512, 100);
  for (const DeviceLimits& gpu : {h100(), h100_cuda()}) {
    CAPTURE(gpu.platform);
    for (const Params* p : {&small, &p256, &p512, &large}) {
      CAPTURE(p->nx);
      for (Precision precision : {Precision::Float, Precision::Double, Precision::Fp16s, Precision::Fp16c}) {
        CAPTURE(std::string(to_string(precision)));
        const LaunchDecision d = decide_launch(*p, gpu, LaunchRequest{}, precision);
        CHECK(d.plan.variant == KernelVariant::Blocked);
        CHECK(d.reason == std::string("blocked: the default on GPUs in ") + to_string(precision) +
                              (is_16bit(precision) ? " (several steps per launch, the tile kept as 16-bit codes)"
                                                   : " (several steps per launch)"));
      }
    }
  }
  // fp16s keeps its tile as 16-bit codes: blocked at every size, a 42x42 tile at 4 steps.
  const LaunchDecision h = decide_launch(large, h100(), LaunchRequest{}, Precision::Fp16s);
  CHECK(h.plan.variant == KernelVariant::Blocked);
  CHECK(h.plan.tile == LocalSize{42, 42});
  CHECK(h.plan.block_steps == 4);
  CHECK(h.reason == "blocked: the default on GPUs in fp16s (several steps per launch, the tile kept as 16-bit codes)");

  // Several ranks: the slabs take one device's choice, for the same reason
  // (blocked on GPUs, with halo rows as deep as its steps); the CPU default
  // stays; split, which slabs have no kernel for, is refused.
  for (Precision precision : {Precision::Float, Precision::Fp16s}) {
    CAPTURE(to_string(precision));
    const LaunchDecision one = decide_launch(large, h100(), LaunchRequest{}, precision, 1);
    const LaunchDecision s = decide_launch(large, h100(), LaunchRequest{}, precision, 2);
    CHECK(s.plan.variant == KernelVariant::Blocked);
    CHECK(s.reason == one.reason);
    CHECK(s.plan.tile == one.plan.tile);  // tiles of the whole grid: the slabs' partial sums are one device's
    CHECK(s.plan.block_steps == one.plan.block_steps);
  }
  CHECK(decide_launch(small, h100(), asked(KernelVariant::Blocked), Precision::Float, 3).plan.variant ==
        KernelVariant::Blocked);
  CHECK(decide_launch(small, pocl(), LaunchRequest{}, Precision::Float, 2).plan.variant == KernelVariant::FusedRows);
  CHECK(decide_launch(small, pocl(), asked(KernelVariant::Blocked), Precision::Float, 2).plan.variant ==
        KernelVariant::Blocked);
  CHECK_THROWS_WITH_AS(decide_launch(small, h100(), asked(KernelVariant::Split), Precision::Float, 2),
                       doctest::Contains("--kernel-variant split is not available with several MPI ranks"),
                       DeviceError);

  // A cached launch is taken where it runs, ignored under a given shape, several ranks, or where the device cannot run it.
  const CachedLaunch cached{{KernelVariant::Split, LocalSize{64, 2}}, "/cache/tuning.json"};
  const LaunchDecision c = decide_launch(small, h100(), LaunchRequest{}, Precision::Float, 1, cached);
  CHECK(c.how == LaunchSource::Cached);
  CHECK(c.plan.variant == KernelVariant::Split);
  CHECK(c.plan.local == LocalSize{64, 2});
  CHECK(c.reason == "split 64x2: the fastest in an earlier search, cached in /cache/tuning.json");
  CHECK(decide_launch(small, h100(), asked(KernelVariant::Auto, {32, 1}), Precision::Float, 1, cached).how ==
        LaunchSource::Given);
  CHECK(decide_launch(small, h100(), LaunchRequest{}, Precision::Float, 2, cached).plan.variant == KernelVariant::Blocked);
  const LaunchDecision stale = decide_launch(small, llvmpipe(), LaunchRequest{}, Precision::Float, 1, cached);
  CHECK(stale.how == LaunchSource::Default);  // 128 items on a 32-item device: decided afresh
  CHECK(stale.plan.variant == KernelVariant::Fused);
  CHECK(stale.plan.local.x * stale.plan.local.y <= 32);
}

TEST_CASE("launch decision: blocked under MPI slabs needs a tile row per rank") {
  // Each slab is whole tile rows (so its tiles are the whole grid's). An
  // automatic tile is made short enough; PoCL's would be 64x32 for 2 ranks.
  const Params p = d2q9::test::make_params(64, 64, 100);
  const LaunchDecision two = decide_launch(p, pocl(), asked(KernelVariant::Blocked), Precision::Float, 2);
  const LaunchDecision five = decide_launch(p, pocl(), asked(KernelVariant::Blocked), Precision::Float, 5);
  CHECK(two.plan.tile == LocalSize{64, 32});
  CHECK(five.plan.tile == LocalSize{64, 12});
  CHECK(five.plan.groups_y >= 5);
  CHECK(five.plan.group_height() == 12);  // the slabs' row unit: tile rows
  // A given tile that leaves fewer tile rows than ranks is refused, saying why.
  LaunchRequest tall = asked(KernelVariant::Blocked);
  tall.tile = {16, 40};
  CHECK(decide_launch(p, pocl(), tall, Precision::Float, 2).plan.groups_y == 2);
  CHECK_THROWS_WITH_AS(decide_launch(p, pocl(), tall, Precision::Float, 3),
                       doctest::Contains("--kernel-variant blocked with tile 16x40: the grid's 64 rows make 2 row(s) "
                                         "of tiles, fewer than the 3 MPI ranks"),
                       DeviceError);
  const Params tiny = d2q9::test::make_params(64, 3, 100);
  CHECK_THROWS_WITH_AS(decide_launch(tiny, pocl(), asked(KernelVariant::Blocked), Precision::Float, 4),
                       doctest::Contains("fewer than the 4 MPI ranks"), DeviceError);
}

TEST_SUITE_END();

TEST_CASE("launch decision: a chunk holds at least two whole blocked launches, however large the grid") {
  // A 16384x65536 grid has 1.37 million tiles: the host's bound on a chunk's
  // values alone would make its chunk 2 steps, and every blocked launch 2
  // steps instead of 4.
  for (const auto& [nx, ny] : std::vector<std::pair<int, int>>{{16384, 65536}, {16384, 32768}, {40000, 40000}, {1024, 1024}}) {
    CAPTURE(nx);
    CAPTURE(ny);
    const Params p = d2q9::test::make_params(nx, ny, 1000);
    for (int ranks : {1, 4}) {
      const LaunchPlan plan = decide_launch(p, h100_cuda(), asked(KernelVariant::Blocked), Precision::Float, ranks).plan;
      REQUIRE(plan.block_steps == 4);
      CHECK(plan.chunk_steps >= 2 * plan.block_steps);
      CHECK(plan.chunk_steps % (2 * plan.block_steps) == 0);
    }
  }
  // A run shorter than two launches: its steps, rounded down to an even number (5: one launch of 4, then 1).
  CHECK(decide_launch(d2q9::test::make_params(16384, 65536, 5), h100_cuda(), asked(KernelVariant::Blocked)).plan.chunk_steps == 4);
}
