// Grids split across MPI ranks: the slab arithmetic, and d2q9-bgk under
// mpirun (2 and 3 ranks, oversubscribed on PoCL) against one rank, byte for byte.
#include <doctest/doctest.h>

#include <regex>

#include <sys/wait.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "views_helpers.hpp"
#include "sim/backend.hpp"
#include "device/kernel_source.hpp"
#include "io/checkpoint.hpp"
#include "io/fields.hpp"
#include "io/output.hpp"
#include "io/picture.hpp"
#include "problem/stability.hpp"
#include "device/slab_layout.hpp"
#include "device/step_loop.hpp"
#include "reference/reference_solver.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L mpi
TEST_SUITE_BEGIN("mpi");

using namespace d2q9;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

// A .pvti as write_pvti writes it: the whole extent, the arrays it lists, and
// each piece's rows and file. Throws on anything else.
struct PvtiPiece {
  int first_row, last_row;
  std::string source;
};
struct PvtiFile {
  std::string whole_extent;
  std::vector<std::string> names, types;  // each PDataArray's, in file order
  std::vector<PvtiPiece> pieces;
};

PvtiFile read_pvti(const std::string& path) {
  const std::string xml = slurp(path);
  if (xml.rfind("<?xml version=\"1.0\"?>\n", 0) != 0) throw std::runtime_error(path + ": no XML declaration");
  std::size_t at = 0;
  const auto file = test::xml_element(xml, "VTKFile", 0, at);
  test::expect_attribute(file, "type", "PImageData");
  test::expect_attribute(file, "byte_order", "LittleEndian");
  test::expect_attribute(file, "header_type", "UInt64");
  const auto image = test::xml_element(xml, "PImageData", at, at);
  test::expect_attribute(image, "GhostLevel", "0");
  test::expect_attribute(image, "Origin", "0 0 0");
  test::expect_attribute(image, "Spacing", "1 1 1");
  PvtiFile p;
  p.whole_extent = image.at("WholeExtent");
  const std::size_t data_end = xml.find("</PPointData>", at);
  if (data_end == std::string::npos) throw std::runtime_error(path + ": no </PPointData>");
  while (xml.find("<PDataArray ", at) < data_end) {
    const auto array = test::xml_element(xml, "PDataArray", at, at);
    p.names.push_back(array.at("Name"));
    p.types.push_back(array.at("type"));
  }
  while (xml.find("<Piece ", at) != std::string::npos) {
    const auto piece = test::xml_element(xml, "Piece", at, at);
    int x0, x1, y0, y1, z0, z1;
    if (std::sscanf(piece.at("Extent").c_str(), "%d %d %d %d %d %d", &x0, &x1, &y0, &y1, &z0, &z1) != 6 || x0 != 0 ||
        z0 != 0 || z1 != 0)
      throw std::runtime_error(path + ": unexpected piece extent '" + piece.at("Extent") + "'");
    p.pieces.push_back({y0, y1, piece.at("Source")});
  }
  if (xml.find("</PImageData>\n</VTKFile>\n", at) == std::string::npos) throw std::runtime_error(path + ": not closed");
  return p;
}

// A piece: its rows [first_row, last_row] (its WholeExtent and Piece
// extent alike) and its arrays, parsed strictly by read_vti.
struct VtiPiece {
  int first_row = 0, last_row = 0;
  test::VtiImage image;
};

VtiPiece read_piece(const std::string& path) {
  VtiPiece v;
  v.image = test::read_vti(path);
  v.first_row = v.image.first_row;
  v.last_row = v.image.first_row + v.image.ny - 1;
  return v;
}

struct StateLine {
  double ux, uy, speed, pressure;
  int obstacle;
};

// final_state.dat by cell index ii + jj*nx.
std::vector<StateLine> read_state(const std::string& path, int nx, int ny) {
  std::vector<StateLine> cells(static_cast<std::size_t>(nx) * ny);
  std::istringstream in(slurp(path));
  int ii, jj, lines = 0;
  StateLine l{};
  while (in >> ii >> jj >> l.ux >> l.uy >> l.speed >> l.pressure >> l.obstacle) cells.at(ii + jj * nx) = l, ++lines;
  REQUIRE(lines == nx * ny);
  return cells;
}

// Bit for bit: a wall's NaN temperature (heat) is its own.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// A .vti value of `type` against final_state.dat's, which prints 13 significant digits.
bool close(const std::string& type, double a, double b) {
  return test::vti_close(type, a, b, 1e-12 * std::fmax(std::fabs(b), 1e-3));
}

// `dir`/NAME.pvti and its pieces against the one-process .vti of the same run
// (`whole`, bit for bit) and final_state.dat (to its 13 digits; `state`
// empty: not read, as a problem with heat's eighth column is not): the pieces
// lie in rank order on the rows `rows` gives, each sharing its last row with
// the next one's first, and together cover the grid.
void check_pvti(const std::string& dir, const std::string& name, const std::vector<std::pair<int, int>>& rows,
                const test::VtiImage& whole, const std::vector<StateLine>& state) {
  const PvtiFile p = read_pvti(dir + "/" + name + ".pvti");
  CHECK(p.whole_extent == whole.whole_extent);
  CHECK(p.names == whole.names);
  for (std::size_t i = 0; i < p.names.size() && i < p.types.size(); ++i)
    CHECK_MESSAGE(p.types[i] == whole.arrays.at(p.names[i]).type, p.names[i]);
  REQUIRE(p.pieces.size() == rows.size());
  CHECK(p.pieces.front().first_row == 0);
  CHECK(p.pieces.back().last_row == whole.ny - 1);
  int mismatches = 0, points = 0;
  for (std::size_t r = 0; r < p.pieces.size(); ++r) {
    CAPTURE(r);
    const PvtiPiece& piece = p.pieces[r];
    CHECK(piece.source == name + "_" + std::to_string(r) + ".vti");
    CHECK(std::make_pair(piece.first_row, piece.last_row) == rows[r]);
    if (r + 1 < p.pieces.size()) CHECK(p.pieces[r + 1].first_row == piece.last_row);  // one shared row
    const VtiPiece v = read_piece(dir + "/" + piece.source);
    CHECK(v.first_row == piece.first_row);
    CHECK(v.last_row == piece.last_row);
    CHECK(v.image.nx == whole.nx);
    CHECK(v.image.names == whole.names);
    for (int jj = v.first_row; jj <= v.last_row; ++jj)
      for (int ii = 0; ii < whole.nx; ++ii, ++points) {
        const std::size_t local = ii + static_cast<std::size_t>(jj - v.first_row) * whole.nx;
        const std::size_t global = ii + static_cast<std::size_t>(jj) * whole.nx;
        for (const std::string& array : whole.names) {
          const int c = whole.arrays.at(array).components;
          for (int k = 0; k < c; ++k)
            mismatches += !same_bits(v.image.arrays.at(array).values.at(c * local + k), whole.arrays.at(array).values[c * global + k]);
        }
        if (state.empty()) continue;
        const auto& a = v.image.arrays;
        const std::string& type = a.at("density").type;
        const StateLine& s = state[global];
        mismatches += !close(type, a.at("velocity").values[3 * local], s.ux) +
                      !close(type, a.at("velocity").values[3 * local + 1], s.uy) +
                      (a.at("velocity").values[3 * local + 2] != 0.0) + !close(type, a.at("speed").values[local], s.speed) +
                      !close(type, a.at("density").values[local], 3.0 * s.pressure) +
                      (a.at("obstacle").values[local] != s.obstacle);
      }
  }
  CHECK(points == whole.nx * (whole.ny + static_cast<int>(rows.size()) - 1));  // each shared row twice
  CHECK(mismatches == 0);
}

const char* const kPvtiParams = "24\n30\n60\n10\n0.1\n0.02\n1.7\n";
const char* const kPvtiObstacles = "0 0 1\n5 5 1\n14 9 1\n15 9 1\n14 15 1\n20 29 1\n12 28 1\n";

}  // namespace

