// 16-bit storage (-p fp16s, -p fp16c): the conversions, the reference with
// the same rounding as the kernels, and checkpoints of 16-bit runs.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "problem/storage16.hpp"
#include "reference/reference_solver.hpp"
#include "solver_runs.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L kernels
TEST_SUITE_BEGIN("kernels");

using namespace d2q9;
using d2q9::test::config;
using d2q9::test::TempDir;

namespace {

float from_bits(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace

TEST_CASE("storage16: IEEE half conversion rounds to nearest even, with subnormals, infinity and saturation points") {
  CHECK(float_to_half(1.0f) == 0x3c00);
  CHECK(float_to_half(-2.0f) == 0xc000);
  CHECK(float_to_half(65504.0f) == 0x7bff);
  CHECK(float_to_half(65519.0f) == 0x7bff);  // below the midpoint to 65536
  CHECK(float_to_half(65520.0f) == 0x7c00);  // the midpoint rounds to even: infinity
  CHECK(float_to_half(0x1p-24f) == 0x0001);  // smallest subnormal
  CHECK(float_to_half(0x1p-25f) == 0x0000);  // half of it: ties to even (0)
  CHECK(float_to_half(0x1.8p-24f) == 0x0002);  // 1.5 steps: ties to even (2)
  CHECK(float_to_half(0x1p-14f) == 0x0400);  // smallest normal
  CHECK(float_to_half(1.0f + 0x1p-11f) == 0x3c00);  // tie, to even
  CHECK(float_to_half(1.0f + 3 * 0x1p-11f) == 0x3c02);  // tie, to even
  CHECK(float_to_half(0.1f) == 0x2e66);
  CHECK((float_to_half(from_bits(0x7fc00000u)) & 0x7c00) == 0x7c00);  // NaN stays NaN
  CHECK(std::isnan(half_to_float(float_to_half(from_bits(0x7fc00000u)))));
  CHECK(half_to_float(0x3555) == 0x1.554p-2f);
  CHECK(half_to_float(0x8001) == -0x1p-24f);
}

TEST_CASE("storage16: fp16c has 11 mantissa bits from 2^-14 up to 2, even steps below, and saturates") {
  CHECK(fp16c_to_float(float_to_fp16c(1.0f)) == 1.0f);
  CHECK(fp16c_to_float(float_to_fp16c(1.0f + 0x1p-11f)) == 1.0f + 0x1p-11f);  // one more bit than half
  CHECK(fp16c_to_float(float_to_fp16c(1.0f + 0x1p-12f)) == 1.0f);            // tie, to even
  CHECK(fp16c_to_float(float_to_fp16c(1.0f + 3 * 0x1p-12f)) == 1.0f + 0x1p-10f);
  CHECK(float_to_fp16c(0x1p-14f) == 0x0800);
  CHECK(fp16c_to_float(float_to_fp16c(0x1p-14f - 0x1p-25f)) == 0x1p-14f - 0x1p-25f);  // top linear step
  CHECK(fp16c_to_float(float_to_fp16c(3 * 0x1p-26f)) == 0x1p-24f);  // 1.5 steps: ties to even
  CHECK(fp16c_to_float(0x7fff) == 2.0f - 0x1p-11f);
  CHECK(float_to_fp16c(5.0f) == 0x7fff);
  CHECK(float_to_fp16c(-5.0f) == 0xffff);
  CHECK(float_to_fp16c(from_bits(0x7fc00000u)) == 0x7fff);
  CHECK(fp16c_to_float(float_to_fp16c(-0.75f)) == -0.75f);
}

TEST_CASE("storage16: every code decodes to an exact value that encodes back to the same code") {
  for (Precision format : {Precision::Fp16s, Precision::Fp16c}) {
    CAPTURE(std::string(to_string(format)));
    const Storage16 s(format, 0.1);
    int checked = 0;
    for (int k = 0; k < kSpeeds; ++k)
      for (std::uint32_t code = 0; code <= 0xffff; ++code) {
        if ((code & 0x7fff) == 0) continue;                                     // +0 and -0: one value
        if (format == Precision::Fp16s && (code & 0x7c00) == 0x7c00) continue;  // infinities, NaNs
        const double f = s.decode(k, static_cast<std::uint16_t>(code));
        if (s.encode_exact(k, f) != code) {
          CAPTURE(k);
          CAPTURE(code);
          FAIL_CHECK("round trip changed the code");
        }
        ++checked;
      }
    CHECK(checked > 9 * 60000);
    // Code 0 is the float value at rest; the exact one is within a step of it.
    const std::vector<double> rest = initial_distributions(d2q9::test::make_params(1, 1, 1));
    for (int k = 0; k < kSpeeds; ++k) {
      CHECK(s.load(k, 0) == doctest::Approx(rest[k]).epsilon(1e-7));
      CHECK(s.decode(k, s.encode_exact(k, rest[k])) == doctest::Approx(rest[k]).epsilon(1e-7));
    }
  }
}

TEST_CASE("storage16: OpenCL against the reference with the same rounding, every variant alike") {
  const Params p = d2q9::test::make_params(23, 17, 300, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision format : {Precision::Fp16s, Precision::Fp16c}) {
    CAPTURE(std::string(to_string(format)));
    const d2q9::test::RunOutput ref = d2q9::test::reference(p, m, format);
    REQUIRE(ref.av_vels.back() > 1e-4);
    // The reference does the kernels' float operations in their order, and
    // PoCL rounds as IEEE says: the same codes, bit for bit. |u| is summed in
    // another order, so av_vels agree to rounding only.
    std::optional<d2q9::test::RunOutput> first;
    for (KernelVariant v : {KernelVariant::Split, KernelVariant::Fused}) {
      if (d2q9::test::build_too_slow_here(v, format) || d2q9::test::split_not_needed_here(v)) continue;
      for (LocalSize local : {LocalSize{8, 2}, LocalSize{5, 3}}) {
        CAPTURE(local.text());
        auto solver = make_solver(Backend::OpenCL, p, m, config(format, local, v));
        CHECK(solver->precision() == format);
        const d2q9::test::RunOutput got = d2q9::test::run(*solver, p.max_iters);
        CHECK(d2q9::test::max_relative_difference(got.av_vels, ref.av_vels, 1e-6) < 1e-5);
        CHECK(got.f == ref.f);
        if (!first) first = got;
        CHECK(got.f == first->f);  // every variant and shape stores the same codes
        if (local == LocalSize{8, 2}) CHECK(got.av_vels == first->av_vels);  // same sums in the same order
      }
    }
  }
}

TEST_CASE("storage16: a checkpoint keeps the 16-bit codes, so a restart continues bit-exactly") {
  const Params p = d2q9::test::make_params(20, 12, 60, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (Precision format : {Precision::Fp16s, Precision::Fp16c}) {
    CAPTURE(std::string(to_string(format)));
    for (Backend b : {Backend::Reference, Backend::OpenCL}) {
      auto whole = make_solver(b, p, m, config(format, b == Backend::Reference ? LocalSize{} : LocalSize{4, 4}));
      const d2q9::test::RunOutput uninterrupted = d2q9::test::run(*whole, 60);

      auto first = make_solver(b, p, m, config(format, b == Backend::Reference ? LocalSize{} : LocalSize{4, 4}));
      Checkpoint c;
      c.params = p;
      c.mask_hash = obstacle_mask_hash(m);
      c.precision = format;
      first->run(25, c.av_vels);
      c.f = first->distributions();
      TempDir dir;
      write_checkpoint(dir.file("ck"), c);
      CHECK(d2q9::test::slurp(dir.file("ck")).size() == 72 + 4 + 25 * 8 + 4 + 9 * 240 * 2 + 8);  // no record, no series
      const Checkpoint r = read_checkpoint(dir.file("ck"));
      CHECK(r.precision == format);
      CHECK(r.f == c.f);

      auto resumed = make_solver(b, p, m, config(format, b == Backend::Reference ? LocalSize{} : LocalSize{4, 4}));
      resumed->load_distributions(r.f);
      std::vector<double> av = r.av_vels;
      resumed->run(35, av);
      CHECK(av == uninterrupted.av_vels);
      CHECK(resumed->distributions() == uninterrupted.f);
    }
  }
}

TEST_SUITE_END();
