// Grids split across MPI ranks: the slab arithmetic, and d2q9-bgk under
// mpirun (2 and 3 ranks, oversubscribed on PoCL) against one rank, byte for byte.
#include <doctest/doctest.h>

#include <regex>

#include <sys/wait.h>

#include <algorithm>
#include <set>
#include <utility>

#include "helpers.hpp"
#include "device/kernel_source.hpp"
#include "model/checkpoint.hpp"
#include "mpi/slab_layout.hpp"

using namespace d2q9;
using d2q9::test::slurp;
using d2q9::test::TempDir;

TEST_CASE("mpi slabs: an even split in whole work-group rows, lower slabs taking the spare ones") {
  auto heights = [](const std::vector<Slab>& slabs) {
    std::vector<int> h;
    int next = 0;
    for (const Slab& s : slabs) {
      CHECK(s.first_row == next);
      next += s.rows;
      h.push_back(s.rows);
    }
    return h;
  };
  CHECK(heights(split_rows(30, 2, 1)) == std::vector<int>{15, 15});
  CHECK(heights(split_rows(30, 4, 1)) == std::vector<int>{8, 8, 7, 7});
  // 30 rows in groups of 4: 8 group rows, the last one half full.
  CHECK(heights(split_rows(30, 3, 4)) == std::vector<int>{12, 12, 6});
  CHECK(heights(split_rows(8192, 2, 1)) == std::vector<int>{4096, 4096});
  CHECK(heights(split_rows(5, 5, 1)) == std::vector<int>{1, 1, 1, 1, 1});
  CHECK(heights(split_rows(7, 1, 2)) == std::vector<int>{7});
  CHECK_THROWS_WITH_AS(split_rows(30, 3, 15), doctest::Contains("cannot split 30 rows into 3 slabs"),
                       std::invalid_argument);
}

