#include <doctest/doctest.h>

#include "helpers.hpp"
#include "model/output.hpp"
#include "device/solver.hpp"

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
  mask.blocked[2] = 1;  // (0, 1)
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
