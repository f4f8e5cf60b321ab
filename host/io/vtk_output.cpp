#include "io/vtk_output.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
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

namespace d2q9 {

namespace {

// The value of attribute `name` in the XML tag `tag` ("" where absent).
std::string xml_attribute(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const auto at = tag.find(key);
  if (at == std::string::npos) return "";
  const auto start = at + key.size();
  const auto end = tag.find('"', start);
  return end == std::string::npos ? "" : tag.substr(start, end - start);
}

// The XML tags named `name` in `xml`, each from '<' to '>'.
std::vector<std::string> xml_tags(const std::string& xml, const std::string& name) {
  std::vector<std::string> tags;
  const std::string open = "<" + name + " ";
  for (auto at = xml.find(open); at != std::string::npos; at = xml.find(open, at + 1))
    tags.push_back(xml.substr(at, xml.find('>', at) - at + 1));
  return tags;
}

// Little-endian values of `type` as doubles; 0 bytes for an unknown type.
std::size_t value_bytes(const std::string& type) {
  if (type == "Int8" || type == "UInt8") return 1;
  if (type == "Int16" || type == "UInt16") return 2;
  if (type == "Int32" || type == "UInt32" || type == "Float32") return 4;
  if (type == "Int64" || type == "UInt64" || type == "Float64") return 8;
  return 0;
}

template <typename T>
void append_values(const std::string& bytes, std::vector<double>& out) {
  const std::size_t n = bytes.size() / sizeof(T);
  out.reserve(out.size() + n);
  for (std::size_t i = 0; i < n; ++i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    out.push_back(static_cast<double>(v));
  }
}

std::vector<double> values_of(const std::string& type, const std::string& bytes) {
  std::vector<double> out;
  if (type == "Int8") append_values<std::int8_t>(bytes, out);
  if (type == "UInt8") append_values<std::uint8_t>(bytes, out);
  if (type == "Int16") append_values<std::int16_t>(bytes, out);
  if (type == "UInt16") append_values<std::uint16_t>(bytes, out);
  if (type == "Int32") append_values<std::int32_t>(bytes, out);
  if (type == "UInt32") append_values<std::uint32_t>(bytes, out);
  if (type == "Int64") append_values<std::int64_t>(bytes, out);
  if (type == "UInt64") append_values<std::uint64_t>(bytes, out);
  if (type == "Float32") append_values<float>(bytes, out);
  if (type == "Float64") append_values<double>(bytes, out);
  return out;
}

// The XML before the appended data, checked: what read_vti can read.
struct VtiHeader {
  std::string xml;
  std::size_t count_bytes = 8;  // each array's byte count: UInt64 or UInt32
  std::uint64_t data_start = 0; // the first byte after '_'
};

VtiHeader read_vti_header(std::ifstream& in, const std::string& path) {
  const auto fail = [&](const std::string& why) { throw InputError(path + ": " + why); };
  VtiHeader h;
  constexpr std::size_t kMaxXml = std::size_t{1} << 20;
  std::string chunk(4096, '\0');
  std::size_t mark = std::string::npos;
  while (mark == std::string::npos && h.xml.size() < kMaxXml) {
    in.read(&chunk[0], static_cast<std::streamsize>(chunk.size()));
    if (in.gcount() == 0) break;
    h.xml.append(chunk, 0, static_cast<std::size_t>(in.gcount()));
    const auto appended = h.xml.find("<AppendedData");
    if (appended != std::string::npos) mark = h.xml.find('_', h.xml.find('>', appended));
  }
  if (h.xml.compare(0, 5, "<?xml") != 0 && h.xml.compare(0, 8, "<VTKFile") != 0) fail("not a VTK XML file");
  const std::vector<std::string> file = xml_tags(h.xml, "VTKFile");
  if (file.empty() || xml_attribute(file[0], "type") != "ImageData") fail("not VTK XML image data (.vti)");
  if (xml_attribute(file[0], "byte_order") != "LittleEndian") fail("holds big-endian data; only little-endian is read");
  if (!xml_attribute(file[0], "compressor").empty()) fail("holds compressed data; only raw appended data is read");
  const std::string header_type = xml_attribute(file[0], "header_type");
  if (header_type == "UInt32") h.count_bytes = 4;
  else if (!header_type.empty() && header_type != "UInt64") fail("header_type " + header_type + " is not UInt32 or UInt64");
  if (mark == std::string::npos) fail("has no raw <AppendedData> block");
  const std::vector<std::string> appended = xml_tags(h.xml, "AppendedData");
  if (appended.empty() || xml_attribute(appended[0], "encoding") != "raw")
    fail("its appended data is not raw (base64 is not read)");
  h.data_start = mark + 1;
  h.xml.resize(h.xml.find("<AppendedData"));
  return h;
}

}  // namespace

const VtiValues& VtiContents::array(const std::string& name, const std::string& path) const {
  for (const VtiValues& a : arrays)
    if (a.name == name) return a;
  throw InputError(path + ": has no point data array '" + name + "'");
}

VtiContents read_vti_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open file (" + std::strerror(errno) + ")");
  const VtiHeader h = read_vti_header(in, path);
  const auto fail = [&](const std::string& why) { throw InputError(path + ": " + why); };
  VtiContents image;
  const std::vector<std::string> pieces = xml_tags(h.xml, "Piece");
  if (pieces.size() != 1) fail("holds " + std::to_string(pieces.size()) + " pieces; one is read");
  std::istringstream extent(xml_attribute(pieces[0], "Extent"));
  for (int& e : image.extent) extent >> e;
  if (!extent || image.nx() < 1 || image.ny() < 1) fail("has no valid Extent");
  const std::uint64_t points = static_cast<std::uint64_t>(image.nx()) * static_cast<std::uint64_t>(image.ny());
  for (const std::string& tag : xml_tags(h.xml, "DataArray")) {
    VtiValues a;
    a.name = xml_attribute(tag, "Name");
    const std::string type = xml_attribute(tag, "type");
    const std::string components = xml_attribute(tag, "NumberOfComponents");
    a.components = components.empty() ? 1 : std::atoi(components.c_str());
    if (xml_attribute(tag, "format") != "appended") fail("array '" + a.name + "' is not in the appended data");
    if (value_bytes(type) == 0 || a.components < 1) fail("array '" + a.name + "' has type " + type + ", not read");
    const std::uint64_t bytes = points * static_cast<std::uint64_t>(a.components) * value_bytes(type);
    std::uint64_t count = 0;
    in.clear();
    in.seekg(static_cast<std::streamoff>(h.data_start + std::strtoull(xml_attribute(tag, "offset").c_str(), nullptr, 10)));
    in.read(reinterpret_cast<char*>(&count), static_cast<std::streamsize>(h.count_bytes));
    if (!in || count != bytes)
      fail("array '" + a.name + "' holds " + std::to_string(count) + " bytes, not the " + std::to_string(bytes) +
           " of its " + std::to_string(points) + " points");
    std::string raw(bytes, '\0');
    in.read(&raw[0], static_cast<std::streamsize>(bytes));
    if (static_cast<std::uint64_t>(in.gcount()) != bytes) fail("array '" + a.name + "' is cut short");
    a.values = values_of(type, raw);
    image.arrays.push_back(std::move(a));
  }
  return image;
}

}  // namespace d2q9
