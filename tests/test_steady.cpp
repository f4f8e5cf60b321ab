// Runs that know when they are done (--until-steady, [flow] until_steady),
// the summary's forces over a stated window, and a Strouhal number only from
// a stationary oscillation (docs/forces-and-probes.md, docs/running.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/measurement_recorder.hpp"
#include "sim/steady.hpp"
#include "helpers.hpp"
#include "io/checkpoint.hpp"

using namespace d2q9;
using d2q9::test::contains;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_program;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

// A log of one body "c" (U 0.05, L 10) whose drag is `drag` and lift `lift`, step by step.
MeasurementSummary summary_of(const std::vector<double>& lift, double drag = 1.0) {
  Measurements m;
  m.bodies = {"c"};
  m.velocity = 0.05;
  m.length = 10;
  Params p;
  MeasurementRecorder recorder(m, p, 0);
  std::vector<double> f;
  for (double l : lift) f.insert(f.end(), {drag, l});
  recorder.add_forces(f);
  return recorder.log().summary();
}

std::string problem_file(const std::string& name) { return std::string(D2Q9_SOURCE_DIR) + "/tests/problems/" + name; }

std::string edited(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  REQUIRE_MESSAGE(at != std::string::npos, "no \"" << from << "\"");
  return text.replace(at, from.size(), to);
}

// forces.csv: column name -> values, and the steps.
struct Csv {
  std::vector<int> steps;
  std::map<std::string, std::vector<double>> cols;
};
Csv read_csv(const std::string& text) {
  Csv c;
  std::istringstream in(text);
  std::string line, cell;
  std::getline(in, line);
  std::vector<std::string> names;
  std::istringstream header(line);
  while (std::getline(header, cell, ',')) names.push_back(cell);
  while (std::getline(in, line)) {
    std::istringstream row(line);
    for (std::size_t i = 0; std::getline(row, cell, ','); ++i) {
      if (i == 0) c.steps.push_back(std::stoi(cell));
      else c.cols[names[i]].push_back(std::stod(cell));
    }
  }
  return c;
}

// Mean, min, max of `col` over steps first..last of forces.csv.
WindowStats stats_of(const Csv& c, const std::string& col, int first, int last) {
  WindowStats s{0, INFINITY, -INFINITY};
  int n = 0;
  for (std::size_t r = 0; r < c.steps.size(); ++r)
    if (c.steps[r] >= first && c.steps[r] <= last) {
      const double v = c.cols.at(col)[r];
      s.mean += v, s.min = std::min(s.min, v), s.max = std::max(s.max, v), ++n;
    }
  REQUIRE(n == last - first + 1);
  s.mean /= n;
  return s;
}

void check_window(const nlohmann::json& j, const WindowStats& s) {
  // forces.csv holds 13 significant digits.
  CHECK(j["mean"].get<double>() == doctest::Approx(s.mean).epsilon(1e-10));
  CHECK(j["min"].get<double>() == doctest::Approx(s.min).epsilon(1e-10));
  CHECK(j["max"].get<double>() == doctest::Approx(s.max).epsilon(1e-10));
  CHECK(j["amplitude"].get<double>() == doctest::Approx((s.max - s.min) / 2).epsilon(1e-8).scale(std::fabs(s.mean)));
}

}  // namespace

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

