#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "helpers.hpp"
#include "io/compare.hpp"
#include "io/number_text.hpp"
#include "io/output.hpp"
#include "device/solver.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;
using d2q9::test::slurp;
using d2q9::test::TempDir;

TEST_CASE("av_vels.dat is '%d:\\t%.12E' per step") {
  TempDir dir;
  {
    AtomicFile f(dir.file("av_vels.dat"));
    write_av_vels(f.get(), {0.5, 1.25e-3, 0.0});
    f.commit();
  }
  CHECK(slurp(dir.file("av_vels.dat")) == "0:\t5.000000000000E-01\n1:\t1.250000000000E-03\n2:\t0.000000000000E+00\n");
}

TEST_CASE("final_state.dat lists ii, jj, ux, uy, |u|, pressure, obstacle row by row") {
  Params p = d2q9::test::make_params(2, 2, 1);
  ObstacleMask mask(2, 2);
  mask.kinds[2] = 1;  // (0, 1)
  std::vector<double> f = initial_distributions(p);
  const std::size_t n = 4;
  auto set_cell = [&](std::size_t cell, std::vector<std::pair<int, double>> values) {
    for (int k = 0; k < kSpeeds; ++k) f[k * n + cell] = 0.0;
    for (auto [k, v] : values) f[k * n + cell] = v;
  };
  set_cell(1, {{0, 0.3}, {1, 0.1}});  // rho 0.4, moving east at 0.25
  set_cell(2, {{3, 9.0}});            // obstacle: contents never reported
  set_cell(3, {{0, 0.2}, {2, 0.2}});  // rho 0.4, moving north at 0.5

  TempDir dir;
  {
    AtomicFile out(dir.file("final_state.dat"));
    write_final_state(out.get(), p, mask, f);
    out.commit();
  }
  CHECK(slurp(dir.file("final_state.dat")) ==
        "0 0 0.000000000000E+00 0.000000000000E+00 0.000000000000E+00 3.333333333333E-02 0\n"
        "1 0 2.500000000000E-01 0.000000000000E+00 2.500000000000E-01 1.333333333333E-01 0\n"
        "0 1 0.000000000000E+00 0.000000000000E+00 0.000000000000E+00 3.333333333333E-02 1\n"
        "1 1 0.000000000000E+00 5.000000000000E-01 5.000000000000E-01 1.333333333333E-01 0\n");
}

TEST_CASE("Reynolds number is av_velocity * reynolds_dim / viscosity") {
  const Params p = d2q9::test::make_params(8, 8, 1, 0.005, 1.85);
  CHECK(reynolds_number(p, 0.01) == doctest::Approx(0.01 * 10 / ((2.0 / 1.85 - 1.0) / 6.0)).epsilon(1e-15));
}

TEST_CASE("AtomicFile leaves nothing behind unless committed") {
  TempDir dir;
  {
    AtomicFile f(dir.file("out.dat"));
    std::fputs("partial", f.get());
  }
  CHECK(dir.listing() == "");

  d2q9::test::TempDir other;
  other.write("out.dat", "old\n");
  {
    AtomicFile f(other.file("out.dat"));
    std::fputs("new\n", f.get());
    CHECK(slurp(other.file("out.dat")) == "old\n");  // unchanged until commit
    f.commit();
  }
  CHECK(slurp(other.file("out.dat")) == "new\n");
  CHECK(other.listing() == "out.dat\n");

  CHECK_THROWS_WITH_AS(AtomicFile("/nonexistent-dir/out.dat"),
                       "/nonexistent-dir/out.dat: cannot create file (No such file or directory)", std::runtime_error);
}

namespace {

// A run's two files, made by hand: av_vels of `steps` values and a 3x2 final state.
void write_run(const d2q9::test::TempDir& dir, const std::vector<double>& av, const std::vector<double>& uy,
               double speed_scale = 1.0) {
  std::string a;
  for (std::size_t i = 0; i < av.size(); ++i) a += std::to_string(i) + ":\t" + std::to_string(av[i]) + "\n";
  dir.write("av_vels.dat", a);
  std::string s;
  for (int i = 0; i < 6; ++i) {
    char line[200];
    std::snprintf(line, sizeof line, "%d %d %.12E %.12E %.12E %.12E %d\n", i % 3, i / 3, 0.01 * (i + 1),
                  uy[static_cast<std::size_t>(i)], 0.01 * (i + 1) * speed_scale, 0.0333, i == 4 ? 1 : 0);
    s += line;
  }
  dir.write("final_state.dat", s);
}

bool all_passed(const std::vector<d2q9::ColumnDifference>& diffs) {
  bool ok = true;
  for (const auto& d : diffs) ok = ok && d.passed;
  return ok;
}

}  // namespace

