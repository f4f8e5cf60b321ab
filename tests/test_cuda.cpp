// The CUDA backend: the shared kernels through NVRTC (runs in CI, which has
// the toolkit but no GPU), and the backend against the serial reference and
// the OpenCL backend (needs an NVIDIA GPU; skipped with a message without one).
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <algorithm>

#include "io/compare.hpp"
#include "cuda/cuda_driver.hpp"
#include "cuda/cuda_backend.hpp"
#include "cuda/nvrtc_compile.hpp"
#include "device/slab_layout.hpp"
#include "backend_config.hpp"
#include "helpers.hpp"
#include "solver_runs.hpp"
#include "device/kernel_source.hpp"
#include "opencl/opencl_backend.hpp"
#include "reference/reference_solver.hpp"
#include "sim/simulation.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::config;
using d2q9::test::contains;
using d2q9::test::max_relative_difference;
using d2q9::test::reference;
using d2q9::test::run;
using d2q9::test::RunOutput;
using d2q9::test::slurp;
using d2q9::test::Result;
using d2q9::test::run_program;
using d2q9::test::TempDir;

namespace {


std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Why the tests that run kernels cannot run here; empty when a device exists.
std::string no_cuda_device_reason() {
  const std::string why = cuda_driver_unavailable_reason();
  if (!why.empty()) return why;
  if (list_cuda_devices().empty()) return "the CUDA driver reports no device";
  return {};
}

#define SKIP_WITHOUT_CUDA_DEVICE()                                                     \
  if (const std::string why_skipped = no_cuda_device_reason(); !why_skipped.empty()) { \
    D2Q9_SKIP("needs an NVIDIA GPU: " << why_skipped);                                 \
  }

// A CUDA solver with graphs on or off (runs use them unless told otherwise).
std::unique_ptr<Solver> cuda_solver(const Params& p, const ObstacleMask& m, const SolverConfig& c, bool graphs) {
  SolverConfig with_graphs = c;
  with_graphs.device.launch_graphs = graphs;
  return make_solver(Backend::Cuda, p, m, with_graphs);
}

using d2q9::test::count_lines;

// A kernels directory holding the real prelude and the given kernel file.
void write_kernels_dir(const TempDir& dir, const std::string& kernel_source) {
  dir.write(kCudaPreludeFile, slurp(std::string(D2Q9_KERNELS_DIR "/") + kCudaPreludeFile));
  dir.write(kKernelFile, kernel_source);
}

}  // namespace

TEST_CASE("CUDA: NVRTC compiles the blocked kernel, its region sized at launch by the plan") {
  const Params p = d2q9::test::make_params(128, 64, 10);
  DeviceLimits h200;
  h200.name = "H200";
  h200.platform = "CUDA";
  h200.local_mem_bytes = 48 * 1024;
  h200.opt_in_local_mem_bytes = 227 * 1024;
  h200.compute_units = 132;
  LaunchRequest request;
  request.variant = KernelVariant::Blocked;
  request.local = {256, 1};
  request.block_steps = 4;
  request.tile = {16, 8};
  for (Precision precision : {Precision::Float, Precision::Double, Precision::Fp16s}) {
    CAPTURE(std::string(to_string(precision)));
    const LaunchPlan plan = decide_launch(p, h200, request, precision).plan;
    const CompiledKernels k = compile_kernels_nvrtc(D2Q9_KERNELS_DIR, kKernelFile, kernel_defines(p, precision, plan),
                                                    NvrtcTarget{9, 0, false});
    CHECK(count_of(k.image, ".entry propagate_rebound_collide_blocked(") == 1);
    CHECK(count_of(k.image, ".entry sample_cells(") == 1);  // every build: probes are sampled on the device
    // and accelerate_flow: a run's build holds its plan's kernels only
    CHECK(count_of(k.image, ".entry ") == 3);
    // The region is dynamic shared memory, its size the plan's: a 24x16
    // region, one copy of nine distributions as stored (16-bit codes with
    // 16-bit storage), the reduction's sums in the same memory; two copies
    // with curved links (blocked_region_copies).
    CHECK(contains(k.image, ".extern .shared"));
    CHECK(contains(k.image, "region[];"));
    const long long stored_size = precision == Precision::Double ? 8 : precision == Precision::Fp16s ? 2 : 4;
    CHECK(plan.region_bytes == 9 * 24 * 16 * stored_size);
    Params curved = p;
    curved.extensions.curved_walls = true;
    REQUIRE(blocked_region_copies(curved.extensions) == 2);
    CHECK(decide_launch(curved, h200, request, precision).plan.region_bytes == 18 * 24 * 16 * stored_size);
    CHECK(contains(k.image, "region_mask[" + std::to_string(24 * 16) + "]"));
    CHECK(contains(k.image, "fma.rn."));  // the collision's explicit fmas (docs/arithmetic.md)
    // The one approximation: |u|'s square root in float, which only av_vels sees.
    CHECK(count_of(k.image, ".approx") == count_of(k.image, "sqrt.approx.f32"));
  }
  // A tile past 48 KB is the device's opt-in memory's, which it has.
  request.tile = {64, 64};
  const LaunchPlan big = decide_launch(p, h200, request, Precision::Float).plan;
  CHECK(big.region_bytes == 9 * 72 * 72 * 4);
  h200.opt_in_local_mem_bytes = 0;
  CHECK_THROWS_WITH_AS(decide_launch(p, h200, request, Precision::Float), doctest::Contains("49152"), DeviceError);
}

