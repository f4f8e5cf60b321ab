#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "opencl/opencl_backend.hpp"
#include "sim/backend.hpp"
#include "device/kernel_cache.hpp"
#include "sim/launch_policy.hpp"
#include "sim/simulation_internal.hpp"
#include "device/tuning.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L tuning
TEST_SUITE_BEGIN("tuning");

using namespace d2q9;

namespace {

SolverFactory opencl_factory(const Params& p, const ObstacleMask& m) {
  return [p, m](const LaunchCandidate& launch) {
    SolverConfig c = d2q9::test::config(Precision::Float, launch.local);
    c.launch.variant = launch.variant;
    return make_solver(Backend::OpenCL, p, m, c);
  };
}

// A solver that only says how long its step takes: the search's decisions,
// free of timing noise (see paced_timer).
class PacedSolver final : public Solver {
 public:
  PacedSolver(LaunchCandidate launch, double seconds_per_step) : step_s(seconds_per_step) {
    plan_.variant = launch.variant;
    plan_.local = launch.local.is_auto() ? LocalSize{1, 1} : launch.local;
  }
  Backend backend() const override { return Backend::OpenCL; }
  std::string device_name() const override { return "paced"; }
  Precision precision() const override { return Precision::Float; }
  std::optional<LaunchPlan> launch_plan() const override { return plan_; }
  void run(int steps, std::vector<double>& av) override { av.insert(av.end(), steps, 0.0); }
  std::vector<double> distributions() override { return {}; }
  void load_distributions(const std::vector<double>&) override {}
  const double step_s;

 private:
  LaunchPlan plan_;
};

double paced_timer(Solver& solver) { return dynamic_cast<PacedSolver&>(solver).step_s; }

// Every launch takes `others` per step, except those `faster` names.
SolverFactory paced_factory(double others, std::vector<std::pair<std::string, double>> faster, int* built = nullptr) {
  return [=](const LaunchCandidate& launch) -> std::unique_ptr<Solver> {
    if (built) ++*built;
    double s = others;
    for (const auto& [text, seconds] : faster)
      if (launch.text() == text) s = seconds;
    return std::make_unique<PacedSolver>(launch, s);
  };
}

struct CacheDir {
  d2q9::test::TempDir dir;
  std::string saved = std::getenv("D2Q9_CACHE_DIR") ? std::getenv("D2Q9_CACHE_DIR") : "";
  CacheDir() { ::setenv("D2Q9_CACHE_DIR", dir.path.c_str(), 1); }
  ~CacheDir() { ::setenv("D2Q9_CACHE_DIR", saved.c_str(), 1); }
};

}  // namespace

