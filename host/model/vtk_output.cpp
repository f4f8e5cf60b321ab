#include "model/vtk_output.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "model/output.hpp"

namespace d2q9 {

namespace {

void append_big_endian(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((bits >> shift) & 0xff));
}

}  // namespace

void write_vtk(std::FILE* out, const Params& params, const ObstacleMask& mask, const std::vector<double>& f) {
  const std::size_t n = params.cells();
  std::string density, velocity, speed, obstacle;
  density.reserve(8 * n);
  velocity.reserve(24 * n);
  speed.reserve(8 * n);
  obstacle.reserve(n);
  for (std::size_t cell = 0; cell < n; ++cell) {
    const CellState s = cell_state(params, mask, f, cell);
    append_big_endian(density, 3.0 * s.pressure);
    append_big_endian(velocity, s.ux);
    append_big_endian(velocity, s.uy);
    append_big_endian(velocity, 0.0);
    append_big_endian(speed, s.speed);
    obstacle.push_back(mask.blocked[cell] ? 1 : 0);
  }
  std::fprintf(out,
               "# vtk DataFile Version 3.0\n"
               "d2q9-bgk final state %dx%d after %d steps\n"
               "BINARY\n"
               "DATASET STRUCTURED_POINTS\n"
               "DIMENSIONS %d %d 1\n"
               "ORIGIN 0 0 0\n"
               "SPACING 1 1 1\n"
               "POINT_DATA %zu\n",
               params.nx, params.ny, params.max_iters, params.nx, params.ny, n);
  auto section = [&](const char* header, const std::string& data) {
    std::fputs(header, out);
    std::fwrite(data.data(), 1, data.size(), out);
    std::fputc('\n', out);
  };
  section("SCALARS density double 1\nLOOKUP_TABLE default\n", density);
  section("VECTORS velocity double\n", velocity);
  section("SCALARS speed double 1\nLOOKUP_TABLE default\n", speed);
  section("SCALARS obstacle unsigned_char 1\nLOOKUP_TABLE default\n", obstacle);
}

}  // namespace d2q9