TEST_CASE("CUDA: a run's build holds the kernels of its plan and no others") {
  const Params p = d2q9::test::make_params(128, 64, 10);
  const std::vector<std::pair<KernelVariant, std::vector<std::string>>> expected = {
      {KernelVariant::Split, {"propagate_rebound_collide"}},
      {KernelVariant::Fused, {"propagate_rebound_collide"}},
      {KernelVariant::FusedRows, {"propagate_rebound_collide_rows"}}};
  for (const auto& [variant, kernels] : expected) {
    CAPTURE(std::string(to_string(variant)));
    LaunchPlan plan;
    plan.variant = variant;
    plan.local = variant == KernelVariant::FusedRows ? LocalSize{1, 1} : LocalSize{128, 1};
    const CompiledKernels k = compile_kernels_nvrtc(D2Q9_KERNELS_DIR, kKernelFile,
                                                    kernel_defines(p, Precision::Float, plan), NvrtcTarget{9, 0, false});
    CHECK(count_of(k.image, ".entry accelerate_flow(") == 1);
    CHECK(count_of(k.image, ".entry sample_cells(") == 1);
    for (const std::string& name : kernels) CHECK(count_of(k.image, ".entry " + name + "(") == 1);
    CHECK(count_of(k.image, ".entry ") == 2 + kernels.size());
  }
}

TEST_CASE("CUDA: NVRTC compiles the shared kernels to PTX for sm_90, with every entry point") {
  MESSAGE("compiling with " << nvrtc_version());
  const Params p = d2q9::test::make_params(128, 64, 10);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    for (LocalSize local : {LocalSize{128, 1}, LocalSize{16, 4}, LocalSize{5, 3}, LocalSize{1, 1}}) {
      CAPTURE(std::string(to_string(precision)));
      CAPTURE(local.x);
      CAPTURE(local.y);
      const CompiledKernels k =
          compile_kernels_nvrtc(D2Q9_KERNELS_DIR, kKernelFile, kernel_defines(p, precision, local), NvrtcTarget{9, 0, false});
      const std::string& ptx = k.image;
      CHECK(contains(ptx, ".target sm_90"));
      CHECK(count_of(ptx, ".entry accelerate_flow(") == 1);
      CHECK(count_of(ptx, ".entry propagate_rebound_collide(") == 1);
      CHECK(count_of(ptx, ".entry propagate_rebound_collide_rows(") == 1);
      CHECK(count_of(ptx, ".entry sample_cells(") == 1);
      CHECK(count_of(ptx, ".entry ") == 4);
      // The defines reached the compiler: the reduction's shared array has one value per work-item.
      const std::size_t real_size = precision == Precision::Float ? 4 : 8;
      CHECK(contains(ptx, "local_speed[" + std::to_string(local.x * local.y * real_size) + "]"));
      // Rounding as in OpenCL with FP_CONTRACT OFF and the reference: the
      // collision's explicit fmas only (--fmad=false fuses nothing else),
      // IEEE-rounded division.
      const std::string type = precision == Precision::Float ? "f32" : "f64";
      CHECK(contains(ptx, "fma.rn." + type));
      // The one approximation: |u|'s square root in float, which only av_vels sees.
      CHECK(count_of(ptx, ".approx") == count_of(ptx, "sqrt.approx.f32"));
      CHECK((contains(ptx, "div.rn." + type) || contains(ptx, "rcp.rn." + type)));  // 1 / rho
      if (precision == Precision::Double) CHECK(contains(ptx, "sqrt.rn.f64"));
      else CHECK(contains(ptx, "sqrt.approx.f32"));
      CHECK(contains(k.options, "--fmad=false"));
    }
  }
}