TEST_CASE("tuning cache: stores, reloads, and survives damage") {
  CacheDir cache;
  ::setenv("D2Q9_CACHE_DIR", (cache.dir.path + "/nested/cache").c_str(), 1);
  const Params p = d2q9::test::make_params(64, 32, 10);
  const std::string key = tuning_key(Backend::OpenCL, "Some Device", p, Precision::Float, LaunchRequest{});
  CHECK(key == "opencl|Some Device|64x32|float|auto");
  LaunchRequest rows;
  rows.variant = KernelVariant::Split;
  rows.rows_per_item = 4;
  CHECK(tuning_key(Backend::Cuda, "D", p, Precision::Double, rows) == "cuda|D|64x32|double|split-r4");
  LaunchRequest blocked;
  blocked.variant = KernelVariant::Blocked;
  blocked.block_steps = 3;
  blocked.tile = {16, 8};
  CHECK(tuning_key(Backend::Cuda, "D", p, Precision::Float, blocked) == "cuda|D|64x32|float|blocked-k3-t16x8");
  // What compiles other kernels is another problem to time: collision, forces, curved walls, ...
  Params trt = p;
  trt.extensions.collision = CollisionOperator::Trt;
  trt.extensions.measured_bodies = 2;
  trt.extensions.curved_walls = true;
  CHECK(tuning_key(Backend::Cuda, "D", trt, Precision::Float, blocked) ==
        "cuda|D|64x32|float|blocked-k3-t16x8|trt,bodies=2,curved");
  CHECK_FALSE(load_tuned_launch(key).has_value());
  store_tuned_launch(key, {KernelVariant::Split, LocalSize{64, 2}}, 5e-6);
  auto got = load_tuned_launch(key);
  REQUIRE(got.has_value());
  CHECK(got->text() == "split 64x2");
  store_tuned_launch(key, {KernelVariant::FusedRows, LocalSize{}}, 5e-6);
  CHECK(load_tuned_launch(key)->text() == "fused-rows");
  CHECK_FALSE(load_tuned_launch(tuning_key(Backend::OpenCL, "Some Device", p, Precision::Double, LaunchRequest{})).has_value());

  // Entries this version cannot use (an older one's, without a variant; edited by hand) mean a new search.
  std::ofstream(tuning_cache_path()) << R"({")" << key << R"(": {"x": 64, "y": 2, "us_per_step": 3.0}})";
  CHECK_FALSE(load_tuned_launch(key).has_value());
  std::ofstream(tuning_cache_path()) << R"({")" << key << R"(": {"variant": "fused-rows", "x": 64, "y": 2}})";
  CHECK_FALSE(load_tuned_launch(key).has_value());
  std::ofstream(tuning_cache_path()) << "{ not json";
  CHECK_FALSE(load_tuned_launch(key).has_value());
  store_tuned_launch(key, {KernelVariant::Fused, LocalSize{32, 1}}, 4e-6);  // rewrites the damaged file
  CHECK(load_tuned_launch(key)->text() == "fused 32x1");
}

TEST_CASE("tuning: candidates fit the grid, and launches that cannot run are reported, not fatal") {
  const Params p = d2q9::test::make_params(40, 8, 10);
  for (const LocalSize& l : local_size_candidates(p)) {
    CHECK(l.x <= 40);
    CHECK(l.y <= 8);
  }
  const auto table = time_launches(opencl_factory(p, d2q9::test::test_obstacles(p)),
                                   {{KernelVariant::Fused, LocalSize{16, 1}},
                                    {KernelVariant::Fused, LocalSize{1 << 20, 1}},
                                    {KernelVariant::Split, LocalSize{8, 2}},
                                    {KernelVariant::FusedRows, LocalSize{}},
                                    {KernelVariant::FusedRows, LocalSize{8, 1}}});
  REQUIRE(table.size() == 5);
  CHECK(table[0].seconds_per_step > 0);
  CHECK(table[1].seconds_per_step < 0);
  CHECK(table[1].note.find("local size 1048576x1 is not valid") == 0);
  CHECK(table[2].seconds_per_step > 0);
  CHECK(table[3].seconds_per_step > 0);
  CHECK(table[4].seconds_per_step < 0);
  CHECK(table[4].note.find("--kernel-variant fused-rows runs a whole row per work-item and takes no --local-size") == 0);
}

