// The program's pictures, VTK, JSON summary and progress line, as users run it.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "io/fields.hpp"
#include "io/picture.hpp"
#include "views_helpers.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

using d2q9::test::slurp;
using d2q9::test::Result;
using d2q9::test::TempDir;

namespace {

// Under a pseudo-terminal (script(1)), stdout and stderr both go to it.
Result run_d2q9_on_terminal(const std::string& args) {
  TempDir io;
  const std::string inner = std::string("'") + D2Q9_EXE + "' " + args;
  const std::string cmd = "script -q -e -c \"" + inner + "\" /dev/null >'" + io.file("out") + "' 2>&1 </dev/null";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(io.file("out")), ""};
}

bool have_script() { return std::system("command -v script >/dev/null 2>&1") == 0; }

struct StateRow {
  int ii, jj;
  double ux, uy, speed, pressure;
  int obstacle;
};

std::vector<StateRow> read_final_state(const std::string& path) {
  std::vector<StateRow> rows;
  std::istringstream in(slurp(path));
  StateRow r{};
  while (in >> r.ii >> r.jj >> r.ux >> r.uy >> r.speed >> r.pressure >> r.obstacle) rows.push_back(r);
  return rows;
}

// "Label:\t\t value" on stdout, as a number.
double stdout_value(const std::string& out, const std::string& label) {
  const auto at = out.find(label);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << label << "' line on stdout");
  return std::strtod(out.c_str() + at + label.size(), nullptr);
}

std::string stdout_line(const std::string& out, const std::string& label) {
  const auto at = out.find(label);
  REQUIRE_MESSAGE(at != std::string::npos, "no '" << label << "' line on stdout");
  auto start = out.find_first_not_of('\t', at + label.size());
  return out.substr(start, out.find('\n', start) - start);
}

const std::string kParams = "12\n10\n40\n10\n0.1\n0.02\n1.7\n";
const std::string kObstacles = "0 0 1\n5 5 1\n11 9 1\n";

struct Inputs {
  TempDir dir;
  std::string files;
  explicit Inputs(const std::string& params = kParams) {
    files = "'" + dir.write("in.params", params) + "' '" + dir.write("obs.dat", kObstacles) + "' ";
  }
};

}  // namespace

