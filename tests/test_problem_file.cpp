// Problem files (.toml): the format, its geometry and its errors, parsed
// directly; then the program run with them: equal to the same problem given
// as .params + obstacles, every error one line, restarts from a checkpoint.
#include <doctest/doctest.h>

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "problem/png_mask.hpp"
#include "problem/problem_file.hpp"
#include "problem/problem_settings.hpp"
#include "core/spelling.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;
using d2q9::test::write_png;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

// The message of the InputError `text` raises, or "no error".
std::string problem_error(const std::string& text, const std::string& filename = "p.toml") {
  try {
    parse_problem_file(text, filename);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::uint8_t cell(const ObstacleMask& m, int i, int j) { return m.kinds[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * m.nx]; }

// A PNG of `width` x `height` pixels in `format` (PNG_FORMAT_GRAY, _RGB, _RGBA),
// rows top first.

const char* const kGridFlow = "[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 10\nomega = 1.0\n";  // lines 1-6

const std::string kCavity = R"(# Lid-driven cavity
[grid]
nx = 12
ny = 10

[flow]
steps = 100
viscosity = 0.0756

[edges]
left = "wall"
right = "wall"
bottom = "wall"
top = { wall_velocity = [0.1, 0.0] }
)";

}  // namespace

TEST_CASE("problem file: is_problem_file is a .toml ending") {
  CHECK(is_problem_file("cavity.toml"));
  CHECK(is_problem_file("/a/b.TOML"));
  CHECK(is_problem_file("dir.toml/x.toml"));
  CHECK_FALSE(is_problem_file("input.params"));
  CHECK_FALSE(is_problem_file("x.toml.params"));
  CHECK_FALSE(is_problem_file("toml"));
}

TEST_CASE("problem file: a lid-driven cavity gives its params, its moving lid and static corners") {
  const Problem p = parse_problem_file(kCavity, "cavity.toml");
  CHECK(p.params.nx == 12);
  CHECK(p.params.ny == 10);
  CHECK(p.params.max_iters == 100);
  CHECK(p.params.reynolds_dim == 12);  // nx without length
  CHECK(p.params.density == 1.0);
  CHECK(p.params.accel == 0.0);
  CHECK(p.params.omega == 1.0 / (3.0 * 0.0756 + 0.5));
  const Extensions& e = p.params.extensions;
  CHECK(e.wall_velocities == std::vector<Vec2>{{0.1, 0.0}});
  CHECK(e.body_force == Vec2{});
  CHECK(e.open_boundaries.empty());
  REQUIRE(p.mask.nx == 12);
  REQUIRE(p.mask.ny == 10);
  for (int j = 0; j < 10; ++j)
    for (int i = 0; i < 12; ++i) {
      CAPTURE(i);
      CAPTURE(j);
      const bool side = i == 0 || i == 11 || j == 0;
      const std::uint8_t expected = side ? kWall : j == 9 ? kMovingWall : kFluid;
      CHECK(cell(p.mask, i, j) == expected);
    }
  CHECK(p.mask.fluid_cells() == 10 * 8);
}

TEST_CASE("problem file: defaults are the coursework's: periodic edges, density 1, no push, no extensions") {
  const Problem p = parse_problem_file(kGridFlow, "p.toml");
  CHECK(p.params.nx == 8);
  CHECK(p.params.ny == 6);
  CHECK(p.params.max_iters == 10);
  CHECK(p.params.reynolds_dim == 8);
  CHECK(p.params.density == 1.0);
  CHECK(p.params.accel == 0.0);
  CHECK(p.params.omega == 1.0);
  CHECK_FALSE(p.params.extensions.any());
  CHECK(p.mask.fluid_cells() == 48);
}

TEST_CASE("problem file: omega, viscosity, or reynolds with velocity and length") {
  const std::string grid = "[grid]\nnx = 40\nny = 20\n[flow]\nsteps = 5\n";
  CHECK(parse_problem_file(grid + "omega = 1.7\n", "p.toml").params.omega == 1.7);
  CHECK(parse_problem_file(grid + "viscosity = 0.1\n", "p.toml").params.omega == 1.0 / (3.0 * 0.1 + 0.5));
  const Params re = parse_problem_file(grid + "reynolds = 100.0\nvelocity = 0.1\nlength = 38\ndensity = 0.5\naccel = 0.002\n"
                                              "body_force = [1e-5, -2e-6]\n", "p.toml").params;
  CHECK(re.omega == 1.0 / (3.0 * (0.1 * 38 / 100.0) + 0.5));
  CHECK(re.reynolds_dim == 38);
  CHECK(re.density == 0.5);
  CHECK(re.accel == 0.002);
  CHECK(re.extensions.body_force == Vec2{1e-5, -2e-6});
  // Integers serve as numbers, and length sets reynolds_dim with omega too.
  const Params ints = parse_problem_file(grid + "omega = 1\ndensity = 2\nlength = 7\n", "p.toml").params;
  CHECK(ints.omega == 1.0);
  CHECK(ints.density == 2.0);
  CHECK(ints.reynolds_dim == 7);
}

TEST_CASE("problem file: inlet and outlet set their extensions and leave their edges fluid") {
  const Problem p = parse_problem_file(std::string(kGridFlow) +
                                           "[edges]\nleft = { inlet_velocity = [0.05, 0.0] }\n"
                                           "right = { outlet_density = 1.0 }\nbottom = \"wall\"\ntop = \"wall\"\n",
                                       "p.toml");
  const Extensions& e = p.params.extensions;
  REQUIRE(e.inlet() != nullptr);
  CHECK(e.inlet()->edge == Edge::Left);
  CHECK(e.inlet()->velocity == Vec2{0.05, 0.0});
  REQUIRE(e.outlet_density().has_value());
  CHECK(*e.outlet_density() == 1.0);
  CHECK(e.open_at(Edge::Right)->kind == OpenBoundary::Kind::PressureOutlet);
  CHECK_FALSE(e.moving_walls());
  // The open edges' fluid cells carry their edge's number; the corners are the walls'.
  for (int j = 0; j < 6; ++j) {
    CHECK(cell(p.mask, 0, j) == (j == 0 || j == 5 ? kWall : cell_byte(kFluid, 1)));
    CHECK(cell(p.mask, 7, j) == (j == 0 || j == 5 ? kWall : cell_byte(kFluid, 2)));
  }
  CHECK(p.mask.fluid_cells() == 8 * 4);
}

TEST_CASE("problem file: moving walls alike share number 0, and corners with static walls are static") {
  // Couette between two lids moving alike, walls left and right: all four corners static.
  const Problem p = parse_problem_file(std::string(kGridFlow) +
                                           "[edges]\nbottom = { wall_velocity = [0.05, 0] }\ntop = { wall_velocity = [0.05, 0.0] }\n"
                                           "left = \"wall\"\nright = \"wall\"\n",
                                       "p.toml");
  CHECK(p.params.extensions.wall_velocities == std::vector<Vec2>{{0.05, 0.0}});
  for (int i = 0; i < 8; ++i) {
    const std::uint8_t expected = i == 0 || i == 7 ? kWall : kMovingWall;
    CHECK(cell(p.mask, i, 0) == expected);
    CHECK(cell(p.mask, i, 5) == expected);
  }
  // [edges.top] as its own table, periodic named explicitly.
  const Problem q = parse_problem_file(std::string(kGridFlow) +
                                           "[edges]\nleft = \"periodic\"\nright = \"periodic\"\nbottom = \"wall\"\n"
                                           "[edges.top]\nwall_velocity = [0.0, 0.0]\n",
                                       "p.toml");
  CHECK_FALSE(q.params.extensions.moving_walls());  // a lid at rest
  CHECK(cell(q.mask, 0, 5) == kMovingWall);
  CHECK(cell(q.mask, 0, 0) == kWall);
}