TEST_CASE("tuning: a search times the default, the shapes, then the other variants, and never caches a slower launch") {
  CacheDir cache;
  const Params p = d2q9::test::make_params(256, 64, 10);  // 1.6e5 cell updates: no search unless forced
  LaunchSearch search;
  search.default_launch = {KernelVariant::FusedRows, LocalSize{}};
  search.default_reason = "fused-rows: the default";
  search.variants = {KernelVariant::Fused, KernelVariant::Blocked, KernelVariant::FusedRows};
  search.key = "paced|search";
  search.timer = paced_timer;
  const std::size_t shapes = local_size_candidates(p).size();

  SUBCASE("the default is fastest: kept and cached, searched once") {
    int built = 0;
    const auto make = paced_factory(200e-6, {{"fused-rows", 50e-6}}, &built);
    auto choice = choose_launch(make, p, false, search);
    CHECK(choice.how == LaunchSource::Default);  // a CPU default is not searched unasked
    CHECK(choice.table.empty());
    CHECK(built == 1);
    CHECK(choice.reason == "fused-rows: the default");  // a search may still come during the run (LaunchPolicy)

    choice = choose_launch(make, p, true, search);
    CHECK(choice.how == LaunchSource::Tuned);
    // the default, every shape of fused, then blocked at the fastest shape
    REQUIRE(choice.table.size() == 1 + shapes + 1);
    CHECK(choice.table[0].launch.text() == "fused-rows");
    CHECK(choice.table[1].launch.variant == KernelVariant::Fused);
    CHECK(choice.table[shapes + 1].launch.variant == KernelVariant::Blocked);
    CHECK(choice.solver->launch_plan()->variant == KernelVariant::FusedRows);
    CHECK(load_tuned_launch(search.key)->text() == "fused-rows");
    CHECK(choice.reason.find("none of " + std::to_string(choice.table.size()) + " launches timed now was faster") !=
          std::string::npos);

    // The next run's decision takes the cached launch (decide_launch; LaunchPolicy reads the cache).
    DeviceLimits cpu;
    cpu.name = "paced";
    cpu.gpu = false;
    const auto cached = load_tuned_launch(search.key);
    REQUIRE(cached.has_value());
    const LaunchDecision next = decide_launch(p, cpu, LaunchRequest{}, Precision::Float, 1,
                                              CachedLaunch{*cached, tuning_cache_path()});
    CHECK(next.how == LaunchSource::Cached);
    CHECK(next.reason == "fused-rows: the fastest in an earlier search, cached in " + tuning_cache_path());
    CHECK(next.plan.variant == KernelVariant::FusedRows);
  }
  SUBCASE("a faster launch replaces the default; the other variants are timed at the fastest shape") {
    const auto make = paced_factory(400e-6, {{"fused-rows", 300e-6}, {"fused 32x2", 200e-6}, {"blocked 32x2", 100e-6}});
    auto choice = choose_launch(make, p, true, search);
    CHECK(choice.solver->launch_plan()->variant == KernelVariant::Blocked);
    CHECK(choice.solver->local_size() == LocalSize{32, 2});
    CHECK(load_tuned_launch(search.key)->text() == "blocked 32x2");
    CHECK(choice.reason == "blocked 32x2: the fastest of " + std::to_string(1 + shapes + 1) + " launches timed now, cached");
  }
  SUBCASE("a launch faster by less than the margin does not replace the default") {
    const double by_default = 300e-6;
    const auto make = paced_factory(400e-6, {{"fused-rows", by_default}, {"fused 64x1", by_default * (1 - kTuneMargin / 3)}});
    auto choice = choose_launch(make, p, true, search);
    CHECK(choice.solver->launch_plan()->variant == KernelVariant::FusedRows);
    CHECK(load_tuned_launch(search.key)->text() == "fused-rows");
  }
  SUBCASE("a default timed slow at first (clocks still ramping up) is timed again, and kept") {
    int default_builds = 0;
    const SolverFactory make = [&](const LaunchCandidate& launch) -> std::unique_ptr<Solver> {
      if (launch.text() == "fused-rows") return std::make_unique<PacedSolver>(launch, ++default_builds == 1 ? 400e-6 : 100e-6);
      return std::make_unique<PacedSolver>(launch, launch.text() == "fused 128x2" ? 200e-6 : 300e-6);
    };
    auto choice = choose_launch(make, p, true, search);
    CHECK(default_builds == 4);  // once in the search, twice more against fused 128x2, once to run
    CHECK(choice.solver->launch_plan()->variant == KernelVariant::FusedRows);
    CHECK(load_tuned_launch(search.key)->text() == "fused-rows");
  }
  SUBCASE("a variant the user named is the only one searched") {
    LaunchSearch named = search;
    named.default_launch = {KernelVariant::Split, LocalSize{128, 1}};
    named.variants = {KernelVariant::Split};
    const auto make = paced_factory(400e-6, {{"split 64x4", 100e-6}});
    auto choice = choose_launch(make, p, true, named);
    for (const auto& r : choice.table) CHECK(r.launch.variant == KernelVariant::Split);
    CHECK(choice.table.size() == shapes);  // the default 128x1 is one of the shapes, timed once
    CHECK(choice.solver->local_size() == LocalSize{64, 4});
  }
}