TEST_CASE("mpi outputs: a state cut into slabs gives one process's final_state.dat, fields and picture, bit for bit") {
  // What each rank computes of its rows, put together, against the whole grid.
  const Params p = test::make_params(13, 11, 40, 0.02);
  const ObstacleMask m = test::test_obstacles(p);
  ReferenceSolver<double> solver(p, m);
  std::vector<double> av_vels;
  solver.run(p.max_iters, av_vels);
  const std::vector<double> f = solver.distributions();
  TempDir dir;
  std::FILE* out = std::fopen(dir.file("final_state.dat").c_str(), "w");
  write_final_state(out, p, m, f);
  std::fclose(out);
  const std::string whole_text = slurp(dir.file("final_state.dat"));
  REQUIRE(test::count_lines(whole_text) == 13 * 11);
  const FlowFields whole = flow_fields(p, m, f);
  const ColourRange speed_range = own_range(PictureField::Speed, whole, m);
  const ColourRange vorticity_range = own_range(PictureField::Vorticity, whole, m);
  REQUIRE(speed_range.high > 1e-4);
  REQUIRE(vorticity_range.high > 1e-5);
  const std::size_t n = p.cells();
  for (const std::vector<int>& heights : std::vector<std::vector<int>>{{11}, {5, 6}, {1, 4, 5, 1}, {10, 1}, {1, 10}}) {
    CAPTURE(heights.size());
    CAPTURE(heights.front());
    // Each slab's rows, as a rank holds them.
    std::vector<StateRows> slabs;
    for (int h : heights) {
      StateRows s{slabs.empty() ? 0 : slabs.back().first_row + slabs.back().rows, h, {}};
      for (int k = 0; k < kSpeeds; ++k)
        s.f.insert(s.f.end(), f.begin() + k * n + s.first_row * p.nx, f.begin() + k * n + (s.first_row + h) * p.nx);
      slabs.push_back(std::move(s));
    }
    std::vector<FlowFields> fields;
    for (const StateRows& s : slabs) fields.push_back(velocity_fields(p, m, s));
    const std::size_t count = slabs.size();
    std::string text;
    FlowFields joined;
    std::vector<Rgb> speed_colours, vorticity_colours;
    double largest_speed = 0.0, largest_w = 0.0;
    for (std::size_t r = 0; r < count; ++r) {
      // The neighbours' edge rows, periodic in y, as exchange_with_neighbours passes them.
      const FlowFields& below = fields[(r + count - 1) % count];
      const FlowFields& above = fields[(r + 1) % count];
      FlowFields mine = fields[r];
      add_vorticity(mine, m, velocity_row(below, below.first_row + below.ny - 1), velocity_row(above, above.first_row));
      text += final_state_lines(p, m, slabs[r], slabs[r].first_row, slabs[r].first_row + slabs[r].rows);
      CHECK(unstable_cell(p, m, slabs[r]) == "");
      for (auto array : {&FlowFields::ux, &FlowFields::uy, &FlowFields::speed, &FlowFields::density, &FlowFields::vorticity})
        (joined.*array).insert((joined.*array).end(), (mine.*array).begin(), (mine.*array).end());
      largest_speed = std::max(largest_speed, own_range(PictureField::Speed, mine, m).high);
      largest_w = std::max(largest_w, own_range(PictureField::Vorticity, mine, m).high);
      const auto s = cell_colours(PictureField::Speed, mine, m, speed_range);
      const auto w = cell_colours(PictureField::Vorticity, mine, m, vorticity_range);
      speed_colours.insert(speed_colours.end(), s.begin(), s.end());
      vorticity_colours.insert(vorticity_colours.end(), w.begin(), w.end());
    }
    CHECK(text == whole_text);
    CHECK(joined.ux == whole.ux);
    CHECK(joined.uy == whole.uy);
    CHECK(joined.speed == whole.speed);
    CHECK(joined.density == whole.density);
    CHECK(joined.vorticity == whole.vorticity);
    CHECK(largest_speed == speed_range.high);
    CHECK(largest_w == vorticity_range.high);
    CHECK(render_cells(PictureField::Speed, 13, 11, speed_colours, speed_range).pixels ==
          render_picture(PictureField::Speed, whole, m, speed_range).pixels);
    CHECK(render_cells(PictureField::Vorticity, 13, 11, vorticity_colours, vorticity_range, "step 40").pixels ==
          render_picture(PictureField::Vorticity, whole, m, vorticity_range, "step 40").pixels);
  }
  // An unstable cell is named in grid coordinates, as check_distributions names it.
  std::vector<double> broken = f;
  broken[3 * n + 7 + 8 * p.nx] = -1.0;
  StateRows upper{6, 5, {}};
  for (int k = 0; k < kSpeeds; ++k)
    upper.f.insert(upper.f.end(), broken.begin() + k * n + 6 * p.nx, broken.begin() + k * n + 11 * p.nx);
  std::string expected;
  try {
    check_distributions(p, m, broken, 40);
  } catch (const InstabilityError& e) {
    expected = e.what();
  }
  REQUIRE(expected.find("at cell (7, 8)") != std::string::npos);
  CHECK(InstabilityError(40, unstable_cell(p, m, upper)).what() == expected);
}

TEST_CASE("pvti: one process writes one piece, the grid's whole extent, with the .vti's values") {
  TempDir in, out;
  const std::string inputs =
      "'" + in.write("in.params", kPvtiParams) + "' '" + in.write("obs.dat", kPvtiObstacles) + "' ";
  const test::Result vti = test::run_program(inputs + "-q --no-png -o '" + out.path + "' --vtk s.vti");
  REQUIRE_MESSAGE(vti.status == 0, vti.err);
  const test::Result pvti = test::run_program(inputs + "-q --no-png -o '" + out.path + "' --vtk s.pvti");
  REQUIRE_MESSAGE(pvti.status == 0, pvti.err);
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\ns.pvti\ns.vti\ns_0.vti\n");
  const test::VtiImage whole = test::read_vti(out.file("s.vti"));
  CHECK(whole.whole_extent == "0 23 0 29 0 0");
  check_pvti(out.path, "s", {{0, 29}}, whole, read_state(out.file("final_state.dat"), 24, 30));
  // The one piece is the .vti itself.
  CHECK(slurp(out.file("s_0.vti")) == slurp(out.file("s.vti")));
}

TEST_CASE("mpi slabs: an even split in whole work-group rows, lower slabs taking the spare ones") {
  auto heights = [](const std::vector<Slab>& slabs) {
    std::vector<int> h;
    int next = 0;
    for (const Slab& s : slabs) {
      CHECK(s.first_row == next);
      next += s.rows;
      h.push_back(s.rows);
    }
    return h;
  };
  CHECK(heights(split_rows(30, 2, 1)) == std::vector<int>{15, 15});
  CHECK(heights(split_rows(30, 4, 1)) == std::vector<int>{8, 8, 7, 7});
  // 30 rows in groups of 4: 8 group rows, the last one half full.
  CHECK(heights(split_rows(30, 3, 4)) == std::vector<int>{12, 12, 6});
  CHECK(heights(split_rows(8192, 2, 1)) == std::vector<int>{4096, 4096});
  CHECK(heights(split_rows(5, 5, 1)) == std::vector<int>{1, 1, 1, 1, 1});
  CHECK(heights(split_rows(7, 1, 2)) == std::vector<int>{7});
  CHECK_THROWS_WITH_AS(split_rows(30, 3, 15), doctest::Contains("cannot split 30 rows into 3 slabs"),
                       std::invalid_argument);
}

