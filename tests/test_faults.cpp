// Fault injection: every file operation of a run's final writes made to fail
// in turn (tests/fault/fail_call.cpp, preloaded), and real write failures
// from a file-size limit. After each failure the previous outputs must be
// byte-identical, with no temporary files beside them, and one error line.
#include <doctest/doctest.h>

#include <dirent.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "helpers.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

using d2q9::test::contains;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

// Name -> bytes of every file in `dir`.
std::map<std::string, std::string> contents(const std::string& dir) {
  std::map<std::string, std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") files[name] = slurp(dir + "/" + name);
    }
    ::closedir(d);
  }
  return files;
}

void restore(const std::string& dir, const std::map<std::string, std::string>& files) {
  for (const auto& [name, bytes] : files) std::ofstream(dir + "/" + name, std::ios::binary | std::ios::trunc) << bytes;
}

struct Problem {
  TempDir dir;
  std::string params, obstacles;
  Problem(int iters) {
    params = dir.write("in.params", "32\n24\n" + std::to_string(iters) + "\n10\n0.1\n0.02\n1.7\n");
    obstacles = dir.write("obs.dat", "0 0 1\n5 5 1\n20 11 1\n");
  }
};

// Every output a run can write, into `out`.
std::string run_args(const Problem& p, const std::string& out) {
  return "'" + p.params + "' '" + p.obstacles + "' -o '" + out + "' -b reference -q --vtk '" + out +
         "/state.vtk' --summary-json '" + out + "/summary.json'";
}

}  // namespace

TEST_CASE("faults: a create, close, link or rename failing at any point of the final writes leaves the old outputs") {
#if defined(__SANITIZE_ADDRESS__)
  D2Q9_SKIP("AddressSanitizer must be the first library loaded, so the fault library cannot be preloaded");
#endif

  TempDir out;
  const Problem first(20), second(35);
  const Result made = run_shell(std::string("'") + D2Q9_EXE + "' " + run_args(first, out.path));
  REQUIRE_MESSAGE(made.status == 0, made.err);
  const auto before = contents(out.path);
  REQUIRE(before.size() == 6);  // av_vels.dat final_state.dat final_state.png state.vtk summary.json, the manifest

  // How often a successful run makes each call.
  TempDir counted;
  const std::string preload = "LD_PRELOAD='" + std::string(D2Q9_FAULT_LIBRARY) + "' ";
  const Result plain = run_shell("D2Q9_CALL_COUNTS='" + counted.file("counts") + "' " + preload + "'" + D2Q9_EXE +
                                 "' " + run_args(second, out.path));
  REQUIRE_MESSAGE(plain.status == 0, plain.err);
  REQUIRE(contents(out.path).at("av_vels.dat") != before.at("av_vels.dat"));
  restore(out.path, before);
  std::istringstream counts(slurp(counted.file("counts")));
  std::map<std::string, int> calls;
  for (std::string name; counts >> name;) counts >> calls[name];
  REQUIRE(calls.size() == 4);

  for (const auto& [call, total] : calls) {
    // Each output is at least created, closed and renamed; each old one kept aside by a link.
    CHECK(total >= 5);
    int failed_runs = 0;
    for (int n = 1; n <= total; ++n) {
      CAPTURE(call);
      CAPTURE(n);
      const Result r = run_shell("D2Q9_FAIL_CALL=" + call + ":" + std::to_string(n) + " " + preload + "'" +
                                 D2Q9_EXE + "' " + run_args(second, out.path));
      if (r.status == 0) {
        // A call the run may survive (closing an input it has read): every output replaced.
        const auto after = contents(out.path);
        CHECK(after.size() == before.size());
        CHECK(after.at("av_vels.dat") != before.at("av_vels.dat"));
        restore(out.path, before);
        continue;
      }
      ++failed_runs;
      CHECK(r.status == 1);
      CHECK(r.err.rfind("error: ", 0) == 0);
      CHECK(count_lines(r.err) == 1);
      CHECK(contents(out.path) == before);  // same names (no temporaries left), same bytes
    }
    CAPTURE(call);
    CHECK(failed_runs >= 5);  // at least each output's own call failed the run
  }
}

TEST_CASE("faults: a file-size limit that stops the larger outputs being written leaves the old outputs") {
  TempDir out;
  const Problem first(20), second(35);
  const Result made = run_shell(std::string("'") + D2Q9_EXE + "' " + run_args(first, out.path));
  REQUIRE_MESSAGE(made.status == 0, made.err);
  const auto before = contents(out.path);
  REQUIRE(before.at("final_state.dat").size() > 32 * 1024);
  REQUIRE(before.at("av_vels.dat").size() < 16 * 1024);
  // A real EFBIG from the kernel once a file passes 16 KiB (SIGXFSZ ignored,
  // as it is inherited across exec): av_vels.dat fits, final_state.dat does not.
  const Result r = run_shell("trap '' XFSZ; ulimit -f 16; exec '" + std::string(D2Q9_EXE) + "' " +
                             run_args(second, out.path));
  CHECK(r.status == 1);
  CHECK(r.err.rfind("error: " + out.path + "/", 0) == 0);
  CHECK(contains(r.err, ": write failed (File too large)\n"));
  CHECK(count_lines(r.err) == 1);
  CHECK(contents(out.path) == before);
}

TEST_SUITE_END();
