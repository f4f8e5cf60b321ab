// Running a solver and the reference for comparison, shared by the backend tests.
#pragma once

#include <vector>

#include "reference/reference_solver.hpp"
#include "device/solver.hpp"

namespace d2q9::test {

struct RunOutput {
  std::vector<double> av_vels;
  std::vector<double> f;
};

inline RunOutput run(Solver& s, int steps) {
  RunOutput out;
  s.run(steps, out.av_vels);
  out.f = s.distributions();
  return out;
}

// The serial reference's whole run of p.max_iters steps.
inline RunOutput reference(const Params& p, const ObstacleMask& m, Precision precision) {
  if (is_16bit(precision)) {
    ReferenceSolver<float> s(p, m, precision);
    return run(s, p.max_iters);
  }
  if (precision == Precision::Float) {
    ReferenceSolver<float> s(p, m);
    return run(s, p.max_iters);
  }
  ReferenceSolver<double> s(p, m);
  return run(s, p.max_iters);
}

}  // namespace d2q9::test