TEST_CASE("mpi slabs: given heights must cover the grid in whole work-group rows") {
  const auto slabs = slabs_from_heights({12, 17, 1}, 30, 3, 1);
  REQUIRE(slabs.size() == 3);
  CHECK(slabs[1].first_row == 12);
  CHECK(slabs[2].first_row == 29);
  CHECK(slabs_from_heights({8, 8, 6}, 22, 3, 4)[2].rows == 6);  // only the top slab may end part-way
  CHECK_THROWS_WITH_AS(slabs_from_heights({15, 15}, 30, 3, 1), doctest::Contains("2 slab height(s) for 3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(slabs_from_heights({10, 10}, 30, 2, 1), doctest::Contains("adds up to 20 rows"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(slabs_from_heights({6, 24}, 30, 2, 4), doctest::Contains("not a multiple of the work-group"),
                       std::invalid_argument);
}

TEST_CASE("mpi slabs: kernel rows in local numbering, and who owns the accelerated row") {
  // ny = 30: row 28 is accelerated; local row = global - first_row + 1 (row 0 is the halo).
  const SlabRows middle = slab_kernel_rows({12, 17}, 30);
  CHECK(middle.first_row == 1);
  CHECK(middle.last_row == 17);
  CHECK(middle.accel_row == 28 - 12 + 1);
  CHECK(slab_kernel_rows({29, 1}, 30).accel_row == -1);
  CHECK(slab_kernel_rows({0, 12}, 30).accel_row == -1);
  CHECK(slab_kernel_rows({0, 30}, 30).accel_row == 29);

  const Params p = d2q9::test::make_params(24, 19, 1);
  const auto d = kernel_defines(p, Precision::Float, LocalSize{8, 1}, 1, middle);
  const std::vector<std::string> tail(d.end() - 5, d.end());
  CHECK(tail == std::vector<std::string>{"FIRST_ROW=1", "LAST_ROW=17", "ACCEL_ROW=17", "GRID_NY=30", "ROW_OFFSET=11"});
  // Without a slab nothing changes for the single-device kernels.
  CHECK(kernel_defines(p, Precision::Float, LocalSize{8, 1}).size() == d.size() - 5);
}

TEST_CASE("mpi slabs: blocked slabs are whole tile rows with halo rows as deep as the steps per launch") {
  LaunchPlan blocked;
  blocked.variant = KernelVariant::Blocked;
  blocked.local = {256, 1};
  blocked.block_steps = 4;
  blocked.tile = {8, 4};
  blocked.groups_x = 3;
  LaunchPlan fused;
  fused.local = {8, 1};
  // The depth, decided once: the steps per launch for blocked, one otherwise.
  CHECK(slab_halo_rows(blocked) == 4);
  CHECK(slab_halo_rows(fused) == 1);
  // Slab edges on tile rows (4 rows each): 8 tile rows for 3 ranks.
  const RowUnit unit = slab_row_unit(blocked);
  CHECK(unit.height == 4);
  CHECK(unit.tiles);
  const auto slabs = split_rows(30, 3, unit);
  REQUIRE(slabs.size() == 3);
  CHECK(slabs[0].rows == 12);
  CHECK(slabs[1].rows == 12);
  CHECK(slabs[2].rows == 6);
  CHECK_THROWS_WITH_AS(split_rows(30, 9, unit), doctest::Contains("slabs of whole tile rows (8 rows of tiles of height 4)"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(slabs_from_heights({10, 10, 10}, 30, 3, unit),
                       doctest::Contains("slab 0 has 10 rows, not a multiple of the tile height 4"), std::invalid_argument);
  // Each slab gives its neighbours as many rows as their halos take.
  CHECK_NOTHROW(check_slabs_hold_halos(slabs, 4));
  CHECK_THROWS_WITH_AS(check_slabs_hold_halos(slabs_from_heights({24, 4, 2}, 30, 3, unit), 4),
                       doctest::Contains("slab 2 has 2 row(s), fewer than the 4 halo rows"), std::invalid_argument);
  // Own rows from lattice row 4; row 28 (accelerated) is lattice row 28 - 24 + 4 of the top slab.
  const SlabRows middle = slab_kernel_rows(slabs[1], 30, 4);
  CHECK(middle.first_row == 4);
  CHECK(middle.last_row == 15);
  CHECK(middle.accel_row == -1);
  CHECK(middle.row_offset == 8);
  CHECK(slab_kernel_rows(slabs[2], 30, 4).accel_row == 8);
  // The kernel build: the slab mode with the grid's rows, ROW_OFFSET unset.
  const Params p = d2q9::test::make_params(24, 30, 1);
  const auto d = kernel_defines(p, Precision::Float, blocked, middle);
  const std::vector<std::string> tail(d.end() - 7, d.end());
  CHECK(tail == std::vector<std::string>{"FIRST_ROW=4", "LAST_ROW=15", "ACCEL_ROW=-1", "BLOCKED_SLAB=1", "GRID_NY=30",
                                         "SLAB_ROW0=8", "SLAB_GROUPS=9"});
  // The lattice: 12 own rows and 4 halo rows each side, the bottom slab's
  // lower halo the grid's top rows (periodic), the mask's rows with them.
  ObstacleMask mask(24, 30);
  for (int y = 0; y < 30; ++y) mask.kinds[static_cast<std::size_t>(y) * 24] = static_cast<unsigned char>(y + 1);
  const DeviceLattice lattice = device_lattice(p, mask, Precision::Float, blocked, slabs[0]);
  CHECK(lattice.halo_depth == 4);
  CHECK(lattice.lattice.ny == 12 + 8);
  CHECK(lattice.rows() == 12);
  CHECK(lattice.first_own_row() == 4);
  CHECK(lattice.obstacles.kinds[0] == 27);              // lattice row 0: grid row 26
  CHECK(lattice.obstacles.kinds[4 * 24] == 1);          // row 4: grid row 0
  CHECK(lattice.obstacles.kinds[19 * 24] == 16);        // row 19: grid row 15
  CHECK(device_lattice(p, mask, Precision::Float, fused, slabs[0]).lattice.ny == 12 + 2);
  // Edge buffers: all nine planes of 4 rows; fused keeps its three speeds of one row.
  CHECK(edge_buffer_bytes(4, 9, 96) == 9 * 4 * 96);
  CHECK(edge_buffer_bytes(1, 9, 96) == 3 * 96);
  // With heat: all fourteen planes of 4 rows; one row adds D2Q5's north- or south-going plane.
  CHECK(edge_buffer_bytes(4, 14, 96) == 14 * 4 * 96);
  CHECK(edge_buffer_bytes(1, 14, 96) == 4 * 96);
  const HaloSpeeds heat = halo_speeds(1, 14);
  CHECK(std::vector<int>(heat.up, heat.up + heat.count) == std::vector<int>{2, 5, 6, 11});
  CHECK(std::vector<int>(heat.down, heat.down + heat.count) == std::vector<int>{4, 7, 8, 13});
  const HaloSpeeds deep = halo_speeds(4, 14);
  CHECK(std::vector<int>(deep.up, deep.up + deep.count) == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
  CHECK_THROWS_AS(halo_speeds(1, 10), std::invalid_argument);
}

#ifndef D2Q9_MPIEXEC

TEST_CASE("mpi runs: not built") {
  D2Q9_SKIP("built without MPI (D2Q9_MPI=OFF or no MPI found): the mpirun tests do not run; install libopenmpi-dev "
          "openmpi-bin and reconfigure");
}

#else

namespace {

struct Result {
  int status;
  std::string out;
  std::string err;
};

Result run_shell(const std::string& command) {
  TempDir io;
  const std::string cmd = command + " >'" + io.file("out") + "' 2>'" + io.file("err") + "' </dev/null";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(io.file("out")), slurp(io.file("err"))};
}

Result run_ranks(int ranks, const std::string& args) {
  return run_shell(d2q9::test::mpirun_command(ranks) + " '" + D2Q9_EXE + "' " + args);
}

Result run_alone(const std::string& args) { return run_shell(std::string("'") + D2Q9_EXE + "' " + args); }

std::vector<std::string> error_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("error:", 0) == 0) lines.push_back(line);
  return lines;
}

// 24x30, 200 steps: walls left, right and below, a diagonal bar and small
// blocks crossing every slab edge of the splits below, two cells in the
// accelerated row 28, one in the top row.
struct Problem {
  TempDir dir;
  std::string params, obstacles;
  Problem() {
    params = dir.write("in.params", "24\n30\n200\n10\n0.1\n0.02\n1.7\n");
    std::set<std::pair<int, int>> cells;
    for (int x = 0; x < 24; ++x) cells.insert({x, 0});
    for (int y = 0; y < 30; ++y) cells.insert({0, y}), cells.insert({23, y});
    for (int y = 3; y < 27; ++y) cells.insert({3 + y * 15 / 27, y});
    for (int x = 14; x < 17; ++x)
      for (int y : {9, 10, 11, 12, 14, 15, 19, 20, 23, 24}) cells.insert({x, y});
    cells.insert({12, 28});
    cells.insert({5, 28});
    cells.insert({20, 29});
    std::string text;
    for (const auto& [x, y] : cells) text += std::to_string(x) + " " + std::to_string(y) + " 1\n";
    obstacles = dir.write("obs.dat", text);
  }
  std::string inputs() const { return "'" + params + "' '" + obstacles + "'"; }
};

// One rank's files against `ranks` ranks' files, same shape and options;
// `local` empty: the launch left to auto (fused-rows on a CPU device, for
// one process and for the slabs alike).
void check_identical(int ranks, const std::string& local, const std::string& extra) {
  CAPTURE(ranks);
  CAPTURE(local);
  CAPTURE(extra);
  const Problem problem;
  TempDir one, many;
  // --slab-rows means nothing to one process, which refuses it.
  const std::string single_extra = std::regex_replace(extra, std::regex("--slab-rows [0-9,]+"), "");
  const std::string launch = local.empty() ? "" : "-l " + local;
  const Result single = run_alone("-q " + launch + (local.empty() ? "" : " --kernel-variant fused") + " -o '" +
                                  one.path + "' " + single_extra + " " + problem.inputs());
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const Result split = run_ranks(ranks, launch + " -o '" + many.path + "' " + extra + " " + problem.inputs());
  REQUIRE_MESSAGE(split.status == 0, split.err);
  CHECK(split.out.find("MPI ranks:\t\t\t" + std::to_string(ranks)) != std::string::npos);
  if (local.empty())
    CHECK(split.out.find("local size 1x1, fused-rows)\nLaunch:\t\t\t\tfused-rows: the default on CPU devices") !=
          std::string::npos);
  const std::string av = slurp(one.file("av_vels.dat"));
  REQUIRE(std::count(av.begin(), av.end(), '\n') == 200);
  CHECK(std::strtod(av.substr(av.rfind('\t', av.size() - 2)).c_str(), nullptr) > 1e-4);  // the flow moves
  CHECK(slurp(many.file("av_vels.dat")) == av);
  const std::string state = slurp(one.file("final_state.dat"));
  REQUIRE(std::count(state.begin(), state.end(), '\n') == 24 * 30);
  CHECK(slurp(many.file("final_state.dat")) == state);
  CHECK(many.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.png\n");  // rank 0 writes every file
  CHECK(slurp(many.file("final_state.png")) == slurp(one.file("final_state.png")));
}

}  // namespace

TEST_CASE("mpi runs: 2 ranks write the same bytes as one (rows 0-14 | 15-29)") { check_identical(2, "8x1", ""); }

TEST_CASE("mpi runs: 3 ranks write the same bytes as one (rows 0-9 | 10-19 | 20-29)") {
  check_identical(3, "8x1", "");
}

TEST_CASE("mpi runs: fused-rows, auto's choice on CPU devices, runs on the slabs and writes the same bytes as one") {
  check_identical(2, "", "");
  check_identical(3, "", "--slab-rows 12,17,1");
  check_identical(2, "", "-p double");
}

TEST_CASE("mpi runs: --backend cuda splits the grid as one CUDA device runs it, or every rank stops on one line") {
  const Problem problem;
  TempDir probe;
  const Result alone = run_alone("-q -b cuda -l 8x1 --kernel-variant fused --no-png -o '" + probe.path + "' " +
                                 problem.inputs());
  if (alone.status == 0) {
    check_identical(2, "8x1", "-b cuda");
    check_identical(3, "8x4", "-b cuda -p fp16s");
    return;
  }
  // No NVIDIA GPU (or no CUDA backend) here: the slabs fail as one process does.
  MESSAGE("the CUDA backend cannot run here, so only its failure under mpirun is checked: " << alone.err);
  TempDir out;
  const Result r = run_ranks(2, "-b cuda -l 8x1 -o '" + out.path + "' " + problem.inputs());
  CHECK(r.status == 1);
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  const std::string why = error_lines(alone.err).at(0).substr(std::string("error: ").size());
  CHECK(errors[0].find(why) != std::string::npos);
  CHECK(out.listing() == "");
}

TEST_CASE("mpi runs: 16-bit storage on the slabs writes the same bytes as one process") {
  check_identical(2, "", "-p fp16s");
  check_identical(3, "", "-p fp16c --slab-rows 12,17,1");
  check_identical(3, "8x4", "-p fp16s");
}

TEST_CASE("mpi runs: 3 ranks, accelerated row in the middle slab, one-row top slab (--slab-rows 12,17,1)") {
  check_identical(3, "8x1", "--slab-rows 12,17,1");
}

TEST_CASE("mpi runs: 3 ranks with 8x4 work-groups, the top slab ending in a partial group row") {
  check_identical(3, "8x4", "");
}

TEST_CASE("mpi runs: 2 ranks in double precision with 5x3 work-groups overhanging the grid") {
  check_identical(2, "5x3", "-p double");
}

TEST_CASE("mpi runs: a large grid (several rows per work-item) writes the same bytes on 2 ranks as on one") {
  // From 2^20 cells each work-item updates several rows; slabs must follow.
  TempDir dir, one, many;
  const std::string params = dir.write("big.params", "1024 1024 4 10 0.1 0.01 1.85\n");
  std::string walls;
  for (int i = 0; i < 1024; ++i) walls += "0 " + std::to_string(i) + " 1\n" + std::to_string(i) + " 0 1\n";
  const std::string obstacles = dir.write("big.dat", walls);
  const std::string inputs = "'" + params + "' '" + obstacles + "'";
  const Result single = run_alone("-q -l 128x1 --kernel-variant fused -o '" + one.path + "' " + inputs);
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const Result split = run_ranks(2, "-l 128x1 -o '" + many.path + "' " + inputs);
  REQUIRE_MESSAGE(split.status == 0, split.err);
  CHECK(slurp(many.file("av_vels.dat")) == slurp(one.file("av_vels.dat")));
  CHECK(slurp(many.file("final_state.dat")) == slurp(one.file("final_state.dat")));
}

// A problem file with every addition to the coursework model: an inlet and
// an outlet crossing every slab, a moving bottom wall, a body force and a
// cylinder cut by a slab edge.
const char* const kChannelWithMovingWall = R"(
[grid]
nx = 30
ny = 24
[flow]
steps = 200
viscosity = 0.04
body_force = [1.0e-5, 0.0]
[edges]
left = { inlet_velocity = [0.05, 0.0] }
right = { outlet_density = 1.0 }
bottom = { wall_velocity = [0.02, 0.0] }
top = "wall"
[[obstacle]]
circle = { center = [9.0, 11.0], radius = 3.0 }
)";

TEST_CASE("mpi runs: a problem file with moving walls, body force, inlet and outlet writes the same bytes on 3 ranks") {
  TempDir dir, one, many;
  const std::string toml = dir.write("p.toml", kChannelWithMovingWall);
  const Result single = run_alone("-q --no-png -l 8x1 --kernel-variant fused -o '" + one.path + "' '" + toml + "'");
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const Result split = run_ranks(3, "-q --no-png -l 8x1 -o '" + many.path + "' '" + toml + "'");
  REQUIRE_MESSAGE(split.status == 0, split.err);
  // A problem file's final state, final_state.vti: rank 0 gathers the ranks' fields.
  CHECK(many.listing() == "av_vels.dat\nfinal_state.vti\n");
  const test::VtiImage state = test::read_vti(one.file("final_state.vti"));
  CHECK(state.nx * state.ny == 30 * 24);
  CHECK(slurp(many.file("final_state.vti")) == slurp(one.file("final_state.vti")));
  CHECK(slurp(many.file("av_vels.dat")) == slurp(one.file("av_vels.dat")));
  // Asked for, the text too: each rank writes its rows of it (MPI-IO).
  TempDir text_one, text_many;
  REQUIRE(run_alone("-q --no-png -l 8x1 --kernel-variant fused --final-state both -o '" + text_one.path + "' '" + toml +
                    "'").status == 0);
  REQUIRE(run_ranks(3, "-q --no-png -l 8x1 --final-state both -o '" + text_many.path + "' '" + toml + "'").status == 0);
  const std::string text = slurp(text_one.file("final_state.dat"));
  REQUIRE(std::count(text.begin(), text.end(), '\n') == 30 * 24);
  CHECK(slurp(text_many.file("final_state.dat")) == text);
  CHECK(slurp(text_many.file("final_state.vti")) == slurp(one.file("final_state.vti")));
}

// A walled channel with forces, probes, TRT, a curved wall, a ramped
// parabolic inlet (whose profile reads the grid's rows) and sponges.
const char* const kChannelWithEverything = R"(
[grid]
nx = 30
ny = 24
[flow]
steps = 200
viscosity = 0.04
collision = "trt"
inlet_ramp = 80
[edges]
left = { inlet_velocity = { parabolic = 0.06 }, sponge = 4 }
right = { outlet_density = 1.0, sponge = 6 }
bottom = "wall"
top = "wall"
[[obstacle]]
name = "cylinder"
boundary = "interpolated"
circle = { center = [9.0, 11.0], radius = 3.0 }
[[obstacle]]
name = "plate"
rectangle = { from = [18, 15], to = [19, 20] }
[forces]
velocity = 0.04
length = 6
[probes]
every = 20
wake = [14, 11]
top = [25, 21]
)";

