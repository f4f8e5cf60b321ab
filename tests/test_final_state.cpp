// The final state's files (docs/running.md#outputs): a problem file's run
// writes final_state.vti (VTK XML image data, raw appended arrays) in place of
// the coursework's text final_state.dat, which a coursework .params run keeps;
// --final-state and a problem file's [output] final_state choose otherwise;
// a run that switches removes the earlier run's own file (its manifest proves
// it), never a user's; the library, MPI and d2q9-check follow the same rule.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "io/output_guard.hpp"
#include "sim/simulation.hpp"
#include "views_helpers.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

using d2q9::test::contains;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

const std::string kExe = D2Q9_EXE;
const std::string kParams = "12\n10\n40\n10\n0.1\n0.02\n1.7\n";
const std::string kObstacles = "0 0 1\n5 5 1\n11 9 1\n";
// A channel between walls round a cylinder, 40 steps.
const std::string kProblem =
    "[grid]\nnx = 12\nny = 10\n"
    "[flow]\nsteps = 40\nviscosity = 0.1\nbody_force = [1e-5, 0.0]\n"
    "[edges]\nbottom = \"wall\"\ntop = \"wall\"\n"
    "[[obstacle]]\ncircle = { center = [5.0, 5.0], radius = 2.0 }\n";

std::string q(const std::string& s) { return "'" + s + "'"; }

// d2q9-bgk on the reference backend, writing into `out`.
Result run_problem(const TempDir& in, const std::string& out, const std::string& text, const std::string& extra) {
  return run_shell(q(kExe) + " " + q(in.write("p.toml", text)) + " -q -b reference --no-png -o " + q(out) + " " + extra);
}
Result run_params(const TempDir& in, const std::string& out, const std::string& extra) {
  return run_shell(q(kExe) + " " + q(in.write("in.params", kParams)) + " " + q(in.write("obs.dat", kObstacles)) +
                   " -q -b reference --no-png -o " + q(out) + " " + extra);
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// final_state.dat's rows "ii jj ux uy |u| pressure obstacle".
std::vector<std::vector<double>> text_rows(const std::string& path) {
  std::istringstream in(slurp(path));
  std::vector<std::vector<double>> rows;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    std::vector<double> row;
    for (double v; ls >> v;) row.push_back(v);
    rows.push_back(row);
  }
  return rows;
}

// `vti` holds the state `dat` holds, cell for cell, to the array type's precision.
void check_same_state(const std::string& vti, const std::string& dat, int nx, int ny) {
  const d2q9::test::VtiImage v = d2q9::test::read_vti(vti);
  d2q9::test::check_vti_layout(v, "0 " + std::to_string(nx - 1) + " 0 " + std::to_string(ny - 1) + " 0 0", "Float32");
  const auto rows = text_rows(dat);
  REQUIRE(rows.size() == static_cast<std::size_t>(nx) * ny);
  const auto& velocity = v.arrays.at("velocity").values;
  int differing = 0;
  for (std::size_t c = 0; c < rows.size(); ++c) {
    const auto close = [&](double got, double want) {
      return d2q9::test::vti_close("Float32", got, want, 1e-12 * std::fmax(std::fabs(want), 1e-3));
    };
    const bool same = rows[c][0] == static_cast<double>(c % nx) && rows[c][1] == static_cast<double>(c / nx) &&
                      close(velocity[3 * c], rows[c][2]) && close(velocity[3 * c + 1], rows[c][3]) &&
                      close(v.arrays.at("speed").values[c], rows[c][4]) &&
                      close(v.arrays.at("density").values[c], 3.0 * rows[c][5]) &&
                      v.arrays.at("obstacle").values[c] == rows[c][6];
    if (!same) ++differing;
  }
  CHECK(differing == 0);
}

}  // namespace

