// d2q9-check: compares a run's av_vels.dat and final state (final_state.dat or
// final_state.vti) with reference outputs.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/printable.hpp"
#include "io/compare.hpp"
#include "problem/problem.hpp"

int main(int argc, char* argv[]) {
  if (argc < 3 || argc > 4 || std::string(argv[1]) == "--help") {
    std::fprintf(argc < 2 ? stderr : stdout,
                 "Usage: %s <reference-dir> <result-dir> [tolerance, default 0.01]\n"
                 "Compares av_vels.dat (max relative difference per step) and final_state.dat\n"
                 "(relative L2 error of ux, uy, |u|, pressure). A folder without final_state.dat\n"
                 "has its final_state.vti compared instead (a problem-file run writes it by default).\n"
                 "Exit 0 if all are within tolerance.\n",
                 argv[0]);
    return argc < 2 ? 2 : (std::string(argv[1]) == "--help" ? 0 : 2);
  }
  double tolerance = 0.01;
  if (argc == 4) {
    char* end = nullptr;
    tolerance = std::strtod(argv[3], &end);
    if (*end != '\0' || !(tolerance > 0)) {
      std::fprintf(stderr, "error: tolerance must be a positive number, got '%s'\n", d2q9::printable(argv[3]).c_str());
      return 2;
    }
  }
  try {
    bool ok = true;
    for (const auto& d : d2q9::compare_outputs(argv[1], argv[2], tolerance)) {
      std::printf("%-36s %.3e  %s\n", d.name.c_str(), d.value, d.passed ? "ok" : "FAIL");
      ok = ok && d.passed;
    }
    std::printf("%s (tolerance %g; values below %g compared against %g)\n", ok ? "PASS" : "FAIL", tolerance,
                d2q9::kAbsoluteFloor, d2q9::kAbsoluteFloor);
    return ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", d2q9::printable(e.what()).c_str());
    return 1;
  }
}