TEST_CASE("problem file: circles and rectangles block the cells they cover, over moving walls too") {
  const Problem p = parse_problem_file(
      "[grid]\nnx = 30\nny = 20\n[flow]\nsteps = 1\nomega = 1\n[edges]\nbottom = \"wall\"\ntop = { wall_velocity = [0.1, 0] }\n"
      "[[obstacle]]\ncircle = { center = [10.5, 8.25], radius = 4.3 }\n"
      "[[obstacle]]\nrectangle = { from = [20, 15], to = [24, 19] }\n"
      "[[obstacle]]\ncircle = { center = [-1.0, 10.0], radius = 2 }\n",  // partly outside the grid
      "p.toml");
  for (int j = 0; j < 20; ++j)
    for (int i = 0; i < 30; ++i) {
      CAPTURE(i);
      CAPTURE(j);
      const bool in_circle = (i - 10.5) * (i - 10.5) + (j - 8.25) * (j - 8.25) <= 4.3 * 4.3;
      const bool in_edge_circle = (i + 1.0) * (i + 1.0) + (j - 10.0) * (j - 10.0) <= 4.0;
      const bool in_rectangle = i >= 20 && i <= 24 && j >= 15 && j <= 19;
      const std::uint8_t expected = in_circle || in_rectangle || in_edge_circle || j == 0 ? kWall : j == 19 ? kMovingWall : kFluid;
      CHECK(cell(p.mask, i, j) == expected);
    }
  // A one-cell rectangle, and a circle of radius 0.5 about a cell centre.
  const Problem q = parse_problem_file(std::string(kGridFlow) + "[[obstacle]]\nrectangle = { from = [3, 2], to = [3, 2] }\n"
                                           "[[obstacle]]\ncircle = { center = [6, 4], radius = 0.5 }\n",
                                       "p.toml");
  CHECK(q.mask.fluid_cells() == 46);
  CHECK(cell(q.mask, 3, 2) == kWall);
  CHECK(cell(q.mask, 6, 4) == kWall);
}

TEST_CASE("problem file: a PNG mask blocks its dark pixels, top row at j = ny-1, relative to the problem file") {
  TempDir dir;
  // 4x3 grey: top row dark at x = 0, middle row mid-grey 127 and 128, bottom row black at x = 3.
  write_png(dir.file("shape.png"), 4, 3, PNG_FORMAT_GRAY, {0, 255, 255, 255,  //
                                                          255, 127, 128, 255,  //
                                                          255, 255, 255, 0});
  const std::string grid = "[grid]\nnx = 4\nny = 3\n[flow]\nsteps = 1\nomega = 1\n";
  dir.write("p.toml", grid + "[[obstacle]]\nmask = \"shape.png\"\n");
  const Problem p = read_problem_file(dir.file("p.toml"));
  CHECK(cell(p.mask, 0, 2) == kWall);
  CHECK(cell(p.mask, 1, 1) == kWall);  // luma 127
  CHECK(cell(p.mask, 2, 1) == kFluid);  // luma 128
  CHECK(cell(p.mask, 3, 0) == kWall);
  CHECK(p.mask.fluid_cells() == 12 - 3);

  // Colour by luma (0.299 R + 0.587 G + 0.114 B); transparency over white.
  write_png(dir.file("colour.png"), 4, 3, PNG_FORMAT_RGBA,
            {255, 0, 0, 255,   0, 255, 0, 255,   0, 0, 255, 255,  0, 0, 0, 0,      // red 76, green 150, blue 29, clear black
             0, 0, 0, 255,     0, 0, 0, 230,     0, 0, 0, 26,     255, 255, 255, 255,  // opaque, 90% and 10% black
             255, 255, 255, 0, 255, 255, 255, 0, 255, 255, 255, 0, 255, 255, 255, 0});
  std::system(("mkdir -p '" + dir.file("sub") + "'").c_str());
  dir.write("sub/q.toml", grid + "[[obstacle]]\nmask = \"../colour.png\"\n");
  const Problem q = read_problem_file(dir.file("sub/q.toml"));
  const std::uint8_t expected_top[4] = {kWall, kFluid, kWall, kFluid};
  const std::uint8_t expected_middle[4] = {kWall, kWall, kFluid, kFluid};
  for (int i = 0; i < 4; ++i) {
    CAPTURE(i);
    CHECK(cell(q.mask, i, 2) == expected_top[i]);
    CHECK(cell(q.mask, i, 1) == expected_middle[i]);
    CHECK(cell(q.mask, i, 0) == kFluid);
  }

  // The picture must be the grid's size; it is checked before it is decoded.
  write_png(dir.file("small.png"), 3, 3, PNG_FORMAT_GRAY, std::vector<std::uint8_t>(9, 0));
  dir.write("r.toml", grid + "[[obstacle]]\nmask = \"small.png\"\n");
  CHECK_THROWS_WITH_AS(read_problem_file(dir.file("r.toml")),
                       (dir.file("r.toml") + ":8: mask " + dir.file("small.png") +
                        ": the picture is 3x3 pixels, but the grid is 4x3 cells: a mask needs one pixel per cell")
                           .c_str(),
                       InputError);
  dir.write("bad.png", "not a png");
  dir.write("s.toml", grid + "[[obstacle]]\nmask = \"bad.png\"\n");
  const std::string bad = problem_error(slurp(dir.file("s.toml")), dir.file("s.toml"));
  CHECK(bad.rfind(dir.file("s.toml") + ":8: mask " + dir.file("bad.png") + ": not a readable PNG (", 0) == 0);
}

TEST_CASE("problem file: the caller's check of the params runs before the mask is built or read") {
  const std::string text = std::string(kGridFlow) + "[[obstacle]]\nmask = \"missing.png\"\n";
  Params seen;
  auto check = [&](const Params& p) {
    seen = p;
    throw InputError("too big");
  };
  CHECK_THROWS_WITH_AS(parse_problem_file(text, "/nonexistent/p.toml", check), "too big", InputError);
  CHECK(seen.nx == 8);
  CHECK(seen.omega == 1.0);
  CHECK(problem_error(text, "/nonexistent/p.toml") ==
        "/nonexistent/p.toml:8: mask /nonexistent/missing.png: cannot open file (No such file or directory)");
}