TEST_CASE("strouhal: a stationary oscillation gives its St with the spread of its periods as the uncertainty") {
  // Period 237 steps, its phase wobbling slowly: the periods differ a little.
  std::vector<double> lift;
  for (int t = 0; t < 8000; ++t)
    lift.push_back(0.02 + 0.3 * std::sin(2 * M_PI * t / 237.0 + 0.4 + 0.3 * std::sin(2 * M_PI * t / 1100.0)));
  const Oscillation o = analyse_oscillation(lift, 1, 1.0);
  REQUIRE_MESSAGE(o.stationary, o.why);
  CHECK(o.periods >= 15);
  CHECK(o.frequency_sd > 0);
  CHECK(std::fabs(o.frequency - 1 / 237.0) < 2 * o.frequency_sd);
  CHECK(o.frequency_sd < 0.05 * o.frequency);
  // Through the log: St = f L / U, the window is the estimate's whole periods.
  const MeasurementSummary s = summary_of(lift);
  REQUIRE(s.strouhal);
  CHECK(s.strouhal->value == doctest::Approx(o.frequency * 10 / 0.05));
  CHECK(s.strouhal->uncertainty == doctest::Approx(o.frequency_sd * 10 / 0.05));
  CHECK(std::fabs(s.strouhal->value - 10 / (237.0 * 0.05)) < 2 * s.strouhal->uncertainty);
  CHECK(s.strouhal->source == "lift of c");
  CHECK(s.window.first_step == s.strouhal->first_step);
  CHECK(s.window.last_step == s.strouhal->last_step);
  CHECK(s.window.rule == "the " + std::to_string(o.periods) + " whole periods of the Strouhal estimate");
  CHECK(s.window.last_step - s.window.first_step + 1 == doctest::Approx(o.periods / o.frequency).epsilon(0.01));
  // Over whole periods the lift's mean is its offset, its amplitude the sine's.
  REQUIRE(s.bodies[0].cl_window);
  CHECK(s.bodies[0].fy_window.mean == doctest::Approx(0.02).epsilon(0.05));
  CHECK(s.bodies[0].fy_window.amplitude() == doctest::Approx(0.3).epsilon(1e-3));
  CHECK(s.bodies[0].cd_window->mean == doctest::Approx(2 * 1.0 / (0.05 * 0.05 * 10)));
  // A pure sine, sampled every 10 steps: the same frequency, a far smaller spread.
  std::vector<double> sampled;
  for (int t = 0; t < 8000; t += 10) sampled.push_back(std::sin(2 * M_PI * t / 237.0));
  const Oscillation p = analyse_oscillation(sampled, 10, 1.0);
  REQUIRE(p.stationary);
  CHECK(p.frequency == doctest::Approx(1 / 237.0).epsilon(2e-3));
  CHECK(p.frequency_sd < 0.01 * p.frequency);
}

TEST_CASE("strouhal: a decaying oscillation gives no estimate, and says it decays from A to B") {
  // The lift's swing shrinks from 0.15 to 0.04 over the second half, as a ramped start-up's does.
  std::vector<double> lift;
  const double tau = 4000 / std::log(0.15 / 0.04);
  for (int t = 0; t < 8000; ++t) lift.push_back(0.15 * std::exp(-(t - 4000) / tau) * std::sin(2 * M_PI * t / 180.0));
  const Oscillation o = analyse_oscillation(lift, 1, 1.0);
  CHECK_FALSE(o.stationary);
  CHECK(o.periods >= 20);
  CHECK(o.amplitude_first == doctest::Approx(0.15).epsilon(0.05));
  CHECK(o.amplitude_last == doctest::Approx(0.04).epsilon(0.05));
  CHECK_MESSAGE(contains(o.why, "is not stationary: its amplitude decays from 0.139 to 0.0423 over the 21 periods in the second half of the run"), o.why);
  CHECK_MESSAGE(contains(o.why, "to 0.04"), o.why);
  const MeasurementSummary s = summary_of(lift);
  CHECK_FALSE(s.strouhal);
  CHECK(s.strouhal_note == "no estimate: the lift of c " + o.why);
  // Not an estimate's window: the last 10% of the steps.
  CHECK(s.window.first_step == 7201);
  CHECK(s.window.last_step == 8000);
  CHECK(s.window.rule == "the last 10% of the steps");
  // Growing alike.
  std::reverse(lift.begin(), lift.end());
  CHECK(contains(analyse_oscillation(lift, 1, 1.0).why, "is not stationary: its amplitude grows from"));
}

