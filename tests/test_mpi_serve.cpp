// The live view of a run split across MPI ranks (docs/live-view.md#mpi):
// the picture cut into the ranks' rows is one process's, and d2q9-bgk
// --serve under mpirun (2 ranks, oversubscribed on PoCL) answers its page's
// requests, holds every rank while paused, and stops as at its last step.
#include <doctest/doctest.h>

#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <regex>
#include <thread>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "helpers.hpp"
#include "io/checkpoint.hpp"
#include "io/field_image.hpp"
#include "io/fields.hpp"
#include "reference/reference_solver.hpp"
#include "sim/simulation.hpp"
#ifdef D2Q9_HAVE_CUDA
#include "cuda/cuda_backend.hpp"
#include "cuda/cuda_driver.hpp"
#endif

extern char** environ;

// CTest label (tests/CMakeLists.txt): ctest -L mpi
TEST_SUITE_BEGIN("mpi");

using namespace d2q9;
using d2q9::test::slurp;
using d2q9::test::TempDir;
using nlohmann::json;

TEST_CASE("mpi pictures: the live view's picture cut into slabs' pixel rows is one process's, value for value") {
  // What each rank samples of its rows (sim/rank_picture.cpp, the host's
  // way), put together top slab first, against the whole grid's.
  const Params p = test::make_params(13, 11, 40, 0.02);
  const ObstacleMask m = test::test_obstacles(p);
  ReferenceSolver<double> solver(p, m);
  std::vector<double> av_vels;
  solver.run(p.max_iters, av_vels);
  const std::vector<double> f = solver.distributions();
  const FlowFields whole = flow_fields(p, m, f);
  const std::size_t n = p.cells();
  for (const std::vector<int>& heights : std::vector<std::vector<int>>{{11}, {5, 6}, {1, 4, 5, 1}, {10, 1}, {1, 10}}) {
    CAPTURE(heights.size());
    CAPTURE(heights.front());
    std::vector<FlowFields> fields;
    int first = 0;
    for (const int h : heights) {
      StateRows s{first, h, {}};
      for (int k = 0; k < kSpeeds; ++k)
        s.f.insert(s.f.end(), f.begin() + k * n + first * p.nx, f.begin() + k * n + (first + h) * p.nx);
      fields.push_back(velocity_fields(p, m, s));
      first += h;
    }
    for (const ImageField field : {ImageField::Speed, ImageField::Vorticity, ImageField::Density}) {
      for (const int width : {13, 6, 4, 1}) {
        CAPTURE(std::string(to_string(field)));
        CAPTURE(width);
        const FieldImageLayout l = field_image_layout(p.nx, p.ny, width);
        std::vector<float> joined;
        int next_row = 0;  // the pixel rows, top slab first, follow one another
        for (std::size_t r = fields.size(); r-- > 0;) {
          const std::size_t count = fields.size();
          const FlowFields& below = fields[(r + count - 1) % count];
          const FlowFields& above = fields[(r + 1) % count];
          FlowFields mine = fields[r];
          add_vorticity(mine, m, velocity_row(below, below.first_row + below.ny - 1), velocity_row(above, above.first_row));
          const PixelRows rows = image_rows_of(l, p.ny, mine.first_row, mine.ny);
          if (rows.count > 0) CHECK(rows.first == next_row);
          next_row += rows.count;
          const std::vector<float> part = field_image_values(mine, m, field, l, rows);
          joined.insert(joined.end(), part.begin(), part.end());
        }
        CHECK(next_row == l.height);
        const std::vector<float> expected = field_image_values(whole, m, field, l, PixelRows{0, l.height});
        REQUIRE(joined.size() == expected.size());
        CHECK(std::memcmp(joined.data(), expected.data(), joined.size() * sizeof(float)) == 0);
        const FieldImage picture = field_image(whole, m, {field, width});
        CHECK(colour_field_image(field, l.width, l.height, joined, "host").rgba == picture.rgba);
      }
    }
  }
  // A slab thinner than a pixel's block may show no pixel row at all.
  const FieldImageLayout l = field_image_layout(13, 11, 4);  // 4 cells a pixel: rows 2, 6, 10
  CHECK(image_rows_of(l, 11, 3, 3).count == 0);
  CHECK(image_rows_of(l, 11, 0, 3).first == 2);
  CHECK(image_rows_of(l, 11, 0, 3).count == 1);
}