TEST_CASE("mpi slabs: given heights must cover the grid in whole work-group rows") {
  const auto slabs = slabs_from_heights({12, 17, 1}, 30, 3, 1);
  REQUIRE(slabs.size() == 3);
  CHECK(slabs[1].first_row == 12);
  CHECK(slabs[2].first_row == 29);
  CHECK(slabs_from_heights({8, 8, 6}, 22, 3, 4)[2].rows == 6);  // only the top slab may end part-way
  CHECK_THROWS_WITH_AS(slabs_from_heights({15, 15}, 30, 3, 1), doctest::Contains("2 slab height(s) for 3"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(slabs_from_heights({10, 10}, 30, 2, 1), doctest::Contains("adds up to 20 rows"),
                       std::invalid_argument);
  CHECK_THROWS_WITH_AS(slabs_from_heights({6, 24}, 30, 2, 4), doctest::Contains("not a multiple of the work-group"),
                       std::invalid_argument);
}

TEST_CASE("mpi slabs: kernel rows in local numbering, and who owns the accelerated row") {
  // ny = 30: row 28 is accelerated; local row = global - first_row + 1 (row 0 is the halo).
  const SlabRows middle = slab_kernel_rows({12, 17}, 30);
  CHECK(middle.first_row == 1);
  CHECK(middle.last_row == 17);
  CHECK(middle.accel_row == 28 - 12 + 1);
  CHECK(slab_kernel_rows({29, 1}, 30).accel_row == -1);
  CHECK(slab_kernel_rows({0, 12}, 30).accel_row == -1);
  CHECK(slab_kernel_rows({0, 30}, 30).accel_row == 29);

  const Params p = d2q9::test::make_params(24, 19, 1);
  const auto d = kernel_defines(p, Precision::Float, LocalSize{8, 1}, 1, middle);
  const std::vector<std::string> tail(d.end() - 3, d.end());
  CHECK(tail == std::vector<std::string>{"FIRST_ROW=1", "LAST_ROW=17", "ACCEL_ROW=17"});
  // Without a slab nothing changes for the single-device kernels.
  CHECK(kernel_defines(p, Precision::Float, LocalSize{8, 1}).size() == d.size() - 3);
}

#ifndef D2Q9_MPIEXEC

TEST_CASE("mpi runs: not built") {
  D2Q9_SKIP("built without MPI (D2Q9_MPI=OFF or no MPI found): the mpirun tests do not run; install libopenmpi-dev "
          "openmpi-bin and reconfigure");
}

#else

namespace {

struct Result {
  int status;
  std::string out;
  std::string err;
};

Result run_shell(const std::string& command) {
  TempDir io;
  const std::string cmd = command + " >'" + io.file("out") + "' 2>'" + io.file("err") + "' </dev/null";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(io.file("out")), slurp(io.file("err"))};
}

Result run_ranks(int ranks, const std::string& args) {
  return run_shell(d2q9::test::mpirun_command(ranks) + " '" + D2Q9_EXE + "' " + args);
}

Result run_alone(const std::string& args) { return run_shell(std::string("'") + D2Q9_EXE + "' " + args); }

std::vector<std::string> error_lines(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("error:", 0) == 0) lines.push_back(line);
  return lines;
}

// 24x30, 200 steps: walls left, right and below, a diagonal bar and small
// blocks crossing every slab edge of the splits below, two cells in the
// accelerated row 28, one in the top row.
struct Problem {
  TempDir dir;
  std::string params, obstacles;
  Problem() {
    params = dir.write("in.params", "24\n30\n200\n10\n0.1\n0.02\n1.7\n");
    std::set<std::pair<int, int>> cells;
    for (int x = 0; x < 24; ++x) cells.insert({x, 0});
    for (int y = 0; y < 30; ++y) cells.insert({0, y}), cells.insert({23, y});
    for (int y = 3; y < 27; ++y) cells.insert({3 + y * 15 / 27, y});
    for (int x = 14; x < 17; ++x)
      for (int y : {9, 10, 11, 12, 14, 15, 19, 20, 23, 24}) cells.insert({x, y});
    cells.insert({12, 28});
    cells.insert({5, 28});
    cells.insert({20, 29});
    std::string text;
    for (const auto& [x, y] : cells) text += std::to_string(x) + " " + std::to_string(y) + " 1\n";
    obstacles = dir.write("obs.dat", text);
  }
  std::string inputs() const { return "'" + params + "' '" + obstacles + "'"; }
};

// One rank's files against `ranks` ranks' files, same shape and options;
// `local` empty: the launch left to auto (fused-rows on a CPU device, for
// one process and for the slabs alike).
void check_identical(int ranks, const std::string& local, const std::string& extra) {
  CAPTURE(ranks);
  CAPTURE(local);
  CAPTURE(extra);
  const Problem problem;
  TempDir one, many;
  // --slab-rows means nothing to one process, which refuses it.
  const std::string single_extra = std::regex_replace(extra, std::regex("--slab-rows [0-9,]+"), "");
  const std::string launch = local.empty() ? "" : "-l " + local;
  const Result single = run_alone("-q " + launch + (local.empty() ? "" : " --kernel-variant fused") + " -o '" +
                                  one.path + "' " + single_extra + " " + problem.inputs());
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const Result split = run_ranks(ranks, launch + " -o '" + many.path + "' " + extra + " " + problem.inputs());
  REQUIRE_MESSAGE(split.status == 0, split.err);
  CHECK(split.out.find("MPI ranks:\t\t\t" + std::to_string(ranks)) != std::string::npos);
  if (local.empty())
    CHECK(split.out.find("local size 1x1, fused-rows)\nLaunch:\t\t\t\tfused-rows: the default on CPU devices") !=
          std::string::npos);
  const std::string av = slurp(one.file("av_vels.dat"));
  REQUIRE(std::count(av.begin(), av.end(), '\n') == 200);
  CHECK(std::strtod(av.substr(av.rfind('\t', av.size() - 2)).c_str(), nullptr) > 1e-4);  // the flow moves
  CHECK(slurp(many.file("av_vels.dat")) == av);
  const std::string state = slurp(one.file("final_state.dat"));
  REQUIRE(std::count(state.begin(), state.end(), '\n') == 24 * 30);
  CHECK(slurp(many.file("final_state.dat")) == state);
  CHECK(many.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.png\n");  // rank 0 writes every file
  CHECK(slurp(many.file("final_state.png")) == slurp(one.file("final_state.png")));
}

}  // namespace

TEST_CASE("mpi runs: 2 ranks write the same bytes as one (rows 0-14 | 15-29)") { check_identical(2, "8x1", ""); }

TEST_CASE("mpi runs: 3 ranks write the same bytes as one (rows 0-9 | 10-19 | 20-29)") {
  check_identical(3, "8x1", "");
}

TEST_CASE("mpi runs: fused-rows, auto's choice on CPU devices, runs on the slabs and writes the same bytes as one") {
  check_identical(2, "", "");
  check_identical(3, "", "--slab-rows 12,17,1");
  check_identical(2, "", "-p double");
}

TEST_CASE("mpi runs: 16-bit storage on the slabs writes the same bytes as one process") {
  check_identical(2, "", "-p fp16s");
  check_identical(3, "", "-p fp16c --slab-rows 12,17,1");
  check_identical(3, "8x4", "-p fp16s");
}

TEST_CASE("mpi runs: 3 ranks, accelerated row in the middle slab, one-row top slab (--slab-rows 12,17,1)") {
  check_identical(3, "8x1", "--slab-rows 12,17,1");
}

TEST_CASE("mpi runs: 3 ranks with 8x4 work-groups, the top slab ending in a partial group row") {
  check_identical(3, "8x4", "");
}

TEST_CASE("mpi runs: 2 ranks in double precision with 5x3 work-groups overhanging the grid") {
  check_identical(2, "5x3", "-p double");
}

TEST_CASE("mpi runs: a large grid (several rows per work-item) writes the same bytes on 2 ranks as on one") {
  // From 2^20 cells each work-item updates several rows; slabs must follow.
  TempDir dir, one, many;
  const std::string params = dir.write("big.params", "1024 1024 4 10 0.1 0.01 1.85\n");
  std::string walls;
  for (int i = 0; i < 1024; ++i) walls += "0 " + std::to_string(i) + " 1\n" + std::to_string(i) + " 0 1\n";
  const std::string obstacles = dir.write("big.dat", walls);
  const std::string inputs = "'" + params + "' '" + obstacles + "'";
  const Result single = run_alone("-q -l 128x1 --kernel-variant fused -o '" + one.path + "' " + inputs);
  REQUIRE_MESSAGE(single.status == 0, single.err);
  const Result split = run_ranks(2, "-l 128x1 -o '" + many.path + "' " + inputs);
  REQUIRE_MESSAGE(split.status == 0, split.err);
  CHECK(slurp(many.file("av_vels.dat")) == slurp(one.file("av_vels.dat")));
  CHECK(slurp(many.file("final_state.dat")) == slurp(one.file("final_state.dat")));
}

TEST_CASE("mpi runs: one rank under mpirun is an ordinary run") {
  const Problem problem;
  TempDir one, launched;
  REQUIRE(run_alone("-q -l 8x1 -o '" + one.path + "' " + problem.inputs()).status == 0);
  const Result r = run_ranks(1, "-l 8x1 -o '" + launched.path + "' " + problem.inputs());
  REQUIRE_MESSAGE(r.status == 0, r.err);
  CHECK(r.out.find("MPI ranks") == std::string::npos);
  CHECK(slurp(launched.file("final_state.dat")) == slurp(one.file("final_state.dat")));
}

TEST_CASE("mpi runs: a bad input file is reported once, with no output") {
  Problem problem;
  const std::string bad = problem.dir.write("bad.params", "24\n30\n200\n10\n0.1\n0.02\n2.5\n");
  TempDir out;
  const Result r = run_ranks(3, "-o '" + out.path + "' '" + bad + "' '" + problem.obstacles + "'");
  CHECK(r.status == 1);
  CHECK(r.out == "");
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "error: " + bad + ":7: omega must lie in (0, 2), got '2.5'");
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(out.listing() == "");
}

