// The program as users run it: exit codes, messages, files.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/wait.h>

#include <algorithm>

#include "helpers.hpp"
#include <nlohmann/json.hpp>
#include "opencl/opencl_backend.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

using d2q9::test::slurp;
using d2q9::test::Result;
using d2q9::test::run_program;
using d2q9::test::TempDir;

namespace {

// Every number in a text file, in order ("12:" counts as 12).
std::vector<double> numbers(const std::string& text) {
  std::vector<double> out;
  std::istringstream in(text);
  for (std::string tok; in >> tok;) out.push_back(std::strtod(tok.c_str(), nullptr));
  return out;
}

using d2q9::test::count_lines;

const std::string kParams = "12\n10\n40\n10\n0.1\n0.02\n1.7\n";
const std::string kObstacles = "0 0 1\n5 5 1\n11 9 1\n";

// Runs with one broken input and checks the one-line error and that no output appeared.
void check_rejected(const std::string& params, const std::string& obstacles, const std::string& expected_error,
                    const std::string& extra_args = "") {
  TempDir dir;
  const auto pf = dir.write("in.params", params);
  const auto of = dir.write("obs.dat", obstacles);
  TempDir out;
  const Result r = run_program("'" + pf + "' '" + of + "' -o '" + out.path + "' " + extra_args);
  CHECK(r.status == 1);
  CHECK(r.out == "");
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(r.err.find(expected_error) != std::string::npos);
  CHECK(out.listing() == "");
}

}  // namespace

TEST_CASE("cli: --help describes usage and the options") {
  const Result r = run_program("--help");
  CHECK(r.status == 0);
  CHECK(r.out.find("<paramfile> <obstaclefile>") != std::string::npos);
  for (const char* opt : {"--list-devices", "--device", "--local-size", "--output-dir", "--kernels-dir", "--precision",
                          "--quiet"})
    CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("cli: the README's options table lists exactly the --help options, in order, with their short forms") {
  const Result r = run_program("--help");
  REQUIRE(r.status == 0);
  // "  -b [ --backend ] arg" or "  --tune": one entry per option line of --help.
  std::vector<std::string> help;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto start = line.find_first_not_of(' ');
    if (start != 2) continue;
    std::string entry;
    if (line.compare(2, 1, "-") == 0 && line.compare(3, 1, "-") != 0)  // a short form first
      entry = "`" + line.substr(2, 2) + "`, `--" + line.substr(line.find("[ --") + 4, line.find(" ]") - line.find("[ --") - 4);
    else
      entry = "`" + line.substr(2, line.find(' ', 2) - 2);
    help.push_back(entry);
  }
  REQUIRE(help.size() >= 19);
  const std::string readme = slurp(D2Q9_SOURCE_DIR "/README.md");
  const auto table = readme.find("| option | meaning |");
  REQUIRE(table != std::string::npos);
  std::vector<std::string> documented;
  std::istringstream rows(readme.substr(table));
  std::string row;
  std::getline(rows, row);
  std::getline(rows, row);  // | --- | --- |
  while (std::getline(rows, row) && row.rfind("| `", 0) == 0) documented.push_back(row.substr(2, row.find(" |") - 2));
  REQUIRE(documented.size() == help.size());
  for (std::size_t i = 0; i < help.size(); ++i) {
    CAPTURE(i);
    CAPTURE(documented[i]);
    CHECK(documented[i].rfind(help[i], 0) == 0);  // the README adds the argument's form
  }
}

TEST_CASE("cli: --list-devices lists the OpenCL devices with an index") {
  const Result r = run_program("--list-devices");
  CHECK(r.status == 0);
  CHECK(r.out.find("OpenCL devices:") == 0);
  CHECK(r.out.find("compute units") != std::string::npos);
  CHECK(r.out.find("\n  0") != std::string::npos);  // the first row of the table
}