TEST_CASE("CUDA: NVRTC compiles an MPI slab's kernels, every step kernel taking the same nine arguments") {
  // A slab of ten rows with its halo rows, without and with the accelerated row.
  const Params grid = d2q9::test::make_params(128, 30, 10);
  Params lattice = grid;
  lattice.ny = 10 + 2;
  for (const SlabRows rows : {SlabRows{1, 10, -1, 9, 30}, SlabRows{1, 10, 9, 19, 30}}) {
    CAPTURE(rows.accel_row);
    const CompiledKernels k = compile_kernels_nvrtc(
        D2Q9_KERNELS_DIR, kKernelFile, kernel_defines(lattice, Precision::Float, LocalSize{16, 2}, 1, rows),
        NvrtcTarget{9, 0, false});
    for (const char* kernel : {"propagate_rebound_collide", "propagate_rebound_collide_rows"}) {
      CAPTURE(kernel);
      CHECK(contains(k.image, std::string(kernel) + "_param_8"));
      CHECK(!contains(k.image, std::string(kernel) + "_param_9"));
    }
  }
}

TEST_CASE("CUDA: NVRTC compiles the blocked kernel of an MPI slab (halo rows as deep as its steps)") {
  // The middle slab of three, rows 10-19 of 30, with 4 halo rows each side.
  const Params grid = d2q9::test::make_params(128, 30, 10);
  LaunchPlan plan;
  plan.variant = KernelVariant::Blocked;
  plan.local = {256, 1};
  plan.block_steps = 4;
  plan.tile = {16, 5};
  Params lattice = grid;
  lattice.ny = 10 + 2 * slab_halo_rows(plan);
  for (Precision precision : {Precision::Float, Precision::Fp16s}) {
    CAPTURE(std::string(to_string(precision)));
    const std::vector<std::string> defines =
        kernel_defines(lattice, precision, plan, slab_kernel_rows(Slab{10, 10}, grid.ny, slab_halo_rows(plan)));
    CHECK(std::find(defines.begin(), defines.end(), "BLOCKED_SLAB=1") != defines.end());
    const CompiledKernels k = compile_kernels_nvrtc(D2Q9_KERNELS_DIR, kKernelFile, defines, NvrtcTarget{9, 0, false});
    CHECK(count_of(k.image, ".entry propagate_rebound_collide_blocked(") == 1);
    CHECK(contains(k.image, "propagate_rebound_collide_blocked_param_8"));
  }
}

TEST_CASE("CUDA: NVRTC compiles the live view's render kernels with the arguments the host passes, for a grid and a slab") {
  // CudaLattice::render passes render_field 14 arguments and render_edges 7.
  const Params grid = d2q9::test::make_params(128, 30, 10);
  Params slab = grid;
  slab.ny = 10 + 2;
  for (const auto& defines : {kernel_defines(grid, Precision::Float, LocalSize{16, 2}),
                              kernel_defines(slab, Precision::Fp16s, LocalSize{16, 2}, 1, SlabRows{1, 10, -1, 9, 30})}) {
    const CompiledKernels k = compile_kernels_nvrtc(D2Q9_KERNELS_DIR, "render.cl", defines, NvrtcTarget{9, 0, false});
    CHECK(count_of(k.image, ".entry render_field(") == 1);
    CHECK(count_of(k.image, ".entry render_edges(") == 1);
    CHECK(contains(k.image, "render_field_param_13"));
    CHECK(!contains(k.image, "render_field_param_14"));
    CHECK(contains(k.image, "render_edges_param_6"));
    CHECK(!contains(k.image, "render_edges_param_7"));
  }
}