TEST_CASE("problem file: every error names the file and line, with a suggestion where one is close") {
  const std::string g = kGridFlow;  // lines 1-6
  const std::pair<std::string, std::string> cases[] = {
      // Syntax, structure and names.
      {"[grid\nnx = 8\n", "p.toml:1: invalid TOML: Error while parsing table header: expected ']', saw '\\n'"},
      {"[grid]\nnx = = 8\n", "p.toml:2: invalid TOML: Error while parsing value: could not determine value type"},
      {"[grid]\nnx = 8\nnx = 9\n", "p.toml:3: invalid TOML: Error while parsing key-value pair: cannot redefine existing integer 'nx'"},
      {"", "p.toml:1: no [grid] table: a problem file needs [grid] with nx and ny"},
      {"[flow]\nsteps = 1\nomega = 1\n", "p.toml:1: no [grid] table: a problem file needs [grid] with nx and ny"},
      {"[grid]\nnx = 8\nny = 6\n", "p.toml:1: no [flow] table: a problem file needs [flow] with steps and one of omega, viscosity or reynolds"},
      {"grid = 5\n", "p.toml:1: grid must be a table, [grid] with nx and ny, got 5"},
      {"[gird]\nnx = 8\n", "p.toml:1: unknown table [gird]; did you mean [grid]?"},
      {"[obstacles]\ncircle = 1\n", "p.toml:1: unknown table [obstacles]; did you mean [[obstacle]]?"},
      {"[physics]\n", "p.toml:1: unknown table [physics]: a problem file holds [grid], [flow], [edges], [[obstacle]], [forces], [probes], [heat] and [output]"},
      {"nx = 8\n[grid]\nny = 6\n", "p.toml:1: key 'nx' is outside any table: it belongs in [grid]"},
      {"[grid]\nnx = 8\nnz = 6\n", "p.toml:3: unknown key 'nz' in [grid] (known keys: nx, ny)"},  // too short to guess
      {"[grid]\nnx = 8\nny = 6\nsteps = 3\n", "p.toml:4: unknown key 'steps' in [grid]: it belongs in [flow]"},
      {"[grid]\nnx = 8\nny = 6\ncolour = 3\n", "p.toml:4: unknown key 'colour' in [grid] (known keys: nx, ny)"},
      {g + "viscosty = 0.1\n", "p.toml:7: unknown key 'viscosty' in [flow]; did you mean 'viscosity'?"},
      {g + "[edges]\ntpo = \"wall\"\n", "p.toml:8: unknown key 'tpo' in [edges]; did you mean 'top'?"},
      {g + "[edges]\ntop = \"wal\"\n",
       "p.toml:8: top must be \"periodic\", \"wall\", \"free_slip\" or a table such as { wall_velocity = [0.1, 0.0] }, got \"wal\"; "
       "did you mean \"wall\"?"},
      {g + "[edges]\ntop = \"wall_velocity\"\n", "p.toml:8: top = \"wall_velocity\" needs its value: write top = { wall_velocity = ... }"},
      {g + "[edges]\ntop = { wall_speed = [0.1, 0] }\n",
       "p.toml:8: unknown key 'wall_speed' in top = { ... } (known keys: wall_velocity, inlet_velocity, outlet_density, sponge, "
       "temperature, heat_flux)"},
      {g + "[[obstacle]]\ncircel = { center = [1, 1], radius = 1 }\n", "p.toml:8: unknown key 'circel' in [[obstacle]]; did you mean 'circle'?"},
      {g + "[[obstacle]]\ncircle = { centre = [1, 1], radius = 1 }\n", "p.toml:8: unknown key 'centre' in circle; did you mean 'center'?"},
      {g + "[obstacle]\ncircle = { center = [1, 1], radius = 1 }\n",
       "p.toml:7: obstacle must be [[obstacle]] (an array of tables, one shape each), not [obstacle]"},
      // Values.
      {"[grid]\nnx = 8.5\nny = 6\n", "p.toml:2: nx must be an integer, got 8.5"},
      {"[grid]\nnx = \"8\"\nny = 6\n", "p.toml:2: nx must be an integer, got \"8\""},
      {"[grid]\nnx = 8\n[flow]\n", "p.toml:1: [grid] needs ny"},
      {"[grid]\nnx = 99999999999\nny = 6\n", "p.toml:2: nx must be an integer below 2^31, got 99999999999"},
      {"[grid]\nnx = 1\nny = 6\n[flow]\nsteps = 1\nomega = 1\n", "p.toml:2: nx must be at least 2, got 1"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nomega = 1\n", "p.toml:4: [flow] needs steps"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 0\nomega = 1\n", "p.toml:5: steps must be positive, got 0"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\n", "p.toml:4: [flow] needs one of omega, viscosity or reynolds (with velocity and length)"},
      {g + "viscosity = 0.1\n", "p.toml:7: viscosity and omega (line 6) both set the viscosity: give exactly one of omega, viscosity or reynolds"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nomega = 2.0\n", "p.toml:6: omega must lie in (0, 2), got 2"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nomega = nan\n", "p.toml:6: omega must be a finite number, got nan"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nviscosity = -0.1\n", "p.toml:6: viscosity must be positive, got -0.1"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nviscosity = 1e-20\n",
       "p.toml:6: viscosity 1e-20 gives omega = 1 / (3 * viscosity + 0.5) = 2, which must lie in (0, 2)"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nreynolds = 100.0\nvelocity = 0.1\n",
       "p.toml:6: reynolds needs length as well (viscosity = velocity * length / reynolds)"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nreynolds = 100.0\nvelocity = 0.6\nlength = 6\n",
       "p.toml:7: velocity 0.6 is not below the lattice speed of sound 1/sqrt(3) = 0.57735"},
      {"[grid]\nnx = 8\nny = 6\n[flow]\nsteps = 5\nreynolds = 100.0\nvelocity = 0.1\nlength = 0\n",
       "p.toml:8: length must be positive, got 0"},
      {g + "velocity = 0.1\n", "p.toml:7: velocity goes with reynolds (viscosity = velocity * length / reynolds); with omega it means nothing: remove it"},
      {g + "density = 0\n", "p.toml:7: density must be positive, got 0"},
      {g + "body_force = [1e-5]\n", "p.toml:7: body_force must be a pair [x, y], got [1e-05]"},
      {g + "body_force = [1e-5, \"0\"]\n", "p.toml:7: body_force[1] must be a number, got \"0\""},
      {g + "accel = inf\n", "p.toml:7: accel must be a finite number, got inf"},
      // Edges.
      {g + "[edges]\ntop = \"wall\"\n",
       "p.toml:8: top is a wall but bottom is periodic (the default): periodic edges come in pairs, left with right and bottom with top"},
      {g + "[edges]\nleft = \"periodic\"\nright = { outlet_density = 1.0 }\n",
       "p.toml:9: right is an outlet but left is periodic (line 8): periodic edges come in pairs, left with right and bottom with top"},
      {g + "[edges]\nbottom = { inlet_velocity = [0, 0.1] }\n",
       "p.toml:8: bottom is an inlet but top is periodic (the default): periodic edges come in pairs, left with right and bottom with top"},
      {g + "[edges]\nbottom = { inlet_velocity = { parabolic = 0.1 } }\ntop = { outlet_density = 1.0 }\n"
           "left = { outlet_density = 1.0 }\nright = \"wall\"\n",
       "p.toml:8: a parabolic inlet flows between walls: left and right must be walls, not an outlet"},
      {g + "[edges]\nright = { outlet_density = 0.0 }\nleft = \"wall\"\n", "p.toml:8: outlet_density must be positive, got 0"},
      {g + "[edges]\nleft = \"wall\"\nright = \"wall\"\n[[obstacle]]\nname = \"b\"\nwall_velocity = [0.1, 0]\n"
           "rectangle = { from = [2, 2], to = [3, 3] }\n[[obstacle]]\nname = \"b\"\nwall_velocity = [0.2, 0]\n"
           "rectangle = { from = [5, 2], to = [5, 3] }\n",
       "p.toml:16: body b moves at [0.1, 0] and at [0.2, 0]: a body's shapes share one motion"},
      {g + "[edges]\ntop = { wall_velocity = [0.5, 0.5] }\nbottom = \"wall\"\n",
       "p.toml:8: wall_velocity [0.5, 0.5] has speed 0.7071, not below the lattice speed of sound 1/sqrt(3) = 0.57735"},
      {g + "[edges]\ntop = { wall_velocity = [0.1, 0], outlet_density = 1.0 }\nbottom = \"wall\"\n",
       "p.toml:8: top has both wall_velocity and outlet_density: give one per edge"},
      {g + "[edges]\ntop = {}\nbottom = \"wall\"\n",
       "p.toml:8: top = {} needs one of wall_velocity, inlet_velocity or outlet_density"},
      // Sponges.
      {g + "[edges]\nleft = \"wall\"\nright = { outlet_density = 1.0, sponge = 2 }\n",
       "p.toml:9: a sponge relaxes toward the far field, the inlet's velocity at the outlet's density: it needs one edge with an "
       "inlet_velocity and one with an outlet_density"},
      {g + "[edges]\nleft = { inlet_velocity = [0.1, 0] }\nright = { inlet_velocity = [-0.1, 0] }\n"
           "bottom = { outlet_density = 1.0, sponge = 2 }\ntop = { outlet_density = 1.0 }\n",
       "p.toml:10: a sponge relaxes toward the far field, the inlet's velocity at the outlet's density: it needs one edge with an "
       "inlet_velocity and one with an outlet_density"},
      {g + "[edges]\nleft = { inlet_velocity = [0.1, 0] }\nright = { outlet_density = 1.0 }\n"
           "bottom = { outlet_density = 1.01 }\ntop = { outlet_density = 1.0, sponge = 2 }\n",
       "p.toml:11: a sponge's far field has one density, but the outlets' differ (1 and 1.01)"},
      {g + "[edges]\ntop = { wall_velocity = [0.1, 0], sponge = 2 }\nbottom = \"wall\"\n",
       "p.toml:8: sponge absorbs at an open edge: it goes with inlet_velocity or outlet_density, not a moving wall"},
      {g + "[edges]\ntop = \"wall\"\nbottom = { wall_velocity = [0.1, 0], sponge = 2 }\n",
       "p.toml:9: sponge absorbs at an open edge: it goes with inlet_velocity or outlet_density, not a moving wall"},
      {g + "[edges]\nleft = { inlet_velocity = [0.1, 0] }\nright = { outlet_density = 1.0, sponge = 0 }\n",
       "p.toml:9: sponge must be a width in cells, at least 1, got 0"},
      {g + "[edges]\nleft = { inlet_velocity = [0.1, 0] }\nright = { outlet_density = 1.0, sponge = 2.5 }\n",
       "p.toml:9: sponge must be an integer, got 2.5"},
      {g + "[edges]\nleft = { inlet_velocity = [0.1, 0], sponge = 4 }\nright = { outlet_density = 1.0, sponge = 5 }\n",
       "p.toml:9: the sponges (4 + 5 cells) are wider than the grid (nx = 8)"},
      {g + "[edges]\nleft = { sponge = 4 }\nright = { outlet_density = 1.0 }\n",
       "p.toml:8: sponge absorbs at an open edge: it goes with inlet_velocity or outlet_density, not periodic"},
      {g + "[edges]\ntop = 1\n",
       "p.toml:8: top must be \"periodic\", \"wall\", \"free_slip\" or a table such as { wall_velocity = [0.1, 0.0] }, got 1"},
      // Obstacles.
      {g + "[[obstacle]]\n", "p.toml:7: [[obstacle]] needs one of circle, rectangle or mask"},
      {g + "[[obstacle]]\ncircle = { center = [1, 1], radius = 1 }\nmask = \"m.png\"\n",
       "p.toml:9: [[obstacle]] has both circle and mask: one shape per [[obstacle]]"},
      {g + "[[obstacle]]\ncircle = { center = [1, 1], radius = 0 }\n", "p.toml:8: radius must be positive, got 0"},
      {g + "[[obstacle]]\ncircle = { center = [1, 1] }\n", "p.toml:8: circle needs radius"},
      {g + "[[obstacle]]\ncircle = [1, 1, 1]\n", "p.toml:8: circle must be a table { center = [x, y], radius = r }, got [1, 1, 1]"},
      {g + "[[obstacle]]\ncircle = { center = [20, 20], radius = 1.5 }\n",
       "p.toml:8: circle center = [20, 20], radius = 1.5 covers no cell of the grid (cells are at whole (i, j), 0 <= i < 8, 0 <= j < 6)"},
      {g + "[[obstacle]]\nrectangle = { from = [1, 1], to = [8, 2] }\n",
       "p.toml:8: rectangle to = [8, 2] is outside the grid: i must lie in [0, 7] and j in [0, 5]"},
      {g + "[[obstacle]]\nrectangle = { from = [-1, 1], to = [3, 2] }\n",
       "p.toml:8: rectangle from = [-1, 1] is outside the grid: i must lie in [0, 7] and j in [0, 5]"},
      {g + "[[obstacle]]\nrectangle = { from = [1.5, 1], to = [3, 2] }\n", "p.toml:8: from[0] must be an integer, got 1.5"},
      {g + "[[obstacle]]\nrectangle = { from = [4, 1], to = [3, 2] }\n",
       "p.toml:8: rectangle from = [4, 1] lies right of or above to = [3, 2]: from is the lower-left cell, to the upper-right"},
      {g + "[[obstacle]]\nmask = 3\n", "p.toml:8: mask must be the name of a PNG file (relative to this file), got 3"},
      {g + "[[obstacle]]\nrectangle = { from = [0, 0], to = [7, 5] }\n", "p.toml:8: every cell is blocked; there is no fluid to simulate"},
  };
  for (const auto& [text, expected] : cases) {
    CAPTURE(text);
    CHECK(problem_error(text) == expected);
  }
  // Control characters in the file are escaped: one line.
  CHECK(problem_error("[grid]\nnx = 8\nny = 6\n\"a\\nb\" = 1\n") == "p.toml:4: unknown key 'a\\nb' in [grid] (known keys: nx, ny)");
}

TEST_CASE("problem file: the documented example and inputs/examples/*.toml parse") {
  const std::string doc = slurp(D2Q9_SOURCE_DIR "/docs/problem-files.md");
  const auto start = doc.find("```toml\n");
  REQUIRE(start != std::string::npos);
  const auto end = doc.find("```\n", start + 8);
  REQUIRE(end != std::string::npos);
  TempDir dir;
  const Problem example = [&] {
    const std::string text = doc.substr(start + 8, end - start - 8);
    dir.write("example.toml", text);
    const int nx = parse_problem_file(text.substr(0, text.find("[[obstacle]]")), "x.toml").params.nx;
    const int ny = parse_problem_file(text.substr(0, text.find("[[obstacle]]")), "x.toml").params.ny;
    write_png(dir.file("shape.png"), nx, ny, PNG_FORMAT_GRAY, std::vector<std::uint8_t>(static_cast<std::size_t>(nx) * ny, 255));
    return read_problem_file(dir.file("example.toml"));
  }();
  CHECK(example.params.extensions.moving_walls());
  CHECK(example.mask.fluid_cells() < example.mask.kinds.size());
  CHECK(example.final_state == FinalStateFormat::Vti);

  for (const char* name : {"cavity", "poiseuille", "couette", "cylinder"}) {
    CAPTURE(name);
    const Problem p = read_problem_file(std::string(D2Q9_SOURCE_DIR "/inputs/examples/") + name + ".toml");
    CHECK(p.mask.fluid_cells() > 0);
    const std::string n = name;
    CHECK(p.params.extensions.moving_walls() == (n == "cavity" || n == "couette"));
    CHECK(p.params.extensions.forced() == (n == "poiseuille"));
    CHECK(p.params.extensions.open() == (n == "cylinder"));
  }
  // The heat examples: a heated cavity and a heated cylinder in cross-flow.
  for (const char* name : {"heated-cavity", "heated-cylinder"}) {
    CAPTURE(name);
    const Problem p = read_problem_file(std::string(D2Q9_SOURCE_DIR "/inputs/examples/") + name + ".toml");
    CHECK(p.mask.fluid_cells() > 0);
  }
  // The turning bodies are curved moving walls.
  for (const char* name : {"rotating-cylinder", "stirred-cavity"}) {
    CAPTURE(name);
    const Problem p = read_problem_file(std::string(D2Q9_SOURCE_DIR "/inputs/examples/") + name + ".toml");
    CHECK(p.params.extensions.curved_walls);
    REQUIRE(p.params.extensions.wall_rotations.size() == 2);  // number 0 (no moving edge) and the body's
    CHECK(p.params.extensions.wall_rotations[1].omega > 0.0);
  }
}

TEST_CASE("problem file: extensions_fingerprint tells every extension apart") {
  std::vector<Extensions> all(11);
  all[1].wall_velocities = {{0.1, 0.0}};
  all[2].wall_velocities = {{0.0, 0.1}};
  all[3].body_force = {1e-6, 0.0};
  all[4].open_boundaries = {OpenBoundary{}};
  all[5].open_boundaries = {OpenBoundary{OpenBoundary::Kind::PressureOutlet, Edge::Right, {}, false, 1.0, 0}};
  // What the first checkpoints could not hold: inlets and outlets on other
  // edges, more wall velocities, free-slip walls.
  all[6].open_boundaries = {OpenBoundary{OpenBoundary::Kind::VelocityInlet, Edge::Bottom, {}, false, 1.0, 0}};
  all[7].open_boundaries = {OpenBoundary{OpenBoundary::Kind::PressureOutlet, Edge::Top, {}, false, 1.0, 0}};
  all[8].open_boundaries = {OpenBoundary{OpenBoundary::Kind::VelocityInlet, Edge::Right, {}, false, 1.0, 0}};
  all[9].wall_velocities = {{0.1, 0.0}, {0.0, 0.1}};
  all[10].free_slip = true;
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = 0; b < all.size(); ++b) CHECK((extensions_fingerprint(all[a]) == extensions_fingerprint(all[b])) == (a == b));
  CHECK(extensions_fingerprint(Extensions{}) == 0xb52ea91c8e5ca66dULL);  // the same on every machine and build
}

