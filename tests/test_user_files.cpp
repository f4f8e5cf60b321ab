// Nothing of the user's is lost (docs/errors.md): an output path that is a
// device, a FIFO or a link is written through or into what it points to,
// never replaced; a read-only file or a folder is refused up front; the
// clean-up of an earlier run's outputs removes only what is provably ours;
// another run's checkpoint is never overwritten by a fresh run; inputs (mask
// pictures included) are never outputs; a FIFO given as a checkpoint is
// refused unopened; values float cannot hold are refused before any kernel
// is built.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "sim/simulation.hpp"

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
const std::string kParams = "12\n10\n40\n10\n0.1\n0.02\n1.7\n";
const std::string kObstacles = "0 0 1\n5 5 1\n11 9 1\n";

std::string q(const std::string& s) { return "'" + s + "'"; }

// A coursework run of the small problem in `dir`, writing into `dir`.
Result small_run(const TempDir& dir, const std::string& extra) {
  const std::string pf = dir.write("in.params", kParams);
  const std::string of = dir.write("obs.dat", kObstacles);
  return run_shell(q(kExe) + " " + q(pf) + " " + q(of) + " -q -o " + q(dir.path) + " " + extra);
}

std::string kind_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "missing";
  if (S_ISLNK(st.st_mode)) return "link";
  if (S_ISCHR(st.st_mode)) return "character device";
  if (S_ISFIFO(st.st_mode)) return "fifo";
  if (S_ISDIR(st.st_mode)) return "directory";
  if (S_ISREG(st.st_mode)) return "regular file";
  return "other";
}

}  // namespace