#ifndef D2Q9_MPIEXEC

TEST_CASE("mpi serve: not built") {
  D2Q9_SKIP("built without MPI (D2Q9_MPI=OFF or no MPI found): d2q9-bgk --serve under mpirun is not tested; install "
            "libopenmpi-dev openmpi-bin and reconfigure");
}

#else

namespace {

// d2q9-bgk --serve 0 under mpirun in the background: the address and token
// rank 0 prints, requests to it, and its end; killed if a test leaves it running.
class ServedRanks {
 public:
  // `env`: NAME=VALUE for every rank, or empty.
  ServedRanks(int ranks, const std::string& args, const std::string& env = "") {
    // exec env ...: the process waited for is mpirun's `timeout`, which passes a kill on.
    const std::string pass = env.empty() ? "" : " -x " + env.substr(0, env.find('='));
    const std::string command = "exec env " + env + " " + test::mpirun_command(ranks) + pass + " '" + D2Q9_EXE +
                                "' --serve 0 " + args + " >'" + io_.file("out") + "' 2>'" + io_.file("err") +
                                "' </dev/null";
    const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
    REQUIRE(::posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ) == 0);
    const std::regex serving(R"(serving http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]{32})\n)");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::smatch m;
    std::string err;
    while (!std::regex_search(err = slurp(io_.file("err")), m, serving)) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        FAIL("d2q9-bgk ended without serving: " << err);
      }
      if (std::chrono::steady_clock::now() > deadline) FAIL("no 'serving http://...' line in 60 s: " << err);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    port_ = std::stoi(m[1].str());
    token_ = m[2].str();
  }
  ~ServedRanks() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  ServedRanks(const ServedRanks&) = delete;
  ServedRanks& operator=(const ServedRanks&) = delete;

  const std::string& token() const { return token_; }
  // GET `path`, with the token unless `with_token` is false.
  httplib::Result get(const std::string& path, bool with_token = true) {
    return client().Get(with_token ? signed_path(path) : path);
  }
  httplib::Result post(const std::string& name, bool with_token = true) {
    const std::string path = "/api/" + name;
    return client().Post(with_token ? signed_path(path) : path, "", "text/plain");
  }
  json status() {
    const httplib::Result r = get("/api/status");
    REQUIRE(r);
    REQUIRE(r->status == 200);
    return json::parse(r->body);
  }
  // The status once `what` holds of it (a failure after `seconds`).
  json wait_for(const std::function<bool(const json&)>& what, double seconds = 30) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    json s = status();
    while (!what(s)) {
      if (std::chrono::steady_clock::now() > deadline) FAIL("timed out waiting; the last status: " << s.dump());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      s = status();
    }
    return s;
  }
  // The exit status once it has ended (a failure after `seconds`).
  int finish(double seconds = 60) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) != pid_) {
      if (std::chrono::steady_clock::now() > deadline) FAIL("still running after " << seconds << " s: " << err());
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string out() const { return slurp(io_.file("out")); }
  std::string err() const { return slurp(io_.file("err")); }

 private:
  std::string signed_path(const std::string& path) const {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + "token=" + token_;
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }

  TempDir io_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string token_;
};

bool running(const json& s) { return s["state"] == "running" && s["step"].get<int>() > 0; }