// A differentially heated cavity: walls all round, the left one hot, the right one cold.
const std::string kHeatedCavity = R"([grid]
nx = 20
ny = 18
[flow]
steps = 100
viscosity = 0.02
[edges]
left = { temperature = 0.5 }
right = { temperature = -0.5 }
bottom = "wall"
top = "wall"
[heat]
prandtl = 0.71
rayleigh = 1e4
length = 16
temperature_difference = 1.0
)";

TEST_CASE("problem file: [heat] with prandtl and rayleigh gives the diffusivity, the buoyancy and heated walls of their own numbers") {
  const Problem p = parse_problem_file(kHeatedCavity, "p.toml");
  const Extensions& e = p.params.extensions;
  CHECK(e.heat);
  CHECK(e.planes() == 9 + kHeatSpeeds);
  const double nu = (1.0 / p.params.omega - 0.5) / 3.0;
  const double alpha = nu / 0.71;
  CHECK(e.diffusivity == doctest::Approx(alpha).epsilon(1e-14));
  CHECK(e.thermal_omega() == doctest::Approx(1.0 / (3.0 * alpha + 0.5)).epsilon(1e-14));
  CHECK(e.thermal_collision == CollisionOperator::Bgk);
  // Ra = g beta dT L^3 / (nu alpha); buoyancy = -density g beta (0, -1).
  const double g_beta = 1e4 * nu * alpha / (1.0 * 16.0 * 16.0 * 16.0);
  CHECK(e.buoyancy.x == 0.0);
  CHECK(e.buoyancy.y == doctest::Approx(g_beta).epsilon(1e-12));
  CHECK(e.buoyant());
  CHECK(e.heat_length == 16.0);
  CHECK(e.temperature_difference == 1.0);
  CHECK(e.initial_temperature == 0.0);
  CHECK(e.reference_temperature == 0.0);
  CHECK_FALSE(e.moving_walls());  // heated walls at rest are static walls
  // The heated edges are static walls of numbers of their own, never 0; the
  // plain walls (corners included: bottom and top win them) are number 0.
  const std::uint8_t left = cell(p.mask, 0, 5), right = cell(p.mask, 19, 5);
  CHECK(cell_kind(left) == kWall);
  CHECK(cell_kind(right) == kWall);
  const int hot = cell_number(left), cold = cell_number(right);
  CHECK(hot > 0);
  CHECK(cold > 0);
  CHECK(hot != cold);
  for (int j = 1; j < 17; ++j) {
    CAPTURE(j);
    CHECK(cell(p.mask, 0, j) == left);
    CHECK(cell(p.mask, 19, j) == right);
  }
  for (int i = 0; i < 20; ++i) {
    CAPTURE(i);
    CHECK(cell(p.mask, i, 0) == kWall);
    CHECK(cell(p.mask, i, 17) == kWall);
  }
  CHECK(cell_body(left, e.measured_bodies) == 0);  // not a measured body
  REQUIRE(e.thermal_walls.size() == static_cast<std::size_t>(std::max(hot, cold) + 1));
  CHECK(e.thermal_walls[hot] == ThermalWall{ThermalWall::Kind::Temperature, 0.5});
  CHECK(e.thermal_walls[cold] == ThermalWall{ThermalWall::Kind::Temperature, -0.5});
  CHECK(e.thermal_wall(0) == ThermalWall{});
  CHECK(p.mask.fluid_cells() == 18 * 16);

  // gravity names only the direction with rayleigh; the default one is [0, -1].
  std::string sideways = kHeatedCavity;
  sideways += "gravity = [-3.0, 0.0]\n";
  const Extensions& s = parse_problem_file(sideways, "p.toml").params.extensions;
  CHECK(s.buoyancy.x == doctest::Approx(g_beta).epsilon(1e-12));
  CHECK(s.buoyancy.y == 0.0);
}

