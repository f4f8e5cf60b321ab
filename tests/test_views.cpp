// Pictures, VTK, JSON summary, progress line, step loop, device table, driver check.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "opencl/driver_check.hpp"
#include "opencl/device_table.hpp"
#include "model/output.hpp"
#include "model/picture.hpp"
#include "app/progress.hpp"
#include "reference/reference_solver.hpp"
#include "device/solver.hpp"
#include "app/run_loop.hpp"
#include "app/summary.hpp"
#include "views_helpers.hpp"
#include "model/vtk_output.hpp"

using namespace d2q9;
using d2q9::test::TempDir;

namespace {

// 4x3 grid, obstacle at (0, 0); cell (3, 2) moves fastest, (1, 0) is at rest.
struct SmallState {
  Params params = d2q9::test::make_params(4, 3, 1);
  ObstacleMask mask{4, 3};
  std::vector<double> f;
  SmallState() {
    mask.blocked[0] = 1;
    f = initial_distributions(params);
    const std::size_t n = params.cells();
    auto push_east = [&](std::size_t cell, double amount) { f[1 * n + cell] += amount; };
    for (std::size_t cell = 2; cell < n; ++cell) push_east(cell, 0.001 * cell);
  }
};

Rgb pixel_of_cell(const RgbImage& image, const PictureLayout& l, int ny, int ii, int jj) {
  return image.at(l.field_x + ii * l.scale + l.scale / 2, l.field_y + (ny - 1 - jj) * l.scale + l.scale / 2);
}

}  // namespace

TEST_CASE("viridis runs from matplotlib's first to last colour and is never grey") {
  CHECK(viridis(0.0) == Rgb{68, 1, 84});
  CHECK(viridis(1.0) == Rgb{253, 231, 37});
  CHECK(viridis(-1.0) == viridis(0.0));
  CHECK(viridis(2.0) == viridis(1.0));
  const Rgb mid = viridis(0.5);  // matplotlib: #21918c
  CHECK(std::abs(mid.r - 33) <= 1);
  CHECK(std::abs(mid.g - 145) <= 1);
  CHECK(std::abs(mid.b - 140) <= 1);
  for (int i = 0; i <= 1000; ++i) {
    const Rgb c = viridis(i / 1000.0);
    CHECK_FALSE((c.r == c.g && c.g == c.b));
  }
}

TEST_CASE("picture layout: small grids enlarged to about 512 pixels, field and bar inside an even-sized image") {
  struct Case {
    int nx, ny, scale;
  };
  for (Case c : {Case{128, 128, 4}, Case{128, 256, 2}, Case{256, 256, 2}, Case{1024, 1024, 1}, Case{12, 10, 42},
                 Case{3000, 2, 1}}) {
    CAPTURE(c.nx);
    CAPTURE(c.ny);
    const PictureLayout l = picture_layout(c.nx, c.ny);
    CHECK(l.scale == c.scale);
    CHECK(l.width % 2 == 0);
    CHECK(l.height % 2 == 0);
    CHECK(l.field_x + c.nx * l.scale < l.bar_x);
    CHECK(l.bar_x + l.bar_width < l.width);
    CHECK(l.field_y + c.ny * l.scale <= l.height);
    CHECK(l.bar_y + l.bar_height <= l.height);
    CHECK(l.bar_height >= 40);  // room for the labels even beside a 2-row grid
  }
}

TEST_CASE("the speed picture: y upward, obstacles grey, colours scaled to the fastest cell, bar from 0 to it") {
  const SmallState s;
  const RgbImage image = render_speed_picture(s.params, s.mask, s.f);
  const PictureLayout l = picture_layout(4, 3);
  REQUIRE(image.width == l.width);
  REQUIRE(image.height == l.height);
  double max_speed = 0.0;
  for (std::size_t cell = 0; cell < s.params.cells(); ++cell)
    if (!s.mask.blocked[cell]) max_speed = std::max(max_speed, cell_state(s.params, s.mask, s.f, cell).speed);
  for (int jj = 0; jj < 3; ++jj) {
    for (int ii = 0; ii < 4; ++ii) {
      CAPTURE(ii);
      CAPTURE(jj);
      const std::size_t cell = ii + jj * 4;
      const Rgb expected =
          s.mask.blocked[cell] ? kObstacleGrey : viridis(cell_state(s.params, s.mask, s.f, cell).speed / max_speed);
      CHECK(pixel_of_cell(image, l, 3, ii, jj) == expected);
    }
  }
  // (0, 0) is the bottom-left cell.
  CHECK(image.at(l.field_x, l.field_y + 3 * l.scale - 1) == kObstacleGrey);
  CHECK(pixel_of_cell(image, l, 3, 3, 2) == viridis(1.0));
  CHECK(pixel_of_cell(image, l, 3, 1, 0) == viridis(0.0));
  CHECK(image.at(l.bar_x + 1, l.bar_y) == viridis(1.0));
  CHECK(image.at(l.bar_x + 1, l.bar_y + l.bar_height - 1) == viridis(0.0));
}