TEST_CASE("final state: a problem file's run writes final_state.vti and no final_state.dat, a .params run final_state.dat and no .vti") {
  TempDir in, out, coursework;
  Result r = run_problem(in, out.path, kProblem, "");
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  CHECK(out.listing() == "av_vels.dat\nfinal_state.vti\n");
  CHECK(count_lines(slurp(out.file("av_vels.dat"))) == 40);
  const d2q9::test::VtiImage v = d2q9::test::read_vti(out.file("final_state.vti"));
  d2q9::test::check_vti_layout(v, "0 11 0 9 0 0", "Float32");
  // The cylinder's cells are obstacles, the walls' rows too.
  CHECK(v.arrays.at("obstacle").values[5 + 5 * 12] == 1.0);
  CHECK(v.arrays.at("obstacle").values[0] == 1.0);
  CHECK(v.arrays.at("obstacle").values[2 + 3 * 12] == 0.0);
  CHECK(v.arrays.at("speed").values[1 + 1 * 12] > 0.0);

  r = run_params(in, coursework.path, "");
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  CHECK(coursework.listing() == "av_vels.dat\nfinal_state.dat\n");
  CHECK(count_lines(slurp(coursework.file("final_state.dat"))) == 120);
}

TEST_CASE("final state: --final-state text, vti or both, for a problem file or a .params run") {
  TempDir in, vti, text, both, params_text, params_vti, params_both;
  REQUIRE(run_problem(in, vti.path, kProblem, "").status == 0);
  REQUIRE(run_problem(in, text.path, kProblem, "--final-state text").status == 0);
  REQUIRE(run_problem(in, both.path, kProblem, "--final-state both").status == 0);
  CHECK(text.listing() == "av_vels.dat\nfinal_state.dat\n");
  CHECK(both.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.vti\n");
  CHECK(count_lines(slurp(text.file("final_state.dat"))) == 120);
  // One state, whichever files hold it.
  CHECK(slurp(both.file("final_state.dat")) == slurp(text.file("final_state.dat")));
  CHECK(slurp(both.file("final_state.vti")) == slurp(vti.file("final_state.vti")));
  check_same_state(both.file("final_state.vti"), both.file("final_state.dat"), 12, 10);

  REQUIRE(run_params(in, params_text.path, "").status == 0);
  REQUIRE(run_params(in, params_vti.path, "--final-state vti").status == 0);
  REQUIRE(run_params(in, params_both.path, "--final-state both").status == 0);
  CHECK(params_vti.listing() == "av_vels.dat\nfinal_state.vti\n");
  CHECK(params_both.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.vti\n");
  // The coursework's text is the same bytes with or without the .vti beside it.
  CHECK(slurp(params_both.file("final_state.dat")) == slurp(params_text.file("final_state.dat")));
  CHECK(slurp(params_both.file("final_state.vti")) == slurp(params_vti.file("final_state.vti")));
  check_same_state(params_vti.file("final_state.vti"), params_text.file("final_state.dat"), 12, 10);
}

TEST_CASE("final state: a problem file's [output] final_state chooses, and --final-state overrides it") {
  TempDir in, text, both, overridden;
  REQUIRE(run_problem(in, text.path, kProblem + "[output]\nfinal_state = \"text\"\n", "").status == 0);
  CHECK(text.listing() == "av_vels.dat\nfinal_state.dat\n");
  REQUIRE(run_problem(in, both.path, kProblem + "[output]\nfinal_state = \"both\"\n", "").status == 0);
  CHECK(both.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.vti\n");
  REQUIRE(run_problem(in, overridden.path, kProblem + "[output]\nfinal_state = \"text\"\n", "--final-state vti").status == 0);
  CHECK(overridden.listing() == "av_vels.dat\nfinal_state.vti\n");
  // [output] is no part of the problem: the state is the same.
  CHECK(slurp(both.file("final_state.dat")) == slurp(text.file("final_state.dat")));
  CHECK(slurp(both.file("final_state.vti")) == slurp(overridden.file("final_state.vti")));
}

TEST_CASE("final state: an unknown format is a one-line error naming the option or the file's line, and nothing is written") {
  TempDir in, parent;
  const std::string out = parent.file("out");
  Result r = run_problem(in, out, kProblem, "--final-state xml");
  CHECK(r.status == 2);
  CHECK(r.err == "error: --final-state must be text, vti or both, got 'xml' (see --help)\n");
  r = run_params(in, out, "--final-state ''");
  CHECK(r.status == 2);
  CHECK(r.err == "error: --final-state must be text, vti or both, got '' (see --help)\n");
  // Line 14 of the file: [output] follows kProblem's 12 lines.
  r = run_problem(in, out, kProblem + "[output]\nfinal_state = \"xml\"\n", "");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + in.file("p.toml") +
                     ":14: final_state must be \"text\" (final_state.dat), \"vti\" (final_state.vti) or \"both\", got "
                     "\"xml\"\n");
  r = run_problem(in, out, kProblem + "[output]\nfinal_state = 1\n", "");
  CHECK(r.status == 1);
  CHECK(contains(r.err, "p.toml:14: final_state must be \"text\""));
  CHECK(contains(r.err, "got 1\n"));
  r = run_problem(in, out, kProblem + "[output]\nfinal_stat = \"vti\"\n", "");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + in.file("p.toml") + ":14: unknown key 'final_stat' in [output]; did you mean 'final_state'?\n");
  r = run_problem(in, out, "final_state = \"vti\"\n" + kProblem, "");  // before any table
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + in.file("p.toml") + ":1: key 'final_state' is outside any table: it belongs in [output]\n");
  r = run_problem(in, out, kProblem + "final_state = \"vti\"\n", "");  // in the [[obstacle]] above
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + in.file("p.toml") + ":13: unknown key 'final_state' in [[obstacle]]: it belongs in [output]\n");
  r = run_problem(in, out, kProblem + "[flow]\n", "");  // (a TOML error: the table twice)
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(!exists(out));
  CHECK(parent.listing() == "");
}

