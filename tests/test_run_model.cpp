// The promises of a run as a whole: a checkpoint holds everything a restart
// needs to finish the run as if it had never stopped (every per-step series
// included); the outputs in a folder are one run's; the per-step files count
// steps alike; caches are never trusted; a full disk or a file-size limit is
// an error line, not a crash.
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "io/checkpoint.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

using d2q9::test::contains;
using d2q9::test::count_lines;
using d2q9::test::Result;
using d2q9::test::run_shell;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

const std::string kExe = D2Q9_EXE;
std::string problem_file(const std::string& name) { return std::string(D2Q9_SOURCE_DIR) + "/tests/problems/" + name; }

// Lines of `text` that start with `prefix`.
std::string lines_starting(const std::string& text, const std::string& prefix) {
  std::string out, line;
  std::stringstream ss(text);
  while (std::getline(ss, line))
    if (line.rfind(prefix, 0) == 0) out += line + "\n";
  return out;
}

std::string first_field(const std::string& csv_line) { return csv_line.substr(0, csv_line.find(',')); }

// The first and last data rows of a CSV file.
std::pair<std::string, std::string> first_and_last_rows(const std::string& csv) {
  const std::size_t first = csv.find('\n') + 1;
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  return {csv.substr(first, csv.find('\n', first) - first), last.substr(0, last.size() - 1)};
}

}  // namespace

TEST_CASE("run model: a run stopped by SIGTERM and restarted writes the uninterrupted run's forces, probes and Strouhal number") {
  TempDir whole, stopped;
  const std::string p = problem_file("cylinder_measured.toml");
  const std::string options = " -b reference --no-png";
  const Result r_whole = run_shell("'" + kExe + "' '" + p + "' -o '" + whole.path + "'" + options);
  REQUIRE(r_whole.status == 0);
  const std::string checkpoint = stopped.file(d2q9::kCheckpointFile);
  const Result r_stopped =
      run_shell("{ '" + kExe + "' '" + p + "' -o '" + stopped.path + "' -q --checkpoint-every 500" + options +
                " & pid=$!; while [ ! -e '" + checkpoint + "' ] && kill -0 $pid 2>/dev/null; do sleep 0.01; done; "
                "kill -TERM $pid; wait $pid; }");
  REQUIRE_MESSAGE(r_stopped.status != 0, "the run ended before it was stopped: give it more steps");
  const d2q9::Checkpoint c = d2q9::read_checkpoint(checkpoint);
  CHECK(c.step() > 0);
  CHECK(c.step() < 40000);
  const Result r_restart = run_shell("'" + kExe + "' --restart '" + checkpoint + "'");
  REQUIRE(r_restart.status == 0);
  for (const char* name : {"av_vels.dat", "forces.csv", "probes.csv", "final_state.vti"}) {
    CAPTURE(name);
    CHECK(!slurp(whole.file(name)).empty());
    CHECK(slurp(stopped.file(name)) == slurp(whole.file(name)));
  }
  const std::string strouhal = lines_starting(r_whole.out, "Strouhal");
  CHECK(strouhal != "");
  CHECK(lines_starting(r_restart.out, "Strouhal") == strouhal);
  CHECK(lines_starting(r_restart.out, "Force on") == lines_starting(r_whole.out, "Force on"));
}

TEST_CASE("run model: a restart from a checkpoint written at a probe's step writes the uninterrupted run's probes.csv") {
  TempDir whole, cut, resumed;
  const std::string p = problem_file("forced_channel_probes.toml");  // 120 steps, probes every 40
  // The text final state, whose size the file-size limit below is set by.
  const std::string options = " -q --no-png -b reference --final-state text";
  REQUIRE(run_shell("'" + kExe + "' '" + p + "' -o '" + whole.path + "'" + options).status == 0);
  // 40 blocks of 512 bytes: the checkpoint (336 cells, 14 kB) fits, final_state.dat (28 kB) does not, so the
  // run fails after its last checkpoint (step 80, a probe's step) and leaves it.
  const Result r_cut = run_shell("ulimit -f 40; '" + kExe + "' '" + p + "' -o '" + cut.path + "' --checkpoint-every 80" +
                                 options);
  REQUIRE(r_cut.status == 1);
  REQUIRE(contains(r_cut.err, "final_state.dat"));
  const std::string checkpoint = cut.file(d2q9::kCheckpointFile);
  REQUIRE(d2q9::read_checkpoint(checkpoint).step() == 80);
  REQUIRE(run_shell("'" + kExe + "' --restart '" + checkpoint + "' -o '" + resumed.path + "'").status == 0);
  for (const char* name : {"av_vels.dat", "probes.csv", "final_state.dat"}) {
    CAPTURE(name);
    CHECK(slurp(resumed.file(name)) == slurp(whole.file(name)));
  }
}