// Flow across the slabs: a parabolic inlet at the bottom and an outlet at the
// top (whose cells lie in the first and last slabs), both with sponges, which
// read the grid's rows; free-slip sides; a turning body crossing a slab edge.
const char* const kRisingWithEverything = R"(
[grid]
nx = 20
ny = 36
[flow]
steps = 150
viscosity = 0.05
[edges]
bottom = { inlet_velocity = { parabolic = 0.05 }, sponge = 5 }
top = { outlet_density = 1.0, sponge = 7 }
left = "free_slip"
right = "free_slip"
[[obstacle]]
name = "rotor"
circle = { center = [10.0, 17.5], radius = 3.5 }
angular_velocity = 0.005
[forces]
velocity = 0.05
length = 7
)";

TEST_CASE("mpi runs: inlets and outlets at the bottom and top, free-slip sides and a turning body write the same bytes on 2 and 3 ranks") {
  TempDir dir;
  const std::string toml = dir.write("p.toml", kRisingWithEverything);
  for (const char* variant : {"fused", "blocked"}) {
    CAPTURE(variant);
    TempDir one;
    const std::string launch = std::string("--kernel-variant ") + variant +
                               (std::string(variant) == "blocked" ? " --block-steps 2 --tile 8x4" : " -l 8x1");
    const Result single = run_alone("-q --no-png " + launch + " -o '" + one.path + "' '" + toml + "'");
    REQUIRE_MESSAGE(single.status == 0, single.err);
    for (int ranks : {2, 3}) {
      CAPTURE(ranks);
      TempDir many;
      const Result split = run_ranks(ranks, "-q --no-png " + launch + " -o '" + many.path + "' '" + toml + "'");
      REQUIRE_MESSAGE(split.status == 0, split.err);
      for (const char* name : {"final_state.vti", "av_vels.dat", "forces.csv"}) {
        CHECK_MESSAGE(!slurp(one.file(name)).empty(), name);
        CHECK_MESSAGE(slurp(many.file(name)) == slurp(one.file(name)), name);
      }
    }
  }
}

TEST_CASE("mpi runs: forces, probes, TRT, a curved wall, a ramped parabolic inlet and sponges write the same bytes on 2 and 3 ranks as on one") {
  TempDir dir, one;
  const std::string toml = dir.write("p.toml", kChannelWithEverything);
  // Both final-state files: the text's rows by each rank, the .vti from rank 0's gathered fields.
  const Result single = run_alone("-q --no-png -l 8x1 --kernel-variant fused --final-state both -o '" + one.path + "' '" +
                                  toml + "'");
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const std::string forces = slurp(one.file("forces.csv"));
  REQUIRE(std::count(forces.begin(), forces.end(), '\n') == 201);
  const std::string probes = slurp(one.file("probes.csv"));
  REQUIRE(std::count(probes.begin(), probes.end(), '\n') == 11);
  for (int ranks : {2, 3}) {
    CAPTURE(ranks);
    TempDir many;
    const Result split = run_ranks(ranks, "-q --no-png -l 8x1 --final-state both -o '" + many.path + "' '" + toml + "'");
    REQUIRE_MESSAGE(split.status == 0, split.err);
    for (const char* name : {"final_state.dat", "final_state.vti", "av_vels.dat", "forces.csv", "probes.csv"})
      CHECK_MESSAGE(slurp(many.file(name)) == slurp(one.file(name)), name);
  }
}

TEST_CASE("mpi runs: one rank under mpirun is an ordinary run") {
  const Problem problem;
  TempDir one, launched;
  REQUIRE(run_alone("-q -l 8x1 -o '" + one.path + "' " + problem.inputs()).status == 0);
  const Result r = run_ranks(1, "-l 8x1 -o '" + launched.path + "' " + problem.inputs());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("MPI ranks") == std::string::npos);
  CHECK(slurp(launched.file("final_state.dat")) == slurp(one.file("final_state.dat")));
}

TEST_CASE("mpi runs: a bad input file is reported once, with no output") {
  Problem problem;
  const std::string bad = problem.dir.write("bad.params", "24\n30\n200\n10\n0.1\n0.02\n2.5\n");
  TempDir out;
  const Result r = run_ranks(3, "-o '" + out.path + "' '" + bad + "' '" + problem.obstacles + "'");
  CHECK(r.status == 1);
  CHECK(r.out == "");
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "error: " + bad + ":7: omega must lie in (0, 2), got '2.5'");
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(out.listing() == "");
}

TEST_CASE("mpi runs: options that cannot split the grid are refused on every rank") {
  const Problem problem;
  TempDir out;
  struct Case {
    std::string args, error;
  };
  for (const Case& c : {Case{"--slab-rows 10,10,5", "error: --slab-rows adds up to 25 rows but the grid has 30"},
                        Case{"--slab-rows 15,15", "error: --slab-rows gives 2 slab height(s) for 3 MPI rank(s)"},
                        Case{"-l 8x15", "error: cannot split 30 rows into 3 slabs"},
                        Case{"--kernel-variant split", "error: --kernel-variant split is not available"},
                        Case{"-b reference", "error: --backend reference runs on one process"}}) {
    CAPTURE(c.args);
    const Result r = run_ranks(3, c.args + " -o '" + out.path + "' " + problem.inputs());
    CHECK(r.status == 1);
    const auto errors = error_lines(r.err);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind(c.error, 0) == 0);
    CHECK(out.listing() == "");
  }
}

TEST_CASE("mpi runs: a rank failing inside the step loop stops every rank") {
  // The other ranks are blocked waiting for its halo rows: without MPI_Abort
  // they would hang until `timeout` (status 124).
  const Problem problem;
  TempDir out;
  const Result r = run_shell("D2Q9_MPI_FAIL_RANK=1 " + d2q9::test::mpirun_command(3) + " -x D2Q9_MPI_FAIL_RANK '" + D2Q9_EXE +
                             "' -o '" + out.path + "' " + problem.inputs());
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.out == "");
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "error: rank 1: failure injected by D2Q9_MPI_FAIL_RANK");
  CHECK(out.listing() == "");
}