TEST_CASE("strouhal: noise, a steady signal and too few periods give no estimate, each saying why") {
  // Rounding noise about a steady lift: below the noise floor, 1% of the drag.
  std::mt19937 random(7);
  std::uniform_real_distribution<double> unit(-1, 1);
  std::vector<double> quiet, loud;
  for (int t = 0; t < 6000; ++t) quiet.push_back(0.01 + 1e-6 * unit(random));
  for (int t = 0; t < 6000; ++t) loud.push_back(0.01 + 0.2 * unit(random));
  const Oscillation q = analyse_oscillation(quiet, 1, 1.0);
  CHECK_FALSE(q.stationary);
  CHECK_MESSAGE(contains(q.why, "is steady: its amplitude over the second half of the run, 9.99e-07, is below the noise floor 0.01 (1% of 1)"), q.why);
  // Loud noise crosses its mean at random: no one amplitude or period.
  const Oscillation l = analyse_oscillation(loud, 1, 1.0);
  CHECK_FALSE(l.stationary);
  CHECK_MESSAGE((contains(l.why, "is not stationary") || contains(l.why, "has no single frequency")), l.why);
  CHECK_FALSE(summary_of(loud).strouhal);
  // Three whole periods in the second half.
  std::vector<double> slow;
  for (int t = 0; t < 2000; ++t) slow.push_back(std::sin(2 * M_PI * t / 300.0));
  const Oscillation s = analyse_oscillation(slow, 1, 1.0);
  CHECK_FALSE(s.stationary);
  CHECK(s.why == "has 2 whole periods in the second half of the run: too few (at least 4)");
  // Periods that alternate 100 and 140 steps: one amplitude, no single frequency.
  std::vector<double> uneven;
  for (int k = 0; k < 60; ++k)
    for (int t = 0, n = k % 2 ? 140 : 100; t < n; ++t) uneven.push_back(std::sin(2 * M_PI * t / n));
  const Oscillation u = analyse_oscillation(uneven, 1, 1.0);
  CHECK_FALSE(u.stationary);
  CHECK_MESSAGE(contains(u.why, "has no single frequency: its periods over the "), u.why);
  CHECK_MESSAGE(contains(u.why, "vary by 17% (standard deviation over mean; at most 5%)"), u.why);
}