TEST_CASE("mpi runs: options that cannot split the grid are refused on every rank") {
  const Problem problem;
  TempDir out;
  struct Case {
    std::string args, error;
  };
  for (const Case& c : {Case{"--slab-rows 10,10,5", "error: --slab-rows adds up to 25 rows but the grid has 30"},
                        Case{"--slab-rows 15,15", "error: --slab-rows gives 2 slab height(s) for 3 MPI rank(s)"},
                        Case{"-l 8x15", "error: cannot split 30 rows into 3 slabs"},
                        Case{"--kernel-variant split", "error: --kernel-variant split is not available"},
                        Case{"-b reference", "error: --backend reference runs on one process"}}) {
    CAPTURE(c.args);
    const Result r = run_ranks(3, c.args + " -o '" + out.path + "' " + problem.inputs());
    CHECK(r.status == 1);
    const auto errors = error_lines(r.err);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind(c.error, 0) == 0);
    CHECK(out.listing() == "");
  }
}

TEST_CASE("mpi runs: a rank failing inside the step loop stops every rank") {
  // The other ranks are blocked waiting for its halo rows: without MPI_Abort
  // they would hang until `timeout` (status 124).
  const Problem problem;
  TempDir out;
  const Result r = run_shell("D2Q9_MPI_FAIL_RANK=1 " + d2q9::test::mpirun_command(3) + " -x D2Q9_MPI_FAIL_RANK '" + D2Q9_EXE +
                             "' -o '" + out.path + "' " + problem.inputs());
  CHECK(r.status != 0);
  CHECK(r.status != 124);
  CHECK(r.out == "");
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0] == "error: rank 1: failure injected by D2Q9_MPI_FAIL_RANK");
  CHECK(out.listing() == "");
}

