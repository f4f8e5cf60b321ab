// What an audit of the suite found unpinned (issue 43): bugs planted one at a
// time that every other test let pass. Each case here fails for its bug.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/run_loop.hpp"
#include "sim/measurements.hpp"
#include "sim/simulation.hpp"
#include "sim/simulation_internal.hpp"
#include "device/tuning.hpp"
#include "helpers.hpp"
#include "problem/lattice.hpp"
#include "problem/problem_file.hpp"
#include "problem/stability.hpp"
#include "reference/reference_solver.hpp"

using namespace d2q9;
using d2q9::test::contains;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::slurp;
using d2q9::test::TempDir;

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

namespace {

// Distributions of one cell at density 1 moving at `speed` along x.
std::vector<double> cell_moving_at(double speed) {
  std::vector<double> f(kSpeeds, 0.0);
  f[0] = 1.0 - speed;
  f[1] = speed;  // kEx[1] = 1, kEy[1] = 0
  return f;
}

std::string problem_error(const std::string& text) {
  try {
    parse_problem_file(text, "p.toml");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// A sine of period 50 samples whose amplitude alternates period by period
// between 1 - spread/2 and 1 + spread/2: amplitudes that spread by `spread`
// of their mean.
std::vector<double> alternating_oscillation(double spread) {
  std::vector<double> s;
  for (int i = 0; i < 1000; ++i) {
    const double amplitude = (i / 50) % 2 ? 1.0 + spread / 2 : 1.0 - spread / 2;
    s.push_back(amplitude * std::sin(2 * M_PI * (i + 0.5) / 50.0));  // crossings between samples
  }
  return s;
}

}  // namespace

TEST_CASE("audit: the Mach check compares a speed with c_s = 1/sqrt(3), not c_s^2 = 1/3") {
  static_assert(kSoundSpeed > 0.5773502 && kSoundSpeed < 0.5773503);
  // 0.45 lies between 1/3 and 1/sqrt(3): subsonic.
  CHECK_NOTHROW(check_average_velocity(0.45, 7));
  CHECK_THROWS_AS(check_average_velocity(0.58, 7), InstabilityError);
  Params p;
  p.nx = 1;
  p.ny = 1;
  CHECK(supersonic_cell(p, cell_moving_at(0.45).data(), 1, 0, 0) == "");
  CHECK(contains(supersonic_cell(p, cell_moving_at(0.58).data(), 1, 0, 0), "|u| = 0.58 at cell (0, 0)"));
  // The whole-field check goes through the same per-cell rule.
  ObstacleMask mask(1, 1);
  CHECK_NOTHROW(check_distributions(p, mask, cell_moving_at(0.45), 3));
  CHECK_THROWS_AS(check_distributions(p, mask, cell_moving_at(0.58), 3), InstabilityError);
}

TEST_CASE("audit: the Strouhal rule refuses amplitudes that spread by more than 10% of their mean, and says 10%") {
  REQUIRE(kStrouhalAmplitudeSpread == 0.10);
  const Oscillation calm = analyse_oscillation(alternating_oscillation(0.08), 1, 1.0);
  CHECK(calm.stationary);
  CHECK(calm.frequency == doctest::Approx(1 / 50.0).epsilon(1e-3));
  const Oscillation uneven = analyse_oscillation(alternating_oscillation(0.20), 1, 1.0);
  CHECK_FALSE(uneven.stationary);
  CHECK(contains(uneven.why, "(a stationary one stays within 10% of its mean)"));
}

TEST_CASE("audit: too short a signal says '1 sample', not '1 samples'") {
  CHECK(analyse_oscillation({0.0, 1.0}, 1, 1.0).why == "has 1 sample in the second half of the run");
  CHECK(analyse_oscillation({0.0, 1.0, 2.0, 3.0}, 1, 1.0).why == "has 2 samples in the second half of the run");
}

TEST_CASE("audit: problem files take a whole float as an integer, and list every table in their errors") {
  const std::string grid = "[grid]\nnx = 40\nny = 10\n[flow]\nsteps = 10\nviscosity = 0.1\n";
  const Problem pr = parse_problem_file(grid + "[edges]\nleft = { inlet_velocity = [0.01, 0.0], sponge = 3.0 }\n"
                                               "right = { outlet_density = 1.0 }\n",
                                        "p.toml");
  CHECK(pr.params.extensions.sponge(Edge::Left) == 3);
  CHECK(problem_error(grid + "[edges]\nleft = { inlet_velocity = [0.01, 0.0], sponge = 3.5 }\n"
                             "right = { outlet_density = 1.0 }\n") == "p.toml:8: sponge must be an integer, got 3.5");
  CHECK(problem_error(grid + "[xyzzy]\na = 1\n") ==
        "p.toml:7: unknown table [xyzzy]: a problem file holds [grid], [flow], [edges], [[obstacle]], [forces], "
        "[probes], [heat] and [output]");
}

TEST_CASE("audit: two processes storing tuning results at once keep both's entries") {
  TempDir cache;
  const char* before = std::getenv("D2Q9_CACHE_DIR");
  const std::string saved = before ? before : "";
  ::setenv("D2Q9_CACHE_DIR", cache.path.c_str(), 1);
  // Four writers of 25 keys each, all at once: without a lock one's read-modify-rename loses another's entries.
  std::vector<pid_t> children;
  for (int w = 0; w < 4; ++w) {
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      for (int k = 0; k < 25; ++k)
        store_tuned_launch("writer" + std::to_string(w) + "-key" + std::to_string(k),
                           {KernelVariant::Fused, {64, 1}}, 1e-4);
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status));
  }
  const nlohmann::json cache_json = nlohmann::json::parse(slurp(cache.file("tuning.json")));
  CHECK(cache_json.size() == 100);
  if (before) ::setenv("D2Q9_CACHE_DIR", saved.c_str(), 1);
  else ::unsetenv("D2Q9_CACHE_DIR");
}

