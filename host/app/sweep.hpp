// d2q9-bench --sweep-local-size: every work-group shape the launch plan
// accepts, timed per problem with the launch search's timing code (tuning.hpp),
// for the classic coursework figure of time against work-group size.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "app/version.hpp"
#include "sim/backend.hpp"

namespace d2q9 {

// What every problem of one sweep shares.
struct Sweep {
  Backend backend = Backend::OpenCL;
  SolverConfig config;  // device, precision, --kernel-variant (auto or a shaped one), rows per item
  int timed_steps = 0;  // steps timed per shape after a warm-up; 0: time_steps' ~30 ms
};

// One timed (or failed) shape of one problem.
struct SweepRow {
  std::string problem;
  int nx = 0, ny = 0;
  Precision precision = Precision::Float;
  LaunchPlan plan;           // variant, shape and rows per item as launched
  double us_per_step = -1;   // < 0: could not run (see skipped)
  double projected_loop_s = -1;  // us_per_step times the problem's own step count
  bool is_default = false;   // the shape the plan picks when given none
  bool is_fastest = false;
  std::string skipped;
};

// The variant a sweep times on `params`: the plan's (--kernel-variant or its
// default), except that fused-rows takes no shape and gives way to fused, the
// variant a run given --local-size uses there. `note` says so when it did.
KernelVariant swept_variant(const Sweep& sweep, const Params& params, std::string& note);

// The plans of every shape to time: powers of two x and y up to nx and ny
// rounded up to powers of two, that decide_launch accepts on the device
// (work-group size and dimension limits), smallest work-groups first.
std::vector<LaunchPlan> sweep_plans(const Sweep& sweep, const Params& params, KernelVariant variant);

// Times every shape of one problem, printing a table row per shape as it is
// timed and a closing line with the default and the fastest.
std::vector<SweepRow> sweep_problem(const Sweep& sweep, const std::string& problem, const Params& params,
                                    const ObstacleMask& mask);

void print_sweep_header();

void write_sweep_csv(std::FILE* out, const std::vector<SweepRow>& rows, const std::string& backend,
                     const std::string& device, const BuildInfo& build);

}  // namespace d2q9