// The backends whose devices are here: OpenCL's (PoCL in CI), and CUDA's
// where an NVIDIA GPU is.
std::vector<Backend> served_backends() {
  std::vector<Backend> backends{Backend::OpenCL};
#ifdef D2Q9_HAVE_CUDA
  if (cuda_driver_unavailable_reason().empty() && !list_cuda_devices().empty()) backends.push_back(Backend::Cuda);
#endif
  return backends;
}

// One process running what the ranks run (fused, 8x1) on `backend`, at `step` of `problem`.
std::unique_ptr<Simulation> one_process(Backend backend, Problem problem, int step) {
  SimulationOptions options;
  options.backend = backend;
  options.kernels_dir = D2Q9_KERNELS_DIR;
  options.launch.variant = KernelVariant::Fused;
  options.launch.local = {8, 1};
  auto sim = std::make_unique<Simulation>(std::move(problem), options);
  sim->step(step);
  return sim;
}

// The served run's picture of `field`, `width` wide, against `one`'s: the
// same PNG bytes, colour range, size and step (`on_host`: drawn on the host,
// against one process's host picture).
void check_picture(ServedRanks& run, Simulation& one, ImageField field, int width, bool on_host = false) {
  CAPTURE(std::string(to_string(field)));
  CAPTURE(width);
  const httplib::Result r =
      run.get(std::string("/api/picture?field=") + to_string(field) + "&width=" + std::to_string(width));
  REQUIRE(r);
  REQUIRE(r->status == 200);
  const json about = json::parse(r->get_header_value("X-D2Q9-Picture"));
  const FieldImage image = on_host ? field_image(one.fields(), one.mask(), {field, width}) : one.picture({field, width});
  CHECK(image.made_by == (on_host ? "host" : "device"));
  CHECK(about["made_by"] == image.made_by);
  CHECK(about["step"] == one.steps_done());
  CHECK(about["width"] == image.width);
  CHECK(about["height"] == image.height);
  CHECK(about["low"].get<double>() == image.range.low);
  CHECK(about["high"].get<double>() == image.range.high);
  CHECK(image.range.high > image.range.low);
  CHECK(r->body == png_bytes(image));
}
bool paused(const json& s) { return s["state"] == "paused"; }

// 24x30 with walls left, right and below, blocks across the 15|15 slab edge
// and in the rows next to it, and the top row open (periodic onto the wall).
struct Channel {
  TempDir dir;
  std::string obstacles;
  Channel() {
    std::string text;
    for (int x = 0; x < 24; ++x) text += std::to_string(x) + " 0 1\n";
    for (int y = 1; y < 30; ++y) text += "0 " + std::to_string(y) + " 1\n23 " + std::to_string(y) + " 1\n";
    for (int y = 13; y < 17; ++y) text += "9 " + std::to_string(y) + " 1\n";
    text += "15 14 1\n16 15 1\n";
    obstacles = dir.write("obs.dat", text);
  }
  // Its .params file for `steps` steps, and its inputs on a command line.
  std::string params(int steps) const {
    return dir.write("in" + std::to_string(steps) + ".params",
                     "24\n30\n" + std::to_string(steps) + "\n10\n0.1\n0.02\n1.7\n");
  }
  std::string inputs(int steps) const { return "'" + params(steps) + "' '" + obstacles + "'"; }
};

}  // namespace

