#include <doctest/doctest.h>

#include <cstdlib>

#include "helpers.hpp"
#include "opencl/opencl_solver.hpp"
#include "tuning.hpp"

using namespace d2q9;

namespace {

SolverFactory opencl_factory(const Params& p, const ObstacleMask& m) {
  return [p, m](LocalSize local) {
    OpenCLOptions o;
    o.local_size = local;
    o.kernels_dir = D2Q9_KERNELS_DIR;
    return make_opencl_solver(p, m, o);
  };
}

}  // namespace

TEST_CASE("tuning cache: stores, reloads, and survives damage") {
  d2q9::test::TempDir dir;
  const std::string saved = std::getenv("D2Q9_CACHE_DIR");
  ::setenv("D2Q9_CACHE_DIR", (dir.path + "/nested/cache").c_str(), 1);
  const Params p = d2q9::test::make_params(64, 32, 10);
  const std::string key = tuning_key("opencl", "Some Device", p, Precision::Float, "fused");
  CHECK(key == "opencl|Some Device|64x32|float|fused");
  CHECK_FALSE(load_tuned_local_size(key).has_value());
  store_tuned_local_size(key, LocalSize{64, 2}, 5e-6);
  const auto got = load_tuned_local_size(key);
  REQUIRE(got.has_value());
  CHECK(got->x == 64);
  CHECK(got->y == 2);
  CHECK_FALSE(load_tuned_local_size(tuning_key("opencl", "Some Device", p, Precision::Double, "fused")).has_value());

  std::ofstream(tuning_cache_path()) << "{ not json";
  CHECK_FALSE(load_tuned_local_size(key).has_value());
  store_tuned_local_size(key, LocalSize{32, 1}, 4e-6);  // rewrites the damaged file
  CHECK(load_tuned_local_size(key)->x == 32);
  ::setenv("D2Q9_CACHE_DIR", saved.c_str(), 1);
}

TEST_CASE("tuning: candidates fit the grid; invalid shapes are reported, not fatal") {
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

  auto given = choose_local_size(make, p, LocalSize{8, 4}, false, "fused");
  CHECK(given.how == "given");
  CHECK(given.solver->local_size().x == 8);

  auto small = choose_local_size(make, p, LocalSize{}, false, "fused");  // 5120 cell updates: not worth a search
  CHECK(small.how == "default");
  CHECK(small.table.empty());

  auto tuned = choose_local_size(make, p, LocalSize{}, true, "fused");
  CHECK(tuned.how == "tuned");
  REQUIRE(!tuned.table.empty());
  double best = 1e30;
  LocalSize best_shape;
  for (const auto& r : tuned.table)
    if (r.seconds_per_step > 0 && r.seconds_per_step < best) best = r.seconds_per_step, best_shape = r.local;
  CHECK(tuned.solver->local_size().x == best_shape.x);
  CHECK(tuned.solver->local_size().y == best_shape.y);

  auto cached = choose_local_size(make, p, LocalSize{}, false, "fused");
  CHECK(cached.how == "cached");
  CHECK(cached.solver->local_size().x == best_shape.x);
  CHECK(cached.solver->local_size().y == best_shape.y);
  ::setenv("D2Q9_CACHE_DIR", saved.c_str(), 1);
}