TEST_CASE("CUDA: NVRTC builds a CUBIN for sm_90 holding both kernels") {
  const Params p = d2q9::test::make_params(1024, 1024, 10, 0.01);
  const CompiledKernels k = compile_kernels_nvrtc(D2Q9_KERNELS_DIR, kKernelFile,
                                                  kernel_defines(p, Precision::Float, LocalSize{128, 1}), NvrtcTarget{9, 0, true});
  REQUIRE(k.image.size() > 4);
  CHECK(k.image.compare(0, 4, "\x7f" "ELF") == 0);
  CHECK(contains(k.image, "accelerate_flow"));
  CHECK(contains(k.image, "propagate_rebound_collide"));
  const auto archs = nvrtc_supported_architectures();
  CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());
}

TEST_CASE("CUDA: the prelude maps OpenCL C built-ins, not particular kernels") {
  TempDir dir;
  write_kernels_dir(dir,
                    "__kernel void probe(__global uint* restrict out, __global const uchar* restrict in) {\n"
                    "  __local uint tile[64];\n"
                    "  const size_t i = get_global_id(0) + get_global_id(1) * get_global_size(0);\n"
                    "  tile[get_local_id(0) + get_local_id(1) * get_local_size(0)] =\n"
                    "      in[i] + (uint)(get_group_id(0) + get_num_groups(1) + get_local_size(1));\n"
                    "  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);\n"
                    "  out[i] = tile[0] + (ushort)1 + (ulong)2;\n"
                    "}\n");
  const CompiledKernels k = compile_kernels_nvrtc(dir.path, kKernelFile, {}, NvrtcTarget{9, 0, false});
  CHECK(count_of(k.image, ".entry probe(") == 1);
  CHECK(contains(k.image, "bar.sync"));
  CHECK(contains(k.image, "%ctaid.x"));
  CHECK(contains(k.image, "%nctaid.y"));
  CHECK(contains(k.image, "%ntid.x"));
}

TEST_CASE("CUDA: a kernel that does not compile is reported with NVRTC's log") {
  const Params p = d2q9::test::make_params(16, 16, 1);
  const auto defines = kernel_defines(p, Precision::Float, LocalSize{16, 1});
  TempDir broken;
  write_kernels_dir(broken, "__kernel void accelerate_flow(__global float* c) {\n  this is not C;\n}\n");
  std::string message;
  try {
    compile_kernels_nvrtc(broken.path, kKernelFile, defines, NvrtcTarget{9, 0, false});
  } catch (const DeviceError& e) {
    message = e.what();
  }
  CHECK(message.rfind(broken.path + "/d2q9_bgk.cl: kernel build failed for CUDA compute_90", 0) == 0);
  CHECK(message.find('\n') == std::string::npos);
  const auto log_at = message.find(" (options and full build log in ");
  REQUIRE(log_at != std::string::npos);
  // The first diagnostic names the kernel file and its own line (the prelude is not counted).
  CHECK(contains(message.substr(0, log_at), broken.path + "/d2q9_bgk.cl(2): error"));
  const std::string log = slurp(message.substr(log_at + 32, message.size() - log_at - 33));
  CHECK(contains(log, "options: --gpu-architecture=compute_90"));

  TempDir no_prelude;
  no_prelude.write(kKernelFile, read_kernel_source(D2Q9_KERNELS_DIR, kKernelFile));
  CHECK_THROWS_WITH_AS(compile_kernels_nvrtc(no_prelude.path, kKernelFile, defines, NvrtcTarget{9, 0, false}),
                       (no_prelude.path + "/cuda_prelude.h: cannot open kernel source").c_str(), DeviceError);
}