TEST_CASE("mpi serve: rank 0 serves a 2-rank run: its endpoints with the token, 403 without, and a paused run's "
          "pictures are one process's of the step") {
  const std::string cavity = std::string(D2Q9_SOURCE_DIR) + "/tests/problems/live_cavity.toml";
  for (const Backend backend : served_backends()) {
    CAPTURE(std::string(to_string(backend)));
    TempDir out;
    ServedRanks run(2, "-q --no-png -l 8x1 -b " + std::string(to_string(backend)) + " -o '" + out.path + "' '" +
                           cavity + "'");
    for (const std::string path : {"/", "/api/status", "/api/picture?field=speed&width=64", "/api/forces"}) {
      CAPTURE(path);
      const httplib::Result none = run.get(path, false);
      REQUIRE(none);
      CHECK(none->status == 403);
      const httplib::Result wrong = run.get(path + (path.find('?') == std::string::npos ? "?" : "&") + "token=" +
                                            std::string(32, '0'), false);
      REQUIRE(wrong);
      CHECK(wrong->status == 403);
    }
    const httplib::Result stop = run.post("stop", false);
    REQUIRE(stop);
    CHECK(stop->status == 403);
    // The whole run's numbers: the grid's cells in the MLUPS, every rank's device.
    const json s = run.wait_for([](const json& j) { return running(j) && j["steps_per_second"].get<double>() > 0; });
    CHECK(s["run"]["nx"] == 64);
    CHECK(s["run"]["ny"] == 64);
    CHECK(s["run"]["backend"] == std::string(to_string(backend)) + "+mpi");
    CHECK(s["run"]["device"].get<std::string>().find(" on each of 2 ranks") != std::string::npos);
    CHECK(s["mlups"].get<double>() == doctest::Approx(s["steps_per_second"].get<double>() * 64 * 64 / 1e6));
    const httplib::Result page = run.get("/");
    REQUIRE(page);
    CHECK(page->status == 200);
    CHECK(page->body.find("<canvas") != std::string::npos);
    // Paused once the lid has stirred the cavity, every rank holds: the step stands still.
    run.wait_for([](const json& j) { return j["step"].get<int>() >= 1000; });
    REQUIRE(run.post("pause"));
    const int step = run.wait_for(paused)["step"];
    MESSAGE(std::string(to_string(backend)) << ": paused at step " << step);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    CHECK(run.status()["step"] == step);
    // Forces and probes: rank 0's log, which the ranks' sums fill.
    const httplib::Result forces = run.get("/api/forces?points=5");
    REQUIRE(forces);
    REQUIRE(forces->status == 200);
    const json f = json::parse(forces->body);
    CHECK(f["bodies"][0]["name"] == "block");
    CHECK(f["steps"].back() == step);
    const httplib::Result probes = run.get("/api/probes?points=5");
    REQUIRE(probes);
    REQUIRE(probes->status == 200);
    CHECK(probes->body.find("\"centre\"") != std::string::npos);
    // The pictures: one process's of the same step, byte for byte and range
    // for range (64 wide: every row, the slab edge's 31 and 32 among them).
    const auto one = one_process(backend, load_problem(cavity), step);
    check_picture(run, *one, ImageField::Vorticity, 64);
    check_picture(run, *one, ImageField::Speed, 64);
    check_picture(run, *one, ImageField::Density, 64);
    check_picture(run, *one, ImageField::Vorticity, 21);
    check_picture(run, *one, ImageField::Speed, 5);
    REQUIRE(run.post("stop"));
    CHECK(run.finish() == 0);
    CHECK(out.listing() == "av_vels.dat\nfinal_state.vti\nforces.csv\nprobes.csv\n");
  }
}

TEST_CASE("mpi serve: 3 ranks, a one-row top slab: the pictures are one process's, the slab showing one pixel row, "
          "or none") {
  // Rows 0-11 | 12-28 | 29: each slab's vorticity at its edges reads ux of
  // both neighbours' edge rows (below and above differ on 3 ranks); the top
  // slab's one row reads both.
  const Channel channel;
  for (const Backend backend : served_backends()) {
    CAPTURE(std::string(to_string(backend)));
    TempDir out;
    ServedRanks run(3, "-q --no-png -l 8x1 --slab-rows 12,17,1 -b " + std::string(to_string(backend)) + " -o '" +
                           out.path + "' " + channel.inputs(2000000));
    run.wait_for([](const json& j) { return j["step"].get<int>() >= 500; });
    REQUIRE(run.post("pause"));
    const int step = run.wait_for(paused)["step"];
    MESSAGE(std::string(to_string(backend)) << ": paused at step " << step);
    const auto one = one_process(backend, load_problem(channel.params(2000000), channel.obstacles), step);
    // 24 wide: every row; 7 wide (4 cells a pixel): the top pixel row is row
    // 29, clamped; 10 wide (3 cells a pixel): rows 1 to 28, none of the top slab's.
    for (const int width : {24, 7, 10}) {
      check_picture(run, *one, ImageField::Vorticity, width);
      check_picture(run, *one, ImageField::Speed, width);
    }
    REQUIRE(run.post("stop"));
    CHECK(run.finish() == 0);
  }
}

