// The program as users' scripts meet it: killed and restarted, interrupted,
// given broken or foreign checkpoints, unstable flows, oversized problems.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "io/checkpoint.hpp"
#include "helpers.hpp"
#include "problem/limits.hpp"
#include "reference/reference_solver.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L cli
TEST_SUITE_BEGIN("cli");

extern char** environ;

using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

struct Result {
  int status;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

// The program, started with `args`, stdout and stderr into files in `io`.
class Child {
 public:
  // In `cwd` when given.
  Child(const std::vector<std::string>& args, const TempDir& io, const std::string& cwd = "") : io_(io) {
    std::vector<std::string> all{D2Q9_EXE};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, io.file("out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, io.file("err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    REQUIRE(rc == 0);
  }
  bool running() {
    if (done_) return false;
    int raw = 0;
    if (::waitpid(pid_, &raw, WNOHANG) == pid_) finish(raw);
    return !done_;
  }
  void signal(int sig) { ::kill(pid_, sig); }
  Result wait() {
    if (!done_) {
      int raw = 0;
      ::waitpid(pid_, &raw, 0);
      finish(raw);
    }
    return {status_, slurp(io_.file("out")), slurp(io_.file("err"))};
  }

 private:
  void finish(int raw) {
    done_ = true;
    status_ = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  }
  const TempDir& io_;
  pid_t pid_ = -1;
  bool done_ = false;
  int status_ = -1;
};

// Runs to the end; a run still going after `limit_s` is killed and fails the test (a hang).
Result run_program(const std::vector<std::string>& args, double limit_s = 120, const std::string& cwd = "") {
  TempDir io;
  Child child(args, io, cwd);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(limit_s);
  while (child.running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (child.running()) {
    child.signal(SIGKILL);
    FAIL_CHECK("still running after " << limit_s << " s: killed");
  }
  return child.wait();
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

// Waits (up to a minute) until `path` exists or the child ends; true if it exists.
bool wait_for_file(Child& child, const std::string& path) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline) {
    if (exists(path)) return true;
    if (!child.running()) return exists(path);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

using d2q9::test::count_lines;

// A run of a few seconds on PoCL, with enough flow that rounding matters.
const std::string kLongParams = "64\n64\n10000\n10\n0.1\n0.005\n1.85\n";
const std::string kObstacles = "0 0 1\n10 10 1\n20 5 1\n63 63 1\n";

}  // namespace

TEST_CASE("restart: a run killed with SIGKILL and restarted gives byte-identical outputs") {
  TempDir in;
  const auto pf = in.write("in.params", kLongParams);
  const auto of = in.write("obs.dat", kObstacles);
  TempDir whole, killed;

  REQUIRE(run_program({pf, of, "-o", whole.path, "-q"}).status == 0);

  const std::string checkpoint = killed.file(d2q9::kCheckpointFile);
  {
    TempDir io;
    Child child({pf, of, "-o", killed.path, "-q", "--checkpoint-every", "100"}, io);
    REQUIRE(wait_for_file(child, checkpoint));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // somewhere inside the next segments
    child.signal(SIGKILL);
    const Result r = child.wait();
    REQUIRE_MESSAGE(r.status == 128 + SIGKILL, "the run ended before it could be killed: make kLongParams longer");
  }
  // The last good checkpoint, intact, and nothing else but, when the kill
  // fell between naming a new checkpoint and renaming it into place, that
  // complete temporary file (the next run removes it).
  std::string listing = killed.listing();
  const std::string leftover = std::string(d2q9::kCheckpointFile) + ".tmp.";
  if (const auto at = listing.find(leftover); at != std::string::npos) listing.erase(at, listing.find('\n', at) + 1 - at);
  CHECK(listing == std::string(d2q9::kCheckpointFile) + "\n");
  const d2q9::Checkpoint c = d2q9::read_checkpoint(checkpoint);
  CHECK(c.step() % 100 == 0);
  CHECK(c.step() > 0);
  CHECK(c.step() < 10000);
  MESSAGE("killed after the checkpoint at step " << c.step());

  // The checkpoint copied into a shared folder, where a job script then
  // starts a fresh run: refused, the progress kept (issue 43).
  TempDir shared;
  const std::string copy = shared.file(d2q9::kCheckpointFile);
  REQUIRE(d2q9::test::run_shell("cp '" + checkpoint + "' '" + copy + "'").status == 0);
  const Result fresh = run_program({pf, of, "-o", shared.path, "-q", "--checkpoint-every", "100"});
  CHECK(fresh.status == 1);
  CHECK(fresh.err.find("holds the checkpoint of another run") != std::string::npos);
  CHECK(slurp(copy) == slurp(checkpoint));

  const Result r = run_program({pf, of, "-o", killed.path, "-q", "--checkpoint-every", "3000", "--restart", checkpoint,
                                "--summary-json", killed.file("summary.json")});
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  // The launch the checkpoint recorded is not one the user gave.
  const std::string summary = slurp(killed.file("summary.json"));
  CHECK(summary.find("as given") == std::string::npos);
  CHECK(summary.find("from the checkpoint") != std::string::npos);
  REQUIRE(::unlink(killed.file("summary.json").c_str()) == 0);
  CHECK(killed.listing() == "av_vels.dat\nfinal_state.dat\nfinal_state.png\n");  // the finished run's checkpoint is removed
  for (const char* name : {"av_vels.dat", "final_state.dat"}) {
    CAPTURE(name);
    const std::string expected = slurp(whole.file(name));
    CHECK(expected.size() > 100000);
    CHECK(slurp(killed.file(name)) == expected);
  }
}

TEST_CASE("restart: --restart alone continues where the run was, writing and checkpointing as it did") {
  TempDir in;
  const auto pf = in.write("in.params", kLongParams);
  const auto of = in.write("obs.dat", kObstacles);
  TempDir whole, killed, elsewhere;
  const std::vector<std::string> options = {"-q", "--precision", "double", "--png", "speed.png", "-l", "16x2"};
  std::vector<std::string> args = {pf, of, "-o", whole.path};
  args.insert(args.end(), options.begin(), options.end());
  REQUIRE(run_program(args).status == 0);

  // Started with relative paths; interrupted twice, each time continued with
  // --restart and nothing else, from another directory.
  const std::string checkpoint = killed.file(d2q9::kCheckpointFile);
  const std::string killed_from_in = "../" + killed.path.substr(killed.path.rfind('/') + 1);
  REQUIRE(in.path.substr(0, in.path.rfind('/')) == killed.path.substr(0, killed.path.rfind('/')));
  args = {"in.params", "obs.dat", "--checkpoint-every", "250", "-o", killed_from_in};
  args.insert(args.end(), options.begin(), options.end());
  std::vector<int> interrupted_at;
  for (int attempt = 0; attempt < 2; ++attempt) {
    TempDir io;
    Child child(attempt == 0 ? args : std::vector<std::string>{"--restart", checkpoint}, io,
                attempt == 0 ? in.path : elsewhere.path);
    // This attempt's first checkpoint: its step loop is running.
    REQUIRE(wait_for_file(child, checkpoint));
    while (attempt > 0 && child.running() && d2q9::read_checkpoint(checkpoint).step() <= interrupted_at[0])
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    child.signal(SIGTERM);
    const Result r = child.wait();
    REQUIRE_MESSAGE(r.status == 128 + SIGTERM, "the run ended before the signal: make kLongParams longer");
    CHECK(count_lines(r.err) == 1);
    interrupted_at.push_back(d2q9::read_checkpoint(checkpoint).step());
  }
  // The resumed run checkpointed too: the second interruption saved a later step.
  CHECK(interrupted_at[1] > interrupted_at[0]);
  CHECK(killed.listing() == std::string(d2q9::kCheckpointFile) + "\n");

  const Result r = run_program({"--restart", checkpoint}, 120, elsewhere.path);
  REQUIRE(r.status == 0);
  CHECK(r.err == "");
  CHECK(elsewhere.listing() == "");
  CHECK(killed.listing() == "av_vels.dat\nfinal_state.dat\nspeed.png\n");  // finished: checkpoint removed
  for (const char* name : {"av_vels.dat", "final_state.dat", "speed.png"}) {
    CAPTURE(name);
    CHECK(slurp(killed.file(name)) == slurp(whole.file(name)));
  }
}

TEST_CASE("restart: options given with --restart override the recorded ones, and changed inputs are still refused") {
  TempDir in, out, moved;
  const std::string params = "12\n10\n400\n10\n0.1\n0.02\n1.7\n";
  const auto pf = in.write("in.params", params);
  const auto of = in.write("obs.dat", "0 0 1\n5 5 1\n");
  const std::string checkpoint = out.file(d2q9::kCheckpointFile);
  {
    TempDir io;
    Child child({pf, of, "-o", out.path, "-q", "--checkpoint-every", "1", "-b", "reference", "--field", "vorticity"}, io);
    REQUIRE(wait_for_file(child, checkpoint));
    child.signal(SIGKILL);
    child.wait();
  }
  const d2q9::Checkpoint c = d2q9::read_checkpoint(checkpoint);
  CHECK(c.run.param_file == pf);
  CHECK(c.run.obstacle_file == of);
  CHECK(c.run.param_hash == d2q9::file_hash(pf));
  CHECK(c.run.obstacle_hash == d2q9::file_hash(of));

  // Another output directory and no picture, given now, win over the record
  // (and the recorded --field, which means nothing without a picture).
  Result r = run_program({"--restart", checkpoint, "-o", moved.path, "--no-png"});
  REQUIRE(r.status == 0);
  CHECK(moved.listing() == "av_vels.dat\nfinal_state.dat\n");
  CHECK(r.out.find("Device:\t\t\t\tserial CPU reference") != std::string::npos);  // -b recorded; -q given before, not recorded

  // An edit that keeps the problem is a warning; one that changes it is refused.
  in.write("in.params", "12\n10\n400\n10\n0.1\n0.02\n1.70\n");
  r = run_program({"--restart", checkpoint, "-o", moved.path, "-q"});
  CHECK(r.status == 0);
  CHECK(r.err == "warning: " + pf + ": changed since the checkpoint was written, but describes the same problem\n");
  in.write("in.params", "12\n10\n400\n10\n0.1\n0.02\n1.6\n");
  r = run_program({"--restart", checkpoint, "-o", moved.path, "-q"});
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + checkpoint + ": checkpoint does not match the inputs: it was written for omega = 1.7, but " +
                     pf + " gives 1.6\n");
  ::unlink(pf.c_str());
  r = run_program({"--restart", checkpoint, "-q"});
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err.rfind("error: " + pf + ": cannot open file", 0) == 0);
}

TEST_CASE("restart: SIGTERM and SIGINT write a checkpoint, say where, and exit non-zero") {
  TempDir in;
  const auto pf = in.write("in.params", kLongParams);
  const auto of = in.write("obs.dat", kObstacles);
  TempDir whole;
  REQUIRE(run_program({pf, of, "-o", whole.path, "-q", "--precision", "double"}).status == 0);

  for (int sig : {SIGTERM, SIGINT}) {
    CAPTURE(sig);
    TempDir out;
    const std::string checkpoint = out.file(d2q9::kCheckpointFile);
    TempDir io;
    Child child({pf, of, "-o", out.path, "-q", "--precision", "double", "--checkpoint-every", "500"}, io);
    REQUIRE(wait_for_file(child, checkpoint));  // the step loop is running
    child.signal(sig);
    const Result r = child.wait();
    REQUIRE_MESSAGE(r.status == 128 + sig, "the run ended before the signal: make kLongParams longer");
    CHECK(r.out == "");
    CHECK(count_lines(r.err) == 1);
    CHECK(r.err.rfind(std::string("error: interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + " after ", 0) == 0);
    CHECK(r.err.find("; checkpoint written to " + checkpoint + "; continue with --restart " + checkpoint + "\n") !=
          std::string::npos);
    CHECK(out.listing() == std::string(d2q9::kCheckpointFile) + "\n");
    const int step = d2q9::read_checkpoint(checkpoint).step();
    CHECK(r.err.find("after " + std::to_string(step) + " of 10000 steps") != std::string::npos);

    const Result again = run_program({pf, of, "-o", out.path, "-q", "--precision", "double", "--restart", checkpoint});
    REQUIRE(again.status == 0);
    CHECK(slurp(out.file("av_vels.dat")) == slurp(whole.file("av_vels.dat")));
    CHECK(slurp(out.file("final_state.dat")) == slurp(whole.file("final_state.dat")));
  }
}

TEST_CASE("restart: broken and foreign checkpoints are refused, with no output") {
  TempDir in;
  const std::string params = "12\n10\n40\n10\n0.1\n0.02\n1.7\n";
  const auto pf = in.write("in.params", params);
  const auto of = in.write("obs.dat", "0 0 1\n5 5 1\n");
  // A genuine checkpoint of this problem after 17 steps, as the reference computes them.
  TempDir made;
  const std::string good = made.file("good.d2q9");
  {
    d2q9::Checkpoint c;
    c.params = d2q9::parse_params(params, "in.params");
    const d2q9::ObstacleMask m = d2q9::parse_obstacles("0 0 1\n5 5 1\n", "obs.dat", c.params);
    c.mask_hash = d2q9::obstacle_mask_hash(m);
    d2q9::ReferenceSolver<float> s(c.params, m);
    s.run(17, c.av_vels);
    c.f = s.distributions();
    d2q9::write_checkpoint(good, c);
  }
  const std::string bytes = slurp(good);
  const auto truncated = in.write("truncated.d2q9", bytes.substr(0, bytes.size() / 2));
  std::string damaged_bytes = bytes;
  damaged_bytes[bytes.size() / 2] ^= 0x40;
  const auto damaged = in.write("damaged.d2q9", damaged_bytes);
  const auto text = in.write("text.d2q9", params);
  const auto other_params = in.write("other.params", "12\n10\n40\n10\n0.1\n0.02\n1.75\n");
  const auto other_obstacles = in.write("other.dat", "0 0 1\n5 6 1\n");

  struct Case {
    std::vector<std::string> args;
    std::string error;
  };
  const Case cases[] = {
      {{pf, of, "--restart", truncated}, "error: " + truncated + ": truncated or corrupt checkpoint: "},
      {{pf, of, "--restart", damaged}, "error: " + damaged + ": corrupt checkpoint: checksum mismatch"},
      {{pf, of, "--restart", text}, "error: " + text + ": not a d2q9-bgk checkpoint"},
      {{pf, of, "--restart", in.file("none")}, "error: " + in.file("none") + ": cannot open checkpoint"},
      {{other_params, of, "--restart", good},
       "error: " + good + ": checkpoint does not match the inputs: it was written for omega = 1.7, but " + other_params +
           " gives 1.75"},
      {{pf, other_obstacles, "--restart", good},
       "error: " + good + ": checkpoint does not match the inputs: it was written for different obstacles than " +
           other_obstacles},
      {{pf, of, "--restart", good, "--precision", "double"},
       "error: " + good + ": checkpoint does not match the inputs: it holds a float run, but this run is --precision double"},
      {{pf, of, "--restart", good, "--backend", "reference", "--precision", "double"},
       "error: " + good + ": checkpoint does not match the inputs: it holds a float run"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.error);
    TempDir out;
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"-o", out.path, "--checkpoint-every", "5"});
    const Result r = run_program(args);
    CHECK(r.status == 1);
    CHECK(r.out == "");
    CHECK(r.err.rfind(c.error, 0) == 0);
    CHECK(count_lines(r.err) == 1);
    CHECK(out.listing() == "");
  }

  // The genuine one continues exactly as a plain run.
  TempDir plain, resumed;
  REQUIRE(run_program({pf, of, "-o", plain.path, "-q", "-b", "reference"}).status == 0);
  const Result r = run_program({pf, of, "-o", resumed.path, "-q", "-b", "reference", "--restart", good});
  REQUIRE(r.status == 0);
  CHECK(slurp(resumed.file("av_vels.dat")) == slurp(plain.file("av_vels.dat")));
  CHECK(slurp(resumed.file("final_state.dat")) == slurp(plain.file("final_state.dat")));
}

TEST_CASE("instability: an unstable flow ends with the step, and no output") {
  TempDir in;
  const auto pf = in.write("unstable.params", "12\n10\n100000\n10\n0.1\n0.2\n1.99\n");
  const auto of = in.write("obs.dat", "0 0 1\n5 5 1\n");
  for (const char* backend : {"opencl", "reference"}) {
    for (const char* checkpointing : {"0", "1000"}) {
      CAPTURE(backend);
      CAPTURE(checkpointing);
      TempDir out;
      std::vector<std::string> args{pf, of, "-o", out.path, "-b", backend};
      if (std::string(checkpointing) != "0") args.insert(args.end(), {"--checkpoint-every", checkpointing});
      const Result r = run_program(args);
      CHECK(r.status == 1);
      CHECK(r.out == "");
      CHECK(r.err.rfind("error: flow became unstable at step ", 0) == 0);
      CHECK(r.err.find("(average velocity ") != std::string::npos);  // not finite, or past the speed of sound
      CHECK(count_lines(r.err) == 1);
      const int step = std::atoi(r.err.c_str() + std::strlen("error: flow became unstable at step "));
      CHECK(step > 10);
      CHECK(step < 1000);
      CHECK(out.listing() == "");
    }
  }
}

TEST_CASE("limits: a problem larger than host memory is refused up front with both sizes") {
  TempDir in;
  const auto pf = in.write("big.params", "40000\n40000\n10\n10\n0.1\n0.005\n1.85\n");
  const auto of = in.write("obs.dat", "0 0 1\n");
  const d2q9::Params p = d2q9::parse_params(slurp(pf), pf);
  const auto needed = d2q9::host_bytes_needed(p, true, d2q9::Precision::Float, false);
  if (needed <= d2q9::host_memory_bytes()) {
    MESSAGE("host-memory case not run: this machine has " << (d2q9::host_memory_bytes() >> 30)
                                                           << " GiB, enough for a 40000x40000 reference run");
    return;
  }
  TempDir out;
  const auto tic = std::chrono::steady_clock::now();
  const Result r = run_program({pf, of, "-o", out.path, "-b", "reference"});
  CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count() < 5.0);  // nothing allocated
  CHECK(r.status == 1);
  CHECK(r.err == "error: grid 40000x40000 needs " + std::to_string(needed >> 20) + " MiB of host memory (with 10 steps) but this machine has " +
                     std::to_string(d2q9::host_memory_bytes() >> 20) + " MiB: out of memory\n");
  CHECK(out.listing() == "");
}

TEST_CASE("cli: checkpoint options and the fuzzers' findings give one-line usage errors") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"a", "b", "--checkpoint-every", "0"}, {"a", "b", "--checkpoint-every", "-5"},
        {"a", "b", "--checkpoint-every", "ten"}, {"a", "b", "--restart"},
        // tests/fuzz/cli/finding-newline-in-unknown-option: boost echoed the option, newlines and all
        {"-\n\n\n\n-%"}, {"a", "b", "--backend", "x\ny"},
        // tests/fuzz/cli/finding-placeholder-in-option-hangs: boost looped for ever filling in its message
        {"a", "b", "--x%canonical_option%"}, {"-%original_token%"}, {"a", "b", "--backend=%value%"}}) {
    CAPTURE(args.back());
    const Result r = run_program(args, 20);
    CHECK(r.status == 2);
    CHECK(r.err.rfind("error: ", 0) == 0);
    CHECK(count_lines(r.err) == 1);
  }
  CHECK(run_program({"a", "b", "--x%canonical_option%"}, 20).err ==
        "error: unrecognised option '--x%canonical_option%' (see --help)\n");
  const Result r = run_program({"--help"});
  CHECK(r.out.find("--checkpoint-every") != std::string::npos);
  CHECK(r.out.find("--restart") != std::string::npos);
}

