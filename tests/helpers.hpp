// Small shared pieces of the test suite.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>
#include <sstream>
#include <string>
#include <vector>

#include <png.h>

#include "problem/problem.hpp"

// doctest has no run-time skip. A test that cannot run here says why in a
// "SKIPPED: " message and returns; CTest reports it as skipped, not passed
// (SKIP_REGULAR_EXPRESSION in tests/CMakeLists.txt).
#define D2Q9_SKIP(why)             \
  do {                             \
    MESSAGE("SKIPPED: " << why);   \
    return;                        \
  } while (0)

namespace d2q9::test {

inline bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }
inline int count_lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

// A fresh empty directory under /tmp, removed at scope exit.
struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/d2q9-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
  std::string file(const std::string& name) const { return path + "/" + name; }
  std::string write(const std::string& name, const std::string& content) const {
    std::ofstream(file(name), std::ios::binary) << content;
    return file(name);
  }
  // Names in the directory, sorted, one per line; without the outputs'
  // manifest (.d2q9-outputs.json) unless `manifest`.
  std::string listing(bool manifest = false) const { return listing_of(path, manifest); }
  static std::string listing_of(const std::string& path, bool manifest = false) {
    std::string out;
    std::FILE* p = ::popen(("ls -A " + std::string(manifest ? "" : "-I .d2q9-outputs.json ") + "'" + path + "'").c_str(), "r");
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
    return out;
  }
};

inline std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// How a program run ended, with what it printed.
struct Result {
  int status;
  std::string out;
  std::string err;
};

// Runs a shell command with no input, capturing stdout and stderr.
inline Result run_shell(const std::string& command) {
  TempDir io;
  const std::string cmd = command + " >'" + io.file("out") + "' 2>'" + io.file("err") + "' </dev/null";
  const int raw = std::system(cmd.c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, slurp(io.file("out")), slurp(io.file("err"))};
}

// Runs d2q9-bgk with shell-quoted arguments.
inline Result run_program(const std::string& args) { return run_shell(std::string("'") + D2Q9_EXE + "' " + args); }

inline Params make_params(int nx, int ny, int iters, double accel = 0.005, double omega = 1.85) {
  Params p;
  p.nx = nx;
  p.ny = ny;
  p.max_iters = iters;
  p.reynolds_dim = 10;
  p.density = 0.1;
  p.accel = accel;
  p.omega = omega;
  return p;
}

// Closed box walls plus a small block and a few scattered cells inside, so
// that rebound, collision and the accelerated row all meet obstacles.
inline ObstacleMask test_obstacles(const Params& p) {
  ObstacleMask m(p.nx, p.ny);
  auto block = [&](int x, int y) { m.kinds[x + y * p.nx] = 1; };
  for (int x = 0; x < p.nx; ++x) block(x, 0);
  for (int y = 0; y < p.ny; ++y) block(0, y), block(p.nx - 1, y);
  for (int x = p.nx / 3; x < p.nx / 3 + 3; ++x)
    for (int y = p.ny / 3; y < p.ny / 3 + 4; ++y) block(x, y);
  block(p.nx / 2, p.ny - 2);  // sits in the accelerated row
  block(p.nx - 3, p.ny - 1);  // top row stays open elsewhere: periodic flow in y
  return m;
}

// Largest |a-b| / max(|b|, floor) over two equally long arrays.
inline double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b, double floor) {
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i)
    worst = std::fmax(worst, std::fabs(a[i] - b[i]) / std::fmax(std::fabs(b[i]), floor));
  return a.size() == b.size() ? worst : INFINITY;
}

#ifdef D2Q9_MPIEXEC
// mpirun as CI runs it: as root, more ranks than cores. The vader transport's
// single-copy mode needs ptrace rights that containers often withhold. The
// time-out ends a hang (a rank waiting for one that failed), and is generous
// because three ranks of a PoCL run on a loaded 2-core machine take minutes.
inline std::string mpirun_command(int ranks) {
  return std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
                     "OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 600 '") +
         D2Q9_MPIEXEC + "' --oversubscribe -np " + std::to_string(ranks);
}
#endif

// A PNG of `pixels` in libpng's simplified `format` (PNG_FORMAT_GRAY, ...).
inline void write_png(const std::string& path, int width, int height, std::uint32_t format, const std::vector<std::uint8_t>& pixels) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(width);
  png.height = static_cast<png_uint_32>(height);
  png.format = format;
  REQUIRE(PNG_IMAGE_SIZE(png) == pixels.size());
  REQUIRE(png_image_write_to_file(&png, path.c_str(), 0, pixels.data(), 0, nullptr) != 0);
}

}  // namespace d2q9::test
