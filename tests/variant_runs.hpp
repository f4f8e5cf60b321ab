// The kernels against the reference over launch variants: the check the
// tests of every addition to the model share.
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "backend_config.hpp"
#include "helpers.hpp"
#include "problem/problem_file.hpp"
#include "solver_runs.hpp"

namespace d2q9::test {

// A problem file's text, as the tests of problem-file features write them.
inline Problem problem(const std::string& toml) { return parse_problem_file(toml, "test.toml"); }

// The reference's forces: per step, Fx and Fy of each body, as
// Solver::take_body_forces gives them; its run in `out` when given.
inline std::vector<double> reference_forces(const Problem& pr, Precision precision, RunOutput* out = nullptr) {
  std::vector<double> forces;
  auto go = [&](Solver& s) {
    RunOutput o = run(s, pr.params.max_iters);
    forces = s.take_body_forces();
    if (out) *out = o;
  };
  if (precision == Precision::Double) {
    ReferenceSolver<double> s(pr.params, pr.mask);
    go(s);
  } else {
    ReferenceSolver<float> s(pr.params, pr.mask, is_16bit(precision) ? std::optional<Precision>(precision) : std::nullopt);
    go(s);
  }
  return forces;
}

inline const std::vector<KernelVariant>& every_variant() {
  static const std::vector<KernelVariant> all = {KernelVariant::Split, KernelVariant::Fused, KernelVariant::FusedRows,
                                                 KernelVariant::Blocked};
  return all;
}

// Runs the problem on OpenCL with each variant (work-groups of 8x2; a row
// each for fused-rows) and checks it against the reference's run `ref`:
// distributions bit for bit, av_vels to the order of summation. `also` then
// sees each solver, for what else a test compares.
inline void check_variants_against(const Params& params, const ObstacleMask& mask, Precision precision,
                                   const RunOutput& ref, const std::vector<KernelVariant>& variants,
                                   const std::function<void(Solver&)>& also = {}) {
  for (KernelVariant v : variants) {
    CAPTURE(std::string(to_string(v)));
    const LocalSize local = v == KernelVariant::FusedRows ? LocalSize{} : LocalSize{8, 2};
    auto solver = make_solver(Backend::OpenCL, params, mask, config(precision, local, v));
    const RunOutput got = run(*solver, params.max_iters);
    CHECK(got.f == ref.f);
    CHECK(max_relative_difference(got.av_vels, ref.av_vels, 1e-6) < 1e-5);
    if (also) also(*solver);
  }
}

}  // namespace d2q9::test
