// libFuzzer target: parse_params on arbitrary text.
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "fuzz_check.hpp"
#include "problem/problem.hpp"

using namespace d2q9;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const Params p = parse_params(text, "fuzz.params");
    // Whatever is accepted is a problem the solvers can run.
    fuzz::require(p.nx >= 2 && p.ny >= 2, "accepted a grid below 2x2");
    fuzz::require(p.max_iters > 0 && p.reynolds_dim > 0, "accepted a non-positive count");
    fuzz::require(std::isfinite(p.density) && p.density > 0, "accepted a non-positive density");
    fuzz::require(std::isfinite(p.accel), "accepted a non-finite accel");
    fuzz::require(p.omega > 0 && p.omega < 2, "accepted omega outside (0, 2)");
  } catch (const InputError& e) {
    fuzz::require_names_file(e.what(), "fuzz.params");
  }
  return 0;
}