TEST_CASE("problem file: [heat] with gravity and expansion, an inlet's temperature, a moving heated lid and a heat flux") {
  const Problem p = parse_problem_file(std::string(kGridFlow) +  // lines 1-6
                                           "density = 0.9\n"
                                           "[edges]\nleft = { inlet_velocity = [0.05, 0.0], temperature = 2.0 }\n"
                                           "right = { outlet_density = 1.0 }\nbottom = { temperature = 3.5 }\n"
                                           "top = { wall_velocity = [0.02, 0.0], heat_flux = 1e-4 }\n"
                                           "[heat]\ndiffusivity = 0.05\ncollision = \"trt\"\nmagic = 0.1875\ninitial = 1.0\n"
                                           "gravity = [0.0, -1e-3]\nexpansion = 0.2\n",
                                       "p.toml");
  const Extensions& e = p.params.extensions;
  CHECK(e.heat);
  CHECK(e.diffusivity == 0.05);
  CHECK(e.thermal_collision == CollisionOperator::Trt);
  CHECK(e.thermal_magic == 0.1875);
  CHECK(e.collision == CollisionOperator::Bgk);  // the flow's is its own
  CHECK(e.buoyancy == Vec2{0.0, -0.9 * 0.2 * -1e-3});
  CHECK(e.initial_temperature == 1.0);
  CHECK(e.reference_temperature == 1.0);  // the initial one by default
  CHECK(e.heat_length == 6.0);            // ny by default
  CHECK(e.temperature_difference == 1.5);  // 3.5 - 2: the temperatures given
  REQUIRE(e.open_at(Edge::Left) != nullptr);
  CHECK(e.open_at(Edge::Left)->temperature == 2.0);
  // Bottom (line 11) then top (line 12): heated walls take numbers from 1, never 0.
  CHECK(cell(p.mask, 3, 0) == cell_byte(kWall, 1));
  CHECK(cell(p.mask, 3, 5) == cell_byte(kMovingWall, 2));
  CHECK(e.wall_velocities == std::vector<Vec2>{{}, {}, {0.02, 0.0}});
  CHECK(e.thermal_walls == std::vector<ThermalWall>{{}, {ThermalWall::Kind::Temperature, 3.5}, {ThermalWall::Kind::HeatFlux, 1e-4}});

  // An inlet without a temperature brings [heat]'s initial one; reference and
  // temperature_difference as given; a moving lid without heat keeps number 0.
  const Extensions& f = parse_problem_file(std::string(kGridFlow) +
                                               "[edges]\nleft = { inlet_velocity = [0.05, 0.0] }\nright = { outlet_density = 1.0 }\n"
                                               "bottom = \"wall\"\ntop = { wall_velocity = [0.02, 0.0] }\n"
                                               "[heat]\ndiffusivity = 0.05\ninitial = -1.5\nreference = 0.25\n"
                                               "temperature_difference = 2\n",
                                           "p.toml")
                            .params.extensions;
  CHECK(f.open_at(Edge::Left)->temperature == -1.5);
  CHECK(f.reference_temperature == 0.25);
  CHECK(f.temperature_difference == 2.0);
  CHECK(f.buoyancy == Vec2{});
  CHECK_FALSE(f.buoyant());
  CHECK(f.wall_velocities == std::vector<Vec2>{{0.02, 0.0}});
  CHECK(f.thermal_walls.empty());  // every wall adiabatic
}

TEST_CASE("problem file: heated obstacles: a measured body keeps its number, others take their own") {
  const Problem p = parse_problem_file(
      "[grid]\nnx = 30\nny = 20\n[flow]\nsteps = 1\nomega = 1\n[edges]\nbottom = \"wall\"\ntop = \"wall\"\n"
      "[[obstacle]]\nname = \"heater\"\nheat_flux = 0.001\ncircle = { center = [6, 10], radius = 2 }\n"
      "[[obstacle]]\nname = \"heater\"\nheat_flux = 0.001\nrectangle = { from = [10, 9], to = [11, 10] }\n"
      "[[obstacle]]\ntemperature = -1\nrectangle = { from = [15, 9], to = [16, 10] }\n"
      "[[obstacle]]\nrectangle = { from = [20, 9], to = [21, 10] }\n"
      "[[obstacle]]\nwall_velocity = [0.0, 0.01]\ntemperature = -1\nrectangle = { from = [25, 9], to = [26, 10] }\n"
      "[heat]\ndiffusivity = 0.1\n",
      "p.toml");
  const Extensions& e = p.params.extensions;
  CHECK(e.measured_bodies == 1);
  CHECK(cell(p.mask, 6, 10) == cell_byte(kWall, 1));
  CHECK(cell(p.mask, 10, 9) == cell_byte(kWall, 1));
  CHECK(cell(p.mask, 15, 9) == cell_byte(kWall, 2));
  CHECK(cell_body(cell(p.mask, 15, 9), e.measured_bodies) == 0);  // heated, not measured
  CHECK(cell(p.mask, 20, 9) == kWall);
  CHECK(cell(p.mask, 25, 9) == cell_byte(kMovingWall, 3));  // moving: its own number, not the static one's
  CHECK(cell(p.mask, 3, 0) == kWall);
  CHECK(e.thermal_walls == std::vector<ThermalWall>{{},
                                                    {ThermalWall::Kind::HeatFlux, 0.001},
                                                    {ThermalWall::Kind::Temperature, -1.0},
                                                    {ThermalWall::Kind::Temperature, -1.0}});
  CHECK(e.wall_velocities == std::vector<Vec2>{{}, {}, {}, {0.0, 0.01}});
  CHECK(e.temperature_difference == 1.0);  // one temperature: no difference, so 1
  CHECK(p.measure.bodies == std::vector<std::string>{"heater"});
}