TEST_CASE("mpi serve: pause, resume, a checkpoint and stop from the page hold and end every rank, the stopped run "
          "writing an unserved 2-rank run's bytes, and pictures drawn on the host are one process's") {
  const Channel channel;
  TempDir out;
  // D2Q9_LIVE_PICTURES=host: each rank samples its rows' fields on the host (sim/rank_picture.cpp).
  ServedRanks run(2, "--no-png -l 8x1 -o '" + out.path + "' " + channel.inputs(2000000), "D2Q9_LIVE_PICTURES=host");
  run.wait_for([](const json& j) { return j["step"].get<int>() >= 500; });
  REQUIRE(run.post("pause"));
  const int held = run.wait_for(paused)["step"];
  const auto one = one_process(Backend::OpenCL, load_problem(channel.params(2000000), channel.obstacles), held);
  for (const int width : {24, 7}) {
    check_picture(run, *one, ImageField::Vorticity, width, true);
    check_picture(run, *one, ImageField::Density, width, true);
  }
  // A checkpoint of the paused step: every rank's rows, written by rank 0.
  REQUIRE(run.post("checkpoint"));
  const std::string written = "checkpoint of step " + std::to_string(held) + " written to";
  run.wait_for([&](const json& j) { return j["message"].get<std::string>().find(written) != std::string::npos; });
  CHECK(read_checkpoint(out.file("checkpoint.d2q9")).step() == held);
  CHECK(run.status()["step"] == held);
  // Resumed, every rank steps on; paused again, they hold again.
  REQUIRE(run.post("resume"));
  run.wait_for([&](const json& j) { return j["state"] == "running" && j["step"].get<int>() > held; });
  REQUIRE(run.post("pause"));
  const json at = run.wait_for(paused);
  const int step = at["step"];
  MESSAGE("checkpoint at step " << held << ", stopped at step " << step);
  REQUIRE(run.post("stop"));
  REQUIRE(run.finish() == 0);
  CHECK(run.err().find("stopped from the live view after " + std::to_string(step) + " of 2000000 steps") !=
        std::string::npos);
  CHECK(run.out().find("MPI ranks:\t\t\t2") != std::string::npos);
  // The outputs as at the end: an unserved run of `step` steps on 2 ranks writes the same bytes.
  TempDir plain;
  const auto r = test::run_shell(test::mpirun_command(2) + " '" + D2Q9_EXE + "' -q --no-png -l 8x1 -o '" +
                                 plain.path + "' " + channel.inputs(step));
  REQUIRE_MESSAGE(r.status == 0, r.err);
  for (const char* name : {"av_vels.dat", "final_state.dat"}) {
    CAPTURE(name);
    const std::string served = slurp(out.file(name));
    CHECK(test::count_lines(served) == (name == std::string("av_vels.dat") ? step : 24 * 30));
    CHECK(served == slurp(plain.file(name)));
  }
  const std::string av = slurp(out.file("av_vels.dat"));
  CHECK(at["average_velocity"].get<double>() ==
        doctest::Approx(std::strtod(av.substr(av.rfind(':', av.size() - 2) + 1).c_str(), nullptr)).epsilon(1e-9));
}

#endif

TEST_SUITE_END();
