// libFuzzer target: parse_obstacles on arbitrary text. The first two bytes
// pick the grid (2..65 cells a side); the rest is the file.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "fuzz_check.hpp"
#include "problem/problem.hpp"

using namespace d2q9;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  Params p;
  p.nx = 2 + data[0] % 64;
  p.ny = 2 + data[1] % 64;
  p.max_iters = 1;
  p.reynolds_dim = 1;
  p.density = 0.1;
  p.accel = 0.005;
  p.omega = 1.85;
  const std::string text(reinterpret_cast<const char*>(data) + 2, size - 2);
  try {
    const ObstacleMask m = parse_obstacles(text, "fuzz.dat", p);
    fuzz::require(m.nx == p.nx && m.ny == p.ny && m.kinds.size() == p.cells(), "mask has the wrong shape");
    fuzz::require(std::all_of(m.kinds.begin(), m.kinds.end(), [](std::uint8_t b) { return b <= 1; }),
                  "mask holds a value other than 0 or 1");
    fuzz::require(m.fluid_cells() > 0, "accepted a mask with no fluid");
  } catch (const InputError& e) {
    fuzz::require_names_file(e.what(), "fuzz.dat");
  }
  return 0;
}