TEST_CASE("problem file: [heat]'s errors and the thermal keys' name the file and line") {
  const std::string g = kGridFlow;  // lines 1-6
  const std::string walls = "[edges]\nleft = \"wall\"\nright = \"wall\"\n";  // lines 7-9
  const std::pair<std::string, std::string> cases[] = {
      {g + "[edges]\nleft = { temperature = 1.0 }\nright = \"wall\"\n",
       "p.toml:8: temperature needs a [heat] table (the temperature lattice)"},
      {g + "[[obstacle]]\nheat_flux = 0.1\nrectangle = { from = [3, 2], to = [3, 2] }\n",
       "p.toml:8: heat_flux needs a [heat] table (the temperature lattice)"},
      {g + "[heat]\ndiffusivity = 0.1\nprandtl = 0.7\n",
       "p.toml:9: prandtl and diffusivity (line 8) both set the diffusivity: give one of diffusivity or prandtl"},
      {g + "[heat]\ninitial = 1\n", "p.toml:7: [heat] needs diffusivity or prandtl (diffusivity = viscosity / prandtl)"},
      {g + "[heat]\ndiffusivity = 0.1\nexpansion = 0.01\n",
       "p.toml:9: expansion needs gravity = [gx, gy] as well (buoyancy = -density * expansion * gravity)"},
      {g + "[heat]\ndiffusivity = 0.1\ngravity = [0, -0.001]\n",
       "p.toml:9: gravity needs expansion = beta (buoyancy = -density * expansion * gravity), or rayleigh with length and "
       "temperature_difference"},
      {g + "[heat]\nprandtl = 0.71\nrayleigh = 1e4\ntemperature_difference = 1\n",
       "p.toml:9: rayleigh needs length as well (g * expansion = rayleigh * viscosity * diffusivity / (temperature_difference * "
       "length^3))"},
      {g + "[heat]\nprandtl = 0.71\nrayleigh = 1e4\n",
       "p.toml:9: rayleigh needs length and temperature_difference as well (g * expansion = rayleigh * viscosity * diffusivity / "
       "(temperature_difference * length^3))"},
      {g + "[heat]\nprandtl = 0.71\nrayleigh = 1e4\nlength = 4\ntemperature_difference = 1\ngravity = [0, 0]\nexpansion = 0.1\n",
       "p.toml:13: expansion and rayleigh (line 9) both set the buoyancy: give gravity with expansion, or rayleigh with length "
       "and temperature_difference"},
      {g + "[heat]\nprandtl = 0.71\nrayleigh = 1e4\nlength = 4\ntemperature_difference = 1\ngravity = [0, 0]\n",
       "p.toml:12: gravity [0, 0] has no direction: with rayleigh it gives gravity's direction only"},
      {g + "[edges]\nleft = { inlet_velocity = [0.05, 0], heat_flux = 0.1 }\nright = { outlet_density = 1.0 }\n"
           "[heat]\ndiffusivity = 0.1\n",
       "p.toml:8: heat_flux is a wall's: an inlet brings the flow in at its temperature = T"},
      {g + "[edges]\nleft = { inlet_velocity = [0.05, 0] }\nright = { outlet_density = 1.0, temperature = 1 }\n"
           "[heat]\ndiffusivity = 0.1\n",
       "p.toml:9: an outlet carries the temperature out; it takes no temperature"},
      {g + "[edges]\nleft = { temperature = 1, heat_flux = 0.1 }\nright = \"wall\"\n[heat]\ndiffusivity = 0.1\n",
       "p.toml:8: left has both temperature and heat_flux: a wall holds a temperature or lets a heat flux in, not both"},
      {g + "[[obstacle]]\nheat_flux = 0.1\ntemperature = 1\nrectangle = { from = [3, 2], to = [3, 2] }\n[heat]\ndiffusivity = 0.1\n",
       "p.toml:9: [[obstacle]] has both heat_flux and temperature: a wall holds a temperature or lets a heat flux in, not both"},
      {g + "[edges]\nleft = { temperature = \"hot\" }\nright = \"wall\"\n[heat]\ndiffusivity = 0.1\n",
       "p.toml:8: temperature must be a number, got \"hot\""},
      {g + "[edges]\nleft = { temperature = 1, sponge = 2 }\nright = \"wall\"\n[heat]\ndiffusivity = 0.1\n",
       "p.toml:8: sponge absorbs at an open edge: it goes with inlet_velocity or outlet_density, not a wall"},
      {g + "[heat]\ndiffusivity = 0.1\ncollision = \"regularised\"\n",
       "p.toml:9: collision = \"regularised\" is the flow's only: the temperature lattice collides by \"bgk\" or \"trt\""},
      {g + "[heat]\ndiffusivity = 0.1\ncollision = \"mrt\"\n", "p.toml:9: collision must be \"bgk\" or \"trt\", got \"mrt\""},
      {g + "[heat]\ndiffusivity = 0.1\nmagic = 0.25\n", "p.toml:9: magic is TRT's parameter: it goes with collision = \"trt\""},
      {g + "[heat]\ndiffusivity = 0\n", "p.toml:8: diffusivity must be positive, got 0"},
      {g + "[heat]\ndiffusivity = 1e-20\n",
       "p.toml:8: diffusivity 1e-20 gives omega_T = 1 / (3 * diffusivity + 0.5) = 2, which must lie in (0, 2)"},
      {g + "[heat]\nprandtl = -1\n", "p.toml:8: prandtl must be positive, got -1"},
      {g + "[heat]\ndiffusivity = 0.1\nlength = 0\n", "p.toml:9: length must be positive, got 0"},
      {g + "[heat]\ndiffusivity = 0.1\ndifusivity = 0.1\n", "p.toml:9: unknown key 'difusivity' in [heat]; did you mean 'diffusivity'?"},
      {g + "[heta]\ndiffusivity = 0.1\n", "p.toml:7: unknown table [heta]; did you mean [heat]?"},
      {"heat = 1\n" + g, "p.toml:1: heat must be a table, [heat] with diffusivity or prandtl, got 1"},
      {g + "prandtl = 0.71\n", "p.toml:7: unknown key 'prandtl' in [flow]: it belongs in [heat]"},
      {g + walls + "[[obstacle]]\nname = \"b\"\nheat_flux = 0.1\nrectangle = { from = [2, 2], to = [3, 3] }\n"
                   "[[obstacle]]\nname = \"b\"\nrectangle = { from = [5, 2], to = [5, 3] }\n[heat]\ndiffusivity = 0.1\n",
       "p.toml:16: body b has heat_flux = 0.1 (line 12) and no temperature or heat_flux: a body's shapes share one thermal boundary"},
  };
  for (const auto& [text, expected] : cases) {
    CAPTURE(text);
    CHECK(problem_error(text) == expected);
  }
}

TEST_CASE("problem file: without [heat] nothing is heated and fingerprints are as before [heat] existed") {
  const std::string g = kGridFlow;
  // Fingerprints of problems without [heat], pinned before [heat] was parsed.
  const std::pair<std::string, std::uint64_t> pinned[] = {
      {g, 0xb52ea91c8e5ca66dULL},
      {g + "[edges]\nleft = \"wall\"\nright = \"wall\"\nbottom = \"wall\"\ntop = { wall_velocity = [0.1, 0.0] }\n",
       0x309dadc7b2bf28e4ULL},
      {g + "[edges]\nleft = { inlet_velocity = [0.05, 0.0] }\nright = { outlet_density = 1.0 }\nbottom = \"wall\"\ntop = \"wall\"\n"
           "[[obstacle]]\nname = \"c\"\ncircle = { center = [3, 3], radius = 1 }\n",
       0x08bb73b6d1541c2dULL},
      {g + "collision = \"trt\"\n[edges]\nbottom = { wall_velocity = [0.05, 0] }\ntop = { wall_velocity = [-0.05, 0.0] }\n"
           "[[obstacle]]\nwall_velocity = [0, 0.01]\nrectangle = { from = [3, 2], to = [4, 3] }\n",
       0xa54b9ffa9d3cf0e5ULL},
  };
  for (const auto& [text, fingerprint] : pinned) {
    CAPTURE(text);
    const Problem p = parse_problem_file(text, "p.toml");
    CHECK_FALSE(p.params.extensions.heat);
    CHECK(p.params.extensions.planes() == 9);
    CHECK(p.params.extensions.thermal_walls.empty());
    CHECK(extensions_fingerprint(p.params.extensions) == fingerprint);
  }
  // With [heat], the same problem is another one.
  const Extensions heated = parse_problem_file(pinned[1].first + "[heat]\ndiffusivity = 0.1\n", "p.toml").params.extensions;
  CHECK(heated.heat);
  CHECK(extensions_fingerprint(heated) != pinned[1].second);
}