TEST_CASE("restart: a second checkpointing run in the same output directory is refused, not mixed in") {
  TempDir in, out;
  const auto pf = in.write("in.params", "12\n10\n40\n10\n0.1\n0.02\n1.7\n");
  const auto of = in.write("obs.dat", "0 0 1\n");
  // What a first run holds while it checkpoints into `out`.
  const int fd = ::open(out.path.c_str(), O_RDONLY | O_DIRECTORY);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
  const Result r = run_program({pf, of, "-o", out.path, "-q", "--checkpoint-every", "10"});
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + out.path + ": another run is checkpointing into this output directory; give this one its own -o\n");
  CHECK(out.listing() == "");
  // Without checkpoints a run may still write there, and with the lock gone a checkpointing one too.
  CHECK(run_program({pf, of, "-o", out.path, "-q"}).status == 0);
  ::close(fd);
  CHECK(run_program({pf, of, "-o", out.path, "-q", "--checkpoint-every", "10"}).status == 0);
}

TEST_CASE("restart: SIGTERM while the final files are written leaves the previous outputs and no temporaries") {
  TempDir in, out;
  // A large grid and two steps: writing final_state.dat takes most of the run.
  const auto pf = in.write("big.params", "1024\n1024\n2\n10\n0.1\n0.005\n1.85\n");
  const auto of = in.write("obs.dat", "0 0 1\n");
  out.write("av_vels.dat", "old av_vels\n");
  out.write("final_state.dat", "old final state\n");
  TempDir io;
  Child child({pf, of, "-o", out.path, "-q"}, io);
  // The temporary files exist only while the final files are written.
  bool writing = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!writing && child.running() && std::chrono::steady_clock::now() < deadline) {
    writing = out.listing().find("final_state.dat.tmp.") != std::string::npos;
    if (!writing) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  REQUIRE_MESSAGE(writing, "never saw the final files being written");
  child.signal(SIGTERM);
  const Result r = child.wait();
  CHECK(r.status == 128 + SIGTERM);
  CHECK(r.err == "error: interrupted by SIGTERM while writing the outputs; the previous outputs in " + out.path +
                     " are unchanged\n");
  CHECK(out.listing() == "av_vels.dat\nfinal_state.dat\n");
  CHECK(slurp(out.file("av_vels.dat")) == "old av_vels\n");
  CHECK(slurp(out.file("final_state.dat")) == "old final state\n");
}

TEST_CASE("errors: control characters in paths and files are escaped, so every error is one line") {
  TempDir dir;
  const auto pf = dir.write("in.params", "12\n10\n40\n10\n0.1\n0.02\n1.7\n");
  const auto of = dir.write("obs.dat", "0 0 1\n");
  // A missing input, an output directory and a value, each with a newline, a tab or ESC.
  Result r = run_program({dir.file("no\nsuch.params"), of, "-o", dir.path});
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + dir.path + "/no\\nsuch.params: cannot open file (No such file or directory)\n");
  r = run_program({pf, of, "-o", dir.path + "/out\t\x1b[31m/run"});
  CHECK(r.status == 1);
  CHECK(r.err == "error: " + dir.path +
                     "/out\\t\\x1b[31m/run: cannot create output directory (its parent directory does not exist)\n");
  const auto bad = dir.write("bad.dat", "0 0 1\n1\x01 1 1\n");
  r = run_program({pf, bad, "-o", dir.path});
  CHECK(r.status == 1);
  CHECK(count_lines(r.err) == 1);
  CHECK(r.err == "error: " + bad + ":2: expected three integers 'x y 1', got '1\\x01 1 1'\n");
  CHECK(r.out == "");
}

TEST_SUITE_END();