TEST_CASE("final state: a run that switches format removes the earlier run's own file, never the user's") {
  TempDir in, out;
  // A coursework run, then the same folder asked for the .vti alone.
  REQUIRE(run_params(in, out.path, "").status == 0);
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\n");
  Result r = run_params(in, out.path, "--final-state vti");
  REQUIRE(r.status == 0);
  CHECK(r.err == "warning: removed " + out.file("final_state.dat") +
                     ": an earlier run's output, which this run does not write\n");
  CHECK(out.listing() == "av_vels.dat\nfinal_state.vti\n");
  // And back: the .vti the last run wrote goes.
  r = run_params(in, out.path, "");
  REQUIRE(r.status == 0);
  CHECK(r.err == "warning: removed " + out.file("final_state.vti") +
                     ": an earlier run's output, which this run does not write\n");
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\n");
  // A problem file's run after it: final_state.dat was the coursework run's.
  r = run_problem(in, out.path, kProblem, "");
  REQUIRE(r.status == 0);
  CHECK(r.err == "warning: removed " + out.file("final_state.dat") +
                     ": an earlier run's output, which this run does not write\n");
  CHECK(out.listing() == "av_vels.dat\nfinal_state.vti\n");

  // A user's files under those names, which no manifest records, stay.
  TempDir mine;
  mine.write("final_state.vti", "my ParaView data");
  r = run_params(in, mine.path, "");
  REQUIRE(r.status == 0);
  CHECK(r.err == "warning: " + mine.file("final_state.vti") +
                     ": left in place: this run does not write it, and no record shows an earlier run wrote it\n");
  CHECK(slurp(mine.file("final_state.vti")) == "my ParaView data");
  // The run's own final_state.dat, changed by the user since, stays too
  // (final_state.vti, an output of this run, is replaced as every output is).
  std::string text = slurp(mine.file("final_state.dat"));
  text[0] = text[0] == '0' ? '1' : '0';
  mine.write("final_state.dat", text);
  r = run_problem(in, mine.path, kProblem, "");
  REQUIRE(r.status == 0);
  CHECK(r.err == "warning: " + mine.file("final_state.dat") +
                     ": left in place: this run does not write it, and it changed since an earlier run wrote it\n");
  CHECK(slurp(mine.file("final_state.dat")) == text);
  CHECK(mine.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.vti\n");
}

TEST_CASE("final state: the library writes what d2q9-bgk writes, by the same rule, and Text or Both when asked") {
  TempDir in, cli, lib;
  REQUIRE(run_problem(in, cli.path, kProblem, "--final-state both").status == 0);
  d2q9::Simulation sim(d2q9::load_problem(in.file("p.toml")), {d2q9::Backend::Reference});
  sim.step(40);
  sim.write_outputs(lib.path);
  CHECK(lib.listing() == "av_vels.dat\nfinal_state.vti\n");
  CHECK(slurp(lib.file("final_state.vti")) == slurp(cli.file("final_state.vti")));
  sim.write_outputs(lib.path, d2q9::FinalStateFormat::Text);
  CHECK(lib.listing() == "av_vels.dat\nfinal_state.dat\n");  // the .vti it wrote before, removed
  CHECK(slurp(lib.file("final_state.dat")) == slurp(cli.file("final_state.dat")));
  sim.write_outputs(lib.path, d2q9::FinalStateFormat::Both);
  CHECK(lib.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.vti\n");

  // A coursework problem's default is the text, as d2q9-bgk's.
  TempDir coursework;
  d2q9::Simulation params_sim(d2q9::load_problem(in.write("in.params", kParams), in.write("obs.dat", kObstacles)),
                              {d2q9::Backend::Reference});
  params_sim.step(40);
  params_sim.write_outputs(coursework.path);
  CHECK(coursework.listing() == "av_vels.dat\nfinal_state.dat\n");

  // The one rule, read by all three.
  d2q9::Problem problem = d2q9::load_problem(in.file("p.toml"));
  CHECK(d2q9::final_state_format(problem) == d2q9::FinalStateFormat::Vti);
  CHECK(d2q9::final_state_format(problem, d2q9::FinalStateFormat::Text) == d2q9::FinalStateFormat::Text);
  problem.final_state = d2q9::FinalStateFormat::Both;
  CHECK(d2q9::final_state_format(problem) == d2q9::FinalStateFormat::Both);
  CHECK(d2q9::final_state_format(d2q9::Problem{}) == d2q9::FinalStateFormat::Text);
}

TEST_CASE("final state: d2q9-check compares a final_state.vti with a final_state.dat or another .vti") {
  const std::string check = std::string(D2Q9_EXE).substr(0, std::string(D2Q9_EXE).rfind('/')) + "/d2q9-check";
  TempDir in, text, vti, other;
  REQUIRE(run_problem(in, text.path, kProblem, "--final-state text").status == 0);
  REQUIRE(run_problem(in, vti.path, kProblem, "").status == 0);
  Result r = run_shell(q(check) + " " + q(text.path) + " " + q(vti.path));
  CHECK(r.status == 0);
  CHECK(contains(r.out, "final_state ux (relative L2)"));
  CHECK(contains(r.out, "PASS"));
  r = run_shell(q(check) + " " + q(vti.path) + " " + q(vti.path));
  CHECK(r.status == 0);
  // Another flow (a stronger force) fails, read from its .vti.
  std::string stronger = kProblem;
  stronger.replace(stronger.find("1e-5"), 4, "3e-5");
  REQUIRE(run_problem(in, other.path, stronger, "").status == 0);
  r = run_shell(q(check) + " " + q(text.path) + " " + q(other.path));
  CHECK(r.status == 1);
  CHECK(contains(r.out, "FAIL"));
  // A folder with neither file is named.
  TempDir empty;
  empty.write("av_vels.dat", slurp(text.file("av_vels.dat")));
  r = run_shell(q(check) + " " + q(text.path) + " " + q(empty.path));
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + empty.path + ": holds neither final_state.dat nor final_state.vti\n");
}


TEST_SUITE_END();