TEST_CASE("problem file: extensions_fingerprint tells every heat setting apart") {
  Extensions heat;
  heat.heat = true;
  heat.diffusivity = 0.1;
  std::vector<Extensions> all(14, heat);
  all[0] = Extensions{};
  all[2].diffusivity = 0.2;
  all[3].thermal_collision = CollisionOperator::Trt;
  all[4].thermal_collision = CollisionOperator::Trt;
  all[4].thermal_magic = 0.1875;
  all[5].buoyancy = {0.0, 1e-5};
  all[6].reference_temperature = 0.5;
  all[7].initial_temperature = 0.5;
  all[8].thermal_walls = {{}, {ThermalWall::Kind::Temperature, 1.0}};
  all[9].thermal_walls = {{}, {ThermalWall::Kind::HeatFlux, 1.0}};
  all[10].open_boundaries = {OpenBoundary{}};
  all[11].open_boundaries = {OpenBoundary{}};
  all[11].open_boundaries[0].temperature = 1.0;
  all[12].heat_length = 10.0;
  all[13].temperature_difference = 2.0;
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = 0; b < all.size(); ++b) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK((extensions_fingerprint(all[a]) == extensions_fingerprint(all[b])) == (a == b));
    }
}

TEST_CASE("problem file: the settings a checkpoint records tell every heat setting apart, and none without heat") {
  Extensions heat;
  heat.heat = true;
  heat.diffusivity = 0.1;
  std::vector<Extensions> all(14, heat);
  all[0] = Extensions{};
  all[2].diffusivity = 0.2;
  all[3].thermal_collision = CollisionOperator::Trt;
  all[4].thermal_collision = CollisionOperator::Trt;
  all[4].thermal_magic = 0.1875;
  all[5].buoyancy = {0.0, 1e-5};
  all[6].reference_temperature = 0.5;
  all[7].initial_temperature = 0.5;
  all[8].thermal_walls = {{}, {ThermalWall::Kind::Temperature, 1.0}};
  all[9].thermal_walls = {{}, {ThermalWall::Kind::HeatFlux, 1.0}};
  all[10].open_boundaries = {OpenBoundary{}};
  all[11].open_boundaries = {OpenBoundary{}};
  all[11].open_boundaries[0].temperature = 1.0;
  all[12].heat_length = 10.0;
  all[13].temperature_difference = 2.0;
  for (std::size_t a = 0; a < all.size(); ++a)
    for (std::size_t b = 0; b < all.size(); ++b) {
      CAPTURE(a);
      CAPTURE(b);
      CHECK((problem_setting_values(all[a], {}) == problem_setting_values(all[b], {})) == (a == b));
    }
  // Without heat, heat's settings read as a record from before them lacks them: "none".
  for (const auto& [name, value] : problem_setting_values(all[0], {}))
    if (name == "heat" || name == "thermal_walls" || name == "inlet_temperatures") CHECK(value == "none");
}

TEST_CASE("problem file: the documented [heat] example parses") {
  const std::string doc = slurp(D2Q9_SOURCE_DIR "/docs/problem-files.md");
  const auto section = doc.find("## `[heat]`");
  REQUIRE(section != std::string::npos);
  const auto start = doc.find("```toml\n", section);
  REQUIRE(start != std::string::npos);
  const auto end = doc.find("```\n", start + 8);
  REQUIRE(end != std::string::npos);
  const Problem p = parse_problem_file(doc.substr(start + 8, end - start - 8), "heat.toml");
  CHECK(p.params.extensions.heat);
  CHECK(p.params.extensions.buoyant());
  CHECK(p.params.extensions.thermal_walls.size() > 1);
}

TEST_CASE("problem file: on the command line, alone, and with an obstacle file it is refused") {
  const char* alone[] = {"d2q9-bgk", "cavity.toml", "-q"};
  const Options o = parse_command_line(3, alone);
  CHECK(o.param_file == "cavity.toml");
  CHECK(o.obstacle_file == "");
  const char* two[] = {"d2q9-bgk", "cavity.toml", "obs.dat"};
  CHECK_THROWS_WITH_AS(parse_command_line(3, two),
                       "a problem file (cavity.toml) describes its obstacles itself: give it alone, without an obstacle file",
                       UsageError);
  const char* params_alone[] = {"d2q9-bgk", "in.params"};
  CHECK_THROWS_WITH_AS(parse_command_line(2, params_alone),
                       "expected two arguments: <paramfile> <obstaclefile>, or one problem file ending in .toml", UsageError);
  // A restart: the recorded problem file (recorded as the obstacle file too) alone; files given now win.
  Options given;
  given.restart_file = "ck";
  const Options resumed = resume_options(given, {{"no-png", ""}}, "/in/cavity.toml", "/in/cavity.toml");
  CHECK(resumed.param_file == "/in/cavity.toml");
  CHECK(resumed.obstacle_file == "");
  CHECK(resumed.no_png);
  given.param_file = "in.params";
  given.obstacle_file = "obs.dat";
  const Options now = resume_options(given, {}, "/in/cavity.toml", "/in/cavity.toml");
  CHECK(now.param_file == "in.params");
  CHECK(now.obstacle_file == "obs.dat");

  const Result help = d2q9::test::run_program("--help");
  CHECK(help.status == 0);
  CHECK(d2q9::test::contains(help.out, "<problem.toml>"));
  CHECK(d2q9::test::contains(help.out, "docs/problem-files.md"));
}

TEST_CASE("problem file: a run equals the same problem given as .params and obstacles") {
  TempDir dir;
  // Periodic in x, walls at the bottom and top, the coursework's push, a block and a circle.
  dir.write("p.toml", R"(# A channel
[grid]
nx = 24
ny = 12
[flow]
steps = 300
density = 0.1
omega = 1.7
accel = 0.005
length = 10
[edges]
bottom = "wall"
top = "wall"
[[obstacle]]
rectangle = { from = [5, 3], to = [7, 6] }
[[obstacle]]
circle = { center = [16, 6], radius = 1.5 }
)");
  dir.write("p.params", "24\n12\n300\n10\n0.1\n0.005\n1.7\n");
  std::string obstacles;
  for (int i = 0; i < 24; ++i) obstacles += std::to_string(i) + " 0 1\n" + std::to_string(i) + " 11 1\n";
  for (int j = 3; j <= 6; ++j)
    for (int i = 5; i <= 7; ++i) obstacles += std::to_string(i) + " " + std::to_string(j) + " 1\n";
  for (int j = 0; j < 12; ++j)
    for (int i = 0; i < 24; ++i)
      if ((i - 16) * (i - 16) + (j - 6) * (j - 6) <= 2.25) obstacles += std::to_string(i) + " " + std::to_string(j) + " 1\n";
  dir.write("p.dat", obstacles);
  const Problem problem = read_problem_file(dir.file("p.toml"));
  const Params params = read_params(dir.file("p.params"));
  CHECK(problem.mask.kinds == read_obstacles(dir.file("p.dat"), params).kinds);

  // Both final-state files (each kind of input writes one by default).
  const std::string common = " --no-png -q --final-state both";
  const Result a = run_shell("cd '" + dir.path + "' && '" D2Q9_EXE "' p.toml -o toml" + common);
  REQUIRE(a.status == 0);
  CHECK(a.err == "");
  const Result b = run_shell("cd '" + dir.path + "' && '" D2Q9_EXE "' p.params p.dat -o params" + common);
  REQUIRE(b.status == 0);
  for (const char* name : {"/final_state.dat", "/final_state.vti", "/av_vels.dat"}) {
    CAPTURE(name);
    const std::string toml_out = slurp(dir.path + "/toml" + name);
    CHECK(toml_out.size() > 1000);
    CHECK(toml_out == slurp(dir.path + "/params" + name));
  }
}

