#include "io/vtk_output.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace d2q9 {

namespace {

void append_big_endian(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((bits >> shift) & 0xff));
}

// The appended arrays are the host's bytes as they lie in memory.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "write_vti writes the host's bytes as little-endian");

// Cells converted per block: no array is held a second time whole.
constexpr std::size_t kBlockCells = std::size_t{1} << 16;

template <typename Real>
void write_reals(std::FILE* out, const std::vector<double>& values) {
  if constexpr (std::is_same_v<Real, double>) {
    std::fwrite(values.data(), sizeof(double), values.size(), out);
  } else {
    std::vector<Real> block(std::min(values.size(), kBlockCells));
    for (std::size_t start = 0; start < values.size(); start += block.size()) {
      const std::size_t m = std::min(block.size(), values.size() - start);
      for (std::size_t i = 0; i < m; ++i) block[i] = static_cast<Real>(values[start + i]);
      std::fwrite(block.data(), sizeof(Real), m, out);
    }
  }
}

template <typename Real>
void write_velocity(std::FILE* out, const FlowFields& fields, std::size_t n) {
  std::vector<Real> block(3 * std::min(n, kBlockCells));
  for (std::size_t start = 0; start < n; start += kBlockCells) {
    const std::size_t m = std::min(kBlockCells, n - start);
    for (std::size_t i = 0; i < m; ++i) {
      block[3 * i] = static_cast<Real>(fields.ux[start + i]);
      block[3 * i + 1] = static_cast<Real>(fields.uy[start + i]);
      block[3 * i + 2] = Real(0);
    }
    std::fwrite(block.data(), sizeof(Real), 3 * m, out);
  }
}

void write_obstacle(std::FILE* out, const std::uint8_t* kinds, std::size_t n) {
  std::vector<std::uint8_t> block(std::min(n, kBlockCells));
  for (std::size_t start = 0; start < n; start += block.size()) {
    const std::size_t m = std::min(block.size(), n - start);
    for (std::size_t i = 0; i < m; ++i) block[i] = is_obstacle(kinds[start + i]) ? 1 : 0;
    std::fwrite(block.data(), 1, m, out);
  }
}

// A DataArray of a .vti: its XML attributes, its byte count and how its values are written.
struct AppendedArray {
  const char* type;
  const char* name;
  int components;
  std::uint64_t bytes;
  std::function<void(std::FILE*)> write;
};

// The arrays of write_vti in file order, one list for the XML's offsets and the appended bytes alike.
template <typename Real>
std::vector<AppendedArray> vti_arrays(const ObstacleMask& mask, const FlowFields& fields) {
  const std::size_t n = static_cast<std::size_t>(fields.nx) * fields.ny;
  const char* type = vti_type_name(std::is_same_v<Real, float> ? VtiReal::Float32 : VtiReal::Float64);
  std::vector<AppendedArray> arrays;
  arrays.push_back({type, "velocity", 3, 3 * n * sizeof(Real), [&fields, n](std::FILE* out) {
                      write_velocity<Real>(out, fields, n);
                    }});
  auto scalar = [&](const char* name, const std::vector<double>& values) {
    arrays.push_back({type, name, 1, n * sizeof(Real), [&values](std::FILE* out) { write_reals<Real>(out, values); }});
  };
  scalar("density", fields.density);
  scalar("speed", fields.speed);
  scalar("vorticity", fields.vorticity);
  if (!fields.temperature.empty()) scalar("temperature", fields.temperature);
  const std::uint8_t* kinds = mask.kinds.data() + static_cast<std::size_t>(fields.first_row) * fields.nx;
  arrays.push_back({"UInt8", "obstacle", 1, n, [kinds, n](std::FILE* out) { write_obstacle(out, kinds, n); }});
  return arrays;
}

// A file name as an XML attribute value.
std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