TEST_CASE("mpi runs: every option works under mpirun as on one process, or is refused before the run") {
  const Problem problem;
  // Works: the same files as one process with the same options (one rank
  // runs the fused variant with the same shape, as the slabs do).
  struct Same {
    std::string args;
    std::vector<std::string> files;  // beyond av_vels.dat and final_state.dat
  };
  const std::string kernels = "--kernels-dir '" D2Q9_KERNELS_DIR "'";
  for (const Same& c : {Same{"-q", {"final_state.png"}},
                        Same{"--no-png --backend opencl -d 0 " + kernels, {}},
                        Same{"--png OUT/speed.png", {"speed.png"}},
                        Same{"--vtk OUT/state.vtk --no-png", {"state.vtk"}},
                        Same{"--vtk OUT/state.vti --no-png", {"state.vti"}},
                        Same{"--snapshot-every 50 --no-png",
                             {"snapshot_050.png", "snapshot_100.png", "snapshot_150.png", "snapshot_200.png"}},
                        Same{"--checkpoint-every 40 --no-png", {}},
                        Same{"--collision trt:0.1875 --no-png", {}},
                        Same{"--collision regularised --no-png", {}},
                        Same{"--summary-json OUT/summary.json --no-png", {"summary.json"}}}) {
    CAPTURE(c.args);
    TempDir one, many;
    auto in = [&](const TempDir& dir) {
      std::string a = c.args;
      for (std::size_t at; (at = a.find("OUT/")) != std::string::npos;) a.replace(at, 3, dir.path);
      return a + " -o '" + dir.path + "' " + problem.inputs();
    };
    const Result single = run_alone("-l 8x1 --kernel-variant fused " + in(one));
    REQUIRE_MESSAGE(single.status == 0, single.err);
    const Result split = run_ranks(2, "-l 8x1 " + in(many));
    REQUIRE_MESSAGE(split.status == 0, split.err);
    CHECK(split.err == "");
    CHECK(many.listing() == one.listing());
    for (const std::string& name : c.files) CHECK(many.listing().find(name + "\n") != std::string::npos);
    for (const std::string& name : {"av_vels.dat", "final_state.dat", "final_state.png", "speed.png", "state.vtk",
                                    "state.vti", "snapshot_100.png", "snapshot_200.png"})
      CHECK_MESSAGE(slurp(many.file(name)) == slurp(one.file(name)), name);
    if (c.args.find("summary.json") != std::string::npos) {
      const std::string json = slurp(many.file("summary.json"));
      CHECK(json.find("\"mpi_ranks\": \"2 (slab rows, bottom to top: 15,15; halos through host memory the ranks of "
                      "one host share, pinned by each device (no host copies))\"") != std::string::npos);
      CHECK(json.find("\"backend\": \"opencl+mpi\"") != std::string::npos);
      // Rank 0's host time in the exchanges: one before the first step, one after each step but the last (fused 8x1).
      std::smatch exchanges;
      REQUIRE(std::regex_search(json, exchanges, std::regex(R"("halos": \{\s*"exchanges": (\d+),)")));
      CHECK(std::stoi(exchanges[1].str()) == 200);  // the problem's steps
    }
    if (c.args == "-q") CHECK(split.out == "");
  }
  // --help and --list-devices: printed once, by rank 0.
  for (const char* args : {"--help", "--list-devices"}) {
    CAPTURE(args);
    const Result r = run_ranks(2, args);
    CHECK(r.status == 0);
    CHECK(r.out == run_alone(args).out);
  }
  // Refused: one line, before any output.
  struct Refused {
    std::string args, error;
  };
  for (const Refused& c :
       {Refused{"--tune", "error: --tune searches shapes on one device"},
        Refused{"-b reference", "error: --backend reference runs on one process"},
        Refused{"-b cuda", "error: "},
        Refused{"--kernel-variant fused-x2",
                "error: --kernel-variant must be auto, split, fused, fused-rows or blocked, got 'fused-x2'"},
        Refused{"--kernel-variant split", "error: --kernel-variant split is not available with several MPI ranks"}}) {
    CAPTURE(c.args);
    TempDir out;
    const Result r = run_ranks(2, c.args + " -o '" + out.path + "' " + problem.inputs());
    CHECK(r.status != 0);
    CHECK(r.out == "");
    const auto errors = error_lines(r.err);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind(c.error, 0) == 0);
    CHECK(out.listing() == "");
  }
}

TEST_CASE("mpi runs: an unstable flow fails once on every rank, and writes nothing") {
  TempDir dir, out;
  const std::string params = dir.write("u.params", "16\n16\n2000\n10\n0.1\n0.3\n1.99\n");
  const std::string obstacles = dir.write("u.dat", "0 0 1\n");
  const Result r = run_ranks(2, "-l 8x1 -o '" + out.path + "' '" + params + "' '" + obstacles + "'");
  CHECK(r.status == 1);
  CHECK(r.out == "");
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("error: flow became unstable at step ", 0) == 0);
  CHECK(out.listing() == "");
  // The same step as one process names.
  const Result alone = run_alone("-l 8x1 --kernel-variant fused -o '" + out.path + "' '" + params + "' '" + obstacles + "'");
  REQUIRE(error_lines(alone.err).size() == 1);
  CHECK(error_lines(alone.err)[0] == errors[0]);
}

TEST_CASE("mpi runs: a checkpoint of 2 ranks, killed, restarts on 1 and on 3 ranks to the uninterrupted bytes") {
  TempDir dir;
  // 24x30 as above, long enough to be interrupted on PoCL.
  const Problem problem;
  const std::string params = dir.write("long.params", "24\n30\n20000\n10\n0.1\n0.02\n1.7\n");
  const std::string inputs = "'" + params + "' '" + problem.obstacles + "'";
  TempDir whole;
  const Result uninterrupted = run_ranks(2, "-q --no-png -l 8x1 -o '" + whole.path + "' " + inputs);
  REQUIRE_MESSAGE(uninterrupted.status == 0, uninterrupted.err);

  TempDir killed;
  const std::string checkpoint = killed.file("checkpoint.d2q9");
  // mpirun passes SIGTERM on to the ranks once the first checkpoint is there.
  const Result stopped = run_shell("( " + d2q9::test::mpirun_command(2) + " '" + D2Q9_EXE + "' -q --no-png -l 8x1 --checkpoint-every 500 -o '" +
                                   killed.path + "' " + inputs + " & pid=$!; while [ ! -f '" + checkpoint +
                                   "' ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; kill -TERM $pid; wait $pid )");
  REQUIRE_MESSAGE(stopped.status != 0, "the run ended before it could be interrupted: make long.params longer");
  const Checkpoint c = read_checkpoint(checkpoint);
  // The signal saves the step the ranks had reached: the first checkpoint's
  // or, when the ranks ran on before it arrived, a later one.
  CHECK(c.step() >= 500);
  CHECK(c.step() < 20000);
  MESSAGE("interrupted at step " << c.step());

  for (int ranks : {1, 3}) {
    CAPTURE(ranks);
    TempDir resumed;
    const std::string args = "-q --no-png -l 8x1 --restart '" + checkpoint + "' -o '" + resumed.path + "' " + inputs;
    const Result r = ranks == 1 ? run_alone("--kernel-variant fused " + args) : run_ranks(ranks, args);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(slurp(resumed.file("av_vels.dat")) == slurp(whole.file("av_vels.dat")));
    CHECK(slurp(resumed.file("final_state.dat")) == slurp(whole.file("final_state.dat")));
  }
}

// Every file of `one` (a one-process run) is in `many` with the same bytes.
void check_same_files(const TempDir& one, const TempDir& many) {
  std::istringstream names(one.listing());
  int files = 0;
  for (std::string name; std::getline(names, name); ++files)
    CHECK_MESSAGE(slurp(many.file(name)) == slurp(one.file(name)), name);
  CHECK(files >= 3);
}

TEST_CASE("mpi runs: final_state.dat and every picture (--field, --scale) are the bytes of one process") {
  // Each rank writes its rows of final_state.dat at its offset (MPI-IO) and
  // colours its cells of the pictures, with the colour range over every rank's.
  const Problem problem;
  struct Case {
    int ranks;
    std::string slabs, extra;
  };
  for (const Case& c : {Case{2, "", "--field both"}, Case{3, "--slab-rows 12,17,1", "--field both"},
                        Case{3, "--slab-rows 1,17,12", "--field both --scale 0:0.05,-0.01:0.01"},
                        Case{3, "--slab-rows 12,17,1", "--field both --scale fixed --snapshot-every 70"},
                        Case{2, "--slab-rows 29,1", "--field vorticity -p double --png flow.png"}}) {
    CAPTURE(c.ranks);
    CAPTURE(c.slabs);
    CAPTURE(c.extra);
    TempDir one, many;
    const Result single = run_alone("-q -l 8x1 --kernel-variant fused -o '" + one.path + "' " + c.extra + " " + problem.inputs());
    REQUIRE_MESSAGE(single.status == 0, single.err);
    const Result split = run_ranks(c.ranks, "-q -l 8x1 " + c.slabs + " -o '" + many.path + "' " + c.extra + " " + problem.inputs());
    REQUIRE_MESSAGE(split.status == 0, split.err);
    CHECK(split.err == "");
    CHECK(many.listing() == one.listing());
    check_same_files(one, many);
    // The pictures show the flow: not one colour all over.
    std::istringstream names(one.listing());
    int pictures = 0;
    for (std::string name; std::getline(names, name);) {
      if (name.size() < 4 || name.compare(name.size() - 4, 4, ".png") != 0) continue;
      CAPTURE(name);
      ++pictures;
      const RgbImage image = test::read_png(one.file(name));
      const PictureLayout l = picture_layout(24, 30);
      std::set<std::tuple<int, int, int>> colours;
      for (int jj = 0; jj < 30; ++jj)
        for (int ii = 0; ii < 24; ++ii) {
          const Rgb px = image.at(l.field_x + ii * l.scale, l.field_y + jj * l.scale);
          colours.insert({px.r, px.g, px.b});
        }
      CHECK(colours.size() > 20);
    }
    CHECK(pictures >= 1);
  }
}