TEST_CASE("tuning: the OpenCL launch on PoCL is given, the default, or searched, then cached") {
  CacheDir cache;
  const Params p = d2q9::test::make_params(32, 16, 10);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  SolverConfig config = d2q9::test::config(Precision::Float, LocalSize{8, 4});
  auto given = make_tuned_solver(Backend::OpenCL, p, m, config, false);
  CHECK(given.how == LaunchSource::Given);
  CHECK(given.solver->local_size() == LocalSize{8, 4});
  CHECK(given.solver->launch_plan()->variant == KernelVariant::Fused);
  CHECK(given.reason == "local size as given; fused: a local size was given, and fused-rows (the CPU default) takes none");

  config.launch.local = {};
  auto by_default = make_tuned_solver(Backend::OpenCL, p, m, config, false);
  CHECK(by_default.how == LaunchSource::Default);
  CHECK(by_default.solver->launch_plan()->variant == KernelVariant::FusedRows);

  auto tuned = make_tuned_solver(Backend::OpenCL, p, m, config, true);
  CHECK(tuned.how == LaunchSource::Tuned);
  REQUIRE(tuned.table.size() > 4);
  CHECK(tuned.table[0].launch.text() == "fused-rows");
  auto cached = make_tuned_solver(Backend::OpenCL, p, m, config, false);
  CHECK(cached.how == LaunchSource::Cached);
  CHECK(cached.solver->launch_plan()->variant == tuned.solver->launch_plan()->variant);
  CHECK(cached.solver->local_size() == tuned.solver->local_size());

  config.launch.variant = KernelVariant::FusedRows;
  config.launch.local = {128, 1};
  CHECK_THROWS_WITH_AS(make_tuned_solver(Backend::OpenCL, p, m, config, false),
                       doctest::Contains("fused-rows runs a whole row per work-item and takes no --local-size (got 128x1)"),
                       DeviceError);
}

// d2q9-bench is a tool, not a timed test: this checks that it runs and that
// its records are self-consistent, never how fast anything was.
TEST_CASE("d2q9-bench writes consistent CSV records, and refuses bad options without writing any") {
  d2q9::test::TempDir dir;
  const std::string bench = std::string("'") + D2Q9_BENCH_EXE + "' --kernels-dir '" + D2Q9_KERNELS_DIR +
                            "' --inputs-dir '" + D2Q9_SOURCE_DIR + "/inputs' -o '" + dir.path + "' ";
  // --quick sizes the copy buffers; the options given override its other
  // defaults, and --inputs-dir brings the coursework back.
  const auto r = d2q9::test::run_shell("D2Q9_CACHE_DIR='" + dir.path + "' " + bench +
                                       "--quick --sizes 32 --coursework-steps 3 --min-seconds 0.05 --local-size 32x1 "
                                       "--kernel-variant fused --rows-per-item 2");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::ifstream csv(dir.file("bench_opencl_float_fused.csv"));
  REQUIRE(csv.good());
  std::string header;
  std::getline(csv, header);
  CHECK(header ==
        "case,nx,ny,steps,seconds,mlups,effective_gbs,percent_of_copy,local_size,device,driver,backend,precision,"
        "variant,rows_per_item,commit,copy_gbs,skipped,version");
  std::vector<std::string> cases;
  for (std::string line; std::getline(csv, line);) {
    // Split on commas outside quotes.
    std::vector<std::string> f(1);
    bool quoted = false;
    for (char c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) f.emplace_back();
      else f.back() += c;
    }
    REQUIRE(f.size() == 19);
    CAPTURE(line);
    cases.push_back(f[0]);
    const double cells = std::stod(f[1]) * std::stod(f[2]);
    const double steps = std::stod(f[3]), seconds = std::stod(f[4]), mlups = std::stod(f[5]);
    CHECK(seconds > 0);
    CHECK(mlups == doctest::Approx(cells * steps / seconds / 1e6).epsilon(0.01));
    CHECK(std::stod(f[6]) == doctest::Approx(mlups * 73 / 1000).epsilon(0.01));
    CHECK(std::stod(f[7]) == doctest::Approx(100 * std::stod(f[6]) / std::stod(f[16])).epsilon(0.01));
    CHECK(f[8] == "32x1");
    CHECK(f[11] == "opencl");
    CHECK(f[12] == "float");
    CHECK(f[13] == "fused");
    // 4 rows per item only where asked for on one-step kernels: 2 here.
    CHECK(f[14] == "2");
    if (f[0] != "box_32") CHECK(steps == 3);
    CHECK(f[17].empty());
  }
  CHECK(cases == std::vector<std::string>{"box_32", "coursework_128x128", "coursework_128x256", "coursework_256x256",
                                          "coursework_1024x1024"});

  d2q9::test::TempDir empty;
  const std::string bad = std::string("'") + D2Q9_BENCH_EXE + "' -o '" + empty.path + "' --rows-per-item -1";
  const auto refused = d2q9::test::run_shell(bad);
  CHECK(refused.status == 2);
  CHECK(refused.err.rfind("error: ", 0) == 0);
  CHECK(std::count(refused.err.begin(), refused.err.end(), '\n') == 1);
  CHECK(empty.listing().empty());
}