TEST_CASE("CUDA: the command line lists CUDA devices and runs --backend cuda, or says why it cannot") {
  const Result list = run_program("--list-devices");
  CHECK(list.status == 0);
  const auto opencl_at = list.out.find("OpenCL devices:\n");
  const auto cuda_at = list.out.find("CUDA devices:\n");
  REQUIRE(cuda_at != std::string::npos);
  CHECK(opencl_at < cuda_at);

  TempDir dir;
  const auto pf = dir.write("in.params", "12\n10\n40\n10\n0.1\n0.02\n1.7\n");
  const auto of = dir.write("obs.dat", "0 0 1\n5 5 1\n11 9 1\n");
  TempDir out;
  const std::string files = "'" + pf + "' '" + of + "' -o '" + out.path + "' --backend cuda ";
  TempDir broken;
  write_kernels_dir(broken, "__kernel void accelerate_flow(__global float* c) { this is not C; }\n");

  const std::string why = no_cuda_device_reason();
  if (!why.empty()) {
    MESSAGE("no CUDA device (" << why << "): checking the clean refusal instead of a run");
    CHECK(contains(list.out.substr(cuda_at), "  (none: "));
    const Result r = run_program(files);
    CHECK(r.status == 1);
    CHECK(r.out == "");
    CHECK(r.err == "error: " + why + "\n");
    CHECK(out.listing() == "");
    return;
  }
  CHECK(contains(list.out.substr(cuda_at), "  0: "));
  CHECK(contains(list.out.substr(cuda_at), "compute capability"));

  const Result r = run_program(files + "--precision double");
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  CHECK(contains(r.out, "==done==\n"));
  // 12x10 cells: the blocked kernel, its tile halved to 8x8 for more tiles.
  CHECK(contains(r.out, " (cuda, double, local size 256x1, blocked (4 steps per launch, tile 8x8))\n"));
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.png\n");
  CHECK(count_lines(slurp(out.file("av_vels.dat"))) == 40);
  CHECK(count_lines(slurp(out.file("final_state.dat"))) == 120);

  TempDir out2;
  const std::string files2 = "'" + pf + "' '" + of + "' -o '" + out2.path + "' --backend cuda ";
  Result bad = run_program(files2 + "--kernels-dir '" + broken.path + "'");
  CHECK(bad.status == 1);
  CHECK(bad.err.rfind("error: " + broken.path + "/d2q9_bgk.cl: kernel build failed for CUDA ", 0) == 0);
  CHECK(contains(bad.err, "(options and full build log in "));
  CHECK(count_lines(bad.err) == 1);
  bad = run_program(files2 + "--device 99");
  CHECK(bad.status == 1);
  CHECK(bad.err.rfind("error: --device 99 does not exist: there are ", 0) == 0);
  CHECK(count_lines(bad.err) == 1);
  bad = run_program(files2 + "--local-size 100000x1");
  CHECK(bad.err.rfind("error: local size 100000x1 is not valid on ", 0) == 0);
  CHECK(count_lines(bad.err) == 1);
  CHECK(out2.listing() == "");
}

TEST_CASE("CUDA: graph replay and plain launches, split, fused and blocked kernels, give bit-identical distributions") {
  SKIP_WITHOUT_CUDA_DEVICE();
  const Params p = d2q9::test::make_params(24, 16, 120, 0.03);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    auto a = cuda_solver(p, m, config(precision, LocalSize{8, 2}, KernelVariant::Split), false);
    const RunOutput ra = run(*a, 120);
    CHECK(a->launch_mode() == "plain launches (graphs turned off)");

    std::vector<double> blocked_av_vels;
    for (KernelVariant variant : {KernelVariant::Split, KernelVariant::Fused, KernelVariant::Blocked}) {
      for (bool graphs : {true, false}) {
        CAPTURE(std::string(to_string(variant)));
        CAPTURE(graphs);
        // Chunks of 15: blocked launches meet shorter remainders.
        auto b = cuda_solver(p, m, config(precision, LocalSize{8, 2}, variant, 15), graphs);
        RunOutput rb;
        b->run(51, rb.av_vels);  // in pieces, so the unaccelerated hand-over between calls is covered
        b->run(69, rb.av_vels);
        rb.f = b->distributions();
        CHECK(b->launch_mode() == (graphs ? "graphs" : "plain launches (graphs turned off)"));
        if (variant == KernelVariant::Blocked) {
          // Blocked sums |u| tile by tile: split's average velocities to the
          // order of summation, and the same bits with and without graphs.
          CHECK(max_relative_difference(rb.av_vels, ra.av_vels, 1e-6) < 1e-5);
          if (graphs) blocked_av_vels = rb.av_vels;
          else CHECK(rb.av_vels == blocked_av_vels);
        } else {
          CHECK(ra.av_vels == rb.av_vels);
        }
        CHECK(ra.f == rb.f);
      }
    }
  }
}