TEST_CASE("mpi runs: --vtk NAME.pvti writes one piece per rank, sharing boundary rows, with one process's values") {
  TempDir in;
  const std::string inputs =
      "'" + in.write("in.params", kPvtiParams) + "' '" + in.write("obs.dat", kPvtiObstacles) + "'";
  TempDir one;
  const Result single = run_alone("-q --no-png -l 8x1 --kernel-variant fused -o '" + one.path + "' --vtk s.vti " + inputs);
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const test::VtiImage whole = test::read_vti(one.file("s.vti"));
  const std::vector<StateLine> state = read_state(one.file("final_state.dat"), 24, 30);
  double largest = 0.0;
  for (double w : whole.arrays.at("vorticity").values) largest = std::fmax(largest, std::fabs(w));
  REQUIRE(largest > 1e-5);  // the flow moves: the values compared are not all zero
  struct Case {
    int ranks;
    std::string args;
    std::vector<std::pair<int, int>> rows;  // each piece's first and last row
  };
  for (const Case& c : {Case{2, "", {{0, 15}, {15, 29}}},
                        Case{3, "--slab-rows 12,17,1", {{0, 12}, {12, 29}, {29, 29}}},
                        Case{3, "--slab-rows 1,1,28", {{0, 1}, {1, 2}, {2, 29}}}}) {
    CAPTURE(c.ranks);
    CAPTURE(c.args);
    TempDir many;
    const Result split =
        run_ranks(c.ranks, "-q --no-png -l 8x1 " + c.args + " -o '" + many.path + "' --vtk s.pvti " + inputs);
    REQUIRE_MESSAGE(split.status == 0, split.err);
    std::string listing = "av_vels.dat\nfinal_state.dat\ns.pvti\n";
    for (int r = 0; r < c.ranks; ++r) listing += "s_" + std::to_string(r) + ".vti\n";
    CHECK(many.listing() == listing);
    CHECK(slurp(many.file("final_state.dat")) == slurp(one.file("final_state.dat")));
    check_pvti(many.path, "s", c.rows, whole, state);
  }
}

TEST_CASE("mpi runs: a rank failing while it writes its part of the outputs leaves the previous outputs, one error line") {
  const Problem problem;
  TempDir out;
  const std::string args = "-q -l 8x1 --slab-rows 12,17,1 --field both --vtk s.pvti -o '" + out.path + "' ";
  // The previous outputs: a shorter run's.
  Problem shorter;
  const std::string params = shorter.dir.write("short.params", "24\n30\n50\n10\n0.1\n0.02\n1.7\n");
  const Result first = run_ranks(3, args + "'" + params + "' '" + problem.obstacles + "'");
  REQUIRE_MESSAGE(first.status == 0, first.err);
  const std::string listing = out.listing();
  CHECK(listing ==
        "av_vels.dat\nfinal_state.dat\nfinal_state.png\nfinal_state_vorticity.png\ns.pvti\ns_0.vti\ns_1.vti\ns_2.vti\n");
  std::map<std::string, std::string> before;
  std::istringstream names(listing);
  for (std::string name; std::getline(names, name);) before[name] = slurp(out.file(name));
  // Rank 1 fails after final_state.dat (written by every rank through
  // MPI-IO) and the pictures are complete under their temporary names; rank
  // 0 fails alike, reporting its own failure.
  for (int failing : {1, 0}) {
    CAPTURE(failing);
    const Result r = run_shell("D2Q9_OUTPUT_FAIL_RANK=" + std::to_string(failing) + " " + test::mpirun_command(3) +
                               " -x D2Q9_OUTPUT_FAIL_RANK '" + D2Q9_EXE + "' " + args + problem.inputs());
    CHECK(r.status == 1);
    CHECK(r.out == "");
    const auto errors = error_lines(r.err);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0] == "error: " + std::string(failing ? "rank 1: " : "") + out.path + "/s_" + std::to_string(failing) +
                           ".vti: failure injected by D2Q9_OUTPUT_FAIL_RANK");
    CHECK(out.listing() == listing);  // no temporary left
    for (const auto& [name, bytes] : before) CHECK_MESSAGE(slurp(out.file(name)) == bytes, name);
  }
  // A piece that cannot be created is refused before the run: nothing written.
  TempDir fresh;
  REQUIRE(::mkdir(fresh.file("s_2.vti").c_str(), 0755) == 0);
  const Result refused = run_ranks(3, "-q -l 8x1 --vtk s.pvti -o '" + fresh.path + "' " + problem.inputs());
  CHECK(refused.status == 1);
  const auto errors = error_lines(refused.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "error: " + fresh.path + "/s_2.vti: is a directory, not a file");
  CHECK(fresh.listing() == "s_2.vti\n");
}

// The blocked kernel on `ranks` slabs against one process running it with
// the same options (tile and steps per launch given, so that the tiles, and
// so the partial sums' order, are the same): every file the same bytes.
void check_blocked_identical(int ranks, const std::string& options, const std::string& inputs,
                             const std::string& slab_rows = "") {
  CAPTURE(ranks);
  CAPTURE(options);
  CAPTURE(slab_rows);
  TempDir one, many;
  const std::string args = "--kernel-variant blocked " + options;
  const Result single = run_alone("-q " + args + " -o '" + one.path + "' " + inputs);
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const Result split = run_ranks(ranks, args + " " + slab_rows + " -o '" + many.path + "' " + inputs);
  REQUIRE_MESSAGE(split.status == 0, split.err);
  CHECK(split.out.find("MPI ranks:\t\t\t" + std::to_string(ranks)) != std::string::npos);
  CHECK(split.out.find(", blocked (") != std::string::npos);
  const std::string av = slurp(one.file("av_vels.dat"));
  REQUIRE(!av.empty());
  CHECK(std::strtod(av.substr(av.rfind('\t', av.size() - 2)).c_str(), nullptr) > 1e-5);  // the flow moves
  check_same_files(one, many);
  CHECK(many.listing() == one.listing());
}

TEST_CASE("mpi runs: blocked on 2 and 3 ranks writes one blocked process's bytes (the coursework's obstacles, float, fp16s, double)") {
  TempDir dir;
  const std::string params = dir.write("cw.params", "128\n128\n200\n10\n0.1\n0.005\n1.85\n");
  const std::string inputs = "'" + params + "' '" D2Q9_SOURCE_DIR "/inputs/obstacles_128x128.dat'";
  check_blocked_identical(2, "--tile 32x16", inputs);
  check_blocked_identical(3, "--tile 32x16", inputs);  // 48, 48, 32 rows
  check_blocked_identical(3, "--tile 32x16 -p fp16s", inputs);
  // 3 steps per launch, tiles 10 rows tall: the top slab ends in a partial tile row.
  check_blocked_identical(2, "--tile 24x10 --block-steps 3 -p double", inputs);
}

TEST_CASE("mpi runs: blocked with the accelerated row in a slab's halo rows, at a slab edge, and in both halos of one slab") {
  const Problem problem;  // 24x30: row 28 accelerated
  // Rank 0's lattice (26 rows and 4 below and above) holds rows 26-29 twice:
  // the accelerated row in both its halos.
  check_blocked_identical(2, "--tile 8x2", problem.inputs(), "--slab-rows 26,4");
  // Two steps per launch: the accelerated row is the top slab's first row and in rank 0's upper halo.
  check_blocked_identical(2, "--tile 8x2 --block-steps 2", problem.inputs(), "--slab-rows 28,2");
  // In the top slab and in the bottom slab's lower halo (the grid's top rows, periodic).
  check_blocked_identical(3, "--tile 8x6", problem.inputs(), "--slab-rows 12,12,6");
  check_blocked_identical(3, "--tile 8x3 --block-steps 3 -p fp16s", problem.inputs(), "--slab-rows 24,3,3");
}

TEST_CASE("mpi runs: blocked on an open channel (inlet, outlet, sponges, curved wall, forces, probes) writes one process's bytes") {
  TempDir dir;
  const std::string walls = dir.write("walls.toml", kChannelWithMovingWall);
  check_blocked_identical(3, "--tile 10x4", "'" + walls + "'");
  // A ramped parabolic inlet (whose profile reads the grid's rows, in halo
  // rows too: rank 0's lower halo is the grid's top rows), sponges, TRT, a
  // curved wall, measured forces and probes.
  const std::string open = dir.write("open.toml", kChannelWithEverything);
  check_blocked_identical(2, "--tile 10x4", "'" + open + "'");
  check_blocked_identical(3, "--tile 10x4 -p fp16s", "'" + open + "'");
  // Probes every step and every 3 steps (3 ranks: the bottom slab holds
  // none), sampled inside the slabs' launches of 4 steps.
  for (const char* every : {"every = 1", "every = 3"}) {
    std::string text = kChannelWithEverything;
    text.replace(text.find("every = 20"), 10, every);
    const std::string often = dir.write("often.toml", text);
    check_blocked_identical(3, "--tile 10x4", "'" + often + "'");
  }
  // Open flow: no walls below and above (a parabolic inlet needs them, whose
  // rows then shield the slabs from what the other side's halo rows do), so
  // what the halo rows' inlet and sponge cells do reaches the slabs' own rows.
  const std::string periodic = dir.write("periodic.toml", R"(
[grid]
nx = 30
ny = 24
[flow]
steps = 200
viscosity = 0.04
[edges]
left = { inlet_velocity = [0.05, 0.01], sponge = 4 }
right = { outlet_density = 1.0, sponge = 6 }
[[obstacle]]
circle = { center = [9.0, 11.0], radius = 3.0 }
)");
  check_blocked_identical(2, "--tile 10x4", "'" + periodic + "'");
  check_blocked_identical(3, "--tile 10x4 -p fp16s", "'" + periodic + "'");
}

