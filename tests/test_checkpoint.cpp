// Checkpoint files, the segmented run loop, instability detection and the
// host memory limit, driven through the library.
#include <doctest/doctest.h>
#include <xxhash.h>

#include <cstring>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <utility>

#include "io/checkpoint.hpp"
#include "backend_config.hpp"
#include "helpers.hpp"
#include "problem/limits.hpp"
#include "opencl/opencl_backend.hpp"
#include "reference/reference_solver.hpp"
#include "app/run_loop.hpp"
#include "sim/simulation_internal.hpp"
#include "problem/stability.hpp"
#include "problem/storage16.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L unit
TEST_SUITE_BEGIN("unit");

using namespace d2q9;
using d2q9::test::slurp;
using d2q9::test::TempDir;

namespace {

Checkpoint sample_checkpoint(Precision precision) {
  Checkpoint c;
  c.params = d2q9::test::make_params(6, 5, 40, 0.02);
  c.mask_hash = obstacle_mask_hash(d2q9::test::test_obstacles(c.params));
  c.precision = precision;
  ReferenceSolver<double> s(c.params, d2q9::test::test_obstacles(c.params));
  s.run(9, c.av_vels);
  c.f = s.distributions();
  // Values a float run really holds, so the round trip can be exact.
  if (precision == Precision::Float)
    for (double& v : c.f) v = static_cast<float>(v);
  return c;
}

// The message of the InputError that parsing `bytes` throws ("" if none).
std::string parse_error(const std::string& bytes) {
  try {
    parse_checkpoint(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), "ck");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}



// Omega near 2 with a strong push on a small grid: blows up within ~100 steps.
const Params kUnstable = d2q9::test::make_params(12, 10, 1000000, 0.2, 1.99);

// Sends itself `signal` during its first run() call, as if a user had.
class SignalledSolver final : public Solver {
 public:
  SignalledSolver(Solver& inner, int signal) : inner_(inner), signal_(signal) {}
  Backend backend() const override { return inner_.backend(); }
  std::string device_name() const override { return inner_.device_name(); }
  Precision precision() const override { return inner_.precision(); }
  void run(int steps, std::vector<double>& av_vels) override {
    inner_.run(steps, av_vels);
    if (signal_ != 0) std::raise(signal_);
    signal_ = 0;
  }
  std::vector<double> distributions() override { return inner_.distributions(); }
  void load_distributions(const std::vector<double>& f) override { inner_.load_distributions(f); }

 private:
  Solver& inner_;
  int signal_;
};

}  // namespace

TEST_CASE("checkpoint: written and read back exactly, in both precisions") {
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    TempDir dir;
    const Checkpoint c = sample_checkpoint(precision);
    write_checkpoint(dir.file(kCheckpointFile), c);
    CHECK(dir.listing() == std::string(kCheckpointFile) + "\n");  // no temporary file left beside it
    const std::size_t real = precision == Precision::Float ? 4 : 8;
    CHECK(slurp(dir.file(kCheckpointFile)).size() == 72 + 4 + 9 * 8 + 4 + 9 * 30 * real + 8);  // no run record, no series
    const Checkpoint r = read_checkpoint(dir.file(kCheckpointFile));
    CHECK(r.params.nx == 6);
    CHECK(r.params.ny == 5);
    CHECK(r.params.max_iters == 40);
    CHECK(r.params.omega == c.params.omega);
    CHECK(r.params.accel == c.params.accel);
    CHECK(r.mask_hash == c.mask_hash);
    CHECK(r.precision == precision);
    CHECK(r.step() == 9);
    CHECK(r.av_vels == c.av_vels);
    CHECK(r.f == c.f);
  }
}