TEST_CASE("problem file: every error of a run is one line, exit status 1, and writes nothing") {
  TempDir dir;
  write_png(dir.file("shape.png"), 5, 5, PNG_FORMAT_GRAY, std::vector<std::uint8_t>(25, 0));
  const std::string g = kGridFlow;
  const std::pair<std::string, std::string> cases[] = {
      {"[grid]\nnx = 8\nny 6\n", ":3: invalid TOML: Error while parsing key-value pair: expected '=', saw '6'"},
      {g + "stesp = 1\n", ":7: unknown key 'stesp' in [flow]; did you mean 'steps'?"},
      {"[flow]\nsteps = 1\nomega = 1.0\n", ":1: no [grid] table: a problem file needs [grid] with nx and ny"},
      {g + "[edges]\nbottom = { inlet_velocity = [0, 0.05], sponge = 9 }\ntop = { outlet_density = 1.0 }\n",
       ":8: the sponges (9 + 0 cells) are wider than the grid (ny = 6)"},
      {g + "[[obstacle]]\nmask = \"shape.png\"\n",
       ":8: mask " + dir.file("shape.png") + ": the picture is 5x5 pixels, but the grid is 8x6 cells: a mask needs one pixel per cell"},
      {g + "[edges]\nleft = \"wall\"\n",
       ":8: left is a wall but right is periodic (the default): periodic edges come in pairs, left with right and bottom with top"},
      {g + "[edges]\nright = { inlet_velocity = [0.05, 0.0] }\n",
       ":8: right is an inlet but left is periodic (the default): periodic edges come in pairs, left with right and bottom with top"},
  };
  for (const auto& [text, expected] : cases) {
    CAPTURE(text);
    const std::string problem = dir.write("bad.toml", text);
    TempDir out;
    const Result r = d2q9::test::run_program("'" + problem + "' -o '" + out.path + "/run'");
    CHECK(r.status == 1);
    CHECK(r.out == "");
    CHECK(r.err == "error: " + problem + expected + "\n");
    CHECK(count_lines(r.err) == 1);
    CHECK(out.listing() == "");
  }
  const Result missing = d2q9::test::run_program("'" + dir.file("none.toml") + "'");
  CHECK(missing.status == 1);
  CHECK(missing.err == "error: " + dir.file("none.toml") + ": cannot open file (No such file or directory)\n");
  // Usage: a problem file takes no obstacle file, a params file needs one.
  for (const char* args : {"a.toml b.dat", "a.params"}) {
    CAPTURE(args);
    const Result r = d2q9::test::run_program(args);
    CHECK(r.status == 2);
    CHECK(count_lines(r.err) == 1);
  }
}

TEST_CASE("problem file: a killed run restarts from its checkpoint alone, from anywhere, bit for bit") {
  TempDir dir, elsewhere;
  // Walls all round, the coursework's push, a mask picture beside the problem file.
  std::vector<std::uint8_t> pixels(32 * 20, 255);
  for (int y = 8; y < 12; ++y)
    for (int x = 10; x < 14; ++x) pixels[x + y * 32] = 0;
  write_png(dir.file("block.png"), 32, 20, PNG_FORMAT_GRAY, pixels);
  const std::string text = "[grid]\nnx = 32\nny = 20\n[flow]\nsteps = 60000\ndensity = 0.1\nomega = 1.6\naccel = 0.005\n"
                           "[edges]\nleft = \"wall\"\nright = \"wall\"\nbottom = \"wall\"\ntop = \"wall\"\n"
                           "[[obstacle]]\nmask = \"block.png\"\n";
  dir.write("p.toml", text);
  const std::string exe = D2Q9_EXE;
  const std::string options = " -b reference -q --no-png";
  // Killed (SIGKILL) once its first checkpoint is there.
  const Result killed = run_shell("cd '" + dir.path + "' && { '" + exe + "' p.toml -o killed --checkpoint-every 500" + options +
                                  " & pid=$!; while [ ! -e killed/checkpoint.d2q9 ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; "
                                  "kill -9 $pid; wait $pid; }");
  REQUIRE_MESSAGE(killed.status == 128 + 9, "the run ended before it was killed: give it more steps");
  const std::string checkpoint = dir.file("killed/checkpoint.d2q9");
  const Checkpoint c = read_checkpoint(checkpoint);
  CHECK(c.run.param_file == dir.file("p.toml"));
  CHECK(c.run.obstacle_file == dir.file("p.toml"));
  CHECK(c.run.param_hash == file_hash(dir.file("p.toml")));
  CHECK(c.run.obstacle_hash == extensions_fingerprint(Extensions{}));
  CHECK(c.step() > 0);
  CHECK(c.step() < 60000);

  // --restart alone, from another directory: the recorded problem file, its mask and output directory.
  Result r = run_shell("cd '" + elsewhere.path + "' && '" + exe + "' --restart '" + checkpoint + "'");
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  CHECK(elsewhere.listing() == "");
  const Result whole = run_shell("cd '" + dir.path + "' && '" + exe + "' p.toml -o whole" + options);
  REQUIRE(whole.status == 0);
  for (const char* name : {"/final_state.vti", "/av_vels.dat"}) {
    CAPTURE(name);
    CHECK(slurp(dir.path + "/killed" + name).size() > 1000);
    CHECK(slurp(dir.path + "/killed" + name) == slurp(dir.path + "/whole" + name));
  }

  // The checkpoint is gone once the run finished; write it again to restart from an edited problem file.
  write_checkpoint(checkpoint, c);
  dir.write("p.toml", "# the same problem\n" + text);
  r = run_shell("'" + exe + "' --restart '" + checkpoint + "' -o '" + elsewhere.path + "'");
  CHECK(r.status == 0);
  CHECK(r.err == "warning: " + dir.file("p.toml") + ": changed since the checkpoint was written, but describes the same problem\n");
  // A body force is not in the checkpoint's header, but its run record keeps what problem files add.
  std::string forced = text;
  forced.insert(forced.find("[edges]"), "body_force = [1e-6, 0.0]\n");
  dir.write("p.toml", forced);
  r = run_shell("'" + exe + "' --restart '" + checkpoint + "' -o '" + elsewhere.path + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + checkpoint + ": checkpoint does not match the inputs: it was written for body_force = [0, 0], "
                                          "but " + dir.file("p.toml") + " gives body_force = [1e-06, 0]\n");
  // A checkpoint of a .params run had none of them either; one from before
  // settings were recorded is compared by its fingerprint.
  Checkpoint from_params = c;
  from_params.run.param_file = "/elsewhere/in.params";
  from_params.run.obstacle_file = "/elsewhere/obs.dat";
  from_params.run.settings.clear();
  write_checkpoint(checkpoint, from_params);
  r = run_shell("'" + exe + "' --restart '" + checkpoint + "' '" + dir.file("p.toml") + "' -o '" + elsewhere.path + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + checkpoint + ": checkpoint does not match the inputs: it was written for another wall velocity, "
                                          "body force, inlet, outlet or collision than " + dir.file("p.toml") + " gives\n");
  dir.write("p.toml", text);
  r = run_shell("'" + exe + "' --restart '" + checkpoint + "' '" + dir.file("p.toml") + "' -o '" + elsewhere.path + "'");
  CHECK(r.status == 0);
  CHECK(r.err == "");  // another kind of file than the recorded one: no word about its contents
  CHECK(slurp(elsewhere.file("final_state.vti")) == slurp(dir.path + "/whole/final_state.vti"));
  write_checkpoint(checkpoint, c);
  // Other obstacles are refused as for an obstacles file.
  pixels[5 + 5 * 32] = 0;
  write_png(dir.file("block.png"), 32, 20, PNG_FORMAT_GRAY, pixels);
  dir.write("p.toml", text);
  r = run_shell("'" + exe + "' --restart '" + checkpoint + "' -o '" + elsewhere.path + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + checkpoint + ": checkpoint does not match the inputs: it was written for different obstacles than " +
                     dir.file("p.toml") + "\n");
}

TEST_SUITE_END();