TEST_CASE("audit: the run loop's account of snapshots and steady checks adds up every call, not only the last") {
  // Issue 56: `seconds = ...` in run_steps' timer kept only the last call's
  // time (20 snapshots reported as one). Each hook here sleeps a
  // millisecond and times itself: the loop times each call around the
  // hook's own timing, so its account of a part is at least the sum of what
  // the calls measured inside, whatever the machine's load; one call's
  // time is about a twentieth of it.
  using clock = std::chrono::steady_clock;
  const Params p = d2q9::test::make_params(10, 8, 40, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  const auto owned = SimulationInternals::on_solver(Problem{p, m, {}, std::nullopt},
                                                    std::make_unique<ReferenceSolver<float>>(p, m));
  Simulation& sim = *owned;
  struct Calls {
    int count = 0;
    double inside_s = 0;
    void sleep_timed() {
      const auto t0 = clock::now();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      const double s = std::chrono::duration<double>(clock::now() - t0).count();
      ++count;
      inside_s += s;
    }
  } snapshots, checks;
  RunLoopOptions loop;
  loop.snapshot_every = 2;
  loop.snapshot = [&](int) { snapshots.sleep_timed(); };
  loop.steady_every = 4;
  loop.steady = [&](int) {
    checks.sleep_timed();
    return false;
  };
  const RunLoopResult r = run_steps(sim, loop);
  REQUIRE(snapshots.count == 20);  // steps 2, 4 ... 40
  REQUIRE(checks.count == 9);      // steps 4, 8 ... 36 (none at the last step)
  // Each call slept a millisecond at least: the sum is many calls' worth.
  REQUIRE(snapshots.inside_s >= 20 * 0.001);
  REQUIRE(checks.inside_s >= 9 * 0.001);
  CHECK(r.snapshots_s >= snapshots.inside_s);
  CHECK(r.steady_checks_s >= checks.inside_s);
  CHECK(r.checkpoints_s == 0);
  CHECK(r.progress_s == 0);
}

TEST_SUITE_END();

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

TEST_CASE("audit: the summary's final Cd and Cl are forces.csv's last row, sign included") {
  TempDir dir;
  // An off-centre cylinder: its lift is not zero.
  std::string text = slurp(std::string(D2Q9_SOURCE_DIR) + "/tests/problems/cylinder_measured.toml");
  text.replace(text.find("steps = 40000"), 13, "steps = 300");
  const std::string p = dir.write("p.toml", text);
  const Result r = run_shell("'" D2Q9_EXE "' '" + p + "' -q --no-png -b reference -o '" + dir.path +
                             "' --summary-json '" + dir.file("summary.json") + "'");
  REQUIRE(r.status == 0);
  const nlohmann::json summary = nlohmann::json::parse(slurp(dir.file("summary.json")));
  const nlohmann::json& body = summary.at("forces").at("cylinder");
  // forces.csv: step,cylinder_Fx,cylinder_Fy,cylinder_Cd,cylinder_Cl; its last row.
  std::istringstream csv(slurp(dir.file("forces.csv")));
  std::string line, last;
  while (std::getline(csv, line)) last = line;
  std::vector<double> row;
  std::istringstream fields(last);
  for (std::string field; std::getline(fields, field, ',');) row.push_back(std::strtod(field.c_str(), nullptr));
  REQUIRE(row.size() == 5);
  CHECK(row[0] == 300);
  REQUIRE(std::fabs(row[4]) > 1e-6);  // a lift whose sign can be wrong
  for (const auto& [key, column] : {std::pair<const char*, int>{"Fx", 1}, {"Fy", 2}, {"Cd", 3}, {"Cl", 4}}) {
    CAPTURE(key);
    CHECK(body.at(key).get<double>() == doctest::Approx(row[column]).epsilon(1e-11));
  }
}

TEST_CASE("audit: a cache folder that cannot be written says so once") {
  TempDir dir;
  std::string cache;
  std::string why;
  if (::geteuid() != 0) {
    // Not root: a read-only folder is one.
    cache = dir.file("cache");
    REQUIRE(::mkdir(cache.c_str(), 0555) == 0);
  } else {
    // Root writes into any folder whatever its mode: a folder of sysfs, where nothing can be made, stands in.
    struct stat st {};
    if (::stat("/sys/kernel", &st) != 0 || !S_ISDIR(st.st_mode) || ::mkdir("/sys/kernel/d2q9-probe", 0755) == 0) {
      ::rmdir("/sys/kernel/d2q9-probe");
      D2Q9_SKIP("running as root, and /sys/kernel is no folder where nothing can be made: root writes into a "
                "read-only folder, so there is no unwritable cache folder to give it here");
    }
    cache = "/sys/kernel";
  }
  const std::string pf = dir.write("in.params", "12\n10\n40\n10\n0.1\n0.02\n1.7\n");
  const std::string of = dir.write("obs.dat", "0 0 1\n");
  const Result r = run_shell("D2Q9_CACHE_DIR='" + cache + "' '" D2Q9_EXE "' '" + pf + "' '" + of + "' -q --no-png -o '" +
                             dir.path + "'");
  CHECK(r.status == 0);
  CHECK(r.err.rfind("warning: cache folder " + cache + " cannot be written (", 0) == 0);
  CHECK(r.err.find(": nothing is cached\n") != std::string::npos);
  CHECK(d2q9::test::count_lines(r.err) == 1);
}

TEST_SUITE_END();
