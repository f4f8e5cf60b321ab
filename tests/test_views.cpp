// Pictures, VTK, JSON summary, progress line, step loop, device table, driver check.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>

#include "opencl/driver_check.hpp"
#include "opencl/device_table.hpp"
#include "io/output.hpp"
#include "io/fields.hpp"
#include "io/picture.hpp"
#include "app/outputs.hpp"
#include "app/progress.hpp"
#include "reference/reference_solver.hpp"
#include "device/solver.hpp"
#include "app/run_loop.hpp"
#include "sim/simulation_internal.hpp"
#include "app/summary.hpp"
#include "views_helpers.hpp"
#include "io/vtk_output.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;
using d2q9::test::TempDir;

namespace {

// 4x3 grid, obstacle at (0, 0); cell (3, 2) moves fastest, (1, 0) is at rest.
struct SmallState {
  Params params = d2q9::test::make_params(4, 3, 1);
  ObstacleMask mask{4, 3};
  std::vector<double> f;
  SmallState() {
    mask.kinds[0] = 1;
    f = initial_distributions(params);
    const std::size_t n = params.cells();
    auto push_east = [&](std::size_t cell, double amount) { f[1 * n + cell] += amount; };
    for (std::size_t cell = 2; cell < n; ++cell) push_east(cell, 0.001 * cell);
  }
};

Rgb pixel_of_cell(const RgbImage& image, const PictureLayout& l, int ny, int ii, int jj) {
  return image.at(l.field_x + ii * l.scale + l.scale / 2, l.field_y + (ny - 1 - jj) * l.scale + l.scale / 2);
}

// The picture a run draws of a state by default.
RgbImage speed_picture(const Params& p, const ObstacleMask& m, const std::vector<double>& f,
                       const std::string& caption = "") {
  const FlowFields fields = flow_fields(p, m, f);
  return render_picture(PictureField::Speed, fields, m, own_range(PictureField::Speed, fields, m), caption);
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
  const RgbImage image = speed_picture(s.params, s.mask, s.f);
  const PictureLayout l = picture_layout(4, 3);
  REQUIRE(image.width == l.width);
  REQUIRE(image.height == l.height);
  double max_speed = 0.0;
  for (std::size_t cell = 0; cell < s.params.cells(); ++cell)
    if (!s.mask.kinds[cell]) max_speed = std::max(max_speed, cell_state(s.params, s.mask, s.f, cell).speed);
  for (int jj = 0; jj < 3; ++jj) {
    for (int ii = 0; ii < 4; ++ii) {
      CAPTURE(ii);
      CAPTURE(jj);
      const std::size_t cell = ii + jj * 4;
      const Rgb expected =
          s.mask.kinds[cell] ? kObstacleGrey : viridis(cell_state(s.params, s.mask, s.f, cell).speed / max_speed);
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
  const RgbImage image = speed_picture(p, m, initial_distributions(p));
  const PictureLayout l = picture_layout(5, 5);
  for (int jj = 0; jj < 5; ++jj)
    for (int ii = 0; ii < 5; ++ii) CHECK(pixel_of_cell(image, l, 5, ii, jj) == viridis(0.0));
}

TEST_CASE("a PNG written with libpng decodes to the same pixels") {
  const SmallState s;
  const RgbImage image = speed_picture(s.params, s.mask, s.f, "step 12");
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
  const RgbImage plain = speed_picture(s.params, s.mask, s.f);
  CHECK(plain.pixels != image.pixels);
}

TEST_CASE("VTK: legacy binary image data with density, velocity, speed, obstacle and with heat temperature per cell") {
  const SmallState s;
  TempDir dir;
  {
    AtomicFile out(dir.file("s.vtk"));
    write_vtk(out.get(), s.params, s.mask, flow_fields(s.params, s.mask, s.f));
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
  // With heat, the temperature too.
  FlowFields heated = flow_fields(s.params, s.mask, s.f);
  for (std::size_t cell = 0; cell < 12; ++cell) heated.temperature.push_back(0.25 * static_cast<double>(cell) - 1.0);
  {
    AtomicFile out(dir.file("h.vtk"));
    write_vtk(out.get(), s.params, s.mask, heated);
    out.commit();
  }
  const auto h = d2q9::test::read_vtk(dir.file("h.vtk"));
  REQUIRE(h.arrays.size() == 5);
  CHECK(h.arrays.at("temperature") == heated.temperature);
  CHECK(h.arrays.at("speed") == v.arrays.at("speed"));
}

TEST_CASE("the diverging colour map runs from blue through white to red and is never the obstacle grey") {
  CHECK(diverging(0.0) == Rgb{5, 48, 97});
  CHECK(diverging(0.5) == Rgb{247, 247, 247});
  CHECK(diverging(1.0) == Rgb{103, 0, 31});
  CHECK(diverging(-3.0) == diverging(0.0));
  CHECK(diverging(7.0) == diverging(1.0));
  for (int i = 0; i <= 1000; ++i) CHECK_FALSE(diverging(i / 1000.0) == kObstacleGrey);
  CHECK(diverging(0.25).b > diverging(0.25).r);  // negative vorticity is blue
  CHECK(diverging(0.75).r > diverging(0.75).b);
}

TEST_CASE("flow fields: velocity, speed and density as final_state.dat reports them, per cell") {
  const SmallState s;
  const FlowFields fields = flow_fields(s.params, s.mask, s.f);
  CHECK(fields.nx == 4);
  CHECK(fields.ny == 3);
  for (std::size_t cell = 0; cell < 12; ++cell) {
    CAPTURE(cell);
    const CellState c = cell_state(s.params, s.mask, s.f, cell);
    CHECK(fields.ux[cell] == c.ux);
    CHECK(fields.uy[cell] == c.uy);
    CHECK(fields.speed[cell] == c.speed);
    CHECK(fields.density[cell] == 3.0 * c.pressure);
  }
  CHECK(fields.vorticity == vorticity(4, 3, s.mask, fields.ux, fields.uy));
}

TEST_CASE("vorticity: central differences on the periodic grid, obstacles counting as velocity 0") {
  const int nx = 8, ny = 6;
  ObstacleMask open(nx, ny);
  std::vector<double> ux(nx * ny), uy(nx * ny);
  auto at = [&](int ii, int jj) { return static_cast<std::size_t>(ii + jj * nx); };
  // A rigid rotation about (3.5, 2.5): w = 2 wherever the differences do not wrap.
  for (int jj = 0; jj < ny; ++jj)
    for (int ii = 0; ii < nx; ++ii) {
      ux[at(ii, jj)] = -(jj - 2.5);
      uy[at(ii, jj)] = ii - 3.5;
    }
  std::vector<double> w = vorticity(nx, ny, open, ux, uy);
  for (int jj = 1; jj < ny - 1; ++jj)
    for (int ii = 1; ii < nx - 1; ++ii) CHECK(w[at(ii, jj)] == doctest::Approx(2.0));
  // At the edges the neighbour is across the grid: cell (0, 1) sees (7, 1) to its west.
  CHECK(w[at(0, 1)] == doctest::Approx(0.5 * (uy[at(1, 1)] - uy[at(7, 1)]) - 0.5 * (ux[at(0, 2)] - ux[at(0, 0)])));
  CHECK(w[at(3, 5)] == doctest::Approx(0.5 * (uy[at(4, 5)] - uy[at(2, 5)]) - 0.5 * (ux[at(3, 0)] - ux[at(3, 4)])));

  // An obstacle east of (2, 2): its velocity counts as 0, and its own vorticity is 0.
  ObstacleMask blocked(nx, ny);
  blocked.kinds[at(3, 2)] = 1;
  w = vorticity(nx, ny, blocked, ux, uy);
  CHECK(w[at(2, 2)] == doctest::Approx(0.5 * (0.0 - uy[at(1, 2)]) - 0.5 * (ux[at(2, 3)] - ux[at(2, 1)])));
  CHECK(w[at(3, 2)] == 0.0);
  CHECK(w[at(5, 4)] == doctest::Approx(2.0));
  // Uniform flow has none.
  const std::vector<double> uniform(nx * ny, 0.03);
  for (double v : vorticity(nx, ny, open, uniform, uniform)) CHECK(v == 0.0);
}

TEST_CASE("colour ranges: speed from 0 to its fastest fluid cell, vorticity symmetric about 0") {
  FlowFields f;
  f.nx = 3;
  f.ny = 1;
  f.speed = {9.0, 0.02, 0.05};  // cell 0 is an obstacle: left out
  f.vorticity = {9.0, -0.004, 0.001};
  ObstacleMask m(3, 1);
  m.kinds[0] = 1;
  CHECK(own_range(PictureField::Speed, f, m) == ColourRange{0.0, 0.05});
  CHECK(own_range(PictureField::Vorticity, f, m) == ColourRange{-0.004, 0.004});
  f.speed[2] = NAN;  // a diverged cell does not set the range
  CHECK(own_range(PictureField::Speed, f, m) == ColourRange{0.0, 0.02});
  CHECK(field_colour(PictureField::Speed, 0.01, {0.0, 0.02}) == viridis(0.5));
  CHECK(field_colour(PictureField::Vorticity, 0.0, {-0.004, 0.004}) == diverging(0.5));
  CHECK(field_colour(PictureField::Vorticity, -0.004, {-0.004, 0.004}) == diverging(0.0));
  CHECK(field_colour(PictureField::Vorticity, 0.0, {0.0, 0.0}) == diverging(0.5));  // a fluid at rest
  CHECK(field_colour(PictureField::Speed, 0.0, {0.0, 0.0}) == viridis(0.0));
  CHECK(bar_label(PictureField::Speed, 0.0429) == "0.0429");
  CHECK(bar_label(PictureField::Speed, 0.0) == "0");
  CHECK(bar_label(PictureField::Vorticity, 0.0123) == "+0.0123");
  CHECK(bar_label(PictureField::Vorticity, -0.0123) == "-0.0123");
  CHECK(bar_label(PictureField::Vorticity, -0.0) == "0");
}

TEST_CASE("the vorticity picture: diverging colours over -max..+max, obstacles grey, bar from blue to red") {
  const SmallState s;
  const FlowFields fields = flow_fields(s.params, s.mask, s.f);
  const ColourRange range = own_range(PictureField::Vorticity, fields, s.mask);
  REQUIRE(range.high > 0.0);
  CHECK(range.low == -range.high);
  const RgbImage image = render_picture(PictureField::Vorticity, fields, s.mask, range);
  const PictureLayout l = picture_layout(4, 3);
  for (int jj = 0; jj < 3; ++jj)
    for (int ii = 0; ii < 4; ++ii) {
      CAPTURE(ii);
      CAPTURE(jj);
      const std::size_t cell = ii + jj * 4;
      const Rgb expected = s.mask.kinds[cell] ? kObstacleGrey
                                                : diverging(0.5 + 0.5 * fields.vorticity[cell] / range.high);
      CHECK(pixel_of_cell(image, l, 3, ii, jj) == expected);
    }
  CHECK(image.at(l.bar_x + 1, l.bar_y) == diverging(1.0));
  CHECK(image.at(l.bar_x + 1, l.bar_y + l.bar_height - 1) == diverging(0.0));
  // The labels differ from the speed picture's: signed ends, "vort".
  const RgbImage speed = render_picture(PictureField::Speed, fields, s.mask, range);
  CHECK(speed.pixels != image.pixels);
}

namespace {

FlowFields two_cell_fields(double slow, double fast) {
  FlowFields f;
  f.nx = 2;
  f.ny = 1;
  f.ux = {slow, fast};
  f.uy = {0.0, 0.0};
  f.speed = {slow, fast};
  f.density = {0.1, 0.1};
  f.vorticity = {0.0, 0.0};
  return f;
}

}  // namespace

TEST_CASE("--scale fixed: the first picture's range is kept, so equal speeds get equal colours in later pictures") {
  const Params p = d2q9::test::make_params(2, 1, 100);
  const ObstacleMask m(2, 1);
  ExtraOutputs plan;
  plan.fields = {PictureField::Speed, PictureField::Vorticity};
  const FlowFields first = two_cell_fields(0.02, 0.04), later = two_cell_fields(0.02, 0.08);

  plan.scale.mode = PictureScale::Mode::Fixed;
  ViewWriter fixed(plan, p, m);
  const ColourRange r1 = fixed.next_range(PictureField::Speed, first);
  const ColourRange r2 = fixed.next_range(PictureField::Speed, later);
  CHECK(r1 == ColourRange{0.0, 0.04});
  CHECK(r2 == r1);
  const RgbImage a = render_picture(PictureField::Speed, first, m, r1);
  const RgbImage b = render_picture(PictureField::Speed, later, m, r2);
  const PictureLayout l = picture_layout(2, 1);
  CHECK(pixel_of_cell(a, l, 1, 0, 0) == pixel_of_cell(b, l, 1, 0, 0));
  CHECK(pixel_of_cell(b, l, 1, 1, 0) == viridis(1.0));  // beyond the range: the top colour
  // The bars and their labels are the same picture for picture.
  for (int y = 0; y < l.height; ++y)
    for (int x = l.bar_x; x < l.width; ++x) REQUIRE(a.at(x, y) == b.at(x, y));
  CHECK(fixed.next_range(PictureField::Vorticity, later) == ColourRange{0.0, 0.0});  // each field its own first

  plan.scale.mode = PictureScale::Mode::Auto;
  ViewWriter own(plan, p, m);
  CHECK(own.next_range(PictureField::Speed, first) == ColourRange{0.0, 0.04});
  CHECK(own.next_range(PictureField::Speed, later) == ColourRange{0.0, 0.08});
  const RgbImage c = render_picture(PictureField::Speed, later, m, own.next_range(PictureField::Speed, later));
  CHECK_FALSE(pixel_of_cell(a, l, 1, 0, 0) == pixel_of_cell(c, l, 1, 0, 0));

  plan.scale.mode = PictureScale::Mode::Given;
  plan.scale.given = {{0.0, 0.1}, {-0.5, 0.5}};
  ViewWriter given(plan, p, m);
  CHECK(given.next_range(PictureField::Speed, later) == ColourRange{0.0, 0.1});
  CHECK(given.next_range(PictureField::Vorticity, later) == ColourRange{-0.5, 0.5});
}

namespace {

// write_vti's file of `fields`, read back by read_vti.
d2q9::test::VtiImage vti_of(const TempDir& dir, const std::string& name, const ObstacleMask& mask,
                            const FlowFields& fields, VtiReal real) {
  {
    AtomicFile out(dir.file(name));
    write_vti(out.get(), mask, fields, real);
    out.commit();
  }
  return d2q9::test::read_vti(dir.file(name));
}

// `value` as an array of `real` holds it.
double as_stored(VtiReal real, double value) {
  return real == VtiReal::Float32 ? static_cast<double>(static_cast<float>(value)) : value;
}

}  // namespace

TEST_CASE("VTI: XML image data with the grid's extent and velocity, density, speed, vorticity and obstacle per point") {
  const SmallState s;
  const FlowFields fields = flow_fields(s.params, s.mask, s.f);
  TempDir dir;
  for (VtiReal real : {VtiReal::Float32, VtiReal::Float64}) {
    const std::string type = vti_type_name(real);
    CAPTURE(type);
    const auto v = vti_of(dir, "s.vti", s.mask, fields, real);
    d2q9::test::check_vti_layout(v, "0 3 0 2 0 0", type);
    for (const char* name : {"density", "speed", "vorticity", "obstacle"}) CHECK(v.arrays.at(name).components == 1);
    // Each array's UInt64 byte count and values follow the one before; the closing tags follow the last.
    const std::size_t w = real == VtiReal::Float32 ? 4 : 8;
    std::uint64_t offset = 0;
    for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::size_t>>{
             {"velocity", 3 * 12 * w}, {"density", 12 * w}, {"speed", 12 * w}, {"vorticity", 12 * w}, {"obstacle", 12}}) {
      CHECK(v.arrays.at(name).offset == offset);
      offset += 8 + bytes;
    }
    CHECK(d2q9::test::slurp(dir.file("s.vti")).size() ==
          v.appended_at + offset + std::string("\n  </AppendedData>\n</VTKFile>\n").size());
    for (std::size_t cell = 0; cell < 12; ++cell) {
      CAPTURE(cell);
      const CellState c = cell_state(s.params, s.mask, s.f, cell);
      CHECK(v.arrays.at("velocity").values[3 * cell] == as_stored(real, c.ux));
      CHECK(v.arrays.at("velocity").values[3 * cell + 1] == as_stored(real, c.uy));
      CHECK(v.arrays.at("velocity").values[3 * cell + 2] == 0.0);
      CHECK(v.arrays.at("density").values[cell] == as_stored(real, 3.0 * c.pressure));
      CHECK(v.arrays.at("speed").values[cell] == as_stored(real, c.speed));
      CHECK(v.arrays.at("vorticity").values[cell] == as_stored(real, fields.vorticity[cell]));
      CHECK(v.arrays.at("obstacle").values[cell] == (cell == 0 ? 1.0 : 0.0));
    }
  }
  // The run's precision picks the type: a double run's values whole, the others' as floats.
  CHECK(vti_real_for(Precision::Double) == VtiReal::Float64);
  for (Precision p : {Precision::Float, Precision::Fp16s, Precision::Fp16c}) CHECK(vti_real_for(p) == VtiReal::Float32);
}

TEST_CASE("VTI: each array lies at its DataArray's offset, a piece's rows and heat's temperature included") {
  // Rows 1-2 of the grid, as a .pvti's piece holds them, with every array's values distinct from the others'.
  const SmallState s;
  FlowFields fields(4, 2, 1);
  fields.vorticity.resize(8);
  fields.temperature.resize(8);
  for (std::size_t i = 0; i < 8; ++i) {
    fields.ux[i] = 1.0 + i;
    fields.uy[i] = 10.0 + i;
    fields.density[i] = 100.0 + i;
    fields.speed[i] = 1000.0 + i;
    fields.vorticity[i] = -1.0 - i;
    fields.temperature[i] = 0.5 + i;
  }
  ObstacleMask mask = s.mask;
  mask.kinds[4 + 2] = 1;  // global row 1, the piece's first
  TempDir dir;
  for (VtiReal real : {VtiReal::Float32, VtiReal::Float64}) {
    CAPTURE(std::string(vti_type_name(real)));
    const auto v = vti_of(dir, "piece.vti", mask, fields, real);
    CHECK(v.whole_extent == "0 3 1 2 0 0");
    CHECK(v.first_row == 1);
    CHECK(v.ny == 2);
    CHECK(v.names == std::vector<std::string>{"velocity", "density", "speed", "vorticity", "temperature", "obstacle"});
    std::vector<double> velocity;
    for (std::size_t i = 0; i < 8; ++i) velocity.insert(velocity.end(), {fields.ux[i], fields.uy[i], 0.0});
    CHECK(v.arrays.at("velocity").values == velocity);
    CHECK(v.arrays.at("density").values == fields.density);
    CHECK(v.arrays.at("speed").values == fields.speed);
    CHECK(v.arrays.at("vorticity").values == fields.vorticity);
    CHECK(v.arrays.at("temperature").values == fields.temperature);
    CHECK(v.arrays.at("obstacle").values == std::vector<double>{0, 0, 1, 0, 0, 0, 0, 0});
  }
  // A file whose offsets are swapped reads as swapped arrays, and one whose offset is off by a byte is refused:
  // read_vti goes by the offsets, not by the order of the bytes.
  FlowFields whole = flow_fields(s.params, s.mask, s.f);
  const auto v = vti_of(dir, "s.vti", s.mask, whole, VtiReal::Float64);
  std::string text = d2q9::test::slurp(dir.file("s.vti"));
  const std::string density = "offset=\"" + std::to_string(v.arrays.at("density").offset) + "\"";
  const std::string speed = "offset=\"" + std::to_string(v.arrays.at("speed").offset) + "\"";
  std::string swapped = text;
  swapped.replace(swapped.find(density), density.size(), "offset=\"X\"");
  swapped.replace(swapped.find(speed), speed.size(), density);
  swapped.replace(swapped.find("offset=\"X\""), std::string("offset=\"X\"").size(), speed);
  const auto crossed = d2q9::test::read_vti(dir.write("swapped.vti", swapped));
  CHECK(crossed.arrays.at("density").values == whole.speed);
  CHECK(crossed.arrays.at("speed").values == whole.density);
  std::string shifted = text;
  shifted.replace(shifted.find(speed), speed.size(),
                  "offset=\"" + std::to_string(v.arrays.at("speed").offset + 1) + "\"");
  CHECK_THROWS_WITH(d2q9::test::read_vti(dir.write("shifted.vti", shifted)),
                    doctest::Contains("speed's byte count is"));
}

TEST_CASE("PVD: a collection listing each frame's file with its step as timestep") {
  TempDir dir;
  {
    AtomicFile out(dir.file("s.pvd"));
    write_pvd(out.get(), {{10, "snapshot_010.vti"}, {20, "snapshot_020.vti"}});
    out.commit();
  }
  const auto frames = d2q9::test::read_pvd(dir.file("s.pvd"));
  CHECK(frames == std::vector<d2q9::test::PvdEntry>{{10, "snapshot_010.vti"}, {20, "snapshot_020.vti"}});
}

TEST_CASE("vti snapshots: each frame is added to snapshots.pvd, after the frames a restarted run finds before it") {
  const SmallState s;
  TempDir dir;
  ExtraOutputs plan;
  plan.snapshot_every = 10;
  plan.snapshot_vti = true;
  plan.snapshot_dir = dir.path;
  Params p = s.params;
  p.max_iters = 100;
  // The run before the restart left frames 10 and 30 (20 was removed by hand).
  dir.write("snapshot_010.vti", "");
  dir.write("snapshot_030.vti", "");
  ViewWriter views(plan, p, s.mask);
  views.write_snapshot(40, s.f);
  views.write_snapshot(50, s.f);
  using Entry = d2q9::test::PvdEntry;
  CHECK(d2q9::test::read_pvd(dir.file("snapshots.pvd")) ==
        std::vector<Entry>{{10, "snapshot_010.vti"}, {30, "snapshot_030.vti"}, {40, "snapshot_040.vti"},
                           {50, "snapshot_050.vti"}});
  CHECK(dir.listing() == "snapshot_010.vti\nsnapshot_030.vti\nsnapshot_040.vti\nsnapshot_050.vti\nsnapshots.pvd\n");
  CHECK(d2q9::test::read_vti(dir.file("snapshot_050.vti")).arrays.at("speed").values ==
        flow_fields(p, s.mask, s.f).speed);
}

TEST_CASE("output paths: relative names inside the output directory, absolute ones as given") {
  CHECK(output_path("out", "speed.png") == "out/speed.png");
  CHECK(output_path("out", "sub/speed.png") == "out/sub/speed.png");
  CHECK(output_path("out", "/tmp/speed.png") == "/tmp/speed.png");
  CHECK(output_path(".", "s.json") == "./s.json");
  CHECK(snapshot_name(7, 40000) == "snapshot_00007.png");
  CHECK(snapshot_name(7, 40000, "_vorticity.png") == "snapshot_00007_vorticity.png");
  CHECK(snapshot_path("run", 100, 100, ".vti") == "run/snapshot_100.vti");
}

TEST_CASE("the output directory is created when missing, one level only") {
  TempDir dir;
  make_output_dir(dir.file("new"));
  CHECK(dir.listing() == "new\n");
  make_output_dir(dir.file("new"));  // already there: fine
  CHECK_THROWS_WITH_AS(make_output_dir(dir.file("a/b")),
                       (dir.file("a/b") + ": cannot create output directory (its parent directory does not exist)").c_str(),
                       InputError);
  dir.write("file", "x");
  CHECK_THROWS_WITH_AS(make_output_dir(dir.file("file")), (dir.file("file") + ": output directory is not a directory").c_str(),
                       InputError);
  CHECK(dir.listing() == "file\nnew\n");
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
  r.times.setup_s = 0.5;
  r.times.setup.compile_s = 0.25;
  r.times.setup.kernels_cached = true;
  r.times.outputs_s = 0.125;
  r.times.wall_s = 3.0;
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
  CHECK(j["setup_s"] == 0.5);
  CHECK(j["times"]["setup_s"] == 0.5);
  CHECK(j["times"]["compile_s"] == 0.25);
  CHECK(j["times"]["kernels_cached"] == true);
  CHECK(j["times"]["outputs_s"] == 0.125);
  CHECK(j["times"]["wall_s"] == 3.0);
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
  // A simulation stepping a CountingSolver, which `solver` then points at.
  const auto counting = [&](const Params& params, CountingSolver*& solver) {
    auto owned = std::make_unique<CountingSolver>(params, m);
    solver = owned.get();
    return SimulationInternals::on_solver(Problem{params, m, {}, std::nullopt}, std::move(owned));
  };

  CountingSolver* whole = nullptr;
  const auto whole_sim = counting(p, whole);
  run_steps(*whole_sim, RunLoopOptions{});
  CHECK(whole->calls == std::vector<int>{50});

  CountingSolver* pieces = nullptr;
  const auto pieces_sim = counting(p, pieces);
  std::vector<int> snapshot_steps;
  std::vector<std::vector<double>> snapshot_states;
  RunLoopOptions hooks;
  hooks.snapshot_every = 7;
  hooks.snapshot = [&](int step) {
    snapshot_steps.push_back(step);
    CHECK(pieces_sim->steps_done() == step);
    snapshot_states.push_back(pieces->distributions());
  };
  run_steps(*pieces_sim, hooks);
  CHECK(snapshot_steps == std::vector<int>{7, 14, 21, 28, 35, 42, 49});
  int total = 0;
  for (int c : pieces->calls) total += c;
  CHECK(total == 50);
  CHECK(pieces_sim->average_velocities() == whole_sim->average_velocities());
  CHECK(pieces->distributions() == whole->distributions());

  // The state a snapshot saw is the state after that many steps.
  Params p21 = p;
  p21.max_iters = 21;
  CountingSolver* upto = nullptr;
  const auto upto_sim = counting(p21, upto);
  run_steps(*upto_sim, RunLoopOptions{});
  CHECK(snapshot_states[2] == upto->distributions());
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

TEST_SUITE_END();
