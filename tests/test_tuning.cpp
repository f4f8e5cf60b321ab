#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "opencl/opencl_solver.hpp"
#include "device/tuning.hpp"

using namespace d2q9;

namespace {

SolverFactory opencl_factory(const Params& p, const ObstacleMask& m) {
  return [p, m](LocalSize local) {
    return make_solver(Backend::OpenCL, p, m, d2q9::test::config(Precision::Float, local));
  };
}

}  // namespace

TEST_CASE("tuning cache: stores, reloads, and survives damage") {
  d2q9::test::TempDir dir;
  const std::string saved = std::getenv("D2Q9_CACHE_DIR");
  ::setenv("D2Q9_CACHE_DIR", (dir.path + "/nested/cache").c_str(), 1);
  const Params p = d2q9::test::make_params(64, 32, 10);
  const std::string key = tuning_key(Backend::OpenCL, "Some Device", p, Precision::Float, KernelVariant::Fused);
  CHECK(key == "opencl|Some Device|64x32|float|fused");
  CHECK(tuning_key(Backend::Cuda, "D", p, Precision::Double, KernelVariant::FusedX2, 4) == "cuda|D|64x32|double|fused-x2-r4");
  CHECK_FALSE(load_tuned_local_size(key).has_value());
  store_tuned_local_size(key, LocalSize{64, 2}, 5e-6);
  const auto got = load_tuned_local_size(key);
  REQUIRE(got.has_value());
  CHECK(got->x == 64);
  CHECK(got->y == 2);
  CHECK_FALSE(load_tuned_local_size(tuning_key(Backend::OpenCL, "Some Device", p, Precision::Double, KernelVariant::Fused)).has_value());

  std::ofstream(tuning_cache_path()) << "{ not json";
  CHECK_FALSE(load_tuned_local_size(key).has_value());
  store_tuned_local_size(key, LocalSize{32, 1}, 4e-6);  // rewrites the damaged file
  CHECK(load_tuned_local_size(key)->x == 32);
  ::setenv("D2Q9_CACHE_DIR", saved.c_str(), 1);
}

TEST_CASE("tuning: candidates fit the grid, and invalid shapes are reported, not fatal") {
  const Params p = d2q9::test::make_params(40, 8, 10);
  for (const LocalSize& l : local_size_candidates(p)) {
    CHECK(l.x <= 40);
    CHECK(l.y <= 8);
  }
  const auto table = tune_local_size(opencl_factory(p, d2q9::test::test_obstacles(p)), p,
                                     {LocalSize{16, 1}, LocalSize{1 << 20, 1}, LocalSize{8, 2}});
  REQUIRE(table.size() == 3);
  CHECK(table[0].seconds_per_step > 0);
  CHECK(table[1].seconds_per_step < 0);
  CHECK(table[1].note.find("local size 1048576x1 is not valid") == 0);
  CHECK(table[2].seconds_per_step > 0);
}

TEST_CASE("tuning: choose_local_size uses the given shape, the default, a search, then the cache") {
  d2q9::test::TempDir dir;
  const std::string saved = std::getenv("D2Q9_CACHE_DIR");
  ::setenv("D2Q9_CACHE_DIR", dir.path.c_str(), 1);
  const Params p = d2q9::test::make_params(32, 16, 10);
  const auto make = opencl_factory(p, d2q9::test::test_obstacles(p));
  LaunchPlan fused;
  fused.variant = KernelVariant::Fused;
  fused.local = {32, 1};
  const std::string key = tuning_key(Backend::OpenCL, "test device", p, Precision::Float, KernelVariant::Fused);

  auto given = choose_local_size(make, p, LocalSize{8, 4}, false, fused, key);
  CHECK(given.how == ShapeChoice::Given);
  CHECK(given.solver->local_size().x == 8);

  auto small = choose_local_size(make, p, LocalSize{}, false, fused, key);  // 5120 cell updates: not worth a search
  CHECK(small.how == ShapeChoice::Default);
  CHECK(small.table.empty());

  auto tuned = choose_local_size(make, p, LocalSize{}, true, fused, key);
  CHECK(tuned.how == ShapeChoice::Tuned);
  REQUIRE(!tuned.table.empty());
  double best = 1e30;
  LocalSize best_shape;
  for (const auto& r : tuned.table)
    if (r.seconds_per_step > 0 && r.seconds_per_step < best) best = r.seconds_per_step, best_shape = r.local;
  CHECK(tuned.solver->local_size().x == best_shape.x);
  CHECK(tuned.solver->local_size().y == best_shape.y);

  auto cached = choose_local_size(make, p, LocalSize{}, false, fused, key);
  CHECK(cached.how == ShapeChoice::Cached);
  CHECK(cached.solver->local_size().x == best_shape.x);
  CHECK(cached.solver->local_size().y == best_shape.y);
  ::setenv("D2Q9_CACHE_DIR", saved.c_str(), 1);
}

// d2q9-bench is a tool, not a timed test: this checks that it runs and that
// its records are self-consistent, never how fast anything was.
TEST_CASE("d2q9-bench writes consistent CSV records, and refuses bad options without writing any") {
  d2q9::test::TempDir dir;
  const std::string bench = std::string("'") + D2Q9_BENCH_EXE + "' --kernels-dir '" + D2Q9_KERNELS_DIR +
                            "' --inputs-dir '" + D2Q9_SOURCE_DIR + "/inputs' -o '" + dir.path + "' ";
  const auto r = d2q9::test::run_shell("D2Q9_CACHE_DIR='" + dir.path + "' " + bench +
                                       "--sizes 32 --coursework-steps 3 --min-seconds 0.05 --copy-mib 4 --local-size 32x1 "
                                       "--kernel-variant fused --rows-per-item 2");
  REQUIRE_MESSAGE(r.status == 0, r.err);
  std::ifstream csv(dir.file("bench_opencl_float_fused.csv"));
  REQUIRE(csv.good());
  std::string header;
  std::getline(csv, header);
  CHECK(header ==
        "case,nx,ny,steps,seconds,mlups,effective_gbs,percent_of_copy,local_size,device,driver,backend,precision,"
        "variant,rows_per_item,commit,copy_gbs,skipped");
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
    REQUIRE(f.size() == 18);
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