TEST_CASE("cli views: PNG, VTK and JSON of one run agree with final_state.dat and stdout") {
  Inputs in;
  TempDir out;
  const Result r = d2q9::test::run_program(in.files + "-o '" + out.path + "' --png '" + out.file("speed.png") + "' --vtk '" +
                            out.file("state.vtk") + "' --summary-json '" + out.file("summary.json") + "'");
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\nspeed.png\nstate.vtk\nsummary.json\n");
  const auto rows = read_final_state(out.file("final_state.dat"));
  REQUIRE(rows.size() == 120);

  SUBCASE("the PNG is the layout's size; obstacle cells, and only they, are grey, with y upward") {
    const auto image = d2q9::test::read_png(out.file("speed.png"));
    const auto l = d2q9::picture_layout(12, 10);
    REQUIRE(image.width == l.width);
    REQUIRE(image.height == l.height);
    double max_speed = 0.0;
    for (const auto& row : rows) max_speed = std::max(max_speed, row.speed);
    for (const auto& row : rows) {
      CAPTURE(row.ii);
      CAPTURE(row.jj);
      const auto px = image.at(l.field_x + row.ii * l.scale + l.scale / 2,
                               l.field_y + (9 - row.jj) * l.scale + l.scale / 2);
      CHECK((px == d2q9::kObstacleGrey) == (row.obstacle == 1));
      if (row.speed == max_speed) CHECK(px == d2q9::viridis(1.0));
    }
  }

  SUBCASE("the VTK file holds the values of final_state.dat") {
    const auto v = d2q9::test::read_vtk(out.file("state.vtk"));
    REQUIRE(v.nx == 12);
    REQUIRE(v.ny == 10);
    for (const char* name : {"density", "velocity", "speed", "obstacle"}) REQUIRE(v.arrays.count(name) == 1);
    // final_state.dat prints 13 significant digits.
    auto close = [](double a, double b) { return std::fabs(a - b) <= 1e-12 * std::fmax(std::fabs(b), 1e-3); };
    int mismatches = 0;
    for (const auto& row : rows) {
      const std::size_t i = row.ii + row.jj * 12;
      mismatches += !close(v.arrays.at("density")[i], 3.0 * row.pressure);
      mismatches += !close(v.arrays.at("velocity")[3 * i], row.ux);
      mismatches += !close(v.arrays.at("velocity")[3 * i + 1], row.uy);
      mismatches += v.arrays.at("velocity")[3 * i + 2] != 0.0;
      mismatches += !close(v.arrays.at("speed")[i], row.speed);
      mismatches += v.arrays.at("obstacle")[i] != row.obstacle;
    }
    CHECK(mismatches == 0);
    CHECK(v.arrays.at("speed")[6 + 8 * 12] > 1e-4);  // the flow has moved
  }

  SUBCASE("the JSON summary parses and matches stdout") {
    const auto j = nlohmann::json::parse(slurp(out.file("summary.json")));
    CHECK(j["params"]["nx"] == 12);
    CHECK(j["params"]["max_iters"] == 40);
    CHECK(j["params"]["accel"] == 0.02);
    CHECK(j["fluid_cells"] == 117);
    CHECK(j["backend"] == "opencl");
    const double re = stdout_value(r.out, "Reynolds number:");
    CHECK(j["reynolds_number"].get<double>() == doctest::Approx(re).epsilon(1e-11));
    CHECK(std::fabs(j["elapsed_s"].get<double>() - stdout_value(r.out, "Elapsed time:")) <= 5e-7);
    // One interval: the printed time, MLUPS and times.loop_s are the whole
    // step loop, whose named parts add up to it.
    const auto& times = j["times"];
    CHECK(j["elapsed_s"].get<double>() == times["loop_s"].get<double>());
    CHECK(j["mlups"].get<double>() ==
          doctest::Approx(12.0 * 10 * 40 / times["loop_s"].get<double>() / 1e6).epsilon(1e-12));
    double parts = 0;
    for (const char* part : {"steps_s", "measurements_s", "search_s", "checkpoints_s", "snapshots_s",
                             "steady_checks_s", "progress_s", "other_s"}) {
      CAPTURE(part);
      REQUIRE(times["loop"].contains(part));
      CHECK(times["loop"][part].get<double>() >= -1e-9);
      parts += times["loop"][part].get<double>();
    }
    CHECK(parts == doctest::Approx(times["loop_s"].get<double>()).epsilon(1e-9));
    CHECK(times["loop"]["steps_s"].get<double>() > 0);
    CHECK(times["loop"]["other_s"].get<double>() < 0.5 * times["loop_s"].get<double>());
    // Start-up and outputs lie outside the loop: what the whole process adds.
    CHECK(times["final_state_s"].get<double>() >= 0);
    CHECK(times["wall_s"].get<double>() >= times["loop_s"].get<double>() + times["setup_s"].get<double>() +
                                              times["final_state_s"].get<double>() + times["outputs_s"].get<double>());
    CHECK(std::fabs(j["user_cpu_s"].get<double>() - stdout_value(r.out, "Elapsed user CPU time:")) <= 5e-7);
    CHECK(std::fabs(j["mlups"].get<double>() - stdout_value(r.out, "MLUPS:")) <= 0.005 + 1e-9);
    const auto ls = j["local_size"];
    const std::string device = j["device"].get<std::string>() + " (" + j["backend"].get<std::string>() + ", " +
                               j["precision"].get<std::string>() + ", local size " + std::to_string(ls[0].get<int>()) +
                               "x" + std::to_string(ls[1].get<int>()) + ", " +
                               j["kernel_variant"].get<std::string>() + ")";
    CHECK(device == stdout_line(r.out, "Device:"));
    // The last line of av_vels.dat is the final average velocity.
    const std::string av = slurp(out.file("av_vels.dat"));
    const double last = std::strtod(av.c_str() + av.rfind('\t', av.size() - 2) + 1, nullptr);
    CHECK(j["final_average_velocity"].get<double>() == doctest::Approx(last).epsilon(1e-11));
  }
}