TEST_CASE("user files: a character device given as an output is written through, never replaced") {
  TempDir dir;
  // /dev/null's numbers (1, 3), made here so that a failure replaces no device of the machine's.
  if (::mknod(dir.file("mynull").c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    D2Q9_SKIP("mknod failed (" << std::strerror(errno) << "): making a device node needs root (CAP_MKNOD); "
              "the FIFO and /dev/stdout cases below cover writing through");
  {
    // A file system mounted nodev cannot open the node: the case cannot run here.
    std::FILE* probe = std::fopen(dir.file("mynull").c_str(), "w");
    if (!probe) D2Q9_SKIP("the device node made in /tmp cannot be opened (" << std::strerror(errno) << "; mounted nodev?)");
    std::fclose(probe);
  }
  // Two outputs may share a device (both into /dev/null).
  const Result r = small_run(dir, "--png " + q(dir.file("mynull")) + " --summary-json " + q(dir.file("mynull")));
  CHECK(r.status == 0);
  CHECK(r.err == "");
  CHECK(kind_of(dir.file("mynull")) == "character device");
  CHECK(dir.listing(true) == ".d2q9-outputs.json\nav_vels.dat\nfinal_state.dat\nin.params\nmynull\nobs.dat\n");  // no temporary left
}

TEST_CASE("user files: a FIFO given as an output is written through to its reader") {
  TempDir dir;
  REQUIRE(::mkfifo(dir.file("summary.fifo").c_str(), 0644) == 0);
  // The reader gives up after 60 s, so a run that never opens the FIFO fails rather than hangs.
  const Result r = run_shell("(timeout 60 cat " + q(dir.file("summary.fifo")) + " > " + q(dir.file("got.json")) +
                             " &) ; " + q(kExe) + " " + q(dir.write("in.params", kParams)) + " " +
                             q(dir.write("obs.dat", kObstacles)) + " -q --no-png -o " + q(dir.path) +
                             " --summary-json " + q(dir.file("summary.fifo")) + "; s=$?; wait; sleep 1; exit $s");
  CHECK(r.status == 0);
  CHECK(kind_of(dir.file("summary.fifo")) == "fifo");
  CHECK(slurp(dir.file("got.json")).rfind("{\n  \"program\"", 0) == 0);
}

TEST_CASE("user files: a link to the process's own stdout writes the summary to stdout") {
  TempDir dir;
  // As --summary-json /dev/stdout, with stdout a regular file (run_shell's capture).
  REQUIRE(::symlink("/proc/self/fd/1", dir.file("stdout.json").c_str()) == 0);
  const Result r = small_run(dir, "--no-png --summary-json " + q(dir.file("stdout.json")));
  CHECK(r.status == 0);
  CHECK(r.err == "");
  CHECK(kind_of(dir.file("stdout.json")) == "link");
  CHECK(r.out.rfind("{\n  \"program\"", 0) == 0);
  CHECK(r.out.find("\"final_average_velocity\"") != std::string::npos);
}

TEST_CASE("user files: a link to a regular file replaces that file, and the link stays a link") {
  TempDir dir, elsewhere;
  const std::string real = elsewhere.write("real.json", "old\n");
  REQUIRE(::symlink(real.c_str(), dir.file("summary.json").c_str()) == 0);
  const Result r = small_run(dir, "--no-png --summary-json " + q(dir.file("summary.json")));
  CHECK(r.status == 0);
  CHECK(kind_of(dir.file("summary.json")) == "link");
  CHECK(slurp(real).rfind("{\n  \"program\"", 0) == 0);
  CHECK(elsewhere.listing() == "real.json\n");  // no temporary left beside it
}

TEST_CASE("user files: a read-only output, or a folder, is refused before the run, naming it") {
  TempDir dir;
  REQUIRE(small_run(dir, "--no-png").status == 0);
  const std::string before = slurp(dir.file("av_vels.dat"));
  REQUIRE(::chmod(dir.file("av_vels.dat").c_str(), 0444) == 0);
  Result r = small_run(dir, "--no-png");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + dir.file("av_vels.dat") +
                     ": is read-only; the run would replace it (make it writable or remove it first)\n");
  struct stat st {};
  REQUIRE(::stat(dir.file("av_vels.dat").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0444);
  CHECK(slurp(dir.file("av_vels.dat")) == before);
  REQUIRE(::mkdir(dir.file("sub.json").c_str(), 0755) == 0);
  REQUIRE(::chmod(dir.file("av_vels.dat").c_str(), 0644) == 0);
  r = small_run(dir, "--no-png --summary-json " + q(dir.file("sub.json")));
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + dir.file("sub.json") + ": is a directory, not a file\n");
}

TEST_CASE("user files: the clean-up of an earlier run's outputs leaves files it cannot prove are ours") {
  TempDir dir;
  // The user's own files under names a run gives its outputs, some starting
  // as ours do: a header is no proof.
  dir.write("probes.csv", "step,a_rho,a_ux,a_uy\n");
  dir.write("forces.csv", "step,drag_Fx,drag_Fy\n1,0.5,0.1\n# wind-tunnel data\n");
  dir.write("final_state_vorticity.png", "not our picture");
  const Result r = small_run(dir, "--no-png");
  CHECK(r.status == 0);
  CHECK(slurp(dir.file("probes.csv")) == "step,a_rho,a_ux,a_uy\n");
  CHECK(slurp(dir.file("forces.csv")) == "step,drag_Fx,drag_Fy\n1,0.5,0.1\n# wind-tunnel data\n");
  CHECK(slurp(dir.file("final_state_vorticity.png")) == "not our picture");
  for (const std::string name : {"forces.csv", "probes.csv", "final_state_vorticity.png"}) {
    CAPTURE(name);
    CHECK(contains(r.err, "warning: " + dir.path + "/" + name +
                              ": left in place: this run does not write it, and no record shows an earlier run wrote it\n"));
  }
  CHECK(count_lines(r.err) == 3);
  // What an earlier run did write (its manifest records it) still goes.
  REQUIRE(small_run(dir, "").status == 0);
  const Result again = small_run(dir, "--no-png");
  CHECK(again.status == 0);
  CHECK(contains(again.err, "warning: removed " + dir.path + "/final_state.png: an earlier run's output"));
  CHECK(kind_of(dir.file("final_state.png")) == "missing");
}

TEST_CASE("user files: an earlier run's output the user changed since is left in place") {
  TempDir dir;
  REQUIRE(small_run(dir, "").status == 0);
  // The user draws on the picture (same size, other bytes): no longer what the run wrote.
  std::string png = slurp(dir.file("final_state.png"));
  png[png.size() / 2] ^= 0x55;
  dir.write("final_state.png", png);
  const Result r = small_run(dir, "--no-png");
  CHECK(r.status == 0);
  CHECK(r.err == "warning: " + dir.file("final_state.png") +
                     ": left in place: this run does not write it, and it changed since an earlier run wrote it\n");
  CHECK(slurp(dir.file("final_state.png")) == png);
}

TEST_CASE("user files: an input named as an earlier run's output is never removed") {
  TempDir dir;
  // The run's own picture (recorded in the folder's manifest), then the next
  // problem's mask under the same name, in the same folder.
  const std::string flow = "[flow]\nsteps = 2\nviscosity = 0.1\nbody_force = [1e-5, 0.0]\n";
  const std::string first = dir.write("a.toml", "[grid]\nnx = 60\nny = 50\n" + flow);
  REQUIRE(run_shell(q(kExe) + " " + q(first) + " -q -b reference -o " + q(dir.path)).status == 0);
  const std::string mask = slurp(dir.file("final_state.png"));
  REQUIRE(mask.size() > 24);
  // The picture's size (its IHDR) is the next grid's: one pixel a cell.
  const auto be32 = [&](std::size_t at) {
    return (static_cast<unsigned char>(mask[at]) << 24) | (static_cast<unsigned char>(mask[at + 1]) << 16) |
           (static_cast<unsigned char>(mask[at + 2]) << 8) | static_cast<unsigned char>(mask[at + 3]);
  };
  const std::string second = dir.write("p.toml", "[grid]\nnx = " + std::to_string(be32(16)) + "\nny = " +
                                                     std::to_string(be32(20)) + "\n" + flow +
                                                     "[[obstacle]]\nmask = \"final_state.png\"\n");
  const Result r = run_shell(q(kExe) + " " + q(second) + " -q -b reference --no-png -o " + q(dir.path));
  CHECK(r.status == 0);
  CHECK(slurp(dir.file("final_state.png")) == mask);
  CHECK(r.err == "warning: " + dir.file("final_state.png") + ": left in place: it is an input of this run\n");
}

TEST_CASE("user files: a manifest that is not ours is neither read nor replaced") {
  TempDir dir;
  dir.write(".d2q9-outputs.json", "my notes");
  const Result r = small_run(dir, "--no-png");
  CHECK(r.status == 0);
  CHECK(slurp(dir.file(".d2q9-outputs.json")) == "my notes");
  CHECK(contains(r.err, dir.file(".d2q9-outputs.json") + ": not this program's record of its outputs"));
}

TEST_CASE("user files: a fresh checkpointing run never overwrites another run's checkpoint.d2q9") {
  TempDir dir;
  // Whatever is there (another run's progress): a fresh run must not replace it, nor delete it at its end.
  const std::string kept = dir.write(d2q9::kCheckpointFile, "D2Q9CKPT another run's progress");
  Result r = small_run(dir, "--no-png --checkpoint-every 10");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + kept + ": holds the checkpoint of another run, which this run would overwrite; continue "
                     "that run with --restart " + kept + ", or pass --overwrite-checkpoint to start afresh and lose it\n");
  CHECK(slurp(kept) == "D2Q9CKPT another run's progress");
  CHECK(dir.listing() == "checkpoint.d2q9\nin.params\nobs.dat\n");
  // A file that is no checkpoint at all is not called one.
  dir.write(d2q9::kCheckpointFile, "my notes");
  r = small_run(dir, "--no-png --checkpoint-every 10");
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + kept + ": is not a checkpoint, and this run's checkpoint would replace it; choose another "
                     "path, or pass --overwrite-checkpoint to replace it\n");
  CHECK(slurp(kept) == "my notes");
  // Asked for, it is replaced (and, the run finished, removed).
  r = small_run(dir, "--no-png --checkpoint-every 10 --overwrite-checkpoint");
  CHECK(r.status == 0);
  CHECK(kind_of(kept) == "missing");
  // A run that writes no checkpoint leaves one alone.
  dir.write(d2q9::kCheckpointFile, "another run's progress");
  CHECK(small_run(dir, "--no-png").status == 0);
  CHECK(slurp(kept) == "another run's progress");
}