TEST_CASE("mpi runs: a blocked checkpoint of 2 ranks, killed, restarts on 1 and on 3 ranks to the uninterrupted bytes") {
  TempDir dir;
  const Problem problem;
  const std::string params = dir.write("long.params", "24\n30\n20000\n10\n0.1\n0.02\n1.7\n");
  const std::string inputs = "'" + params + "' '" + problem.obstacles + "'";
  // Checkpoints every 499 steps: segments end part-way through a launch of 4.
  const std::string launch = "-q --no-png --kernel-variant blocked --tile 8x5 ";
  TempDir whole;
  const Result uninterrupted = run_ranks(2, launch + "-o '" + whole.path + "' " + inputs);
  REQUIRE_MESSAGE(uninterrupted.status == 0, uninterrupted.err);
  TempDir killed;
  const std::string checkpoint = killed.file("checkpoint.d2q9");
  const Result stopped = run_shell("( " + d2q9::test::mpirun_command(2) + " '" + D2Q9_EXE + "' " + launch +
                                   "--checkpoint-every 499 -o '" + killed.path + "' " + inputs +
                                   " & pid=$!; while [ ! -f '" + checkpoint +
                                   "' ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; kill -TERM $pid; wait $pid )");
  REQUIRE_MESSAGE(stopped.status != 0, "the run ended before it could be interrupted: make long.params longer");
  const Checkpoint c = read_checkpoint(checkpoint);
  CHECK(c.step() >= 499);
  CHECK(c.step() < 20000);
  for (int ranks : {1, 3}) {
    CAPTURE(ranks);
    TempDir resumed;
    const std::string args = launch + "--restart '" + checkpoint + "' -o '" + resumed.path + "' " + inputs;
    const Result r = ranks == 1 ? run_alone(args) : run_ranks(ranks, args);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(slurp(resumed.file("av_vels.dat")) == slurp(whole.file("av_vels.dat")));
    CHECK(slurp(resumed.file("final_state.dat")) == slurp(whole.file("final_state.dat")));
  }
}

// Heat across the slabs (docs/heat.md): a warm inlet on the left and an
// outlet on the right, a hot floor and a cold ceiling (held temperatures,
// whose cells the periodic halo rows hold too), a heater letting heat in
// (a heat flux) across every slab edge of 2 and 3 ranks, buoyancy, TRT on
// the temperature, and probes, one on a slab edge.
const char* const kHeatedChannel = R"(
[grid]
nx = 24
ny = 24
[flow]
steps = 120
viscosity = 0.05
[edges]
left = { inlet_velocity = [0.04, 0.0], temperature = 0.2 }
right = { outlet_density = 1.0 }
bottom = { temperature = 1.0 }
top = { temperature = -0.5 }
[[obstacle]]
name = "heater"
rectangle = { from = [8, 6], to = [11, 17] }
heat_flux = 0.003
[heat]
diffusivity = 0.04
collision = "trt"
initial = 0.1
gravity = [0.0, -0.002]
expansion = 0.5
nusselt_every = 40
[probes]
every = 20
edge = [14, 12]
wake = [18, 20]
)";

// kHeatedChannel with `steps` steps, without probes (the blocked kernel
// then builds once a slab, not with and without its sampling code).
std::string heated_channel_without_probes(int steps) {
  std::string text = kHeatedChannel;
  text.erase(text.find("[probes]"));
  text.replace(text.find("steps = 120"), 11, "steps = " + std::to_string(steps));
  return text;
}

// The summary's thermal walls (name: heat in, faces, Nusselt number) of the
// run whose --summary-json is `path`: equal only where every bit is.
nlohmann::json heat_walls(const std::string& path) {
  const nlohmann::json walls = nlohmann::json::parse(slurp(path)).at("heat").at("walls");
  REQUIRE(walls.size() == 3);  // the heater, the floor and the ceiling
  return walls;
}

// One process's files of a heated run (`one`, with `one`/s.json) against
// `ranks` ranks' with the same options, and their thermal walls.
void check_heat_identical(int ranks, const std::string& options, const std::string& toml, const TempDir& one) {
  CAPTURE(ranks);
  TempDir many;
  const Result split = run_ranks(ranks, "-q --final-state both " + options + " -o '" + many.path + "' --summary-json '" +
                                            many.file("s.json") + "' '" + toml + "'");
  REQUIRE_MESSAGE(split.status == 0, split.err);
  CHECK(many.listing() == one.listing());
  std::istringstream names(one.listing());
  for (std::string name; std::getline(names, name);)
    if (name != "s.json") CHECK_MESSAGE(slurp(many.file(name)) == slurp(one.file(name)), name);
  CHECK(heat_walls(many.file("s.json")) == heat_walls(one.file("s.json")));
}

// One process's run of `toml` with `options` into `one` (its summary s.json
// there), both final-state files (check_heat_identical's too).
void run_heat_alone(const std::string& options, const std::string& toml, const TempDir& one) {
  const Result single = run_alone("-q --final-state both " + options + " -o '" + one.path + "' --summary-json '" +
                                  one.file("s.json") + "' '" + toml + "'");
  REQUIRE_MESSAGE(single.status == 0, single.err);
  // The temperature moved: the final state's eighth column holds it, and the heater let heat in.
  const std::string state = slurp(one.file("final_state.dat"));
  REQUIRE(std::count(state.begin(), state.end(), '\n') == 24 * 24);
  CHECK(heat_walls(one.file("s.json")).at("heater").at("heat_in").get<double>() > 0.0);
  // nusselt.csv (compared with the ranks' with the other files): a header and a row each 40 steps.
  const std::string nusselt = slurp(one.file("nusselt.csv"));
  CHECK(nusselt.rfind("step,", 0) == 0);
  CHECK(std::count(nusselt.begin(), nusselt.end(), '\n') == 1 + 3);
}

TEST_CASE("mpi runs: heat on 2 and 3 ranks with one-step slabs (fused in float and double) writes one process's bytes and Nusselt numbers") {
  TempDir dir;
  const std::string toml = dir.write("heat.toml", kHeatedChannel);
  for (const char* precision : {"float", "double"}) {
    CAPTURE(std::string(precision));
    // Float draws the temperature and writes the fields, the temperature's among them (rank 0 gathers them).
    const std::string options = std::string("-l 8x1 -p ") + precision +
                                (std::string(precision) == "float" ? " --field temperature --vtk s.vti" : " --no-png");
    TempDir one;
    run_heat_alone(options + " --kernel-variant fused", toml, one);
    const std::string probes = slurp(one.file("probes.csv"));
    REQUIRE(std::count(probes.begin(), probes.end(), '\n') == 7);
    for (int ranks : {2, 3}) check_heat_identical(ranks, options, toml, one);  // rows 12 | 12; 8 | 8 | 8
    if (std::string(precision) != "float") continue;
    // A .pvti: each rank's piece holds its rows' temperature, as the whole .vti does.
    const test::VtiImage whole = test::read_vti(one.file("s.vti"));
    REQUIRE(whole.names == std::vector<std::string>{"velocity", "density", "speed", "vorticity", "temperature", "obstacle"});
    TempDir pieces;
    const Result split = run_ranks(3, "-q --no-png -l 8x1 -o '" + pieces.path + "' --vtk s.pvti '" + toml + "'");
    REQUIRE_MESSAGE(split.status == 0, split.err);
    check_pvti(pieces.path, "s", {{0, 8}, {8, 16}, {16, 23}}, whole, {});
  }
}

TEST_CASE("mpi runs: heat on blocked slabs (halo rows two steps deep) writes one blocked process's bytes and Nusselt numbers") {
  TempDir dir;
  const std::string toml = dir.write("heat.toml", heated_channel_without_probes(120));
  struct Case {
    const char* precision;
    std::vector<int> ranks;
  };
  // 3 ranks' middle slab has two neighbours; 2 ranks' slabs one, below and above.
  for (const Case& c : {Case{"float", {3}}, Case{"double", {2}}}) {
    CAPTURE(std::string(c.precision));
    const std::string launch = std::string("--kernel-variant blocked --block-steps 2 --tile 8x4 -p ") + c.precision;
    TempDir one;
    run_heat_alone("--no-png " + launch, toml, one);
    for (int ranks : c.ranks) check_heat_identical(ranks, "--no-png " + launch, toml, one);
  }
}

TEST_CASE("mpi runs: a heat checkpoint of 2 ranks killed restarts on 1 and on 3 ranks to the uninterrupted bytes and Nusselt numbers") {
  TempDir dir;
  const std::string toml = dir.write("long.toml", heated_channel_without_probes(8000));
  const std::string launch = "-q --no-png -l 8x1 ";
  TempDir whole;
  const Result uninterrupted =
      run_ranks(2, launch + "-o '" + whole.path + "' --summary-json '" + whole.file("s.json") + "' '" + toml + "'");
  REQUIRE_MESSAGE(uninterrupted.status == 0, uninterrupted.err);
  TempDir killed;
  const std::string checkpoint = killed.file("checkpoint.d2q9");
  const Result stopped = run_shell("( " + d2q9::test::mpirun_command(2) + " '" + D2Q9_EXE + "' " + launch +
                                   "--checkpoint-every 500 -o '" + killed.path + "' '" + toml +
                                   "' & pid=$!; while [ ! -f '" + checkpoint +
                                   "' ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; kill -TERM $pid; wait $pid )");
  REQUIRE_MESSAGE(stopped.status != 0, "the run ended before it could be interrupted: give long.toml more steps");
  const Checkpoint c = read_checkpoint(checkpoint);
  CHECK(c.planes() == 14);  // the temperature's lattice with the flow's
  CHECK(c.step() >= 500);
  CHECK(c.step() < 8000);
  MESSAGE("interrupted at step " << c.step());
  for (int ranks : {1, 3}) {
    CAPTURE(ranks);
    TempDir resumed;
    const std::string args = launch + "--restart '" + checkpoint + "' -o '" + resumed.path + "' --summary-json '" +
                             resumed.file("s.json") + "' '" + toml + "'";
    const Result r = ranks == 1 ? run_alone("--kernel-variant fused " + args) : run_ranks(ranks, args);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(slurp(resumed.file("av_vels.dat")) == slurp(whole.file("av_vels.dat")));
    CHECK(!slurp(whole.file("final_state.vti")).empty());
    CHECK(slurp(resumed.file("final_state.vti")) == slurp(whole.file("final_state.vti")));
    CHECK(heat_walls(resumed.file("s.json")) == heat_walls(whole.file("s.json")));
  }
}