TEST_CASE("a fluid at rest gives a picture of the bottom colour, not a division by zero") {
  const Params p = d2q9::test::make_params(5, 5, 1);
  ObstacleMask m(5, 5);
  const RgbImage image = render_speed_picture(p, m, initial_distributions(p));
  const PictureLayout l = picture_layout(5, 5);
  for (int jj = 0; jj < 5; ++jj)
    for (int ii = 0; ii < 5; ++ii) CHECK(pixel_of_cell(image, l, 5, ii, jj) == viridis(0.0));
}

TEST_CASE("a PNG written with libpng decodes to the same pixels") {
  const SmallState s;
  const RgbImage image = render_speed_picture(s.params, s.mask, s.f, "step 12");
  TempDir dir;
  {
    AtomicFile out(dir.file("x.png"));
    write_png(out.get(), image, "x.png");
    out.commit();
  }
  const RgbImage back = d2q9::test::read_png(dir.file("x.png"));
  CHECK(back.width == image.width);
  CHECK(back.height == image.height);
  CHECK(back.pixels == image.pixels);
  // The caption changes pixels beside the bar only.
  const RgbImage plain = render_speed_picture(s.params, s.mask, s.f);
  CHECK(plain.pixels != image.pixels);
}

TEST_CASE("VTK: legacy binary image data with density, velocity, speed and obstacle per cell") {
  const SmallState s;
  TempDir dir;
  {
    AtomicFile out(dir.file("s.vtk"));
    write_vtk(out.get(), s.params, s.mask, s.f);
    out.commit();
  }
  const auto v = d2q9::test::read_vtk(dir.file("s.vtk"));
  CHECK(v.nx == 4);
  CHECK(v.ny == 3);
  CHECK(v.nz == 1);
  REQUIRE(v.arrays.size() == 4);
  for (std::size_t cell = 0; cell < 12; ++cell) {
    CAPTURE(cell);
    const CellState c = cell_state(s.params, s.mask, s.f, cell);
    CHECK(v.arrays.at("density")[cell] == 3.0 * c.pressure);
    CHECK(v.arrays.at("velocity")[3 * cell] == c.ux);
    CHECK(v.arrays.at("velocity")[3 * cell + 1] == c.uy);
    CHECK(v.arrays.at("velocity")[3 * cell + 2] == 0.0);
    CHECK(v.arrays.at("speed")[cell] == c.speed);
    CHECK(v.arrays.at("obstacle")[cell] == (cell == 0 ? 1.0 : 0.0));
  }
  CHECK(v.arrays.at("density")[0] == doctest::Approx(s.params.density).epsilon(1e-15));
  CHECK(v.arrays.at("speed")[11] > 0.0);
}

TEST_CASE("JSON summary holds the run's parameters, device, times and results") {
  RunSummary r;
  r.param_file = "in.params";
  r.obstacle_file = "obs.dat";
  r.params = d2q9::test::make_params(100, 50, 2000);
  r.fluid_cells = 4900;
  r.device = "Some GPU";
  r.backend = "opencl";
  r.precision = Precision::Double;
  r.local_size = {32, 4};
  r.setup_s = 0.5;
  r.elapsed_s = 2.0;
  r.user_cpu_s = 1.5;
  r.system_cpu_s = 0.25;
  r.final_average_velocity = 0.0125;
  const auto j = nlohmann::json::parse(summary_json(r));
  CHECK(j["param_file"] == "in.params");
  CHECK(j["params"]["nx"] == 100);
  CHECK(j["params"]["max_iters"] == 2000);
  CHECK(j["params"]["omega"] == 1.85);
  CHECK(j["device"] == "Some GPU");
  CHECK(j["precision"] == "double");
  CHECK(j["local_size"] == nlohmann::json::array({32, 4}));
  CHECK(j["elapsed_s"] == 2.0);
  CHECK(j["mlups"] == doctest::Approx(100.0 * 50 * 2000 / 2.0 / 1e6));
  CHECK(j["reynolds_number"] == doctest::Approx(reynolds_number(r.params, 0.0125)));
  CHECK(j["final_average_velocity"] == 0.0125);
}

TEST_CASE("progress line text: percent, steps/s, MLUPS, time left") {
  CHECK(format_progress(100, 400, 2.0, 1000) == " 25.0%  100/400 steps  50 steps/s  0.05 MLUPS  0:06 left");
  CHECK(format_progress(1, 10001, 1.0, 1) == "  0.0%  1/10001 steps  1 steps/s  0.00 MLUPS  2:46:40 left");
  CHECK(format_progress(0, 10, 0.0, 1).find("? left") != std::string::npos);
}