namespace {

// The search of the SleepySolver tests: fused 128x1 by default, which steps
// in chunks of 20; the candidates: fused's other shapes, then split 128x1.
LaunchSearch sleepy_search() {
  LaunchSearch search;
  search.default_launch = {KernelVariant::Fused, LocalSize{128, 1}};
  search.default_reason = "fused: the default";
  search.variants = {KernelVariant::Fused, KernelVariant::Split};
  search.key = "sleepy|run";
  return search;
}

}  // namespace

TEST_CASE("the launch search during a run decides on the costs reported to it alone") {
  const LaunchSearch search = sleepy_search();
  const std::vector<LaunchCandidate> candidates = {{KernelVariant::Fused, LocalSize{64, 1}},
                                                   {KernelVariant::Fused, LocalSize{1 << 20, 1}},
                                                   {KernelVariant::Split, LocalSize{128, 1}}};
  SetupTimes setup;
  setup.compile_cost_s = 0.002;  // 6 ms for the three candidates
  const int chunk = 20;
  const double default_step_s = 200e-6;
  using Trial = InRunLaunchSearch::Move::Trial;

  SUBCASE("a short run: two chunks timed, then no search, as the reason says") {
    InRunLaunchSearch s(search, candidates, chunk, setup, 500);  // 0.1 s of steps: 6 ms is more than 5% of it
    CHECK(s.steps_wanted() == chunk);
    CHECK_FALSE(s.report(chunk, 1.0).next);  // the warm-up's time counts for nothing
    CHECK(s.steps_wanted() == chunk);
    const auto move = s.report(chunk, chunk * default_step_s);
    CHECK_FALSE(move.next);
    CHECK_FALSE(move.cache);
    CHECK(s.steps_wanted() == 0);
    CHECK(s.table().empty());
    CHECK(s.reason() == "fused: the default (no search: it would cost about 6 ms against 100 ms of steps)");
  }
  SUBCASE("a run whose steps end before the candidates' would: no search") {
    InRunLaunchSearch s(search, candidates, chunk, setup, 400);
    s.report(chunk, 0);
    setup.compile_cost_s = 0;
    s.report(chunk, chunk * default_step_s);
    CHECK(s.steps_wanted() == 0);
    CHECK(s.table().empty());
  }
  SUBCASE("a long run: each candidate warms up and is timed, the fastest goes on and is to be cached") {
    InRunLaunchSearch s(search, candidates, chunk, setup, 400000);  // 80 s of steps
    s.report(7, 0);  // reports in pieces (a probe's or a checkpoint's steps between) add up
    CHECK(s.steps_wanted() == chunk - 7);
    s.report(chunk - 7, 0);
    s.report(chunk / 2, chunk / 2 * default_step_s);
    auto move = s.report(chunk / 2, chunk / 2 * default_step_s);
    REQUIRE(move.next);
    CHECK(move.next->text() == "fused 64x1");
    CHECK(move.trial == Trial::Running);
    CHECK(s.steps_wanted() == chunk);  // its warm-up
    CHECK(s.report(chunk, 0).trial == Trial::Running);
    const int each = s.steps_wanted();
    CHECK(each == 100);  // 20 ms at 200 us a step
    move = s.report(each, each * default_step_s * 0.98);  // faster by less than the margin: dropped
    CHECK(move.trial == Trial::Drop);
    REQUIRE(move.next);
    CHECK(move.next->text() == "fused 1048576x1");
    move = s.build_failed("local size too large");  // not built: the run stays on its launch
    CHECK(move.trial == Trial::Running);
    REQUIRE(move.next);
    CHECK(move.next->text() == "split 128x1");
    s.report(chunk, 0);
    move = s.report(each, each * 50e-6);
    CHECK(move.trial == Trial::Keep);
    CHECK_FALSE(move.next);
    REQUIRE(move.cache);
    CHECK(move.cache->launch.text() == "split 128x1");
    CHECK(move.cache->seconds_per_step == doctest::Approx(50e-6));
    CHECK(s.steps_wanted() == 0);
    REQUIRE(s.table().size() == 4);
    CHECK(s.table()[0].launch.text() == "fused 128x1");
    CHECK(s.table()[2].note == "local size too large");
    CHECK(s.reason() == "split 128x1: the fastest of 4 launches timed on the run's first steps, cached");
  }
}