TEST_CASE("steady check: windows of max(1000, steps/10), the larger of the mean's change and the swing, each quantity by name") {
  CHECK(steady_rule(1e-6, 5000).window == 1000);
  CHECK(steady_rule(1e-6, 40000).window == 4000);
  CHECK(steady_rule(1e-6, 40001).window == 4001);
  CHECK(steady_rule(1e-6, 40000).every == 400);
  const SteadyRule rule = steady_rule(1e-3, 20000);  // W = 2000
  std::vector<double> av, forces;
  for (int t = 0; t < 12000; ++t) {
    av.push_back(0.05 * (1 + std::exp(-t / 500.0)));
    forces.insert(forces.end(), {2.0, 0.5 + 0.1 * std::exp(-t / 2000.0)});  // body "b": Fx steady, Fy slower
  }
  auto at = [&](int n, const std::vector<std::string>& bodies) {
    const std::vector<double> a(av.begin(), av.begin() + n);
    const std::vector<double> f(forces.begin(), forces.begin() + (bodies.empty() ? 0 : 2 * n));
    return check_steady(rule, a, f, 0, bodies);
  };
  CHECK_FALSE(at(3999, {}).checked);  // fewer than 2W steps
  SteadyCheck c = at(4000, {});
  CHECK(c.checked);
  CHECK_FALSE(c.steady);
  CHECK(c.quantity == "av_vels");
  // The larger of the means' change and the last window's swing, over its mean, by hand.
  auto change = [](const std::vector<double>& v, std::size_t stride, std::size_t offset, int n, int w, double scale) {
    double before = 0, last = 0, lo = INFINITY, hi = -INFINITY;
    for (int t = n - 2 * w; t < n - w; ++t) before += v[t * stride + offset] / w;
    for (int t = n - w; t < n; ++t) {
      const double x = v[t * stride + offset];
      last += x / w, lo = std::min(lo, x), hi = std::max(hi, x);
    }
    return std::max(std::fabs(last - before), hi - lo) / (scale > 0 ? scale : std::fabs(last));
  };
  CHECK(c.change == doctest::Approx(change(av, 1, 0, 4000, 2000, 0)));
  CHECK(c.change > 0.2);  // the means moved by 0.24 of the mean
  CHECK(at(8000, {}).steady);
  CHECK(at(8000, {}).change == doctest::Approx(change(av, 1, 0, 8000, 2000, 0)));
  // The lift decays slower: Fy is the one not yet steady.
  c = at(8000, {"b"});
  CHECK_FALSE(c.steady);
  CHECK(c.quantity == "b_Fy");
  double fy = 0;
  for (int t = 6000; t < 8000; ++t) fy += forces[2 * t + 1] / 2000;
  CHECK(c.change == doctest::Approx(change(forces, 2, 1, 8000, 2000, std::hypot(2.0, fy))));
  CHECK(c.change > 2e-3);
  CHECK(at(12000, {"b"}).steady);
  CHECK(steady_text(rule, at(12000, {"b"}), 12000).rfind("steady after 12000 steps (change ", 0) == 0);
  CHECK(contains(steady_text(rule, at(12000, {"b"}), 12000), " < 1.00e-03 over the last 2000 steps)"));
  CHECK(steady_text(rule, c, 8000).rfind("not steady: change ", 0) == 0);
  // A periodic flow whose windows hold whole periods: the means agree, the swing says it is not steady.
  std::vector<double> periodic;
  for (int t = 0; t < 8000; ++t) periodic.push_back(0.05 + 0.001 * std::sin(2 * M_PI * t / 400.0));
  const SteadyCheck p = check_steady(rule, periodic, {}, 0, {});
  CHECK(p.checked);
  CHECK_FALSE(p.steady);
  CHECK(p.change == doctest::Approx(0.002 / 0.05).epsilon(1e-3));
  // Forces that do not cover the windows (a restart from an older checkpoint): no check yet.
  const std::vector<double> late(forces.begin() + 2 * 5000, forces.begin() + 2 * 8000);
  CHECK_FALSE(check_steady(rule, std::vector<double>(av.begin(), av.begin() + 8000), late, 5000, {"b"}).checked);
}

TEST_SUITE_END();

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

TEST_CASE("strouhal: a steady Re 20 cylinder gives no estimate at 600, 1000 and 2000 steps, with or without a ramp") {
  TempDir dir;
  const std::string base = slurp(problem_file("cylinder_steady.toml"));
  for (const bool ramp : {false, true}) {
    for (const int steps : {600, 1000, 2000}) {
      CAPTURE(ramp);
      CAPTURE(steps);
      std::string text = edited(base, "steps = 2000", "steps = " + std::to_string(steps));
      if (ramp) text = edited(text, "collision = \"trt\"", "collision = \"trt\"\ninlet_ramp = 300");
      const std::string p = dir.write("p.toml", text);
      const Result r = run_program("'" + p + "' -b reference --no-png -o '" + dir.path + "' --summary-json s.json");
      REQUIRE(r.status == 0);
      const auto j = nlohmann::json::parse(slurp(dir.file("s.json")));
      CHECK(j["strouhal"]["value"].is_null());
      const std::string note = j["strouhal"]["note"];
      MESSAGE(note);
      CHECK(note.rfind("no estimate: the lift of cylinder ", 0) == 0);
      CHECK(contains(note, "; uy at probe wake "));
      CHECK(contains(r.out, "Strouhal number:\t\t" + note + "\n"));
      CHECK_FALSE(contains(r.out, "+/-"));
    }
  }
}

