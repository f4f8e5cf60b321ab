// The program's pictures, VTK, JSON summary and progress line, as users run it.
#include <doctest/doctest.h>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "model/picture.hpp"
#include "views_helpers.hpp"

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
           {"--snapshot-every 0", 2, "error: --snapshot-every must be at least 1"},
           {"--snapshot-every -3", 2, "error: --snapshot-every must be a non-negative integer"},
           {"--png a.png --no-png", 2, "error: --png and --no-png contradict each other"},
           {"--vtk out.vti", 2, "error: --vtk writes legacy VTK: the file name must end in .vtk"},
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