namespace {

// A solver whose steps take `step_s` each on the test's clock (they move
// `now` on; nothing sleeps, so a busy machine cannot change what the search
// decides) and that reports `build_s` of set-up, so that a search during the
// run can be tested without a device.
class SleepySolver final : public Solver {
 public:
  SleepySolver(LaunchCandidate launch, double step_s, double build_s, double& now) : step_s_(step_s), now_(now) {
    plan_.variant = launch.variant;
    plan_.local = launch.local.is_auto() ? LocalSize{1, 1} : launch.local;
    plan_.chunk_steps = 20;
    setup_.compile_cost_s = build_s;
  }
  Backend backend() const override { return Backend::OpenCL; }
  std::string device_name() const override { return "sleepy"; }
  Precision precision() const override { return Precision::Float; }
  std::optional<LaunchPlan> launch_plan() const override { return plan_; }
  SetupTimes setup_times() const override { return setup_; }
  void run(int steps, std::vector<double>& av) override {
    now_ += steps * step_s_;
    for (int i = 0; i < steps; ++i) av.push_back(state_ += 1.0);  // the step count so far: shows the state moved on
  }
  std::vector<double> distributions() override { return {state_}; }
  void load_distributions(const std::vector<double>& f) override { state_ = f.at(0); }

 private:
  double step_s_;
  double& now_;
  LaunchPlan plan_;
  SetupTimes setup_;
  double state_ = 0;
};

}  // namespace

TEST_CASE("a simulation's launch search runs on the simulation's own steps, across its pieces, and goes on with the fastest") {
  CacheDir cache;
  const LaunchSearch search = sleepy_search();
  const double default_step_s = 200e-6, build_s = 0.002;
  int built = 0;
  double now = 0;  // the test's clock, in seconds: the solvers' steps move it on
  const SolverFactory make = [&](const LaunchCandidate& launch) -> std::unique_ptr<Solver> {
    ++built;
    if (launch.local.x == 1 << 20) throw DeviceError("local size too large");
    return std::make_unique<SleepySolver>(launch, launch.text() == "split 128x1" ? 50e-6 : default_step_s, build_s, now);
  };
  Problem problem;
  problem.params = d2q9::test::make_params(1024, 64, 400000);  // 80 s of steps: a search of about 0.1 s pays
  problem.mask = ObstacleMask(problem.params.nx, problem.params.ny);
  const std::vector<LaunchCandidate> candidates = run_search_candidates(problem.params, search);
  REQUIRE(candidates.size() == local_size_candidates(problem.params).size());  // fused's other shapes, and split at 128x1
  std::unique_ptr<Solver> started = make(search.default_launch);
  auto in_run = std::make_unique<InRunLaunchSearch>(search, candidates, 20, started->setup_times(),
                                                    problem.params.max_iters);
  const auto owned = SimulationInternals::on_solver(std::move(problem), std::move(started), std::move(in_run), make,
                                                    [&] { return now; });
  Simulation& sim = *owned;
  // Pieces of 100 steps, as a schedule with a checkpoint every 100 steps steps it.
  while (sim.launch_reason() == "fused: the default") sim.step(100);
  const int done = sim.steps_done();
  CHECK(done < 40000);
  CHECK(built == 1 + static_cast<int>(candidates.size()));
  CHECK(sim.run_info().kernel_variant == "split");
  CHECK(load_tuned_launch(search.key)->text() == "split 128x1");
  CHECK(sim.launch_reason() == "split 128x1: the fastest of " + std::to_string(1 + candidates.size()) +
                                   " launches timed on the run's first steps, cached");
  // The steps ran one after another, whichever solver ran them: the state moved along.
  const std::vector<double>& av = sim.average_velocities();
  REQUIRE(av.size() == static_cast<std::size_t>(done));
  for (std::size_t i = 0; i < av.size(); ++i) REQUIRE(av[i] == static_cast<double>(i + 1));
  CHECK(sim.distributions().at(0) == static_cast<double>(done));
  // Steps are the run's, whichever launch ran them; building and moving the state are the search's.
  CHECK(sim.stepping_seconds() + sim.search_seconds() == doctest::Approx(now));
  CHECK(sim.search_seconds() == 0);  // the solvers' builds took no time on the test's clock
}