TEST_CASE("d2q9-check: equal runs pass, and NaN, a wrong field or a different length fail, and near-zero fields use the floor") {
  d2q9::test::TempDir ref, same, nan_run, wrong, rounding, shorter;
  const std::vector<double> av = {1e-3, 2e-3, 3e-3};
  const std::vector<double> uy = {1e-7, -2e-7, 3e-8, 0.0, 0.0, -1e-7};
  write_run(ref, av, uy);
  write_run(same, av, uy);
  CHECK(all_passed(d2q9::compare_outputs(ref.path, same.path, 0.01)));
  // Every av_vels value NaN: NaN must not drop out of the max.
  write_run(nan_run, {NAN, NAN, NAN}, uy);
  const auto n = d2q9::compare_outputs(ref.path, nan_run.path, 0.01);
  CHECK_FALSE(n[0].passed);
  CHECK(std::isnan(n[0].value));
  CHECK_FALSE(d2q9::compare_outputs(nan_run.path, ref.path, 0.01)[0].passed);  // in the reference too
  // |u| 5% off fails at 1%.
  write_run(wrong, av, uy, 1.05);
  const auto w = d2q9::compare_outputs(ref.path, wrong.path, 0.01);
  CHECK(w[3].name.find("|u|") != std::string::npos);
  CHECK_FALSE(w[3].passed);
  CHECK(w[3].value == doctest::Approx(0.05).epsilon(1e-3));
  // uy zero up to rounding, its rounding different: a pass against the floor.
  write_run(rounding, av, {2e-7, -1e-7, 0.0, 5e-8, 0.0, 0.0});
  const auto r = d2q9::compare_outputs(ref.path, rounding.path, 0.01);
  CHECK(r[2].name.find("uy") != std::string::npos);
  CHECK(r[2].passed);
  CHECK(r[2].value < 1e-2);
  write_run(shorter, {1e-3, 2e-3}, uy);
  CHECK_THROWS_WITH_AS(d2q9::compare_outputs(ref.path, shorter.path, 0.01), doctest::Contains("2 steps, the reference has 3"),
                       d2q9::InputError);
}

TEST_CASE("OutputSet replaces every target or none: a failed rename puts back what was already replaced") {
  TempDir dir;
  dir.write("a.dat", "old a");
  REQUIRE(::mkdir(dir.file("c.dat").c_str(), 0755) == 0);  // a target that cannot be replaced by a file
  dir.write("c.dat/keep", "x");
  {
    OutputSet set;
    std::fputs("new a", set.add(dir.file("a.dat")));
    std::fputs("new b", set.add(dir.file("b.dat")));
    std::fputs("new c", set.add(dir.file("c.dat")));
    CHECK_THROWS_WITH_AS(set.commit(), doctest::Contains("c.dat: cannot "),
                         std::runtime_error);
  }
  CHECK(slurp(dir.file("a.dat")) == "old a");
  CHECK(dir.listing() == "a.dat\nc.dat\n");  // b.dat taken back; no temporary or kept-aside files
  {
    OutputSet set;
    std::fputs("new a", set.add(dir.file("a.dat")));
    std::fputs("new b", set.add(dir.file("b.dat")));
    set.commit();
  }
  CHECK(slurp(dir.file("a.dat")) == "new a");
  CHECK(slurp(dir.file("b.dat")) == "new b");
  CHECK(dir.listing() == "a.dat\nb.dat\nc.dat\n");
}

TEST_CASE("format_e12 writes what printf's %.12E writes, for any double") {
  // The outputs are formatted without printf; the coursework's files were
  // written with it, so the two must agree on every value, ties included.
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> flow(-0.2, 0.2);
  std::vector<double> values = {0.0, -0.0, 1.0, 0.5, 2.5e-5, 1e-300, 1e300, 4.9e-324, 1.7976931348623157e308,
                                std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                                std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()};
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t bits = rng();
    double any;
    std::memcpy(&any, &bits, sizeof any);
    values.push_back(any);                                                    // any bit pattern
    values.push_back(std::ldexp(flow(rng), -static_cast<int>(rng() % 40)));  // values of a flow
    values.push_back(static_cast<double>(rng() % 100000000000000ULL) + 0.5);  // exact decimal ties at digit 13
  }
  int differ = 0;
  for (double x : values) {
    char expected[64], got[64];
    std::snprintf(expected, sizeof expected, "%.12E", x);
    *format_e12(got, x) = '\0';
    if (std::strcmp(expected, got) != 0 && ++differ <= 5) CHECK_MESSAGE(false, expected << " written as " << got);
  }
  CHECK(differ == 0);
  char text[16];
  *format_int(text, -2147483647 - 1) = '\0';
  CHECK(std::string(text) == "-2147483648");
  CHECK(hex64(0x1f) == "000000000000001f");
  CHECK(hex64(~std::uint64_t{0}) == "ffffffffffffffff");
}

TEST_SUITE_END();
