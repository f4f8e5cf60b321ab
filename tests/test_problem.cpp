#include <doctest/doctest.h>

#include <sys/stat.h>

#include "helpers.hpp"
#include "problem/problem.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;
using d2q9::test::TempDir;

namespace {

std::string params_error(const std::string& text) {
  try {
    parse_params(text, "p.params");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string obstacles_error(const std::string& text, int nx = 8, int ny = 6) {
  Params p;
  p.nx = nx;
  p.ny = ny;
  try {
    parse_obstacles(text, "o.dat", p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("read_params reads the seven values in coursework order") {
  const Params p = parse_params("128\n256\n40000\n10\n0.1\n0.005\n1.85\n", "p.params");
  CHECK(p.nx == 128);
  CHECK(p.ny == 256);
  CHECK(p.max_iters == 40000);
  CHECK(p.reynolds_dim == 10);
  CHECK(p.density == 0.1);
  CHECK(p.accel == 0.005);
  CHECK(p.omega == 1.85);
  CHECK(p.viscosity() == doctest::Approx((2.0 / 1.85 - 1.0) / 6.0));
  // Any whitespace separates values.
  CHECK(parse_params("4 5 6 7 1e-1 0 1.0", "p").ny == 5);
}

TEST_CASE("read_params rejects bad files with file:line and the problem") {
  CHECK(params_error("128\n128\n40000\n10\n0.1\n0.005\n") ==
        "p.params:6: missing value for omega (expected 7 values: nx ny maxIters reynolds_dim density accel omega)");
  CHECK(params_error("") == "p.params:1: missing value for nx (expected 7 values: nx ny maxIters reynolds_dim density accel omega)");
  CHECK(params_error("1 2 3 4 5 6 7\n8\n").find("p.params:2: unexpected extra value '8'") == 0);
  CHECK(params_error("128\n12x8\n1\n1\n1\n1\n1\n") == "p.params:2: ny must be an integer, got '12x8'");
  CHECK(params_error("128\n128\n1.5\n1\n1\n1\n1\n") == "p.params:3: maxIters must be an integer, got '1.5'");
  CHECK(params_error("8 8 10 10 0.1 abc 1.85") == "p.params:1: accel must be a finite number, got 'abc'");
  CHECK(params_error("8 8 10 10 0.1 nan 1.85") == "p.params:1: accel must be a finite number, got 'nan'");
  CHECK(params_error("0 8 10 10 0.1 0.005 1.85") == "p.params:1: nx must be at least 2, got '0'");
  CHECK(params_error("8 -3 10 10 0.1 0.005 1.85") == "p.params:1: ny must be at least 2, got '-3'");
  CHECK(params_error("8 8 0 10 0.1 0.005 1.85") == "p.params:1: maxIters must be positive, got '0'");
  CHECK(params_error("8 8 10 10 0.1 0.005 2") == "p.params:1: omega must lie in (0, 2), got '2'");
  CHECK(params_error("8 8 10 10 0.1 0.005 0") == "p.params:1: omega must lie in (0, 2), got '0'");
  CHECK(params_error("8 8 10 10 -0.1 0.005 1") == "p.params:1: density must be positive, got '-0.1'");
  CHECK(params_error("99999999999 8 10 10 0.1 0.005 1") == "p.params:1: nx must be an integer, got '99999999999'");
}

TEST_CASE("read_params: comment lines and a swapped obstacles file are named as such") {
  const std::string comment_hint =
      " starts a comment, but a params file has none: exactly 7 numbers, one per line (nx ny maxIters reynolds_dim "
      "density accel omega)";
  CHECK(params_error("# the 128x128 problem\n128\n128\n40000\n10\n0.1\n0.005\n1.85\n") ==
        "p.params:1: '#'" + comment_hint);
  CHECK(params_error("128\n128\n40000 % steps\n10\n0.1\n0.005\n1.85\n") == "p.params:3: '%'" + comment_hint);
  CHECK(params_error("128\n128\n40000\n10\n0.1\n0.005\n1.85\n//done\n") == "p.params:8: '//done'" + comment_hint);
  const std::string swapped =
      "p.params:1: this is an obstacles file ('x y 1' per line), not a params file: are the two files swapped? (usage: "
      "d2q9-bgk <paramfile> <obstaclefile>)";
  CHECK(params_error("0 0 1\n5 5 1\n11 9 1\n") == swapped);
  CHECK(params_error("3 4 1\n") == swapped);
  // Seven values that happen to start "x y 1" are a params file.
  CHECK(params_error("8 8 1 10 0.1 0.005 1.85\n") == "no error");
}

TEST_CASE("read_params names a missing file") {
  try {
    read_params("/nonexistent/input.params");
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "/nonexistent/input.params: cannot open file (No such file or directory)");
  }
}

TEST_CASE("read_obstacles accepts duplicate and blank lines") {
  Params p;
  p.nx = 8;
  p.ny = 6;
  const ObstacleMask m = parse_obstacles("0 0 1\n7 5 1\n\n0 0 1\n3 2 1\n", "o.dat", p);
  CHECK(m.at(0, 0));
  CHECK(m.at(7, 5));
  CHECK(m.at(3, 2));
  CHECK_FALSE(m.at(2, 3));
  CHECK(m.fluid_cells() == 48 - 3);
}

TEST_CASE("read_obstacles rejects malformed lines with file:line") {
  CHECK(obstacles_error("0 0 1\n1 2\n") == "o.dat:2: expected 'x y 1', got 2 field(s)");
  CHECK(obstacles_error("0 0 1 4\n") == "o.dat:1: expected 'x y 1', got 4 field(s)");
  CHECK(obstacles_error("a 0 1\n") == "o.dat:1: expected three integers 'x y 1', got 'a 0 1'");
  CHECK(obstacles_error("\n\n8 0 1\n") == "o.dat:3: x = 8 is outside the grid [0, 7]");
  CHECK(obstacles_error("-1 0 1\n") == "o.dat:1: x = -1 is outside the grid [0, 7]");
  CHECK(obstacles_error("0 6 1\n") == "o.dat:1: y = 6 is outside the grid [0, 5]");
  CHECK(obstacles_error("0 -1 1\n") == "o.dat:1: y = -1 is outside the grid [0, 5]");
  CHECK(obstacles_error("7 -6 1\n") == "o.dat:1: y = -6 is outside the grid [0, 5]");
  CHECK(obstacles_error("0 0 2\n") == "o.dat:1: blocked value must be 1, got 2");
  CHECK(obstacles_error("# walls\n0 0 1\n") == "o.dat:1: '#' starts a comment, but an obstacles file has none: one 'x y 1' per line");
  CHECK(obstacles_error("128\n128\n40000\n") == "o.dat:1: expected 'x y 1', got 1 field(s) (a params file? are the two files swapped?)");
  CHECK(obstacles_error("0 0 1\n1 0 1\n0 1 1\n1 1 1\n", 2, 2) == "o.dat: every cell is blocked; there is no fluid to simulate");
}

TEST_CASE("scripts/setup/make_inputs.sh reproduces the committed inputs/") {
  TempDir dir;
  REQUIRE(std::system(("'" D2Q9_SOURCE_DIR "/scripts/setup/make_inputs.sh' '" + dir.path + "'").c_str()) == 0);
  for (const char* name : {"input_128x128.params", "obstacles_128x128.dat", "input_128x256.params",
                           "obstacles_128x256.dat", "input_256x256.params", "obstacles_256x256.dat",
                           "input_1024x1024.params", "obstacles_1024x1024.dat"}) {
    CAPTURE(name);
    CHECK(d2q9::test::slurp(dir.file(name)) == d2q9::test::slurp(std::string(D2Q9_SOURCE_DIR "/inputs/") + name));
  }
}

TEST_CASE("the generated problems are the coursework's problems") {
  const Params p = read_params(D2Q9_SOURCE_DIR "/inputs/input_128x256.params");
  CHECK(p.nx == 128);
  CHECK(p.ny == 256);
  CHECK(p.max_iters == 40000);
  const ObstacleMask m = read_obstacles(D2Q9_SOURCE_DIR "/inputs/obstacles_128x256.dat", p);
  // Side columns over the full height and the whole row y = 127; rows 0 and 255 open between the columns.
  CHECK(m.at(0, 255));
  CHECK(m.at(127, 0));
  CHECK(m.at(64, 127));
  CHECK_FALSE(m.at(64, 0));
  CHECK_FALSE(m.at(64, 255));
  CHECK(m.fluid_cells() == 126u * 255u);

  const Params big = read_params(D2Q9_SOURCE_DIR "/inputs/input_1024x1024.params");
  CHECK(big.max_iters == 20000);
  CHECK(big.accel == 0.01);
  const ObstacleMask bm = read_obstacles(D2Q9_SOURCE_DIR "/inputs/obstacles_1024x1024.dat", big);
  CHECK(bm.at(341, 500));
  CHECK_FALSE(bm.at(340, 500));
  CHECK(bm.fluid_cells() == 1022u * 1022u - 1022u);

  // Beside a clone, ../shared/coursework holds the original files: the same sets of blocked cells.
  const std::string shared = D2Q9_SOURCE_DIR "/../shared/coursework";
  if (!std::ifstream(shared + "/obstacles_128x128.dat")) {
    MESSAGE("skipped comparison with the coursework's own files: " << shared << " is not present");
    return;
  }
  for (const char* size : {"128x128", "128x256", "256x256", "1024x1024"}) {
    CAPTURE(size);
    const Params ours = read_params(std::string(D2Q9_SOURCE_DIR "/inputs/input_") + size + ".params");
    const Params theirs = read_params(shared + "/input_" + size + ".params");
    CHECK(ours.nx == theirs.nx);
    CHECK(ours.ny == theirs.ny);
    CHECK(ours.max_iters == theirs.max_iters);
    CHECK(ours.reynolds_dim == theirs.reynolds_dim);
    CHECK(ours.density == theirs.density);
    CHECK(ours.accel == theirs.accel);
    CHECK(ours.omega == theirs.omega);
    CHECK(read_obstacles(std::string(D2Q9_SOURCE_DIR "/inputs/obstacles_") + size + ".dat", ours).kinds ==
          read_obstacles(shared + "/obstacles_" + size + ".dat", theirs).kinds);
  }
}

TEST_CASE("inputs must be regular files of sane size: directories, FIFOs, devices and huge files are refused") {
  d2q9::test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const d2q9::Params p = d2q9::test::make_params(8, 8, 1);
  CHECK_THROWS_WITH_AS(d2q9::read_params(dir.path), doctest::Contains(": not a regular file (a directory)"),
                       d2q9::InputError);
  CHECK_THROWS_WITH_AS(d2q9::read_obstacles(dir.path, p), doctest::Contains("not a regular file (a directory)"),
                       d2q9::InputError);
  CHECK_THROWS_WITH_AS(d2q9::read_obstacles(fifo, p), doctest::Contains("not a regular file (a FIFO)"),
                       d2q9::InputError);  // would wait for a writer if opened
  CHECK_THROWS_WITH_AS(d2q9::read_params("/dev/zero"), doctest::Contains("not a regular file (a device or socket)"),
                       d2q9::InputError);
  // A params file can need a few hundred bytes; an obstacle file a few lines per cell.
  const std::string big = dir.write("big.params", std::string(d2q9::kMaxParamsBytes + 1, ' '));
  CHECK_THROWS_WITH_AS(d2q9::read_params(big), doctest::Contains("bytes, more than the 1048576 this input can need"),
                       d2q9::InputError);
  const std::string many = dir.write("many.dat", std::string((1 << 20) + 256 * 64 + 1, '\n'));
  CHECK_THROWS_WITH_AS(d2q9::read_obstacles(many, p), doctest::Contains("this input can need"), d2q9::InputError);
  const std::string fine = dir.write("fine.dat", std::string((1 << 20) + 256 * 64, '\n'));
  CHECK(d2q9::read_obstacles(fine, p).fluid_cells() == 64);
}

TEST_SUITE_END();