TEST_CASE("checkpoint: a lattice with heat (14 values per cell) is version 4 and round-trips while 9 stay version 3") {
  auto resum = [](std::string& bytes) {
    const std::uint64_t checksum = XXH3_64bits(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &checksum, 8);
  };
  auto u32_at = [](const std::string& bytes, std::size_t at) {
    std::uint32_t v;
    std::memcpy(&v, bytes.data() + at, 4);
    return v;
  };
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    TempDir dir;
    const Checkpoint flow = sample_checkpoint(precision);
    write_checkpoint(dir.file("flow"), flow);
    const std::string flow_bytes = slurp(dir.file("flow"));
    CHECK(u32_at(flow_bytes, 8) == 3);  // as before version 4: older programs read it
    Checkpoint c = flow;
    c.params.extensions.heat = true;
    // Planes 9-13, a value unique to each, exact in float.
    for (std::size_t i = 0; i < 5 * c.params.cells(); ++i) c.f.push_back(static_cast<float>(0.5 + i / 64.0));
    REQUIRE(c.planes() == 14);
    write_checkpoint(dir.file("ck"), c);
    const std::string bytes = slurp(dir.file("ck"));
    const std::size_t real = precision == Precision::Float ? 4 : 8;
    CHECK(bytes.size() == 72 + 4 + 4 + 9 * 8 + 4 + 14 * 30 * real + 8);  // the planes' count; no record, no series
    CHECK(u32_at(bytes, 8) == 4);
    CHECK(u32_at(bytes, 16) == 14);  // after the value format
    CHECK(bytes.substr(20, 56) == flow_bytes.substr(16, 56));  // the grid, values, mask and steps as version 3's
    const Checkpoint r = read_checkpoint(dir.file("ck"));
    CHECK(r.planes() == 14);
    CHECK(r.f == c.f);
    CHECK(r.av_vels == c.av_vels);
    CHECK(r.precision == precision);
    CHECK(read_checkpoint(dir.file("flow")).planes() == 9);

    // A problem's own checkpoint is one of its lattice: a heat problem's is not the flow's, nor the other way.
    const ObstacleMask mask = d2q9::test::test_obstacles(c.params);
    CHECK(holds_checkpoint_of(dir.file("ck"), c.params, mask, precision));
    CHECK(!holds_checkpoint_of(dir.file("ck"), flow.params, mask, precision));
    CHECK(holds_checkpoint_of(dir.file("flow"), flow.params, mask, precision));
    CHECK(!holds_checkpoint_of(dir.file("flow"), c.params, mask, precision));

    // A count of values per cell that is no lattice's, or not the file's size, is refused.
    std::string bad = bytes;
    const std::uint32_t thirteen = 13, nine = 9;
    std::memcpy(bad.data() + 16, &thirteen, 4);
    resum(bad);
    CHECK(parse_error(bad) ==
          "ck: corrupt checkpoint: 13 values per cell is neither 9 (the flow's) nor 14 (the flow's and the temperature's)");
    std::memcpy(bad.data() + 16, &nine, 4);
    resum(bad);
    CHECK(parse_error(bad).rfind("ck: truncated or corrupt checkpoint: " + std::to_string(bytes.size()) + " bytes", 0) == 0);
    // Every truncation and every damaged byte, as version 3's.
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      CAPTURE(n);
      CHECK(parse_error(bytes.substr(0, n)).rfind("ck: ", 0) == 0);
      std::string damaged = bytes;
      damaged[n] = static_cast<char>(damaged[n] ^ 0x10);
      CHECK(parse_error(damaged).rfind("ck: ", 0) == 0);
    }
  }
  // 16-bit codes of a temperature lattice come with T0 and the scale, after the planes' count, and round-trip.
  Checkpoint half = sample_checkpoint(Precision::Float);
  half.precision = Precision::Fp16s;
  half.params.extensions.heat = true;
  half.params.extensions.initial_temperature = 0.25;
  half.params.extensions.thermal_walls = {{}, {ThermalWall::Kind::Temperature, 1.25}};
  const Storage16 codes(Precision::Fp16s, half.params);
  half.f.resize(14 * half.params.cells());
  for (std::size_t i = 0; i < half.f.size(); ++i)  // values codes stand for, a code unique to each
    half.f[i] = codes.decode(static_cast<int>(i / half.params.cells()), static_cast<std::uint16_t>(0x3000 + 7 * i));
  TempDir dir;
  CHECK_THROWS_AS(write_checkpoint(dir.file("half"), half), std::invalid_argument);  // no codes given
  half.thermal_codes = thermal_codes(Precision::Fp16s, half.params);
  REQUIRE(half.thermal_codes);
  CHECK(half.thermal_codes->rest_temperature == 0.25);
  CHECK(half.thermal_codes->scale == 4096.0);  // 2^14 / 4: T reaches 1 past T0, |T| 1.25
  CHECK(dir.listing() == "");
  write_checkpoint(dir.file("half"), half);
  std::string bytes = slurp(dir.file("half"));
  CHECK(bytes.size() == 72 + 4 + 4 + 2 * 8 + 9 * 8 + 4 + 14 * 30 * 2 + 8);
  const Checkpoint r = read_checkpoint(dir.file("half"));
  CHECK(r.f == half.f);
  CHECK(r.thermal_codes == half.thermal_codes);
  const ObstacleMask mask = d2q9::test::test_obstacles(half.params);
  CHECK(holds_checkpoint_of(dir.file("half"), half.params, mask, Precision::Fp16s));
  check_checkpoint_matches(r, "ck", half.params, "in.toml", mask, "in.toml", Precision::Fp16s);
  // A problem whose temperatures code otherwise (a hotter wall) is refused: its codes would mean other values.
  Params hotter = half.params;
  hotter.extensions.thermal_walls[1].value = 9.0;
  CHECK(!holds_checkpoint_of(dir.file("half"), hotter, mask, Precision::Fp16s));
  CHECK_THROWS_WITH_AS(check_checkpoint_matches(r, "ck", hotter, "in.toml", mask, "in.toml", Precision::Fp16s),
                       "ck: checkpoint does not match the inputs: it codes the temperature from T0 = 0.25 times 4096, "
                       "but in.toml's temperatures give T0 = 0.25 times 512",
                       InputError);
  // A scale that is no power of two is a damaged file.
  const double three = 3.0;
  std::memcpy(bytes.data() + 28, &three, 8);
  resum(bytes);
  CHECK(parse_error(bytes) == "ck: corrupt checkpoint: the temperature's 16-bit codes (T0 0.25, scale 3) are no rest "
                              "temperature and power of two");
  // The flow's nine planes come without them.
  half.f.resize(9 * half.params.cells());
  CHECK_THROWS_AS(write_checkpoint(dir.file("flow"), half), std::invalid_argument);
}

