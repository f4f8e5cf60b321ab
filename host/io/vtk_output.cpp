#include "io/vtk_output.hpp"

#include <cstdint>
#include <cstring>
#include <string>

namespace d2q9 {

namespace {

void append_big_endian(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  for (int shift = 56; shift >= 0; shift -= 8) out.push_back(static_cast<char>((bits >> shift) & 0xff));
}

// Base64 written as the bytes come, so that no array is held a second time
// whole; the bytes of one DataArray are one stream, as VTK decodes them.
class Base64Writer {
 public:
  explicit Base64Writer(std::FILE* out) : out_(out) {}
  void add(std::uint64_t bits) {
    for (int shift = 0; shift < 64; shift += 8) pending_.push_back(static_cast<char>((bits >> shift) & 0xff));
    if (pending_.size() >= kChunk) flush(false);
  }
  void add(double v) {
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    add(bits);
  }
  void add(std::uint8_t byte) {
    pending_.push_back(static_cast<char>(byte));
    if (pending_.size() >= kChunk) flush(false);
  }
  void finish() { flush(true); }

 private:
  // Only whole 3-byte groups before the end, so no padding lands mid-stream.
  void flush(bool last) {
    const std::size_t whole = last ? pending_.size() : pending_.size() / 3 * 3;
    const std::string text = base64(pending_.substr(0, whole));
    std::fwrite(text.data(), 1, text.size(), out_);
    pending_.erase(0, whole);
  }
  static constexpr std::size_t kChunk = 3 << 16;
  std::FILE* out_;
  std::string pending_;
};

// One inline binary DataArray: its byte count `bytes` (UInt64), then the
// values that `add_values` gives the writer.
template <typename AddValues>
void write_data_array(std::FILE* out, const char* type, const char* name, int components, std::uint64_t bytes,
                      AddValues add_values) {
  std::fprintf(out, "        <DataArray type=\"%s\" Name=\"%s\" NumberOfComponents=\"%d\" format=\"binary\">\n", type,
               name, components);
  std::fputs("          ", out);
  Base64Writer data(out);
  data.add(bytes);
  add_values(data);
  data.finish();
  std::fputs("\n        </DataArray>\n", out);
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

std::string base64(const std::string& bytes) {
  static constexpr char kDigits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t left = bytes.size() - i;
    std::uint32_t group = static_cast<unsigned char>(bytes[i]) << 16;
    if (left > 1) group |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (left > 2) group |= static_cast<unsigned char>(bytes[i + 2]);
    out.push_back(kDigits[(group >> 18) & 63]);
    out.push_back(kDigits[(group >> 12) & 63]);
    out.push_back(left > 1 ? kDigits[(group >> 6) & 63] : '=');
    out.push_back(left > 2 ? kDigits[group & 63] : '=');
  }
  return out;
}

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

void write_vti(std::FILE* out, const ObstacleMask& mask, const FlowFields& fields) {
  const std::size_t n = static_cast<std::size_t>(fields.nx) * fields.ny;
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
  auto doubles = [&](const char* name, const std::vector<double>& values) {
    write_data_array(out, "Float64", name, 1, 8 * n, [&](Base64Writer& data) {
      for (double v : values) data.add(v);
    });
  };
  write_data_array(out, "Float64", "velocity", 3, 24 * n, [&](Base64Writer& data) {
    for (std::size_t cell = 0; cell < n; ++cell) {
      data.add(fields.ux[cell]);
      data.add(fields.uy[cell]);
      data.add(0.0);
    }
  });
  doubles("density", fields.density);
  doubles("speed", fields.speed);
  doubles("vorticity", fields.vorticity);
  if (!fields.temperature.empty()) doubles("temperature", fields.temperature);
  write_data_array(out, "UInt8", "obstacle", 1, n, [&](Base64Writer& data) {
    const std::uint8_t* blocked = mask.kinds.data() + static_cast<std::size_t>(fields.first_row) * fields.nx;
    for (std::size_t cell = 0; cell < n; ++cell) data.add(static_cast<std::uint8_t>(is_obstacle(blocked[cell]) ? 1 : 0));
  });
  std::fputs(
      "      </PointData>\n"
      "    </Piece>\n"
      "  </ImageData>\n"
      "</VTKFile>\n",
      out);
}

void write_pvti(std::FILE* out, int nx, int ny, const std::vector<PvtiPiece>& pieces, bool temperature) {
  std::fprintf(out,
               "<?xml version=\"1.0\"?>\n"
               "<VTKFile type=\"PImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n"
               "  <PImageData WholeExtent=\"0 %d 0 %d 0 0\" GhostLevel=\"0\" Origin=\"0 0 0\" Spacing=\"1 1 1\">\n"
               "    <PPointData Scalars=\"speed\" Vectors=\"velocity\">\n"
               "      <PDataArray type=\"Float64\" Name=\"velocity\" NumberOfComponents=\"3\"/>\n"
               "      <PDataArray type=\"Float64\" Name=\"density\" NumberOfComponents=\"1\"/>\n"
               "      <PDataArray type=\"Float64\" Name=\"speed\" NumberOfComponents=\"1\"/>\n"
               "      <PDataArray type=\"Float64\" Name=\"vorticity\" NumberOfComponents=\"1\"/>\n",
               nx - 1, ny - 1);
  if (temperature) std::fputs("      <PDataArray type=\"Float64\" Name=\"temperature\" NumberOfComponents=\"1\"/>\n", out);
  std::fputs("      <PDataArray type=\"UInt8\" Name=\"obstacle\" NumberOfComponents=\"1\"/>\n"
             "    </PPointData>\n",
             out);
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