TEST_CASE("user files: a checkpoint.d2q9 that is a directory is refused before any step, even with --overwrite-checkpoint") {
  TempDir dir;
  REQUIRE(::mkdir(dir.file(d2q9::kCheckpointFile).c_str(), 0755) == 0);
  for (const std::string extra : {"", " --overwrite-checkpoint"}) {
    CAPTURE(extra);
    const Result r = small_run(dir, "--no-png --checkpoint-every 10" + extra);
    CHECK(r.status == 1);
    CHECK(r.err == "error: " + dir.file(d2q9::kCheckpointFile) + ": is a directory, not a checkpoint file\n");
    CHECK(dir.listing() == "checkpoint.d2q9\nin.params\nobs.dat\n");
  }
}

TEST_CASE("user files: a run restarted from one checkpoint never overwrites another run's checkpoint in its output folder") {
  TempDir a, b;
  const std::string pf = a.write("in.params", kParams), of = a.write("obs.dat", kObstacles);
  {
    // Run A's checkpoint at step 10, written through the library.
    d2q9::SimulationOptions options;
    options.backend = d2q9::Backend::Reference;
    d2q9::Simulation sim(d2q9::load_problem(pf, of), options);
    sim.step(10);
    sim.save_checkpoint(a.file("a.d2q9"));
  }
  const std::string others = b.write(d2q9::kCheckpointFile, "D2Q9CKPT run B's progress");
  // A continued into B's folder, checkpointing there: B's checkpoint is not A's to replace.
  const Result r = run_shell(q(kExe) + " " + q(pf) + " " + q(of) + " --restart " + q(a.file("a.d2q9")) + " -o " +
                             q(b.path) + " --checkpoint-every 5 -q --no-png -b reference");
  CHECK(r.status == 1);
  CHECK(contains(r.err, others + ": holds the checkpoint of another run"));
  CHECK(slurp(others) == "D2Q9CKPT run B's progress");
  CHECK(b.listing() == "checkpoint.d2q9\n");
}