TEST_CASE("mpi runs: blocked slabs that cannot be whole tile rows, or hold too few rows for a neighbour's halo, are refused") {
  const Problem problem;
  struct Case {
    std::string args, error;
  };
  for (const Case& c :
       {Case{"--tile 8x20", "error: --kernel-variant blocked with tile 8x20: the grid's 30 rows make 2 row(s) of tiles, "
                            "fewer than the 3 MPI ranks, and each rank's slab must be whole tile rows"},
        Case{"--tile 8x4 --slab-rows 10,10,10", "error: --slab-rows: slab 0 has 10 rows, not a multiple of the tile height 4"},
        Case{"--tile 8x3 --slab-rows 24,3,3", "error: slab 1 has 3 row(s), fewer than the 4 halo rows"}}) {
    CAPTURE(c.args);
    TempDir out;
    const Result r = run_ranks(3, "--kernel-variant blocked " + c.args + " -o '" + out.path + "' " + problem.inputs());
    CHECK(r.status == 1);
    CHECK(r.out == "");
    const auto errors = error_lines(r.err);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind(c.error, 0) == 0);
    CHECK(out.listing() == "");
  }
}

TEST_CASE("mpi runs: the summary names how halo rows travel, and D2Q9_HALOS asks for host memory, copies or MPI messages") {
  // OpenCL (PoCL here) stages them through host memory the ranks of one
  // host share, which each device pins: its edge rows are read into it and
  // its halo rows written from it (D2Q9_HALOS=copied: copied to and from
  // pinned buffers by several threads, D2Q9_HALO_THREADS; D2Q9_HALOS=mpi:
  // MPI messages); CUDA ranks of one host copy them device to device (CUDA
  // IPC), which needs GPUs: scripts/device/mpi_gpu_checks.sh checks that path,
  // byte for byte, on them. Every path writes one process's bytes.
  const Problem problem;
  TempDir alone;
  REQUIRE(run_alone("-q --no-png -l 8x1 -o '" + alone.path + "' " + problem.inputs()).status == 0);
  const std::string in_place = "through host memory the ranks of one host share, pinned by each device (no host copies)";
  const std::string copied = "through pinned host memory, shared by the ranks of one host, copied by ";
  const struct {
    std::string env, how;
  } cases[] = {{"", in_place + ")\n"},
               {"D2Q9_HALOS=host", in_place + " (D2Q9_HALOS=host))\n"},
               {"D2Q9_HALOS=auto", in_place + ")\n"},
               {"D2Q9_HALO_THREADS=3", in_place + ")\n"},
               {"D2Q9_HALOS=copied", copied},
               {"D2Q9_HALOS=copied D2Q9_HALO_THREADS=3", copied + "3 threads (D2Q9_HALOS=copied))\n"},
               {"D2Q9_HALOS=copied D2Q9_HALO_THREADS=1", copied + "1 thread (D2Q9_HALOS=copied))\n"},
               {"D2Q9_HALOS=mpi", "through pinned host memory and MPI (D2Q9_HALOS=mpi))\n"}};
  for (const auto& c : cases) {
    CAPTURE(c.env);
    TempDir out;
    std::string pass;  // -x NAME for each of the environment's settings
    std::istringstream settings(c.env);
    for (std::string setting; settings >> setting;) pass += " -x " + setting.substr(0, setting.find('='));
    const Result r = run_shell(c.env + " " + d2q9::test::mpirun_command(2) + pass + " '" + D2Q9_EXE + "' --no-png -l 8x1 -o '" +
                               out.path + "' " + problem.inputs());
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(r.out.find("MPI ranks:\t\t\t2 (slab rows, bottom to top: 15,15; halos " + c.how) != std::string::npos);
    CHECK(slurp(out.file("final_state.dat")) == slurp(alone.file("final_state.dat")));
    CHECK(slurp(out.file("av_vels.dat")) == slurp(alone.file("av_vels.dat")));
  }
  for (const auto& [env, says] :
       {std::pair<std::string, std::string>{"D2Q9_HALOS=gpu", "D2Q9_HALOS must be auto, host (halo rows through host "
                                                              "memory), copied (through host memory the ranks share, "
                                                              "copied by threads) or mpi (through host memory and MPI "
                                                              "messages), not 'gpu'"},
        {"D2Q9_HALO_THREADS=0", "D2Q9_HALO_THREADS must be a whole number from 1 to 64, not '0'"}}) {
    CAPTURE(env);
    TempDir out;
    const Result bad = run_shell(env + " " + d2q9::test::mpirun_command(2) + " -x " + env.substr(0, env.find('=')) + " '" +
                                 D2Q9_EXE + "' --no-png -l 8x1 -o '" + out.path + "' " + problem.inputs());
    CHECK(bad.status != 0);
    CHECK(bad.status != 124);
    CHECK(bad.err.find(says) != std::string::npos);
    CHECK(out.listing() == "");
  }
}

#ifdef D2Q9_MPI_BENCH_EXE

namespace {

// d2q9-mpi-bench's CSV row (after --header's line) as column -> value.
std::map<std::string, std::string> bench_row(const std::string& out) {
  std::istringstream in(out);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    return cells;
  };
  const auto names = split(header), values = split(row);
  REQUIRE_MESSAGE(names.size() == values.size(), out);
  std::map<std::string, std::string> out_row;
  for (std::size_t i = 0; i < names.size(); ++i) out_row[names[i]] = values[i];
  return out_row;
}

}  // namespace

TEST_CASE("mpi bench: by default the launch decision's variant and shape, on one rank as on slabs, to the same velocity") {
  // The launch one device decides for the bench's box, as d2q9-bgk would take it.
  Params params;
  params.nx = 48;
  params.ny = 40;
  params.max_iters = 2 + 12;
  params.reynolds_dim = params.nx;
  params.density = 0.1;
  params.accel = 0.005;
  params.omega = 1.85;
  SolverConfig config;
  config.device = {-1, Precision::Float, D2Q9_KERNELS_DIR};
  const LaunchPlan plan = *plan_for(Backend::OpenCL, params, config);
  const std::string bench = std::string("'") + D2Q9_MPI_BENCH_EXE + "' --header --nx 48 --ny 40 --steps 12 --warmup 2";

  // d2q9-mpi-bench always starts MPI: under mpirun, even for one rank.
  auto run_bench = [&](int ranks, const std::string& extra) {
    return run_shell(d2q9::test::mpirun_command(ranks) + " " + bench + " " + extra);
  };
  const Result one = run_bench(1, "");
  REQUIRE_MESSAGE(one.status == 0, one.err);
  const auto alone = bench_row(one.out);
  CHECK(alone.at("ranks") == "1");
  CHECK(alone.at("launch") == variant_text(plan));
  CHECK(alone.at("local_size") == plan.local.text());
  CHECK(alone.at("halos") == "none");
  CHECK(alone.at("solver") == "opencl");
  CHECK(std::strtod(alone.at("final_av_velocity").c_str(), nullptr) > 1e-5);  // the flow moves

  for (const std::string& extra : {std::string(), std::string("--slabs-on-one-rank")}) {
    const int ranks = extra.empty() ? 2 : 1;
    CAPTURE(ranks);
    const Result split = run_bench(ranks, extra);
    REQUIRE_MESSAGE(split.status == 0, split.err);
    const auto slabs = bench_row(split.out);
    CHECK(slabs.at("ranks") == std::to_string(ranks));
    CHECK(slabs.at("launch") == alone.at("launch"));
    CHECK(slabs.at("local_size") == alone.at("local_size"));
    CHECK(slabs.at("halos") == "host-shared");
    CHECK(slabs.at("solver") == "opencl+mpi");
    CHECK(slabs.at("final_av_velocity") == alone.at("final_av_velocity"));  // the slabs add the sums in one device's order
  }

  // Asked for, the variant and shape are taken as given.
  const Result fused = run_bench(2, "--kernel-variant fused -l 8x2");
  REQUIRE_MESSAGE(fused.status == 0, fused.err);
  const auto given = bench_row(fused.out);
  CHECK(given.at("launch") == "fused");
  CHECK(given.at("local_size") == "8x2");
}

TEST_CASE("mpi bench: --heat times the thermal box, on slabs to one rank's velocity, and it moves otherwise than the box") {
  const std::string bench = std::string("'") + D2Q9_MPI_BENCH_EXE + "' --header --nx 48 --ny 40 --steps 30 --warmup 2 ";
  const auto velocity = [&](int ranks, const std::string& extra) {
    const Result r = run_shell(d2q9::test::mpirun_command(ranks) + " " + bench + extra);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    return bench_row(r.out).at("final_av_velocity");
  };
  const std::string alone = velocity(1, "--heat");
  CHECK(velocity(2, "--heat") == alone);  // the slabs add the sums in one device's order
  CHECK(velocity(1, "") != alone);        // the buoyant, heated walls move the flow otherwise
  CHECK(std::strtod(alone.c_str(), nullptr) > 1e-5);
}

TEST_CASE("mpi bench: --halo-times counts each rank's exchanges of the timed steps and their parts") {
  // Fused: one exchange before a run()'s first step and one after each step but its last.
  const std::string bench = std::string("'") + D2Q9_MPI_BENCH_EXE +
                            "' --nx 48 --ny 40 --steps 12 --warmup 2 --kernel-variant fused --halo-times";
  for (const std::string halos : {"host", "copied", "mpi"}) {
    CAPTURE(halos);
    const Result r = run_shell("D2Q9_HALOS=" + halos + " " + d2q9::test::mpirun_command(2) + " -x D2Q9_HALOS " + bench);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    const std::regex line(R"(halo times, rank (\d): (\d+) exchanges, us each: launch ([0-9.]+), read wait ([0-9.]+), )"
                          R"(copies ([0-9.]+), neighbour wait ([0-9.]+), write queue ([0-9.]+))");
    int lines = 0;
    for (std::sregex_iterator m(r.err.begin(), r.err.end(), line), end; m != end; ++m, ++lines) {
      CHECK((*m)[1].str() == std::to_string(lines));
      CHECK((*m)[2].str() == "12");
      const double launch = std::stod((*m)[3].str());
      double parts = 0;
      for (int k = 4; k <= 7; ++k) parts += std::stod((*m)[k].str());
      CHECK(launch > 0);
      CHECK(parts <= launch * 1.01);  // the parts are within each launch's share of the timed steps
    }
    CHECK_MESSAGE(lines == 2, r.err);
  }
}

#endif

#endif

TEST_SUITE_END();