TEST_CASE("cli: usage errors are one line and exit 2") {
  for (const char* args : {"", "only-one-file", "a b --precision half", "a b --local-size 12", "a b --local-size 0x4",
                           "a b --device -1", "a b --device x", "a b --frobnicate", "a b --kernel-variant fast", "a b --kernel-variant fused-x3", "a b --backend cuda7",
                           "a b --block-steps 0", "a b --block-steps x", "a b --tile 8", "a b --tile 0x4"}) {
    CAPTURE(args);
    const Result r = run_program(args);
    CHECK(r.status == 2);
    CHECK(r.err.rfind("error: ", 0) == 0);
    CHECK(count_lines(r.err) == 1);
  }
}

TEST_CASE("cli: a run writes the coursework outputs and summary") {
  TempDir dir;
  const auto pf = dir.write("in.params", kParams);
  const auto of = dir.write("obs.dat", kObstacles);
  TempDir cl_out, ref_out;
  const Result r = run_program("'" + pf + "' '" + of + "' -o '" + cl_out.path + "' --precision double");
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  for (const char* line : {"==done==\n", "Reynolds number:\t\t", "Elapsed time:\t\t\t", "Elapsed user CPU time:\t\t",
                           "Elapsed system CPU time:\t", "Device:\t\t\t\t", "MLUPS:\t\t\t\t"})
    CHECK(r.out.find(line) != std::string::npos);
  CHECK(cl_out.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.png\n");
  CHECK(count_lines(slurp(cl_out.file("av_vels.dat"))) == 40);
  CHECK(count_lines(slurp(cl_out.file("final_state.dat"))) == 120);

  // The reference backend writes the same files, equal to 1e-10 (double, short run).
  const Result rr = run_program("'" + pf + "' '" + of + "' -o '" + ref_out.path + "' --precision double --backend reference -q");
  REQUIRE(rr.status == 0);
  CHECK(rr.out == "");
  for (const char* name : {"av_vels.dat", "final_state.dat"}) {
    CAPTURE(name);
    const auto ref = numbers(slurp(ref_out.file(name))), got = numbers(slurp(cl_out.file(name)));
    REQUIRE(ref.size() == got.size());
    CHECK(d2q9::test::max_relative_difference(got, ref, 1e-8) < 1e-10);
  }
}

TEST_CASE("cli: bad params files") {
  check_rejected("12\n10\n40\n10\n0.1\n0.02\n", kObstacles, "in.params:6: missing value for omega");
  check_rejected(kParams + "5\n", kObstacles, "in.params:8: unexpected extra value '5'");
  check_rejected("12\n10\nforty\n10\n0.1\n0.02\n1.7\n", kObstacles, "in.params:3: maxIters must be an integer");
  check_rejected("12\n0\n40\n10\n0.1\n0.02\n1.7\n", kObstacles, "in.params:2: ny must be at least 2");
  check_rejected("12\n10\n-4\n10\n0.1\n0.02\n1.7\n", kObstacles, "in.params:3: maxIters must be positive");
  check_rejected("12\n10\n40\n10\n0.1\n0.02\n2.5\n", kObstacles, "in.params:7: omega must lie in (0, 2)");
}

TEST_CASE("cli: bad obstacle files") {
  check_rejected(kParams, "0 0 1\n3 4\n", "obs.dat:2: expected 'x y 1'");
  check_rejected(kParams, "0 0 1\n12 4 1\n", "obs.dat:2: x = 12 is outside the grid [0, 11]");
  check_rejected(kParams, "0 10 1\n", "obs.dat:1: y = 10 is outside the grid [0, 9]");
  check_rejected(kParams, "0 0 0\n", "obs.dat:1: blocked value must be 1, got 0");
}

TEST_CASE("cli: missing files, devices, local sizes, kernels, memory") {
  TempDir dir;
  const auto pf = dir.write("in.params", kParams);
  const auto of = dir.write("obs.dat", kObstacles);
  TempDir out;
  const std::string files = "'" + pf + "' '" + of + "' -o '" + out.path + "' ";

  Result r = run_program("/nonexistent.params '" + of + "' -o '" + out.path + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: /nonexistent.params: cannot open file (No such file or directory)\n");
  r = run_program("'" + pf + "' /nonexistent.dat -o '" + out.path + "'");
  CHECK(r.err == "error: /nonexistent.dat: cannot open file (No such file or directory)\n");
  r = run_program("'" + pf + "' '" + of + "' -o /nonexistent-dir/out");
  CHECK(r.err == "error: /nonexistent-dir/out: cannot create output directory (its parent directory does not exist)\n");

  r = run_program(files + "--device 99");
  CHECK(r.status == 1);
  CHECK(r.err.find("error: --device 99 does not exist") == 0);
  CHECK(count_lines(r.err) == 1);

  r = run_program(files + "--local-size 100000x1");
  CHECK(r.status == 1);
  CHECK(r.err.find("error: local size 100000x1 is not valid on ") == 0);
  CHECK(count_lines(r.err) == 1);

  TempDir broken;
  broken.write("d2q9_bgk.cl", "__kernel void accelerate_flow(__global float* c) { this is not C; }\n");
  r = run_program(files + "--kernels-dir '" + broken.path + "'");
  CHECK(r.status == 1);
  CHECK(r.err.find("error: " + broken.path + "/d2q9_bgk.cl: kernel build failed on ") == 0);
  // One line: the compiler's first error, and where its whole log went.
  CHECK(count_lines(r.err) == 1);
  CHECK(d2q9::test::contains(r.err, "error: " + broken.path + "/d2q9_bgk.cl: kernel build failed on "));
  const auto log_at = r.err.find("(options and full build log in ");
  REQUIRE(log_at != std::string::npos);
  CHECK(d2q9::test::contains(r.err.substr(0, log_at), "error"));
  const std::string log_path = r.err.substr(log_at + 31, r.err.size() - log_at - 31 - 2);
  const std::string log = slurp(log_path);
  CHECK(d2q9::test::contains(log, "options: -cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt -DNX=12 -DNY=10 "));  // PoCL rounds them
  CHECK(count_lines(log) > 3);
  std::remove(log_path.c_str());

  r = run_program(files + "--kernels-dir /nonexistent-kernels");
  CHECK(r.err == "error: /nonexistent-kernels: no d2q9_bgk.cl in the kernels directory given by --kernels-dir\n");

  // 15000^2 cells need about 16 GiB of lattice in float: more than CPU devices
  // report; a large GPU can really run it, so there the check cannot be made.
  const auto devices = d2q9::list_opencl_devices();
  REQUIRE(!devices.empty());
  const auto memory = devices[d2q9::default_opencl_device(devices)].global_mem_bytes;
  if (memory < 2ULL * 9 * 15000 * 15000 * sizeof(float)) {
    const auto huge = dir.write("huge.params", "15000\n15000\n10\n10\n0.1\n0.005\n1.85\n");
    r = run_program("'" + huge + "' '" + of + "' -o '" + out.path + "'");
    CHECK(r.status == 1);
    CHECK(r.err.find("error: grid 15000x15000 needs ") == 0);
    CHECK(r.err.find("out of memory") != std::string::npos);
    CHECK(count_lines(r.err) == 1);
  } else {
    MESSAGE("out-of-memory case skipped: the default device has " << (memory >> 30) << " GiB, enough for 15000x15000");
  }

  const auto too_many = dir.write("idx.params", "50000\n50000\n10\n10\n0.1\n0.005\n1.85\n");
  r = run_program("'" + too_many + "' '" + of + "' -o '" + out.path + "'");
  CHECK(r.status == 1);
  // 64-bit indices take any grid; this one is refused for host memory.
  CHECK(r.err.find("error: grid 50000x50000 needs ") == 0);
  CHECK(r.err.find("MiB of host memory") != std::string::npos);
  CHECK(count_lines(r.err) == 1);

  CHECK(out.listing() == "");
}

TEST_CASE("cli: --tune (or --autotune) prints the launches timed and the choice, and the summary says why") {
  TempDir dir;
  const auto pf = dir.write("in.params", kParams);
  const auto of = dir.write("obs.dat", kObstacles);
  TempDir out;
  for (const char* option : {"--tune", "--autotune"}) {
    CAPTURE(option);
    const Result r = run_program("'" + pf + "' '" + of + "' -o '" + out.path + "' " + option);
    REQUIRE(r.status == 0);
    CHECK(r.out.find("Launch search on ") == 0);
    CHECK(r.out.find("\n  fused-rows ") != std::string::npos);  // the CPU default, timed first
    CHECK(r.out.find("\n  fused 32x1 ") != std::string::npos);
    CHECK(r.out.find("\n  split ") == std::string::npos);  // the tests' oracle, not a candidate
    CHECK(r.out.find("Chosen: ") != std::string::npos);
    CHECK(r.out.find("==done==") != std::string::npos);
  }
  const Result given = run_program("'" + pf + "' '" + of + "' -o '" + out.path + "' -l 4x2");
  CHECK(given.out.find("\nLaunch:\t\t\t\tlocal size as given; fused: a local size was given, and fused-rows (the CPU "
                       "default) takes none\n") != std::string::npos);
  const Result rows = run_program("'" + pf + "' '" + of + "' -o '" + out.path + "' --kernel-variant fused-rows -l 128x1");
  CHECK(rows.status == 1);
  CHECK(rows.err == "error: --kernel-variant fused-rows runs a whole row per work-item and takes no --local-size (got "
                    "128x1): leave it out, or choose another variant\n");
  // The blocked kernel's own options: refused for other variants, and a tile
  // whose halo does not fit local memory, with the bytes it needs.
  const Result steps = run_program("'" + pf + "' '" + of + "' -o '" + out.path + "' --kernel-variant fused --block-steps 4");
  CHECK(steps.status == 1);
  CHECK(steps.err == "error: --block-steps and --tile are for --kernel-variant blocked, not fused\n");
  const Result huge = run_program("'" + pf + "' '" + of + "' -o '" + out.path +
                                  "' --kernel-variant blocked --tile 100000x100000 -l 8x1");
  CHECK(huge.status == 1);
  CHECK(huge.err.rfind("error: --kernel-variant blocked with tile 100000x100000, 4 steps per launch and work-groups of 8 "
                       "needs ", 0) == 0);
  CHECK(count_lines(huge.err) == 1);
  const Result blocked = run_program("'" + pf + "' '" + of + "' -o '" + out.path +
                                     "' --kernel-variant blocked --block-steps 3 --tile 4x5 -l 8x2 --summary-json s.json");
  CHECK(blocked.status == 0);
  CHECK(blocked.out.find(", blocked (3 steps per launch, tile 4x5))\n") != std::string::npos);
  const std::string json = slurp(out.file("s.json"));
  CHECK(json.find("\"block_steps\": 3") != std::string::npos);
}

TEST_CASE("cli: --version names the version, commit and backends, and the JSON summary carries them") {
  const Result v = run_program("--version");
  CHECK(v.status == 0);
  CHECK(v.err == "");
  CHECK(v.out.rfind("d2q9-bgk 0.", 0) == 0);
  CHECK(v.out.find(" (commit ") != std::string::npos);
  CHECK(v.out.find("; backends: reference, opencl") != std::string::npos);
  CHECK(count_lines(v.out) == 1);
  const std::string version = v.out.substr(9, v.out.find(' ', 9) - 9);
  const std::string commit = v.out.substr(v.out.find("(commit ") + 8, v.out.find(';') - v.out.find("(commit ") - 8);
  CHECK(commit.size() >= 12);

  TempDir dir;
  const auto pf = dir.write("in.params", kParams);
  const auto of = dir.write("obs.dat", kObstacles);
  REQUIRE(run_program("'" + pf + "' '" + of + "' -q -o '" + dir.path + "' --summary-json '" + dir.path + "/s.json'").status == 0);
  const auto json = nlohmann::json::parse(slurp(dir.file("s.json")));
  CHECK(json.at("program") == nlohmann::json{{"name", "d2q9-bgk"}, {"version", version}, {"commit", commit}});
  CHECK(json.at("launch_reason").get<std::string>().find(json.at("kernel_variant").get<std::string>()) !=
        std::string::npos);
}

TEST_CASE("cli: a mistyped long option gets a suggestion") {
  for (const auto& [args, expected] : std::vector<std::pair<std::string, std::string>>{
           {"a b --tnue", "error: unrecognised option '--tnue'; did you mean --tune? (see --help)\n"},
           {"a b --precison double", "error: unrecognised option '--precison'; did you mean --precision? (see --help)\n"},
           {"a b --checkpoint-evry=5", "error: unrecognised option '--checkpoint-evry=5'; did you mean --checkpoint-every? (see --help)\n"},
           {"a b --frobnicate", "error: unrecognised option '--frobnicate' (see --help)\n"}}) {
    CAPTURE(args);
    const Result r = run_program(args);
    CHECK(r.status == 2);
    CHECK(r.err == expected);
  }
}

TEST_CASE("cli: a finite value beyond float is one line naming the params file, before the run") {
  check_rejected("12\n10\n40\n10\n0.1\n1e39\n1.7\n", kObstacles,
                 "in.params: accel 1e+39 is too large for precision float (at most 3.40282e+38); use precision double");
  check_rejected("12\n10\n40\n10\n5e38\n0.02\n1.7\n", kObstacles, "in.params: density 5e+38 is too large");
}

TEST_CASE("cli: a damaged tuning cache is a warning, not a failure") {
  TempDir dir, cache;
  const auto pf = dir.write("in.params", kParams);
  const auto of = dir.write("obs.dat", kObstacles);
  REQUIRE(::mkdir(cache.file("tuning.json").c_str(), 0755) == 0);  // a directory where the file should be
  const Result r = d2q9::test::run_shell("D2Q9_CACHE_DIR='" + cache.path + "' '" D2Q9_EXE "' --tune -q '" + pf + "' '" +
                                         of + "' -o '" + dir.path + "'");
  CHECK(r.status == 0);
  CHECK(r.err.rfind("warning: tuning cache " + cache.file("tuning.json") + " is not a regular file: ignored\n", 0) == 0);
}

TEST_CASE("cli: outputs that are one file, or an input, are refused before the run") {
  TempDir dir, out;
  const auto pf = dir.write("in.params", kParams);
  const auto of = dir.write("obs.dat", kObstacles);
  const std::string inputs = "'" + pf + "' '" + of + "' -o '" + out.path + "' ";
  Result r = run_program(inputs + "--png '" + out.file("av_vels.dat") + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + out.file("av_vels.dat") + ": the run would write this file twice (also as " +
                     out.path + "/av_vels.dat)\n");
  r = run_program(inputs + "--summary-json '" + pf + "'");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + pf + ": is an input of this run; the run would overwrite it\n");
  r = run_program(inputs + "--vtk '" + dir.path + "/../" + dir.path.substr(dir.path.rfind('/') + 1) + "/obs.dat.vtk' --summary-json '" +
                  dir.file("obs.dat.vtk") + "'");
  CHECK(r.status == 1);
  CHECK(r.err.find("the run would write this file twice") != std::string::npos);
  CHECK(out.listing() == "");
  CHECK(slurp(pf) == kParams);
}

TEST_SUITE_END();