TEST_CASE("checkpoint: a checkpoint without heat does not restart a problem with heat, nor the other way") {
  const Checkpoint flow = sample_checkpoint(Precision::Float);
  Checkpoint heat = flow;
  heat.f.resize(14 * heat.params.cells(), 0.1);
  const ObstacleMask mask = d2q9::test::test_obstacles(flow.params);
  Params with_heat = flow.params;
  with_heat.extensions.heat = true;
  auto error = [&](const Checkpoint& c, const Params& p) -> std::string {
    try {
      check_checkpoint_matches(c, "ck", p, "in.toml", mask, "in.toml", Precision::Float);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error(flow, flow.params) == "");
  CHECK(error(heat, with_heat) == "");
  CHECK(error(flow, with_heat) ==
        "ck: checkpoint does not match the inputs: it was written for a problem without [heat] (9 values per cell), "
        "but in.toml gives one with [heat] (14 values per cell)");
  CHECK(error(heat, flow.params) ==
        "ck: checkpoint does not match the inputs: it was written for a problem with [heat] (14 values per cell), "
        "but in.toml gives one without [heat] (9 values per cell)");
}

TEST_CASE("checkpoint: grids of many 65,536-value blocks round-trip every value") {
  // The writer copies in blocks: a real grid spans several, the last one partial.
  for (const auto& grid : {std::pair{128, 128}, std::pair{300, 257}}) {
    const int nx = grid.first, ny = grid.second;
    for (Precision precision : {Precision::Float, Precision::Double}) {
      CAPTURE(nx);
      CAPTURE(std::string(to_string(precision)));
      TempDir dir;
      Checkpoint c;
      c.params = d2q9::test::make_params(nx, ny, 10, 0.005);
      c.mask_hash = obstacle_mask_hash(d2q9::test::test_obstacles(c.params));
      c.precision = precision;
      c.av_vels = {0.25, 0.5};
      c.f.resize(9 * static_cast<std::size_t>(nx) * ny);
      REQUIRE(c.f.size() > 2 * (1 << 16));
      // A value unique to each index, exact in float: a block copied twice,
      // skipped or shifted changes some value.
      for (std::size_t i = 0; i < c.f.size(); ++i) c.f[i] = static_cast<float>(1.0 + static_cast<double>(i) / 4096.0);
      write_checkpoint(dir.file(kCheckpointFile), c);
      const Checkpoint r = read_checkpoint(dir.file(kCheckpointFile));
      REQUIRE(r.f.size() == c.f.size());
      CHECK(r.f == c.f);
      CHECK(r.av_vels == c.av_vels);
    }
  }
}

TEST_CASE("checkpoint: every truncation and every damaged byte is refused") {
  TempDir dir;
  write_checkpoint(dir.file("ck"), sample_checkpoint(Precision::Float));
  const std::string good = slurp(dir.file("ck"));
  REQUIRE(parse_error(good) == "");
  for (std::size_t n = 0; n < good.size(); ++n) {
    CAPTURE(n);
    const std::string msg = parse_error(good.substr(0, n));
    CHECK(msg.rfind("ck: ", 0) == 0);
  }
  CHECK(parse_error(good.substr(0, 100)).find("truncated or corrupt checkpoint: 100 bytes, but a 6x5 grid after 9 steps needs 1240") !=
        std::string::npos);
  CHECK(parse_error(good + "x").find("truncated or corrupt checkpoint") != std::string::npos);
  for (std::size_t i = 0; i < good.size(); ++i) {
    CAPTURE(i);
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    CHECK(parse_error(bad).rfind("ck: ", 0) == 0);
  }
  std::string flipped = good;
  flipped[500] ^= 1;  // inside the distributions
  CHECK(parse_error(flipped) ==
        "ck: corrupt checkpoint: checksum mismatch (the file was damaged or changed after it was written)");
  CHECK(parse_error("12\n10\n40\n") == "ck: not a d2q9-bgk checkpoint (no D2Q9CKPT header)");
  std::string future = good;
  future[8] = 5;
  CHECK(parse_error(future) == "ck: checkpoint format version 5 is not supported (this program reads 4)");
}

TEST_CASE("checkpoint: the run record round-trips, and version 1 files (no record) are still read") {
  TempDir dir;
  Checkpoint c = sample_checkpoint(Precision::Float);
  c.run.param_file = "/in/p.params";
  c.run.obstacle_file = "/in/o\"bs\n.dat";  // JSON text: quotes and newlines are escaped
  c.run.param_hash = 0xfedcba9876543210ULL;
  c.run.obstacle_hash = 1;
  c.run.options = {{"output-dir", "/out"}, {"no-png", ""}, {"local-size", "8x2"}};
  write_checkpoint(dir.file("ck"), c);
  const Checkpoint r = read_checkpoint(dir.file("ck"));
  CHECK(r.run.param_file == c.run.param_file);
  CHECK(r.run.obstacle_file == c.run.obstacle_file);
  CHECK(r.run.param_hash == c.run.param_hash);
  CHECK(r.run.obstacle_hash == c.run.obstacle_hash);
  CHECK(r.run.options == c.run.options);
  CHECK(r.f == c.f);

  // Version 2: the same bytes without the series' count (none here, no
  // record), and their checksum; version 1 has no record length either.
  write_checkpoint(dir.file("v3"), sample_checkpoint(Precision::Float));
  auto resum = [](std::string& bytes) {
    const std::uint64_t checksum = XXH3_64bits(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &checksum, 8);
  };
  std::string v2 = slurp(dir.file("v3"));
  v2[8] = 2;
  v2.erase(72 + 4 + 9 * 8, 4);
  resum(v2);
  REQUIRE(parse_error(v2) == "");
  CHECK(parse_checkpoint(reinterpret_cast<const unsigned char*>(v2.data()), v2.size(), "ck").f ==
        sample_checkpoint(Precision::Float).f);
  std::string v1 = v2;
  v1[8] = 1;
  v1.erase(72, 4);
  resum(v1);
  REQUIRE(parse_error(v1) == "");
  const Checkpoint old = parse_checkpoint(reinterpret_cast<const unsigned char*>(v1.data()), v1.size(), "ck");
  CHECK(old.run.empty());
  CHECK(old.f == sample_checkpoint(Precision::Float).f);
  CHECK(old.av_vels == sample_checkpoint(Precision::Float).av_vels);

  // A record length beyond the file is refused before anything is read.
  std::string forged = slurp(dir.file("v3"));
  const std::uint32_t huge = 1u << 30;
  std::memcpy(forged.data() + 72, &huge, 4);
  CHECK(parse_error(forged).find("ck: truncated or corrupt checkpoint: a run record of 1073741824 bytes") == 0);
}

TEST_CASE("checkpoint: the run's other series round-trip by name, and a count beyond the file is refused") {
  TempDir dir;
  Checkpoint c = sample_checkpoint(Precision::Float);
  c.series = {{"forces", {1.5, -2.25, 3e-300, 0.1}}, {"probe_steps", {}}, {"probe_values", {7.0}}};
  write_checkpoint(dir.file("ck"), c);
  const Checkpoint r = read_checkpoint(dir.file("ck"));
  CHECK(r.series == c.series);
  CHECK(r.f == c.f);
  CHECK(r.av_vels == c.av_vels);
  // The first series' value count, forged past the end of the file.
  std::string forged = slurp(dir.file("ck"));
  const std::size_t count_at = 72 + 4 + 9 * 8 + 4 + 4 + 6;
  const std::uint64_t huge = 1ULL << 60;
  std::memcpy(forged.data() + count_at, &huge, 8);
  CHECK(parse_error(forged) == "ck: truncated or corrupt checkpoint: its series run past the file");
}

TEST_CASE("checkpoint: files that cannot be read") {
  TempDir dir;
  CHECK_THROWS_WITH_AS(read_checkpoint(dir.file("none")), (dir.file("none") + ": cannot open checkpoint (No such file or directory)").c_str(),
                       InputError);
  CHECK_THROWS_WITH_AS(read_checkpoint(dir.path), (dir.path + ": checkpoint is not a regular file").c_str(), InputError);
  dir.write("empty", "");
  CHECK_THROWS_WITH_AS(read_checkpoint(dir.file("empty")),
                       (dir.file("empty") + ": not a d2q9-bgk checkpoint (no D2Q9CKPT header)").c_str(), InputError);
}

TEST_CASE("checkpoint: a checkpoint of another problem or precision is refused") {
  const Checkpoint c = sample_checkpoint(Precision::Float);
  const ObstacleMask mask = d2q9::test::test_obstacles(c.params);
  auto error = [&](Params p, const ObstacleMask& m, Precision precision) -> std::string {
    try {
      check_checkpoint_matches(c, "ck", p, "in.params", m, "obs.dat", precision);
    } catch (const InputError& e) {
      return e.what();
    }
    return "";
  };
  CHECK(error(c.params, mask, Precision::Float) == "");
  Params p = c.params;
  p.nx = 7;
  CHECK(error(p, ObstacleMask(7, 5), Precision::Float) ==
        "ck: checkpoint does not match the inputs: it was written for nx = 6, but in.params gives 7");
  p = c.params;
  p.max_iters = 41;
  CHECK(error(p, mask, Precision::Float).find("maxIters = 40, but in.params gives 41") != std::string::npos);
  p = c.params;
  p.omega = std::nextafter(c.params.omega, 2.0);  // any difference changes the run
  CHECK(error(p, mask, Precision::Float).find("omega = 1.85, but in.params gives 1.8500000000000003") !=
        std::string::npos);
  p = c.params;
  p.accel = 0.03;
  CHECK(error(p, mask, Precision::Float).find("accel = 0.02, but in.params gives 0.03") != std::string::npos);
  ObstacleMask moved = mask;
  moved.kinds[8] = 1 - moved.kinds[8];
  CHECK(error(c.params, moved, Precision::Float) ==
        "ck: checkpoint does not match the inputs: it was written for different obstacles than obs.dat");
  CHECK(error(c.params, mask, Precision::Double) ==
        "ck: checkpoint does not match the inputs: it holds a float run, but this run is --precision double");
}

TEST_CASE("run loop: checkpointing in segments gives the uninterrupted run, and checkpoints the right state") {
  const Params p = d2q9::test::make_params(10, 8, 30, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  ReferenceSolver<float> whole(p, m);
  std::vector<double> whole_av;
  whole.run(30, whole_av);

  TempDir dir;
  RunLoopOptions loop;
  loop.checkpoint_every = 7;
  loop.checkpoint_path = dir.file(kCheckpointFile);
  const auto owned_segmented = SimulationInternals::on_solver(Problem{p, m, {}, std::nullopt},
                                                              std::make_unique<ReferenceSolver<float>>(p, m));
  Simulation& segmented = *owned_segmented;
  CHECK(run_steps(segmented, loop).wrote_checkpoint);
  CHECK(segmented.average_velocities() == whole_av);
  CHECK(segmented.distributions() == whole.distributions());

  // The last checkpoint holds step 28 (a multiple of 7 short of the end).
  const Checkpoint c = read_checkpoint(loop.checkpoint_path);
  REQUIRE(c.step() == 28);
  CHECK(std::equal(c.av_vels.begin(), c.av_vels.end(), whole_av.begin()));
  ReferenceSolver<float> at_28(p, m);
  std::vector<double> ignored;
  at_28.run(28, ignored);
  CHECK(c.f == at_28.distributions());

  // Resumed from it in a fresh solver: the same two last steps.
  const auto owned_resumed = SimulationInternals::on_solver(Problem{p, m, {}, std::nullopt},
                                                            std::make_unique<ReferenceSolver<float>>(p, m));
  Simulation& resumed = *owned_resumed;
  resumed.resume(c, loop.checkpoint_path);
  CHECK(resumed.first_step() == 28);
  loop.checkpoint_path = dir.file("second");
  CHECK_FALSE(run_steps(resumed, loop).wrote_checkpoint);  // no multiple of 7 in 29..30
  CHECK(resumed.average_velocities() == whole_av);
  CHECK(resumed.distributions() == whole.distributions());
}

TEST_CASE("run loop: SIGINT and SIGTERM write a checkpoint and stop") {
  const Params p = d2q9::test::make_params(10, 8, 50, 0.02);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  for (int sig : {SIGINT, SIGTERM}) {
    CAPTURE(sig);
    TempDir dir;
    RunLoopOptions loop;
    loop.checkpoint_every = 1000;
    loop.checkpoint_path = dir.file(kCheckpointFile);
    struct sigaction before {};
    ::sigaction(sig, nullptr, &before);
    ReferenceSolver<double> inner(p, m);
    const auto owned = SimulationInternals::on_solver(Problem{p, m, {}, std::nullopt},
                                                      std::make_unique<SignalledSolver>(inner, sig));
    Simulation& sim = *owned;
    const std::vector<double>& av = sim.average_velocities();
    try {
      run_steps(sim, loop);
      FAIL("run_steps finished despite the signal");
    } catch (const InterruptedError& e) {
      CHECK(e.signal() == sig);
      CHECK(e.exit_status() == 128 + sig);
      CHECK(std::string(e.what()) == std::string("interrupted by ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") +
                                         " after 1 of 50 steps; checkpoint written to " + loop.checkpoint_path +
                                         "; continue with --restart " + loop.checkpoint_path);
    }
    const Checkpoint c = read_checkpoint(loop.checkpoint_path);
    CHECK(c.step() == 1);
    CHECK(c.av_vels == av);
    // The handlers are gone again: the test runner's own are back.
    struct sigaction now {};
    ::sigaction(sig, nullptr, &now);
    CHECK((now.sa_handler == before.sa_handler));
  }
}

TEST_CASE("instability: the reference stops at the first average velocity that is not finite or not subsonic") {
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    std::unique_ptr<Solver> s;
    if (precision == Precision::Float)
      s = std::make_unique<ReferenceSolver<float>>(kUnstable, d2q9::test::test_obstacles(kUnstable));
    else
      s = std::make_unique<ReferenceSolver<double>>(kUnstable, d2q9::test::test_obstacles(kUnstable));
    std::vector<double> av;
    try {
      s->run(kUnstable.max_iters, av);
      FAIL("no instability reported");
    } catch (const InstabilityError& e) {
      REQUIRE(!av.empty());
      CHECK(e.step() == av.size() - 1);
      // A blow-up passes the speed of sound before it overflows.
      CHECK(!(av.back() < kSoundSpeed));
      CHECK(std::all_of(av.begin(), av.end() - 1, [](double v) { return std::isfinite(v) && v < kSoundSpeed; }));
      CHECK(av.size() < 1000);
      CHECK(std::string(e.what()).rfind("flow became unstable at step " + std::to_string(e.step()) + " (average velocity ", 0) == 0);
    }
  }
}

TEST_CASE("instability: OpenCL stops within a bounded number of steps, naming the first bad one") {
  for (Precision precision : {Precision::Float, Precision::Double}) {
    CAPTURE(std::string(to_string(precision)));
    auto s = make_solver(Backend::OpenCL, kUnstable, d2q9::test::test_obstacles(kUnstable), d2q9::test::config(precision));
    std::vector<double> av;
    // A million steps would take minutes here; a bounded stop takes well under a second.
    const auto tic = std::chrono::steady_clock::now();
    try {
      s->run(kUnstable.max_iters, av);
      FAIL("no instability reported");
    } catch (const InstabilityError& e) {
      CHECK(e.step() == av.size() - 1);
      // A blow-up passes the speed of sound before it overflows.
      CHECK(!(av.back() < kSoundSpeed));
      CHECK(std::all_of(av.begin(), av.end() - 1, [](double v) { return std::isfinite(v) && v < kSoundSpeed; }));
      CHECK(av.size() < 1000);
    }
    CHECK(std::chrono::duration<double>(std::chrono::steady_clock::now() - tic).count() < 30.0);
  }
}

TEST_CASE("instability: the whole-field check finds negative density and non-finite values") {
  const Params p = d2q9::test::make_params(6, 5, 10);
  const ObstacleMask m = d2q9::test::test_obstacles(p);
  std::vector<double> f = initial_distributions(p);
  CHECK_NOTHROW(check_distributions(p, m, f, 3));
  const std::size_t fluid = 1 + 1 * 6;  // cell (1, 1)
  REQUIRE(!m.kinds[fluid]);
  for (int k = 0; k < kSpeeds; ++k) f[k * 30 + fluid] = -0.1;
  CHECK_THROWS_WITH_AS(check_distributions(p, m, f, 3),
                       "flow became unstable at step 3 (density -0.9 at cell (1, 1)); lower accel, or omega further "
                       "from 2, or refine the grid",
                       InstabilityError);
  f = initial_distributions(p);
  f[5 * 30 + 0] = NAN;  // an obstacle cell
  REQUIRE(m.kinds[0]);
  CHECK_THROWS_AS(check_distributions(p, m, f, 3), InstabilityError);
}

TEST_CASE("limits: host memory is checked up front with both sizes") {
  const Params p = d2q9::test::make_params(1000, 500, 100);
  // OpenCL, float: doubles plus floats of every value, the mask, the av_vels.
  CHECK(host_bytes_needed(p, false, Precision::Float, false) == 9ULL * 500000 * 12 + 500000 + 800);
  CHECK(host_bytes_needed(p, true, Precision::Double, true) == 9ULL * 500000 * 16 + 500000 + 2 * 9ULL * 500000 * 8 + 1600);
  CHECK_NOTHROW(check_host_memory(p, false, Precision::Float, false, 60ULL << 20));
  CHECK_THROWS_WITH_AS(check_host_memory(p, false, Precision::Float, false, 40ULL << 20),
                       "grid 1000x500 needs 51 MiB of host memory (with 100 steps) but this machine has 40 MiB: out of memory",
                       DeviceError);
  CHECK(host_memory_bytes() > (64ULL << 20));
}

TEST_CASE("checkpoint: temporary files left by a killed run are removed, nothing else") {
  d2q9::test::TempDir dir;
  dir.write(kCheckpointFile, "good");
  dir.write(std::string(kCheckpointFile) + ".tmp.99999", "complete but never renamed");
  dir.write("av_vels.dat", "0:\t1\n");
  remove_stale_checkpoint_temps(dir.file(kCheckpointFile));
  CHECK(dir.listing() == "av_vels.dat\n" + std::string(kCheckpointFile) + "\n");
  CHECK(d2q9::test::slurp(dir.file(kCheckpointFile)) == "good");
}

TEST_SUITE_END();