TEST_CASE("strouhal: the shedding cylinder gives St with its uncertainty, and the forces over its whole periods match forces.csv") {
  TempDir dir;
  const Result r = run_program("'" + problem_file("cylinder_shedding.toml") + "' -b reference --no-png -o '" + dir.path +
                               "' --summary-json s.json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(slurp(dir.file("s.json")));
  const auto& st = j["strouhal"];
  REQUIRE_MESSAGE(!st["value"].is_null(), st.dump());
  const double value = st["value"], uncertainty = st["uncertainty"];
  MESSAGE("St = " << value << " +/- " << uncertainty << " from " << st["periods"] << " periods, steps "
                  << st["first_step"] << "-" << st["last_step"]);
  const std::string from = st["from"];
  CHECK((from == "lift of cylinder" || from == "uy at probe wake"));
  // Schafer and Turek's 2D-2: 0.295 to 0.305.
  CHECK(value > 0.28);
  CHECK(value < 0.32);
  CHECK(uncertainty > 0);
  CHECK(uncertainty < 0.02 * value);
  CHECK(st["periods"].get<int>() >= 4);
  char line[128];
  std::snprintf(line, sizeof line, "Strouhal number:\t\t%.4f +/- %.4f (from the %s, %d periods, steps %d-%d)\n",
                value, uncertainty, from.c_str(), st["periods"].get<int>(), st["first_step"].get<int>(), st["last_step"].get<int>());
  CHECK_MESSAGE(contains(r.out, line), r.out);
  // The forces' window is those periods, its values those of forces.csv.
  const int first = j["forces_window"]["first_step"], last = j["forces_window"]["last_step"];
  CHECK(first == st["first_step"].get<int>());
  CHECK(last == st["last_step"].get<int>());
  CHECK(first > 10000);
  CHECK(last <= 20000);
  const Csv csv = read_csv(slurp(dir.file("forces.csv")));
  const auto& w = j["forces"]["cylinder"]["window"];
  for (const char* q : {"Fx", "Fy", "Cd", "Cl"}) {
    CAPTURE(q);
    check_window(w[q], stats_of(csv, std::string("cylinder_") + q, first, last));
  }
  // Shedding: the lift swings, about a mean near 0.
  CHECK(w["Cl"]["amplitude"].get<double>() > 0.05);
  CHECK(std::fabs(w["Cl"]["mean"].get<double>()) < 0.2 * w["Cl"]["amplitude"].get<double>());
  CHECK(contains(r.out, "Forces over:\t\t\tsteps " + std::to_string(first) + "-" + std::to_string(last) + " (the " +
                            std::to_string(st["periods"].get<int>()) + " whole periods of the Strouhal estimate)"));
  // Cd: the last step's, as forces.csv's last row.
  CHECK(j["forces"]["cylinder"]["Cd"].get<double>() == doctest::Approx(csv.cols.at("cylinder_Cd").back()).epsilon(1e-10));
}

TEST_CASE("summary: without an estimate the forces are the mean, min, max and amplitude over the last 10% of the steps") {
  TempDir dir;
  const std::string p = dir.write("p.toml", edited(slurp(problem_file("cylinder_steady.toml")), "steps = 2000", "steps = 605"));
  const Result r = run_program("'" + p + "' -b reference --no-png -o '" + dir.path + "' --summary-json s.json");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(slurp(dir.file("s.json")));
  // ceil(605 / 10) = 61 steps: 545 to 605.
  CHECK(j["forces_window"]["first_step"] == 545);
  CHECK(j["forces_window"]["last_step"] == 605);
  CHECK(j["forces_window"]["rule"] == "the last 10% of the steps");
  CHECK(contains(r.out, "Forces over:\t\t\tsteps 545-605 (the last 10% of the steps): mean (min, max, amplitude)\n"));
  const Csv csv = read_csv(slurp(dir.file("forces.csv")));
  const auto& w = j["forces"]["cylinder"]["window"];
  for (const char* q : {"Fx", "Fy", "Cd", "Cl"}) {
    CAPTURE(q);
    check_window(w[q], stats_of(csv, std::string("cylinder_") + q, 545, 605));
  }
  const WindowStats cd = stats_of(csv, "cylinder_Cd", 545, 605);
  char line[160];
  std::snprintf(line, sizeof line, "Cd %.6f (%.6f, %.6f, %.6f)", cd.mean, cd.min, cd.max, (cd.max - cd.min) / 2);
  CHECK_MESSAGE(contains(r.out, line), r.out);
  // The start-up still moves the drag: the window's mean is not the last step's.
  CHECK(w["Cd"]["mean"].get<double>() != j["forces"]["cylinder"]["Cd"].get<double>());
  CHECK(j["steps_run"] == 605);
}

TEST_CASE("until-steady: a steady cylinder stops before its steps, says so, and writes the steps it ran") {
  TempDir dir;
  const std::string base = edited(slurp(problem_file("cylinder_steady.toml")), "steps = 2000", "steps = 30000");
  const std::string p = dir.write("p.toml", base);
  const Result r = run_program("'" + p + "' -b reference --no-png -o '" + dir.path + "/a' --summary-json s.json --until-steady 1e-3");
  REQUIRE(r.status == 0);
  const auto j = nlohmann::json::parse(slurp(dir.file("a/s.json")));
  const int n = j["steps_run"];
  MESSAGE(j["until_steady"].dump());
  CHECK(n < 30000);
  CHECK(n >= 6000);       // two windows of 3000
  CHECK(n % 300 == 0);    // checked every W / 10 steps
  CHECK(j["params"]["max_iters"] == 30000);
  CHECK(j["until_steady"]["steady"] == true);
  CHECK(j["until_steady"]["stopped_early"] == true);
  CHECK(j["until_steady"]["window_steps"] == 3000);
  CHECK(j["until_steady"]["change"].get<double>() < 1e-3);
  CHECK(count_lines(slurp(dir.file("a/av_vels.dat"))) == n);
  CHECK(count_lines(slurp(dir.file("a/forces.csv"))) == n + 1);
  char said[160];
  std::snprintf(said, sizeof said, "Steady state:\t\t\tsteady after %d steps (change %.2e < 1.00e-03 over the last 3000 steps)\n", n,
                j["until_steady"]["change"].get<double>());
  CHECK_MESSAGE(contains(r.out, said), r.out);
  CHECK(contains(r.out, "Steps run:\t\t\t" + std::to_string(n) + " of 30000 (av_vels.dat has " + std::to_string(n) + " lines)\n"));
  // The forces over the steady window, the last 3000 steps.
  CHECK(j["forces_window"]["first_step"] == n - 2999);
  CHECK(j["forces_window"]["rule"] == "the last 3000 steps, judged steady");
  // The problem file's key does the same; the command line wins over it.
  const std::string keyed = dir.write("k.toml", edited(base, "collision = \"trt\"", "collision = \"trt\"\nuntil_steady = 1e-3"));
  const Result k = run_program("'" + keyed + "' -b reference --no-png -q -o '" + dir.path + "/k'");
  REQUIRE(k.status == 0);
  CHECK(slurp(dir.file("k/av_vels.dat")) == slurp(dir.file("a/av_vels.dat")));
  const Result tighter = run_program("'" + keyed + "' -b reference --no-png -o '" + dir.path + "/t' --until-steady 1e-4");
  REQUIRE(tighter.status == 0);
  CHECK(count_lines(slurp(dir.file("t/av_vels.dat"))) > n);
}

TEST_CASE("until-steady: a run that does not get steady runs all its steps and says how far from steady it is") {
  TempDir dir;
  const std::string p = dir.write("p.toml", edited(slurp(problem_file("cylinder_steady.toml")), "steps = 2000", "steps = 2500"));
  Result r = run_program("'" + p + "' -b reference --no-png -o '" + dir.path + "' --summary-json s.json --until-steady 1e-9");
  REQUIRE(r.status == 0);
  auto j = nlohmann::json::parse(slurp(dir.file("s.json")));
  CHECK(j["steps_run"] == 2500);
  CHECK(count_lines(slurp(dir.file("av_vels.dat"))) == 2500);
  CHECK(j["until_steady"]["steady"] == false);
  const double change = j["until_steady"]["change"];
  CHECK(change > 1e-9);
  char said[200];
  std::snprintf(said, sizeof said, "Steady state:\t\t\tnot steady: change %.2e after 2500 steps (%s, over the last 1000 steps; steady means below 1.00e-09)\n",
                change, j["until_steady"]["changed_most"].get<std::string>().c_str());
  CHECK_MESSAGE(contains(r.out, said), r.out);
  CHECK_FALSE(contains(r.out, "Steps run:"));
  // Too short to compare two windows: said so.
  const std::string s = dir.write("s.toml", edited(slurp(problem_file("cylinder_steady.toml")), "steps = 2000", "steps = 1500"));
  r = run_program("'" + s + "' -b reference --no-png -o '" + dir.path + "' --until-steady 1e-3");
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "Steady state:\t\t\tnot steady: no change measured after 1500 steps (the check compares two windows of 1000 steps, 2000 steps in all)\n"));
}