TEST_CASE("progress stays silent on a stream that is not a terminal") {
  std::FILE* file = std::tmpfile();
  REQUIRE(file != nullptr);
  {
    ProgressLine p(file, 100, 10, true, 0.0);
    CHECK_FALSE(p.active());
    p.update(50);
  }
  CHECK(std::ftell(file) == 0);
  std::fclose(file);
}

namespace {

// Counts Solver::run calls; the flow itself comes from the reference.
class CountingSolver final : public Solver {
 public:
  CountingSolver(const Params& p, const ObstacleMask& m) : inner_(p, m) {}
  Backend backend() const override { return Backend::Reference; }
  std::string device_name() const override { return "counting"; }
  Precision precision() const override { return Precision::Double; }
  void run(int steps, std::vector<double>& av_vels) override {
    calls.push_back(steps);
    inner_.run(steps, av_vels);
  }
  std::vector<double> distributions() override { return inner_.distributions(); }
  void load_distributions(const std::vector<double>& f) override { inner_.load_distributions(f); }
  std::vector<int> calls;

 private:
  ReferenceSolver<double> inner_;
};

}  // namespace

TEST_CASE("the step loop: one run() call without hooks, segments at snapshot steps with them, same flow") {
  const Params p = d2q9::test::make_params(12, 10, 50, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);

  CountingSolver whole(p, m);
  std::vector<double> av_whole;
  run_steps(whole, p, m, av_whole, RunLoopOptions{});
  CHECK(whole.calls == std::vector<int>{50});

  CountingSolver pieces(p, m);
  std::vector<double> av_pieces;
  std::vector<int> snapshot_steps;
  std::vector<std::vector<double>> snapshot_states;
  RunLoopOptions hooks;
  hooks.snapshot_every = 7;
  hooks.snapshot = [&](int step) {
    snapshot_steps.push_back(step);
    CHECK(av_pieces.size() == static_cast<std::size_t>(step));
    snapshot_states.push_back(pieces.distributions());
  };
  run_steps(pieces, p, m, av_pieces, hooks);
  CHECK(snapshot_steps == std::vector<int>{7, 14, 21, 28, 35, 42, 49});
  int total = 0;
  for (int c : pieces.calls) total += c;
  CHECK(total == 50);
  CHECK(av_pieces == av_whole);
  CHECK(pieces.distributions() == whole.distributions());

  // The state a snapshot saw is the state after that many steps.
  Params p21 = p;
  p21.max_iters = 21;
  CountingSolver upto(p21, m);
  std::vector<double> av_upto;
  run_steps(upto, p21, m, av_upto, RunLoopOptions{});
  CHECK(snapshot_states[2] == upto.distributions());
}

TEST_CASE("device table: aligned columns, default marked") {
  std::vector<OpenCLDeviceInfo> devices = {
      {0, "Portable Computing Language", "pthread-cpu", "CPU", 2, 4ULL << 30, false, true},
      {1, "NVIDIA CUDA", "NVIDIA H100 80GB HBM3", "GPU", 132, 80ULL << 30, true, true}};
  const std::string t = device_table(devices, 1);
  std::istringstream in(t);
  std::string header, cpu, gpu;
  std::getline(in, header);
  std::getline(in, cpu);
  std::getline(in, gpu);
  CHECK(header.find("compute units") != std::string::npos);
  CHECK(cpu.rfind("   0  CPU  ", 0) == 0);
  CHECK(gpu.rfind("  1*  GPU  ", 0) == 0);
  CHECK(gpu.find("80.0 GiB") != std::string::npos);
  // Columns line up: the device names start in the same column as the header's.
  CHECK(cpu.find("pthread-cpu") == header.find("device"));
  CHECK(gpu.find("NVIDIA H100") == header.find("device"));
  CHECK(t.find("default") != std::string::npos);
}

TEST_CASE("driver check: vendor OpenCL libraries without an .icd registration are found") {
  TempDir libs, vendors, empty;
  libs.write("libnvidia-opencl.so.550.54.15", "");
  libs.write("libnvidia-opencl.so.1", "");
  libs.write("libOpenCL.so.1", "");
  libs.write("libigdrcl.so", "");
  auto found = find_unregistered_drivers({empty.path, libs.path}, vendors.path);
  REQUIRE(found.size() == 2);
  CHECK(found[0].vendor == "NVIDIA");
  CHECK(found[0].library == libs.file("libnvidia-opencl.so.1"));
  CHECK(found[0].icd_name == "nvidia.icd");
  CHECK(found[1].vendor == "Intel");

  vendors.write("nvidia.icd", "libnvidia-opencl.so.1\n");
  vendors.write("intel.icd", "/usr/lib/x86_64-linux-gnu/intel-opencl/libigdrcl.so\n");
  CHECK(find_unregistered_drivers({libs.path}, vendors.path).empty());
  CHECK(find_unregistered_drivers({empty.path, "/nonexistent-dir"}, "/nonexistent-vendors").empty());
}
