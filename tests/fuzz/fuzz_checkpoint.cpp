// libFuzzer target: parse_checkpoint, then check_checkpoint_matches, on
// arbitrary bytes. When the first byte is odd the harness rewrites the
// trailing checksum to match, so the fuzzer also reaches what lies behind it.
#include <xxhash.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "io/checkpoint.hpp"
#include "fuzz_check.hpp"

using namespace d2q9;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const bool fix_checksum = (data[0] & 1) != 0;
  std::vector<unsigned char> bytes(data + 1, data + size);
  if (fix_checksum && bytes.size() >= 8) {
    const std::uint64_t sum = XXH3_64bits(bytes.data(), bytes.size() - 8);
    std::memcpy(bytes.data() + bytes.size() - 8, &sum, sizeof sum);
  }
  try {
    const Checkpoint c = parse_checkpoint(bytes.data(), bytes.size(), "fuzz.ckpt");
    fuzz::require(c.f.size() == static_cast<std::size_t>(c.planes()) * c.params.cells() &&
                      (c.planes() == kSpeeds || c.planes() == kSpeeds + kHeatSpeeds),
                  "distributions do not cover the grid");
    fuzz::require(c.step() >= 0 && c.step() <= c.params.max_iters, "more steps than maxIters");
    fuzz::require(c.params.nx >= 2 && c.params.ny >= 2 && c.params.omega > 0 && c.params.omega < 2,
                  "accepted parameters read_params would refuse");
    Params p = c.params;
    ObstacleMask mask(p.nx, p.ny);
    try {
      check_checkpoint_matches(c, "fuzz.ckpt", p, "fuzz.params", mask, "fuzz.dat", Precision::Double);
    } catch (const InputError& e) {
      fuzz::require_names_file(e.what(), "fuzz.ckpt");
    }
  } catch (const InputError& e) {
    fuzz::require_names_file(e.what(), "fuzz.ckpt");
  }
  return 0;
}