TEST_CASE("until-steady: a run stopped and restarted stops at the same step with the same outputs") {
  TempDir whole, stopped;
  const std::string p = whole.write("p.toml", edited(slurp(problem_file("cylinder_steady.toml")), "steps = 2000", "steps = 30000"));
  const std::string options = " -b reference --no-png --until-steady 1e-3";
  REQUIRE(run_program("'" + p + "' -q -o '" + whole.path + "/out'" + options).status == 0);
  const std::string checkpoint = stopped.file(d2q9::kCheckpointFile);
  const Result r_stopped = d2q9::test::run_shell(
      "{ '" + std::string(D2Q9_EXE) + "' '" + p + "' -o '" + stopped.path + "' -q --checkpoint-every 1000" + options +
      " & pid=$!; while [ ! -e '" + checkpoint + "' ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; kill -TERM $pid; wait $pid; }");
  REQUIRE_MESSAGE(r_stopped.status != 0, "the run ended before it was stopped");
  // The check goes on with the recorded --until-steady.
  const Result r = d2q9::test::run_shell("'" + std::string(D2Q9_EXE) + "' --restart '" + checkpoint + "'");
  REQUIRE(r.status == 0);
  CHECK(contains(r.out, "Steady state:\t\t\tsteady after "));
  for (const char* name : {"av_vels.dat", "forces.csv", "final_state.vti"}) {
    CAPTURE(name);
    CHECK(!slurp(stopped.file(name)).empty());
    CHECK(slurp(stopped.file(name)) == slurp(whole.file(std::string("out/") + name)));
  }
}

TEST_CASE("until-steady: a tolerance that is not a positive number is refused, on the command line and in a problem file") {
  for (const char* bad : {"0", "-1e-5", "abc", "1e-5x", "inf", "nan"}) {
    CAPTURE(bad);
    const Result r = run_program(std::string("--until-steady ") + bad + " x.toml");
    CHECK(r.status == 2);
    CHECK(r.err == std::string("error: --until-steady must be a positive number (a relative change, e.g. 1e-6), got '") + bad +
                       "' (see --help)\n");
  }
  TempDir dir;
  const std::string p = dir.write("p.toml", edited(slurp(problem_file("cylinder_steady.toml")), "collision = \"trt\"",
                                                   "collision = \"trt\"\nuntil_steady = -0.5"));
  const Result r = run_program("'" + p + "' -b reference -q -o '" + dir.path + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + p + ":12: until_steady must be positive, got -0.5\n");
}

TEST_SUITE_END();