TEST_CASE("kernel cache: an image comes back only for exactly its build, and a damaged entry is a compile, not a failure") {
  CacheDir cache;
  const KernelBuild build = {"opencl", "Some Platform|Some Device", "3.0|1.2", "__kernel void k() {}", "-DNX=4"};
  CHECK_FALSE(load_kernel_image(build).has_value());
  const std::string image("\x7f" "ELF\0binary\xff", 12);
  store_kernel_image(build, image, 0.25);
  auto cached = load_kernel_image(build);
  REQUIRE(cached.has_value());
  CHECK(cached->image == image);
  CHECK(cached->compile_s == doctest::Approx(0.25));
  std::vector<KernelBuild> others(4, build);
  others[0].options = "-DNX=5";
  others[1].source += " ";
  others[2].driver = "3.1|1.2";
  others[3].device = "Some Platform|Other Device";
  for (const KernelBuild& other : others) CHECK_FALSE(load_kernel_image(other).has_value());
  // A flipped byte in the image, then a file cut short: warnings, and misses.
  const std::string path = kernel_image_path(build);
  std::string entry = d2q9::test::slurp(path);
  entry[entry.size() - 2] ^= 1;
  std::ofstream(path, std::ios::binary) << entry;
  CHECK_FALSE(load_kernel_image(build).has_value());
  std::ofstream(path, std::ios::binary) << entry.substr(0, 20);
  CHECK_FALSE(load_kernel_image(build).has_value());
  store_kernel_image(build, image, 0.5);  // the next compile replaces it
  CHECK(load_kernel_image(build)->image == image);
}

TEST_CASE("kernel cache: a second OpenCL solver of the same problem loads its kernels from the cache and runs alike") {
  CacheDir cache;
  const Params p = d2q9::test::make_params(32, 16, 10);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  const SolverConfig config = d2q9::test::config(Precision::Float, LocalSize{16, 2});
  std::vector<double> av_first, av_second;
  auto first = make_solver(Backend::OpenCL, p, m, config);
  CHECK_FALSE(first->setup_times().kernels_cached);
  CHECK(first->setup_times().compile_cost_s > 0);
  auto second = make_solver(Backend::OpenCL, p, m, config);
  CHECK(second->setup_times().kernels_cached);
  CHECK(second->setup_times().compile_cost_s == doctest::Approx(first->setup_times().compile_cost_s).epsilon(1e-3));
  first->run(10, av_first);
  second->run(10, av_second);
  CHECK(first->distributions() == second->distributions());
  CHECK(av_first == av_second);
  // Another launch is another build.
  auto other = make_solver(Backend::OpenCL, p, m, d2q9::test::config(Precision::Float, LocalSize{8, 2}));
  CHECK_FALSE(other->setup_times().kernels_cached);
}

TEST_SUITE_END();