TEST_CASE("mpi runs: every option works under mpirun as on one process, or is refused before the run") {
  const Problem problem;
  // Works: the same files as one process with the same options (one rank
  // runs the fused variant with the same shape, as the slabs do).
  struct Same {
    std::string args;
    std::vector<std::string> files;  // beyond av_vels.dat and final_state.dat
  };
  const std::string kernels = "--kernels-dir '" D2Q9_KERNELS_DIR "'";
  for (const Same& c : {Same{"-q", {"final_state.png"}},
                        Same{"--no-png --backend opencl -d 0 " + kernels, {}},
                        Same{"--png OUT/speed.png", {"speed.png"}},
                        Same{"--vtk OUT/state.vtk --no-png", {"state.vtk"}},
                        Same{"--snapshot-every 50 --no-png",
                             {"snapshot_050.png", "snapshot_100.png", "snapshot_150.png", "snapshot_200.png"}},
                        Same{"--checkpoint-every 40 --no-png", {}},
                        Same{"--summary-json OUT/summary.json --no-png", {"summary.json"}}}) {
    CAPTURE(c.args);
    TempDir one, many;
    auto in = [&](const TempDir& dir) {
      std::string a = c.args;
      for (std::size_t at; (at = a.find("OUT/")) != std::string::npos;) a.replace(at, 3, dir.path);
      return a + " -o '" + dir.path + "' " + problem.inputs();
    };
    const Result single = run_alone("-l 8x1 --kernel-variant fused " + in(one));
    REQUIRE_MESSAGE(single.status == 0, single.err);
    const Result split = run_ranks(2, "-l 8x1 " + in(many));
    REQUIRE_MESSAGE(split.status == 0, split.err);
    CHECK(split.err == "");
    CHECK(many.listing() == one.listing());
    for (const std::string& name : c.files) CHECK(many.listing().find(name + "\n") != std::string::npos);
    for (const std::string& name : {"av_vels.dat", "final_state.dat", "final_state.png", "speed.png", "state.vtk",
                                    "snapshot_100.png", "snapshot_200.png"})
      CHECK_MESSAGE(slurp(many.file(name)) == slurp(one.file(name)), name);
    if (c.args.find("summary.json") != std::string::npos) {
      const std::string json = slurp(many.file("summary.json"));
      CHECK(json.find("\"mpi_ranks\": \"2 (slab rows, bottom to top: 15,15)\"") != std::string::npos);
      CHECK(json.find("\"backend\": \"opencl+mpi\"") != std::string::npos);
    }
    if (c.args == "-q") CHECK(split.out == "");
  }
  // --help and --list-devices: printed once, by rank 0.
  for (const char* args : {"--help", "--list-devices"}) {
    CAPTURE(args);
    const Result r = run_ranks(2, args);
    CHECK(r.status == 0);
    CHECK(r.out == run_alone(args).out);
  }
  // Refused: one line, before any output.
  struct Refused {
    std::string args, error;
  };
  for (const Refused& c :
       {Refused{"--tune", "error: --tune searches shapes on one device"},
        Refused{"-b reference", "error: --backend reference runs on one process"},
        Refused{"-b cuda", "error: "},
        Refused{"--kernel-variant fused-x2", "error: --kernel-variant fused-x2 is not available with several MPI ranks"},
        Refused{"--kernel-variant split", "error: --kernel-variant split is not available with several MPI ranks"}}) {
    CAPTURE(c.args);
    TempDir out;
    const Result r = run_ranks(2, c.args + " -o '" + out.path + "' " + problem.inputs());
    CHECK(r.status != 0);
    CHECK(r.out == "");
    const auto errors = error_lines(r.err);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].rfind(c.error, 0) == 0);
    CHECK(out.listing() == "");
  }
}