void write_vtk(std::FILE* out, const Params& params, const ObstacleMask& mask, const FlowFields& fields) {
  const std::size_t n = params.cells();
  std::string density, velocity, speed, temperature, obstacle;
  density.reserve(8 * n);
  velocity.reserve(24 * n);
  speed.reserve(8 * n);
  obstacle.reserve(n);
  for (std::size_t cell = 0; cell < n; ++cell) {
    append_big_endian(density, fields.density[cell]);
    append_big_endian(velocity, fields.ux[cell]);
    append_big_endian(velocity, fields.uy[cell]);
    append_big_endian(velocity, 0.0);
    append_big_endian(speed, fields.speed[cell]);
    if (!fields.temperature.empty()) append_big_endian(temperature, fields.temperature[cell]);
    obstacle.push_back(is_obstacle(mask.kinds[cell]) ? 1 : 0);
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
  if (!fields.temperature.empty()) section("SCALARS temperature double 1\nLOOKUP_TABLE default\n", temperature);
  section("SCALARS obstacle unsigned_char 1\nLOOKUP_TABLE default\n", obstacle);
}

void write_vti(std::FILE* out, const ObstacleMask& mask, const FlowFields& fields, VtiReal real) {
  const std::size_t n = static_cast<std::size_t>(fields.nx) * fields.ny;
  for (const std::vector<double>* values : {&fields.ux, &fields.uy, &fields.density, &fields.speed, &fields.vorticity})
    if (values->size() != n) throw std::invalid_argument("write_vti: a field holds " + std::to_string(values->size()) +
                                                         " values for " + std::to_string(n) + " cells");
  if (!fields.temperature.empty() && fields.temperature.size() != n)
    throw std::invalid_argument("write_vti: the temperature does not hold one value per cell");
  char extent[64];
  std::snprintf(extent, sizeof extent, "0 %d %d %d 0 0", fields.nx - 1, fields.first_row,
                fields.first_row + fields.ny - 1);
  std::fprintf(out,
               "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
               "  <ImageData WholeExtent=\"%s\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n"
               "    <Piece Extent=\"%s\">\n"
               "      <PointData Scalars=\"speed\" Vectors=\"velocity\">\n",
               extent, extent);
  const std::vector<AppendedArray> arrays =
      real == VtiReal::Float32 ? vti_arrays<float>(mask, fields) : vti_arrays<double>(mask, fields);
  std::uint64_t offset = 0;
  for (const AppendedArray& a : arrays) {
    std::fprintf(out,
                 "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"appended\" "
                 "offset=\"%llu\"/>\n",
                 a.type, a.name, a.components, static_cast<unsigned long long>(offset));
    offset += sizeof(std::uint64_t) + a.bytes;
  }
  std::fputs(
      "      </PointData>\n"
      "    </Piece>\n"
      "  </ImageData>\n"
      "  <AppendedData encoding=\"raw\">\n"
      "   _",
      out);
  for (const AppendedArray& a : arrays) {
    std::fwrite(&a.bytes, sizeof a.bytes, 1, out);
    a.write(out);
  }
  std::fputs(
      "\n  </AppendedData>\n"
      "</VTKFile>\n",
      out);
}

void write_pvti(std::FILE* out, int nx, int ny, const std::vector<PvtiPiece>& pieces, bool temperature, VtiReal real) {
  const char* type = vti_type_name(real);
  std::fprintf(out,
               "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
               "  <PImageData WholeExtent=\"0 %d 0 %d 0 0\" GhostLevel=\"0\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n"
               "    <PPointData Scalars=\"speed\" Vectors=\"velocity\">\n",
               nx - 1, ny - 1);
  auto array = [&](const char* array_type, const char* name, int components) {
    std::fprintf(out, "      <PDataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\"/>\n", array_type, name,
                 components);
  };
  array(type, "velocity", 3);
  for (const char* name : {"density", "speed", "vorticity"}) array(type, name, 1);
  if (temperature) array(type, "temperature", 1);
  array("UInt8", "obstacle", 1);
  std::fputs("    </PPointData>\n", out);
  for (const PvtiPiece& piece : pieces)
    std::fprintf(out, "    <Piece Extent=\"0 %d %d %d 0 0\" Source=\"%s\"/>\n", nx - 1, piece.first_row, piece.last_row,
                 xml_escaped(piece.file).c_str());
  std::fputs(
      "  </PImageData>\n"
      "</VTKFile>\n",
      out);
}

void write_pvd(std::FILE* out, const std::vector<PvdFrame>& frames) {
  std::fputs(
      "<?xml version=\"1.0\"?>\n"
      "<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n"
      "  <Collection>\n",
      out);
  for (const PvdFrame& frame : frames)
    std::fprintf(out, "    <DataSet timestep=\"%d\" part=\"0\" file=\"%s\"/>\n", frame.step, frame.file.c_str());
  std::fputs(
      "  </Collection>\n"
      "</VTKFile>\n",
      out);
}

}  // namespace d2q9