TEST_CASE("cli views: final_state.png by default, none with --no-png") {
  Inputs in;
  TempDir a, b;
  REQUIRE(d2q9::test::run_program(in.files + "-q -o '" + a.path + "'").status == 0);
  CHECK(a.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.png\n");
  CHECK(d2q9::test::read_png(a.file("final_state.png")).width == d2q9::picture_layout(12, 10).width);
  REQUIRE(d2q9::test::run_program(in.files + "-q --no-png -o '" + b.path + "'").status == 0);
  CHECK(b.listing() == "av_vels.dat\nfinal_state.dat\n");
}

TEST_CASE("cli views: --snapshot-every writes numbered frames during the run") {
  Inputs in;
  TempDir out;
  const Result r = d2q9::test::run_program(in.files + "-q --no-png --snapshot-every 15 -o '" + out.path + "'");
  REQUIRE(r.status == 0);
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\nsnapshot_15.png\nsnapshot_30.png\n");
  const auto frame = d2q9::test::read_png(out.file("snapshot_30.png"));
  CHECK(frame.width == d2q9::picture_layout(12, 10).width);
  CHECK(frame.pixels != d2q9::test::read_png(out.file("snapshot_15.png")).pixels);
}

TEST_CASE("cli views: bad options are one error line before the run, leaving no files") {
  Inputs in;
  TempDir out;
  const std::string files = in.files + "-o '" + out.path + "' ";
  struct Case {
    std::string args;
    int status;
    std::string error;
  };
  for (const Case& c : std::vector<Case>{
           {"--snapshot-every 0", 2, "error: --snapshot-every must be a positive integer, got '0'"},
           {"--snapshot-every -3", 2, "error: --snapshot-every must be a positive integer, got '-3'"},
           {"--checkpoint-every 0", 2, "error: --checkpoint-every must be a positive integer, got '0'"},
           {"--checkpoint-every -3", 2, "error: --checkpoint-every must be a positive integer, got '-3'"},
           {"--png a.png --no-png", 2, "error: --png and --no-png contradict each other"},
           {"--vtk out.vtu", 2, "error: --vtk FILE must end in .vti (XML image data), .pvti (XML image data in one piece per MPI rank) or .vtk (legacy VTK), got 'out.vtu'"},
           {"--vtk .pvti", 2, "error: --vtk FILE must end in .vti"},
           {"--vtk .vti", 2, "error: --vtk FILE must end in .vti"},
           {"--field pressure", 2, "error: --field must be speed, vorticity, both or temperature, got 'pressure'"},
           {"--field vorticity --no-png", 2, "error: --field applies to pictures, but --no-png and no PNG snapshots leave none"},
           {"--scale fixed --no-png --snapshot-every 10 --snapshot-format vti", 2,
            "error: --scale applies to pictures, but --no-png and no PNG snapshots leave none"},
           {"--scale linear", 2, "error: --scale must be auto, fixed or MIN:MAX (e.g. 0:0.05), got 'linear'"},
           {"--scale 0:x", 2, "error: --scale must be auto, fixed or MIN:MAX (e.g. 0:0.05), got '0:x'"},
           {"--scale 0:inf", 2, "error: --scale must be auto, fixed or MIN:MAX"},
           {"--scale 0.1:0", 2, "error: --scale range 0.1:0 needs MIN < MAX"},
           {"--scale 0:1,0:2", 2, "error: --scale needs one range MIN:MAX for one field, got '0:1,0:2'"},
           {"--scale 0:1, ", 2, "error: --scale must be auto, fixed or MIN:MAX"},
           {"--field both --scale 0:1", 2, "error: --scale with --field both needs two ranges, speed's then vorticity's"},
           {"--field both --scale 0:1,-0.1:0.2", 2, "error: --scale: the vorticity range must be symmetric about 0 (-W:W), got '0:1,-0.1:0.2'"},
           {"--field vorticity --scale 0:0.1", 2, "error: --scale: the vorticity range must be symmetric about 0"},
           {"--snapshot-every 10 --snapshot-format gif", 2, "error: --snapshot-format must be png, vti or png,vti, got 'gif'"},
           {"--snapshot-every 10 --snapshot-format png,png", 2, "error: --snapshot-format must be png, vti or png,vti, got 'png,png'"},
           {"--snapshot-every 10 --snapshot-format vti,", 2, "error: --snapshot-format must be png, vti or png,vti"},
           {"--snapshot-format vti", 2, "error: --snapshot-format needs --snapshot-every"},
           {"--vtk /nonexistent-dir/x.vti", 1, "error: /nonexistent-dir/x.vti: cannot create file"},
           {"--png speed.png --field both --summary-json speed_vorticity.png", 1,
            "error: " + out.path + "/speed_vorticity.png: the run would write this file twice (also as " + out.path + "/speed_vorticity.png)"},
           {"--snapshot-every 10 --snapshot-format vti --summary-json snapshots.pvd", 1,
            "error: " + out.path + "/snapshots.pvd: the run would write this file twice"},
           {"--png ''", 2, "error: --png needs a file name"},
           {"--png /nonexistent-dir/x.png", 1, "error: /nonexistent-dir/x.png: cannot create file (/nonexistent-dir: No such file or directory)"},
           {"--vtk /nonexistent-dir/x.vtk", 1, "error: /nonexistent-dir/x.vtk: cannot create file"},
           {"--summary-json /nonexistent-dir/s.json", 1, "error: /nonexistent-dir/s.json: cannot create file"},
           {"--png '" + out.path + "'", 1, "error: " + out.path + ": is a directory, not a file"},
       }) {
    CAPTURE(c.args);
    const Result r = d2q9::test::run_program(files + c.args);
    CHECK(r.status == c.status);
    CHECK(r.out == "");
    CHECK(r.err.rfind(c.error, 0) == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(out.listing() == "");
  }
}

TEST_CASE("cli views: relative output names go into -o, absolute ones where they say, and -o is created") {
  Inputs in;
  TempDir cwd, elsewhere;
  // Run from an unrelated current directory: nothing may land there.
  const Result r = d2q9::test::run_shell("cd '" + cwd.path + "' && '" D2Q9_EXE "' -q " + in.files +
                                         "-o run --png speed.png --vtk state.vti --summary-json '" +
                                         elsewhere.file("summary.json") + "' --snapshot-every 20");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(cwd.listing() == "run\n");
  CHECK(slurp(cwd.file("run/av_vels.dat")).size() > 0);
  const std::string run_listing = TempDir::listing_of(cwd.file("run"));
  CHECK(run_listing == "av_vels.dat\nfinal_state.dat\nsnapshot_20.png\nsnapshot_40.png\nspeed.png\nstate.vti\n");
  CHECK(elsewhere.listing() == "summary.json\n");

  // Only the last component is made: a mistyped parent is an error, and nothing is created.
  const Result missing = d2q9::test::run_shell("cd '" + cwd.path + "' && '" D2Q9_EXE "' " + in.files + "-o nope/run");
  CHECK(missing.status == 1);
  CHECK(missing.out == "");
  CHECK(missing.err == "error: nope/run: cannot create output directory (its parent directory does not exist)\n");
  const Result file = d2q9::test::run_program(in.files + "-o '" + cwd.file("run/speed.png") + "'");
  CHECK(file.status == 1);
  CHECK(file.err == "error: " + cwd.file("run/speed.png") + ": output directory is not a directory\n");
  CHECK(cwd.listing() == "run\n");
}

namespace {

// final_state.dat's rows as fields, for comparing with the .vti and pictures.
d2q9::FlowFields fields_of(const std::vector<StateRow>& rows, int nx, int ny, d2q9::ObstacleMask& mask) {
  d2q9::FlowFields f(nx, ny);
  mask = d2q9::ObstacleMask(nx, ny);
  for (const auto& row : rows) {
    const std::size_t i = row.ii + row.jj * nx;
    f.ux[i] = row.ux;
    f.uy[i] = row.uy;
    f.speed[i] = row.speed;
    f.density[i] = 3.0 * row.pressure;
    mask.kinds[i] = static_cast<std::uint8_t>(row.obstacle);
  }
  f.vorticity = d2q9::vorticity(nx, ny, mask, f.ux, f.uy);
  return f;
}

// final_state.dat prints 13 significant digits.
bool close(double a, double b, double floor = 1e-3) { return std::fabs(a - b) <= 1e-12 * std::fmax(std::fabs(b), floor); }

// Colour bar labels: the rows of the top and bottom labels beside the bar.
std::vector<d2q9::Rgb> bar_labels(const d2q9::RgbImage& image, const d2q9::PictureLayout& l) {
  std::vector<d2q9::Rgb> pixels;
  const int text_h = 7 * l.text_scale;
  for (int y0 : {l.bar_y, l.bar_y + l.bar_height - text_h})
    for (int y = y0; y < y0 + text_h; ++y)
      for (int x = l.bar_x; x < l.width; ++x) pixels.push_back(image.at(x, y));
  return pixels;
}

d2q9::Rgb cell_pixel(const d2q9::RgbImage& image, const d2q9::PictureLayout& l, int ny, int ii, int jj) {
  return image.at(l.field_x + ii * l.scale + l.scale / 2, l.field_y + (ny - 1 - jj) * l.scale + l.scale / 2);
}

}  // namespace

TEST_CASE("cli views: --vtk FILE.vti holds final_state.dat's values and the vorticity derived from them") {
  Inputs in;
  // A float run's arrays are Float32, a double run's Float64: each holds the fields to its type's precision.
  for (const auto& [precision, type] : std::vector<std::pair<std::string, std::string>>{{"float", "Float32"},
                                                                                         {"double", "Float64"},
                                                                                         {"fp16s", "Float32"}}) {
    CAPTURE(precision);
    TempDir out;
    const Result r =
        d2q9::test::run_program(in.files + "-q --no-png -p " + precision + " -o '" + out.path + "' --vtk state.vti");
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\nstate.vti\n");
    const auto v = d2q9::test::read_vti(out.file("state.vti"));
    d2q9::test::check_vti_layout(v, "0 11 0 9 0 0", type);
    const auto rows = read_final_state(out.file("final_state.dat"));
    REQUIRE(rows.size() == 120);
    d2q9::ObstacleMask mask;
    const d2q9::FlowFields expected = fields_of(rows, 12, 10, mask);
    // final_state.dat prints 13 significant digits.
    auto close = [&](double got, double want) {
      return d2q9::test::vti_close(type, got, want, 1e-12 * std::fmax(std::fabs(want), 1e-3));
    };
    int mismatches = 0;
    for (std::size_t i = 0; i < 120; ++i) {
      mismatches += !close(v.arrays.at("velocity").values[3 * i], expected.ux[i]);
      mismatches += !close(v.arrays.at("velocity").values[3 * i + 1], expected.uy[i]);
      mismatches += v.arrays.at("velocity").values[3 * i + 2] != 0.0;
      mismatches += !close(v.arrays.at("density").values[i], expected.density[i]);
      mismatches += !close(v.arrays.at("speed").values[i], expected.speed[i]);
      mismatches += !d2q9::test::vti_close(type, v.arrays.at("vorticity").values[i], expected.vorticity[i], 1e-14);
      mismatches += v.arrays.at("obstacle").values[i] != (d2q9::is_obstacle(mask.kinds[i]) ? 1 : 0);
    }
    CHECK(mismatches == 0);
    double largest = 0.0;
    for (double w : v.arrays.at("vorticity").values) largest = std::fmax(largest, std::fabs(w));
    CHECK(largest > 1e-4);  // the channel's shear shows
  }
}

TEST_CASE("cli views: vti snapshots and snapshots.pvd, a time series for ParaView") {
  Inputs in;
  TempDir out;
  const Result r = d2q9::test::run_program(in.files + "-q --no-png -o '" + out.path +
                                           "' --snapshot-every 20 --snapshot-format vti --vtk final.vti");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(out.listing() == "av_vels.dat\nfinal.vti\nfinal_state.dat\nsnapshot_20.vti\nsnapshot_40.vti\nsnapshots.pvd\n");
  const auto frames = d2q9::test::read_pvd(out.file("snapshots.pvd"));
  CHECK(frames == std::vector<d2q9::test::PvdEntry>{{20, "snapshot_20.vti"}, {40, "snapshot_40.vti"}});
  for (const auto& frame : frames) {
    CAPTURE(frame.file);
    const auto v = d2q9::test::read_vti(out.file(frame.file));
    CHECK(v.whole_extent == "0 11 0 9 0 0");
    CHECK(v.arrays.size() == 5);
    CHECK(v.arrays.at("speed").type == "Float32");  // the run's precision, float
  }
  // The last frame is the final state.
  const auto last = d2q9::test::read_vti(out.file("snapshot_40.vti"));
  const auto final = d2q9::test::read_vti(out.file("final.vti"));
  for (const auto& name : final.names) CHECK_MESSAGE(last.arrays.at(name).values == final.arrays.at(name).values, name);
  CHECK(d2q9::test::read_vti(out.file("snapshot_20.vti")).arrays.at("speed").values != final.arrays.at("speed").values);

  // png,vti: both kinds of frame.
  TempDir both;
  REQUIRE(d2q9::test::run_program(in.files + "-q --no-png -o '" + both.path +
                                  "' --snapshot-every 30 --snapshot-format png,vti").status == 0);
  CHECK(both.listing() == "av_vels.dat\nfinal_state.dat\nsnapshot_30.png\nsnapshot_30.vti\nsnapshots.pvd\n");
}

TEST_CASE("cli views: --field both draws speed and vorticity pictures, final and snapshots") {
  Inputs in;
  TempDir out;
  const Result r =
      d2q9::test::run_program(in.files + "-q -o '" + out.path + "' --field both --snapshot-every 40 --png flow.png");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(out.listing() ==
        "av_vels.dat\nfinal_state.dat\nflow.png\nflow_vorticity.png\nsnapshot_40.png\nsnapshot_40_vorticity.png\n");
  const auto rows = read_final_state(out.file("final_state.dat"));
  d2q9::ObstacleMask mask;
  const d2q9::FlowFields fields = fields_of(rows, 12, 10, mask);
  const auto image = d2q9::test::read_png(out.file("flow_vorticity.png"));
  const auto l = d2q9::picture_layout(12, 10);
  const d2q9::ColourRange range = d2q9::own_range(d2q9::PictureField::Vorticity, fields, mask);
  CHECK(range.low == -range.high);
  int grey = 0, off = 0;
  for (const auto& row : rows) {
    const d2q9::Rgb px = cell_pixel(image, l, 10, row.ii, row.jj);
    grey += px == d2q9::kObstacleGrey;
    if (row.obstacle) continue;
    // The colour of the value read back from final_state.dat, give or take its rounding.
    const double t = 0.5 + 0.5 * fields.vorticity[row.ii + row.jj * 12] / range.high;
    const d2q9::Rgb lo = d2q9::diverging(t - 1e-9), hi = d2q9::diverging(t + 1e-9);
    off += !(px == lo || px == hi);
  }
  CHECK(grey == 3);
  CHECK(off == 0);
  // The snapshot at the last step is the final picture with a caption.
  CHECK(d2q9::test::read_png(out.file("snapshot_40_vorticity.png")).pixels != image.pixels);
  CHECK(d2q9::test::read_png(out.file("flow.png")).pixels != image.pixels);

  TempDir only;
  REQUIRE(d2q9::test::run_program(in.files + "-q -o '" + only.path + "' --field vorticity --snapshot-every 40").status == 0);
  CHECK(only.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state_vorticity.png\nsnapshot_40_vorticity.png\n");
  CHECK(d2q9::test::read_png(only.file("final_state_vorticity.png")).pixels == image.pixels);
}

TEST_CASE("cli views: --scale fixed keeps the first snapshot's colour range for the later ones and the final picture") {
  Inputs in;
  TempDir fixed, own;
  // Double, so that the .vti holds the values the pictures were coloured from.
  const std::string args = in.files + "-q -p double --snapshot-every 10 --snapshot-format png,vti ";
  REQUIRE(d2q9::test::run_program(args + "--scale fixed -o '" + fixed.path + "'").status == 0);
  REQUIRE(d2q9::test::run_program(args + "-o '" + own.path + "'").status == 0);
  const auto l = d2q9::picture_layout(12, 10);
  // The flow speeds up from rest: every frame's fastest cell is faster than frame 10's.
  const auto first = d2q9::test::read_vti(fixed.file("snapshot_10.vti"));
  d2q9::ObstacleMask mask(12, 10);
  for (std::size_t i = 0; i < 120; ++i) mask.kinds[i] = static_cast<std::uint8_t>(first.arrays.at("obstacle").values[i]);
  double range = 0.0;
  for (std::size_t i = 0; i < 120; ++i)
    if (!mask.kinds[i]) range = std::fmax(range, first.arrays.at("speed").values[i]);
  const auto labels = bar_labels(d2q9::test::read_png(fixed.file("snapshot_10.png")), l);
  for (const char* name : {"snapshot_20", "snapshot_30", "snapshot_40", "final_state"}) {
    CAPTURE(name);
    const auto image = d2q9::test::read_png(fixed.file(std::string(name) + ".png"));
    CHECK(bar_labels(image, l) == labels);
    CHECK_FALSE(bar_labels(d2q9::test::read_png(own.file(std::string(name) + ".png")), l) == labels);
    if (std::string(name) == "final_state") continue;
    const auto v = d2q9::test::read_vti(fixed.file(std::string(name) + ".vti"));
    int off = 0;
    for (int jj = 0; jj < 10; ++jj)
      for (int ii = 0; ii < 12; ++ii) {
        const std::size_t i = ii + jj * 12;
        const d2q9::Rgb want = mask.kinds[i] ? d2q9::kObstacleGrey : d2q9::viridis(v.arrays.at("speed").values[i] / range);
        off += !(cell_pixel(image, l, 10, ii, jj) == want);
      }
    CHECK(off == 0);
  }
}

TEST_CASE("cli views: --scale MIN:MAX colours by the given ranges, one per field") {
  Inputs in;
  TempDir out;
  // Double, so that the .vti holds the values the pictures were coloured from.
  REQUIRE(d2q9::test::run_program(in.files + "-q -p double -o '" + out.path +
                                  "' --field both --scale 0:0.1,-0.02:0.02 --vtk s.vti")
              .status == 0);
  const auto v = d2q9::test::read_vti(out.file("s.vti"));
  const auto speed = d2q9::test::read_png(out.file("final_state.png"));
  const auto vort = d2q9::test::read_png(out.file("final_state_vorticity.png"));
  const auto l = d2q9::picture_layout(12, 10);
  int off = 0;
  for (int jj = 0; jj < 10; ++jj)
    for (int ii = 0; ii < 12; ++ii) {
      const std::size_t i = ii + jj * 12;
      if (v.arrays.at("obstacle").values[i] != 0.0) continue;
      off += !(cell_pixel(speed, l, 10, ii, jj) == d2q9::viridis(v.arrays.at("speed").values[i] / 0.1));
      off += !(cell_pixel(vort, l, 10, ii, jj) == d2q9::diverging(0.5 + v.arrays.at("vorticity").values[i] / 0.04));
    }
  CHECK(off == 0);
}

#ifdef D2Q9_MPIEXEC
TEST_CASE("cli views under mpirun: rank 0 creates -o and writes the same views as one process") {
  Inputs in;
  TempDir cwd;
  const std::string views =
      " -q -o run --field both --scale fixed --snapshot-every 20 --snapshot-format png,vti --vtk s.vti " + in.files;
  const std::string mpirun = d2q9::test::mpirun_command(2) + " '" D2Q9_EXE "'";
  REQUIRE(::mkdir(cwd.file("one").c_str(), 0755) == 0);
  REQUIRE(::mkdir(cwd.file("two").c_str(), 0755) == 0);
  const Result one = d2q9::test::run_shell("cd '" + cwd.file("one") + "' && '" D2Q9_EXE "' -l 4x1 --kernel-variant fused" + views);
  REQUIRE_MESSAGE(one.status == 0, one.err);
  const Result two = d2q9::test::run_shell("cd '" + cwd.file("two") + "' && " + mpirun + " -l 4x1" + views);
  REQUIRE_MESSAGE(two.status == 0, two.err);
  const std::string listing = TempDir::listing_of(cwd.file("one/run"));
  CHECK(listing ==
        "av_vels.dat\nfinal_state.dat\nfinal_state.png\nfinal_state_vorticity.png\ns.vti\nsnapshot_20.png\n"
        "snapshot_20.vti\nsnapshot_20_vorticity.png\nsnapshot_40.png\nsnapshot_40.vti\nsnapshot_40_vorticity.png\n"
        "snapshots.pvd\n");
  CHECK(TempDir::listing_of(cwd.file("two/run")) == listing);
  std::istringstream names(listing);
  for (std::string name; std::getline(names, name);)
    CHECK_MESSAGE(slurp(cwd.file("two/run/" + name)) == slurp(cwd.file("one/run/" + name)), name);
}
#endif

TEST_CASE("cli views: a progress line on a terminal, none when stderr is a file or with --quiet") {
  // 400 steps: the line appears after the first short segment in any case.
  Inputs in("12\n10\n400\n10\n0.1\n0.02\n1.7\n");
  TempDir out;
  const Result to_file = d2q9::test::run_program(in.files + "-o '" + out.path + "'");
  REQUIRE(to_file.status == 0);
  CHECK(to_file.err == "");
  CHECK(to_file.out.find("steps/s") == std::string::npos);

  if (!have_script()) {
    MESSAGE("terminal case not run: script(1) from bsdutils is not installed");
    return;
  }
  const Result tty = run_d2q9_on_terminal(in.files + "-o '" + out.path + "'");
  REQUIRE(tty.status == 0);
  CHECK(tty.out.find("/400 steps") != std::string::npos);
  CHECK(tty.out.find("MLUPS  ") != std::string::npos);
  CHECK(tty.out.find(" left") != std::string::npos);
  CHECK(tty.out.find("\r\033[K==done==") != std::string::npos);  // erased before the summary

  const Result quiet = run_d2q9_on_terminal(in.files + "-q -o '" + out.path + "'");
  REQUIRE(quiet.status == 0);
  CHECK(quiet.out == "");
}

TEST_SUITE_END();