TEST_CASE("run model: forces.csv and probes.csv number a row by the steps completed") {
  TempDir dir;
  std::string text = slurp(problem_file("cylinder_measured.toml"));
  text.replace(text.find("steps = 40000"), 13, "steps = 50");
  const std::string p = dir.write("p.toml", text);
  const Result r = run_shell("'" + kExe + "' '" + p + "' -q --no-png -b reference -o '" + dir.path + "'");
  REQUIRE(r.status == 0);
  const auto forces = first_and_last_rows(slurp(dir.file("forces.csv")));
  const auto probes = first_and_last_rows(slurp(dir.file("probes.csv")));
  CHECK(first_field(forces.first) == "1");
  CHECK(first_field(forces.second) == "50");
  CHECK(first_field(probes.first) == "10");
  CHECK(first_field(probes.second) == "50");
  CHECK(count_lines(slurp(dir.file("forces.csv"))) == 51);
}

TEST_CASE("run model: a run into a folder another run wrote leaves none of that run's outputs behind") {
  TempDir dir;
  std::string text = slurp(problem_file("cylinder_measured.toml"));
  text.replace(text.find("steps = 40000"), 13, "steps = 20");
  const std::string cylinder = dir.write("cylinder.toml", text);
  Result r = run_shell("'" + kExe + "' '" + cylinder + "' -q -b reference --field vorticity -o '" + dir.path + "/out'");
  REQUIRE(r.status == 0);
  CHECK(slurp(dir.file("out/forces.csv")) != "");
  const std::string cavity = problem_file("cavity_small.toml");
  r = run_shell("'" + kExe + "' '" + cavity + "' -q -b reference --no-png -o '" + dir.path + "/out'");
  REQUIRE(r.status == 0);
  const Result ls = run_shell("ls -A '" + dir.path + "/out'");
  CHECK(ls.out == ".d2q9-outputs.json\nav_vels.dat\nfinal_state.vti\n");
  // Each removal is said, naming the file.
  for (const std::string name : {"forces.csv", "probes.csv", "final_state_vorticity.png"}) {
    CAPTURE(name);
    CHECK(contains(r.err, "warning: removed " + dir.path + "/out/" + name +
                              ": an earlier run's output, which this run does not write\n"));
  }
  CHECK(count_lines(r.err) == 3);
  // A run that writes the same set says nothing.
  r = run_shell("'" + kExe + "' '" + cavity + "' -q -b reference --no-png -o '" + dir.path + "/out'");
  CHECK(r.status == 0);
  CHECK(r.err == "");
}

TEST_CASE("run model: --collision trt keeps the problem file's Lambda") {
  TempDir dir;
  std::string text = slurp(problem_file("cylinder_measured.toml"));
  text.replace(text.find("steps = 40000"), 13, "steps = 20");
  text.replace(text.find("collision = \"trt\""), 17, "collision = \"trt\"\nmagic = 0.1875");
  const std::string p = dir.write("p.toml", text);
  const Result as_file = run_shell("'" + kExe + "' '" + p + "' -q --no-png -b reference -o '" + dir.path + "/a'");
  const Result as_option =
      run_shell("'" + kExe + "' '" + p + "' -q --no-png -b reference --collision trt -o '" + dir.path + "/b'");
  const Result other = run_shell("'" + kExe + "' '" + p + "' -q --no-png -b reference --collision trt:0.25 -o '" +
                                 dir.path + "/c'");
  REQUIRE(as_file.status == 0);
  REQUIRE(as_option.status == 0);
  REQUIRE(other.status == 0);
  CHECK(!slurp(dir.file("a/final_state.vti")).empty());
  CHECK(slurp(dir.file("a/final_state.vti")) == slurp(dir.file("b/final_state.vti")));
  CHECK(slurp(dir.file("a/final_state.vti")) != slurp(dir.file("c/final_state.vti")));
}