TEST_CASE("user files: --restart with a FIFO is refused without opening it") {
  TempDir dir;
  REQUIRE(::mkfifo(dir.file("f.ckpt").c_str(), 0644) == 0);
  // Opening a FIFO for reading waits for a writer: a hang is status 124 from timeout.
  const Result r = run_shell("timeout 60 " + q(kExe) + " --restart " + q(dir.file("f.ckpt")));
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + dir.file("f.ckpt") + ": checkpoint is not a regular file\n");
}

TEST_CASE("user files: values float cannot hold are refused before any kernel is built, naming the key and range") {
  const std::string head = "[grid]\nnx = 12\nny = 10\n[flow]\nsteps = 10\n";
  const struct {
    std::string flow, edges, expected;
  } cases[] = {
      {"viscosity = 0.1\n", "left = { inlet_velocity = [0.01, 0.0] }\nright = { outlet_density = 1e39 }\n",
       "outlet_density 1e+39 is too large for precision float (at most 3.40282e+38); use precision double"},
      {"viscosity = 0.1\nbody_force = [1e39, 0.0]\n", "",
       "body_force[0] 1e+39 is too large for precision float (at most 3.40282e+38); use precision double"},
      {"viscosity = 0.1\n", "left = { inlet_velocity = [0.01, 0.0] }\nright = { outlet_density = 1e-300 }\n",
       "outlet_density 1e-300 is too small for precision float (float holds nonzero magnitudes from 1.17549e-38 "
       "to 3.40282e+38; it would be 0 or lose its precision); use precision double"},
      {"viscosity = 1e300\n", "",
       "omega 3.33333e-301 is too small for precision float (float holds nonzero magnitudes from 1.17549e-38 to "
       "3.40282e+38; it would be 0 or lose its precision): a viscosity this large leaves no collision; use "
       "precision double"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    const std::string p =
        dir.write("p.toml", head + c.flow + (c.edges.empty() ? "" : "[edges]\n" + c.edges));
    CAPTURE(c.flow + c.edges);
    // An empty kernels folder: a run that got as far as building a kernel would fail differently.
    REQUIRE(::mkdir(dir.file("no-kernels").c_str(), 0755) == 0);
    const Result r = run_shell(q(kExe) + " " + q(p) + " -q -o " + q(dir.path) + " --kernels-dir " +
                               q(dir.file("no-kernels")));
    CHECK(r.status == 1);
    CHECK(r.err == "error: " + p + ": " + c.expected + "\n");
    CHECK(dir.listing() == "no-kernels\np.toml\n");
  }
}

TEST_SUITE_END();
