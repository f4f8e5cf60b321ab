// 64-bit indices: grids of 2^31 or more distribution values compile the
// kernels with INDEX64; smaller ones keep int indices.
#include <doctest/doctest.h>

#include <climits>
#include <fstream>
#include <sstream>

#include "backend_config.hpp"
#include "device/kernel_source.hpp"
#include "helpers.hpp"
#include "solver_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::config;

namespace {

bool defines_index64(const Params& p) {
  for (const std::string& d : kernel_defines(p, Precision::Float, {128, 1}, 1, {}))
    if (d == "INDEX64=1") return true;
  return false;
}

}  // namespace

TEST_CASE("indexing: 64-bit indices from the first grid whose 9 * nx * ny values pass INT_MAX") {
  Params p = d2q9::test::make_params(2, 119304647, 1);  // 9 * 238609294 = 2147483646
  CHECK(9ULL * p.cells() <= static_cast<unsigned long long>(INT_MAX));
  CHECK_FALSE(needs_64bit_indices(p));
  CHECK_FALSE(defines_index64(p));
  p.ny += 1;  // 9 * 238609296 = 2147483664
  CHECK(9ULL * p.cells() > static_cast<unsigned long long>(INT_MAX));
  CHECK(needs_64bit_indices(p));
  CHECK(defines_index64(p));
  p.nx = p.ny = 50000;  // beyond 32 bits in cells alone
  CHECK(defines_index64(p));
  CHECK_FALSE(defines_index64(d2q9::test::make_params(128, 128, 1)));
}

// A grid past 2^31 values needs some 40 GB here; the same kernels with
// INDEX64 forced on a small grid check the 64-bit index arithmetic instead.
TEST_CASE("indexing: the kernels with 64-bit indices give the same bits as with int indices") {
  const Params p = d2q9::test::make_params(37, 29, 120);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  d2q9::test::TempDir dir;
  dir.write("d2q9_bgk.cl", "#define INDEX64 1\n" + read_kernel_source(D2Q9_KERNELS_DIR, kKernelFile));
  for (Precision precision : {Precision::Float, Precision::Fp16s}) {
    for (KernelVariant v : {KernelVariant::Split, KernelVariant::Fused, KernelVariant::FusedRows}) {
      CAPTURE(std::string(to_string(v)));
      const LocalSize local = v == KernelVariant::FusedRows ? LocalSize{} : LocalSize{8, 2};
      auto narrow = make_solver(Backend::OpenCL, p, m, config(precision, local, v));
      SolverConfig wide_config = config(precision, local, v);
      wide_config.device.kernels_dir = dir.path;
      auto wide = make_solver(Backend::OpenCL, p, m, wide_config);
      const auto a = d2q9::test::run(*narrow, p.max_iters);
      const auto b = d2q9::test::run(*wide, p.max_iters);
      CHECK(a.f == b.f);
      CHECK(a.av_vels == b.av_vels);
    }
  }
}

// A small grid cannot show an index cut to 32 bits, so the kernel source is
// read: every cell or value index a helper takes is an idx_t, since an int
// overflows on grids whose 9 x nx x ny values pass 2^31 (16384^2 and up).
TEST_CASE("indexing: the kernels take cell and value indices as idx_t, never int") {
  std::istringstream in(d2q9::read_kernel_source(D2Q9_KERNELS_DIR, d2q9::kKernelFile));  // every part
  std::string line;
  int number = 0, index_parameters = 0;
  while (std::getline(in, line)) {
    ++number;
    CAPTURE(number);
    CAPTURE(line);
    for (const char* name : {"i", "cell"}) {
      CHECK(line.find(std::string("const int ") + name + ")") == std::string::npos);
      CHECK(line.find(std::string("const int ") + name + ",") == std::string::npos);
      CHECK(line.find(std::string("const int ") + name + " =") == std::string::npos);
      if (line.find(std::string("const idx_t ") + name) != std::string::npos) ++index_parameters;
    }
  }
  CHECK(index_parameters >= 8);  // load16/store16 twice each, load_f, store_f, store, the cells
}

TEST_CASE("kernel source: the program joins its parts in order, each after a #line naming it") {
  d2q9::test::TempDir dir;
  dir.write("main.cl", "// head\n#include \"a.cl\"\nmiddle\n#include \"b.cl\"  \ntail\n#include <not_a_part.h>\n");
  dir.write("a.cl", "A1\nA2\n");
  dir.write("b.cl", "B1\n");
  CHECK(d2q9::read_kernel_source(dir.path, "main.cl") ==
        "// head\n#line 1 \"a.cl\"\nA1\nA2\n#line 3 \"main.cl\"\nmiddle\n#line 1 \"b.cl\"\nB1\n#line 5 \"main.cl\"\n"
        "tail\n#include <not_a_part.h>\n");
  // A file without parts is its bytes, the last newline (or its absence) included.
  dir.write("plain.cl", "x\ny");
  CHECK(d2q9::read_kernel_source(dir.path, "plain.cl") == "x\ny");
  // A missing part is named.
  dir.write("broken.cl", "#include \"gone.cl\"\n");
  CHECK_THROWS_WITH(d2q9::read_kernel_source(dir.path, "broken.cl"), (dir.path + "/gone.cl: cannot open kernel source").c_str());
  // The real program: every part under 700 lines, and nothing but parts after its header.
  for (const char* part : {"lattice.cl", "launch_common.cl", "curved_walls.cl", "open_edges.cl", "heat.cl",
                           "cell_physics.cl", "launch_one_step.cl", "launch_blocked.cl", "blocked_region_walls.cl",
                           "blocked_probes.cl", "launch_rows.cl"}) {
    CAPTURE(part);
    const std::string text = d2q9::test::slurp(std::string(D2Q9_KERNELS_DIR "/") + part);
    CHECK(d2q9::test::count_lines(text) > 10);
    CHECK(d2q9::test::count_lines(text) <= 700);
    CHECK(d2q9::test::contains(d2q9::read_kernel_source(D2Q9_KERNELS_DIR, d2q9::kKernelFile), "#line 1 \"" + std::string(part) + "\"\n"));
  }
}

TEST_SUITE_END();