TEST_CASE("CUDA: the live view's picture (cl/render.cl through NVRTC) is the host's") {
  SKIP_WITHOUT_CUDA_DEVICE();
  SimulationOptions options;
  options.backend = Backend::Cuda;
  options.kernels_dir = D2Q9_KERNELS_DIR;
  Simulation sim(load_problem(std::string(D2Q9_SOURCE_DIR) + "/tests/problems/live_cavity.toml"), options);
  sim.step(300);
  for (const ImageField field : {ImageField::Speed, ImageField::Vorticity, ImageField::Density}) {
    for (const int width : {64, 21}) {
      CAPTURE(std::string(to_string(field)));
      CAPTURE(width);
      const FieldImage device = sim.picture({field, width});
      const FieldImage host = field_image(sim.fields(), sim.mask(), {field, width});
      CHECK(device.made_by == "device");
      REQUIRE(device.width == host.width);
      REQUIRE(device.height == host.height);
      CHECK(host.range.high > host.range.low);
      CHECK(device.range.low == doctest::Approx(host.range.low).epsilon(1e-4));
      CHECK(device.range.high == doctest::Approx(host.range.high).epsilon(1e-4));
      // Float on the device, double on the host: a colour may round one step apart.
      int worst = 0;
      for (std::size_t i = 0; i < host.rgba.size(); ++i)
        worst = std::max(worst, std::abs(static_cast<int>(device.rgba[i]) - static_cast<int>(host.rgba[i])));
      CHECK(worst <= 2);
    }
  }
}

TEST_CASE("CUDA and OpenCL give the same flow on the same device's problem") {
  SKIP_WITHOUT_CUDA_DEVICE();
  // Double precision on a small grid: both backends run the same kernel text
  // with the same rounding, so they agree with each other as with the reference.
  const Params p = d2q9::test::make_params(33, 21, 200, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  if (list_opencl_devices().empty()) D2Q9_SKIP("no OpenCL device to compare with");
  auto cuda = make_solver(Backend::Cuda, p, m, config(Precision::Double, LocalSize{16, 2}));
  auto opencl = make_solver(Backend::OpenCL, p, m, config(Precision::Double, LocalSize{16, 2}));
  const RunOutput a = run(*cuda, p.max_iters), b = run(*opencl, p.max_iters);
  CHECK(max_relative_difference(a.av_vels, b.av_vels, 1e-9) < 1e-12);
  CHECK(max_relative_difference(a.f, b.f, 1e-9) < 1e-12);
}

TEST_CASE("CUDA: the four coursework problems agree with the OpenCL backend within the coursework tolerance") {
  SKIP_WITHOUT_CUDA_DEVICE();
  // The GPU is looked up by the program itself, not in this process: on some
  // machines a process that has opened NVIDIA's OpenCL hides it from its children.
  const Result list = run_program("--list-devices");
  REQUIRE(list.status == 0);
  std::istringstream lines(list.out.substr(0, list.out.find("CUDA devices:")));
  std::string opencl_gpu;
  for (std::string line; std::getline(lines, line) && opencl_gpu.empty();)
    if (contains(line, " [GPU] ")) opencl_gpu = line.substr(line.find_first_not_of(' '), line.find(':') - 2);
  if (opencl_gpu.empty())
    D2Q9_SKIP("OpenCL has no GPU here, and the full problems would take many minutes on a CPU:\n" << list.out);
  const std::string opencl_device = "--device " + opencl_gpu + " ";
  for (const std::string size : {"128x128", "128x256", "256x256", "1024x1024"}) {
    CAPTURE(size);
    const std::string inputs = "'" D2Q9_SOURCE_DIR "/inputs/input_" + size + ".params' '" D2Q9_SOURCE_DIR
                               "/inputs/obstacles_" + size + ".dat' ";
    TempDir cuda_out, opencl_out;
    const Result c = run_program(inputs + "--backend cuda -o '" + cuda_out.path + "'");
    const Result o = run_program(inputs + "--backend opencl " + opencl_device + "-o '" + opencl_out.path + "'");
    REQUIRE_MESSAGE(c.status == 0, c.err);
    REQUIRE_MESSAGE(o.status == 0, o.err);
    MESSAGE(size << " cuda:   " << c.out.substr(c.out.find("Elapsed time")));
    MESSAGE(size << " opencl: " << o.out.substr(o.out.find("Elapsed time")));
    std::string differences;
    for (const auto& d : compare_outputs(opencl_out.path, cuda_out.path, 0.01)) {
      CAPTURE(d.name);
      CAPTURE(d.value);
      CHECK(d.passed);
      char value[32];
      std::snprintf(value, sizeof value, "%.3e", d.value);
      differences += "\n  " + d.name + ": " + value;
    }
    MESSAGE(size << " cuda vs opencl, measure against tolerance 0.01:" << differences);
  }
}

TEST_SUITE_END();