TEST_CASE("run model: a meaningless result, or a measurement that cannot be made, is an error line and no file") {
  TempDir dir;
  const std::string base = slurp(problem_file("cylinder_library.toml"));
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = base;
    REQUIRE(text.find(from) != std::string::npos);
    return text.replace(text.find(from), from.size(), to);
  };
  struct Case {
    std::string name, problem, message;
  };
  const std::vector<Case> cases = {
      // Accel 0.3 at omega 1.99 stays finite but runs at 30 times the speed of sound.
      {"supersonic", slurp(problem_file("supersonic_box.toml")),
       "is above the speed of sound (0.57735): the flow is supersonic"},
      {"slow", edited("velocity = 0.053", "velocity = 1e-300"), "p.toml:21: velocity 1e-300 is too small"},
      {"rare", edited("every = 10", "every = 500"), "p.toml:24: every = 500 is more than the run's 300 steps"},
      {"overlap",
       base + "[[obstacle]]\nname = \"a\"\ncircle = { center = [40.0, 15.0], radius = 3.0 }\n"
              "[[obstacle]]\nname = \"b\"\ncircle = { center = [44.0, 15.0], radius = 3.0 }\n",
       "p.toml:31: this obstacle (body b) overlaps body a at cell (42, 13)"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string out = dir.path + "/" + c.name;
    const std::string p = dir.write("p.toml", c.problem);
    const Result r = run_shell("'" + kExe + "' '" + p + "' -q --no-png -b reference -o '" + out + "'");
    CHECK(r.status == 1);
    CHECK(r.err.rfind("error: ", 0) == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK_MESSAGE(contains(r.err, c.message), r.err);
    CHECK(slurp(out + "/av_vels.dat").empty());
    CHECK(slurp(out + "/final_state.dat").empty());
    CHECK(slurp(out + "/final_state.vti").empty());
  }
}

TEST_CASE("run model: a TRT magic parameter that freezes or overdrives the odd moments is an error") {
  TempDir dir;
  std::string text = slurp(problem_file("cylinder_library.toml"));
  text.replace(text.find("collision = \"trt\""), 17, "collision = \"trt\"\nmagic = 1e30");
  const std::string p = dir.write("p.toml", text);
  const Result in_file = run_shell("'" + kExe + "' '" + p + "' -q --no-png -b reference -o '" + dir.path + "/a'");
  CHECK(in_file.status == 1);
  CHECK(count_lines(in_file.err) == 1);
  CHECK_MESSAGE(contains(in_file.err, "p.toml:10: magic = 1e+30 is outside [0.001, 10]"), in_file.err);
  const std::string base = problem_file("cylinder_library.toml");
  for (const char* lambda : {"1e30", "1e-320", "20"}) {
    CAPTURE(lambda);
    const Result r = run_shell("'" + kExe + "' '" + base + "' -q --no-png -b reference --collision trt:" + lambda +
                               " -o '" + dir.path + "/b'");
    CHECK(r.status == 2);
    CHECK(r.err.rfind("error: --collision trt:", 0) == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(slurp(dir.file("b/av_vels.dat")).empty());
  }
  // The values in use run.
  const Result ok = run_shell("'" + kExe + "' '" + base + "' -q --no-png -b reference --collision trt:0.0833 -o '" +
                              dir.path + "/c'");
  CHECK(ok.status == 0);
}

TEST_CASE("run model: a file-size limit is an error line, and leaves no temporary files") {
  TempDir dir;
  // 400 blocks of 512 bytes: av_vels.dat fits, final_state.dat (256x256 cells, 70 bytes a line) does not.
  const std::string params = dir.write("in.params", "256\n256\n20\n256\n0.1\n0.005\n1.7\n");
  const std::string obstacles = dir.write("obs.dat", "1 1 1\n");
  const Result r = run_shell("ulimit -f 400; '" + kExe + "' '" + params + "' '" + obstacles +
                             "' -q --no-png -b reference -o '" + dir.path + "/out'");
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(contains(r.err, "final_state.dat"));
  const Result ls = run_shell("ls -A '" + dir.path + "/out'");
  CHECK(ls.out == "");
}

TEST_CASE("caches: a kernel cache entry that is no regular file, or is damaged, is a warning naming it and a compile") {
  TempDir cache, dir;
  const std::string params = dir.write("in.params", "16\n8\n10\n16\n0.1\n0.005\n1.7\n");
  const std::string obstacles = dir.write("obs.dat", "1 1 1\n");
  const std::string run = "D2Q9_CACHE_DIR='" + cache.path + "' timeout 60 '" + kExe + "' '" + params + "' '" + obstacles +
                          "' -q --no-png -b opencl --kernel-variant fused -l 8x1 -o '" + dir.path + "'";
  Result r = run_shell(run);
  if (r.status != 0 && contains(r.err, "no OpenCL device")) D2Q9_SKIP("no OpenCL device: " << r.err);
  REQUIRE(r.status == 0);
  const std::string reference = slurp(dir.file("final_state.dat"));
  const Result entries = run_shell("ls '" + cache.path + "'/kernels/*.bin");
  REQUIRE(count_lines(entries.out) == 1);
  const std::string entry = entries.out.substr(0, entries.out.size() - 1);
  const std::string original = slurp(entry);
  struct Damage {
    const char* what;
    std::string make;
  };
  const std::vector<Damage> damages = {
      {"a directory", "rm -f '" + entry + "' && mkdir '" + entry + "'"},
      {"a FIFO", "rm -f '" + entry + "' && mkfifo '" + entry + "'"},
      {"a link to /dev/zero", "rm -f '" + entry + "' && ln -s /dev/zero '" + entry + "'"},
  };
  for (const Damage& d : damages) {
    CAPTURE(d.what);
    REQUIRE(run_shell(d.make).status == 0);
    r = run_shell(run);
    CHECK(r.status == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(contains(r.err, "warning: kernel cache entry " + entry + " "));
    CHECK(slurp(dir.file("final_state.dat")) == reference);
    run_shell("rm -rf '" + entry + "'");
  }
  // A changed compile time fails the checksum.
  REQUIRE(run_shell(run).status == 0);  // stores the entry again
  std::string entry_bytes = slurp(entry);
  const std::size_t header = std::string("d2q9-bgk kernel image 3\n").size();
  REQUIRE(entry_bytes.compare(0, header, "d2q9-bgk kernel image 3\n") == 0);
  std::uint64_t d_size = 0;
  for (int i = 7; i >= 0; --i) d_size = (d_size << 8) | static_cast<unsigned char>(entry_bytes[header + i]);
  entry_bytes[header + 8 + d_size] ^= 0x01;  // the compile's microseconds
  { std::ofstream(entry, std::ios::binary) << entry_bytes; }
  r = run_shell(run);
  CHECK(r.status == 0);
  CHECK(r.err == "warning: kernel cache entry " + entry + " is damaged (checksum mismatch): compiling again\n");
}

TEST_CASE("caches: a tuning cache that is no regular file, and a cache folder that cannot be one, are warnings") {
  TempDir cache, dir;
  const std::string params = dir.write("in.params", "16\n8\n10\n16\n0.1\n0.005\n1.7\n");
  const std::string obstacles = dir.write("obs.dat", "1 1 1\n");
  const std::string args = " timeout 60 '" + kExe + "' '" + params + "' '" + obstacles + "' -q --no-png -b opencl -o '" +
                           dir.path + "'";
  REQUIRE(run_shell("mkfifo '" + cache.path + "/tuning.json'").status == 0);
  Result r = run_shell("D2Q9_CACHE_DIR='" + cache.path + "'" + args + " --tune");
  if (r.status != 0 && contains(r.err, "no OpenCL device")) D2Q9_SKIP("no OpenCL device: " << r.err);
  CHECK(r.status == 0);  // no hang
  CHECK(contains(r.err, "warning: tuning cache " + cache.path + "/tuning.json"));
  // A regular file where the folder should be: one warning, and the run goes on.
  const std::string not_a_dir = dir.write("not-a-dir", "x");
  r = run_shell("D2Q9_CACHE_DIR='" + not_a_dir + "'" + args);
  CHECK(r.status == 0);
  CHECK(r.err == "warning: cache folder " + not_a_dir + " is not a folder: nothing is cached\n");
}

TEST_SUITE_END();