TEST_CASE("mpi runs: an unstable flow fails once on every rank, and writes nothing") {
  TempDir dir, out;
  const std::string params = dir.write("u.params", "16\n16\n2000\n10\n0.1\n0.3\n1.99\n");
  const std::string obstacles = dir.write("u.dat", "0 0 1\n");
  const Result r = run_ranks(2, "-l 8x1 -o '" + out.path + "' '" + params + "' '" + obstacles + "'");
  CHECK(r.status == 1);
  CHECK(r.out == "");
  const auto errors = error_lines(r.err);
  REQUIRE(errors.size() == 1);
  CHECK(errors[0].rfind("error: flow became unstable at step ", 0) == 0);
  CHECK(out.listing() == "");
  // The same step as one process names.
  const Result alone = run_alone("-l 8x1 --kernel-variant fused -o '" + out.path + "' '" + params + "' '" + obstacles + "'");
  REQUIRE(error_lines(alone.err).size() == 1);
  CHECK(error_lines(alone.err)[0] == errors[0]);
}

TEST_CASE("mpi runs: a checkpoint of 2 ranks, killed, restarts on 1 and on 3 ranks to the uninterrupted bytes") {
  TempDir dir;
  // 24x30 as above, long enough to be interrupted on PoCL.
  const Problem problem;
  const std::string params = dir.write("long.params", "24\n30\n20000\n10\n0.1\n0.02\n1.7\n");
  const std::string inputs = "'" + params + "' '" + problem.obstacles + "'";
  TempDir whole;
  const Result uninterrupted = run_ranks(2, "-q --no-png -l 8x1 -o '" + whole.path + "' " + inputs);
  REQUIRE_MESSAGE(uninterrupted.status == 0, uninterrupted.err);

  TempDir killed;
  const std::string checkpoint = killed.file("checkpoint.d2q9");
  // mpirun passes SIGTERM on to the ranks once the first checkpoint is there.
  const Result stopped = run_shell("( " + d2q9::test::mpirun_command(2) + " '" + D2Q9_EXE + "' -q --no-png -l 8x1 --checkpoint-every 500 -o '" +
                                   killed.path + "' " + inputs + " & pid=$!; while [ ! -f '" + checkpoint +
                                   "' ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; kill -TERM $pid; wait $pid )");
  REQUIRE_MESSAGE(stopped.status != 0, "the run ended before it could be interrupted: make long.params longer");
  const Checkpoint c = read_checkpoint(checkpoint);
  // The signal saves the step the ranks had reached: the first checkpoint's
  // or, when the ranks ran on before it arrived, a later one.
  CHECK(c.step() >= 500);
  CHECK(c.step() < 20000);
  MESSAGE("interrupted at step " << c.step());

  for (int ranks : {1, 3}) {
    CAPTURE(ranks);
    TempDir resumed;
    const std::string args = "-q --no-png -l 8x1 --restart '" + checkpoint + "' -o '" + resumed.path + "' " + inputs;
    const Result r = ranks == 1 ? run_alone("--kernel-variant fused " + args) : run_ranks(ranks, args);
    REQUIRE_MESSAGE(r.status == 0, r.err);
    CHECK(slurp(resumed.file("av_vels.dat")) == slurp(whole.file("av_vels.dat")));
    CHECK(slurp(resumed.file("final_state.dat")) == slurp(whole.file("final_state.dat")));
  }
}

#endif
