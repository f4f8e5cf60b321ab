// Reading back what the picture, VTK and summary writers produce: each reader
// accepts exactly what the program writes and throws on anything else.
#pragma once

#include <png.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "io/picture.hpp"

namespace d2q9::test {

// Decodes a PNG file into 8-bit RGB with libpng; throws on anything invalid.
inline RgbImage read_png(const std::string& path) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&png, path.c_str())) throw std::runtime_error(path + ": " + png.message);
  png.format = PNG_FORMAT_RGB;
  RgbImage image;
  image.width = static_cast<int>(png.width);
  image.height = static_cast<int>(png.height);
  image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
  if (!png_image_finish_read(&png, nullptr, image.pixels.data(), 0, nullptr)) {
    png_image_free(&png);
    throw std::runtime_error(path + ": " + png.message);
  }
  return image;
}

// A legacy binary VTK STRUCTURED_POINTS file, parsed strictly.
struct VtkImage {
  int nx = 0, ny = 0, nz = 0;
  std::map<std::string, std::vector<double>> arrays;  // vectors flattened, 3 per point
};

inline VtkImage read_vtk(const std::string& path) {
  const std::string data = slurp(path);
  std::size_t pos = 0;
  auto line = [&]() {
    const auto end = data.find('\n', pos);
    if (end == std::string::npos) throw std::runtime_error(path + ": truncated header");
    std::string l = data.substr(pos, end - pos);
    pos = end + 1;
    return l;
  };
  auto expect = [&](const std::string& want) {
    const std::string got = line();
    if (got != want) throw std::runtime_error(path + ": expected '" + want + "', got '" + got + "'");
  };
  if (line().rfind("# vtk DataFile Version ", 0) != 0) throw std::runtime_error(path + ": not a VTK file");
  line();  // title
  expect("BINARY");
  expect("DATASET STRUCTURED_POINTS");
  VtkImage v;
  if (std::sscanf(line().c_str(), "DIMENSIONS %d %d %d", &v.nx, &v.ny, &v.nz) != 3)
    throw std::runtime_error(path + ": bad DIMENSIONS");
  expect("ORIGIN 0 0 0");
  expect("SPACING 1 1 1");
  const std::size_t points = static_cast<std::size_t>(v.nx) * v.ny * v.nz;
  expect("POINT_DATA " + std::to_string(points));
  while (pos < data.size()) {
    std::istringstream header(line());
    std::string kind, name, type;
    header >> kind >> name >> type;
    std::size_t components = 1;
    if (kind == "SCALARS") {
      expect("LOOKUP_TABLE default");
    } else if (kind == "VECTORS") {
      components = 3;
    } else {
      throw std::runtime_error(path + ": unexpected section '" + kind + "'");
    }
    const std::size_t count = points * components;
    std::vector<double>& out = v.arrays[name];
    if (type == "double") {
      if (pos + 8 * count > data.size()) throw std::runtime_error(path + ": " + name + " truncated");
      for (std::size_t i = 0; i < count; ++i, pos += 8) {
        std::uint64_t bits = 0;
        for (int b = 0; b < 8; ++b) bits = (bits << 8) | static_cast<unsigned char>(data[pos + b]);
        double d;
        std::memcpy(&d, &bits, sizeof d);
        out.push_back(d);
      }
    } else if (type == "unsigned_char") {
      if (pos + count > data.size()) throw std::runtime_error(path + ": " + name + " truncated");
      for (std::size_t i = 0; i < count; ++i) out.push_back(static_cast<unsigned char>(data[pos++]));
    } else {
      throw std::runtime_error(path + ": unexpected type '" + type + "'");
    }
    if (pos >= data.size() || data[pos] != '\n') throw std::runtime_error(path + ": no newline after " + name);
    ++pos;
  }
  return v;
}


// The attributes of the first element `<tag ...>` at or after `from`;
// `end` is left just past its '>'.
inline std::map<std::string, std::string> xml_element(const std::string& xml, const std::string& tag, std::size_t from,
                                                      std::size_t& end) {
  const auto start = xml.find("<" + tag + " ", from);
  if (start == std::string::npos) throw std::runtime_error("no <" + tag + "> element");
  end = xml.find('>', start);
  if (end == std::string::npos) throw std::runtime_error("<" + tag + "> not closed");
  ++end;
  const std::string text = xml.substr(start, end - start);
  std::map<std::string, std::string> attributes;
  static const std::regex attribute(R"re(([A-Za-z_]+)="([^"]*)")re");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), attribute); it != std::sregex_iterator(); ++it)
    attributes[(*it)[1]] = (*it)[2];
  return attributes;
}

inline void expect_attribute(const std::map<std::string, std::string>& element, const std::string& name,
                             const std::string& want) {
  const auto it = element.find(name);
  const std::string got = it == element.end() ? "(missing)" : it->second;
  if (got != want) throw std::runtime_error(name + ": expected '" + want + "', got '" + got + "'");
}

// An XML ImageData file as write_vti writes it: little-endian, UInt64 byte
// counts, one Piece covering the whole extent (rows from first_row: a .pvti's
// piece), every DataArray appended raw.
// Each array is read at its own offset (as VTK reads it), its byte count
// must be what the extent implies, and the arrays must tile the appended
// block, which the file's closing tags follow: no gap, no overlap, nothing
// after.
struct VtiArray {
  std::string type;  // "Float32", "Float64" or "UInt8"
  int components = 0;
  std::uint64_t offset = 0;    // into the appended block, as the XML gives it
  std::vector<double> values;  // components per point
};
struct VtiImage {
  std::string whole_extent, origin, spacing;
  int nx = 0, ny = 0, first_row = 0;  // ny rows from first_row
  std::vector<std::string> names;  // in file order
  std::map<std::string, VtiArray> arrays;
  std::size_t appended_at = 0;  // the file offset of the block's first byte, just after its '_'
};

// A .vti without heat: the extent given, origin 0, spacing 1, the four
// real arrays of `type` (velocity with 3 components) and the UInt8 obstacle.
inline void check_vti_layout(const VtiImage& v, const std::string& whole_extent, const std::string& type) {
  CHECK(v.whole_extent == whole_extent);
  CHECK(v.origin == "0 0 0");
  CHECK(v.spacing == "1 1 1");
  CHECK(v.names == std::vector<std::string>{"velocity", "density", "speed", "vorticity", "obstacle"});
  CHECK(v.arrays.at("velocity").components == 3);
  for (const char* name : {"velocity", "density", "speed", "vorticity"}) CHECK(v.arrays.at(name).type == type);
  CHECK(v.arrays.at("obstacle").type == "UInt8");
}

// Little-endian bytes at `p` as an unsigned integer of `width` bytes.
inline std::uint64_t little_endian(const char* p, std::size_t width) {
  std::uint64_t bits = 0;
  for (std::size_t b = width; b-- > 0;) bits = bits << 8 | static_cast<unsigned char>(p[b]);
  return bits;
}

inline VtiImage read_vti(const std::string& path) {
  const std::string data = slurp(path);
  static const std::string kAppended = "  </ImageData>\n  <AppendedData encoding=\"raw\">\n   _";
  static const std::string kClosing = "\n  </AppendedData>\n</VTKFile>\n";
  const std::size_t xml_end = data.find(kAppended);
  if (xml_end == std::string::npos) throw std::runtime_error(path + ": no raw <AppendedData> after </ImageData>");
  // Only the XML before the binary block is searched for elements.
  const std::string xml = data.substr(0, xml_end);
  if (xml.rfind("<?xml version=\"1.0\"?>\n", 0) != 0) throw std::runtime_error(path + ": no XML declaration");
  std::size_t at = 0;
  const auto file = xml_element(xml, "VTKFile", 0, at);
  expect_attribute(file, "type", "ImageData");
  expect_attribute(file, "byte_order", "LittleEndian");
  expect_attribute(file, "header_type", "UInt64");
  VtiImage v;
  v.appended_at = xml_end + kAppended.size();
  const auto image = xml_element(xml, "ImageData", at, at);
  v.whole_extent = image.at("WholeExtent");
  v.origin = image.at("Origin");
  v.spacing = image.at("Spacing");
  int x0, x1, y0, y1, z0, z1;
  if (std::sscanf(v.whole_extent.c_str(), "%d %d %d %d %d %d", &x0, &x1, &y0, &y1, &z0, &z1) != 6 || x0 != 0 ||
      x1 < 0 || y0 < 0 || y1 < y0 || z0 != 0 || z1 != 0)
    throw std::runtime_error(path + ": unexpected WholeExtent '" + v.whole_extent + "'");
  v.nx = x1 + 1;
  v.ny = y1 - y0 + 1;
  v.first_row = y0;
  expect_attribute(xml_element(xml, "Piece", at, at), "Extent", v.whole_extent);
  const std::size_t points = static_cast<std::size_t>(v.nx) * v.ny;
  xml_element(xml, "PointData", at, at);
  const std::size_t data_end = xml.find("</PointData>", at);
  if (data_end == std::string::npos) throw std::runtime_error(path + ": no </PointData>");
  if (xml.compare(data_end, std::string::npos, "</PointData>\n    </Piece>\n") != 0)
    throw std::runtime_error(path + ": unexpected XML after </PointData>");
  std::map<std::uint64_t, std::uint64_t> blocks;  // offset -> 8 + bytes, for the layout check
  while (true) {
    const auto found = xml.find("<DataArray ", at);
    if (found == std::string::npos || found > data_end) break;
    const auto element = xml_element(xml, "DataArray", at, at);
    if (xml.compare(at - 2, 2, "/>") != 0) throw std::runtime_error(path + ": an appended DataArray holds text");
    const std::string name = element.at("Name");
    expect_attribute(element, "format", "appended");
    VtiArray a;
    a.type = element.at("type");
    a.components = std::stoi(element.at("NumberOfComponents"));
    a.offset = std::stoull(element.at("offset"));
    const std::size_t width = a.type == "Float64" ? 8 : a.type == "Float32" ? 4 : a.type == "UInt8" ? 1 : 0;
    if (width == 0) throw std::runtime_error(path + ": unexpected type " + a.type);
    const std::uint64_t bytes = points * a.components * width;
    const std::size_t start = v.appended_at + a.offset;
    if (start + 8 > data.size() || start + 8 + bytes > data.size())
      throw std::runtime_error(path + ": " + name + " at offset " + std::to_string(a.offset) + " runs past the end");
    const std::uint64_t header = little_endian(data.data() + start, 8);
    if (header != bytes)
      throw std::runtime_error(path + ": " + name + "'s byte count is " + std::to_string(header) + ", its extent needs " +
                               std::to_string(bytes));
    const char* p = data.data() + start + 8;
    a.values.reserve(points * a.components);
    for (std::size_t i = 0; i < points * a.components; ++i, p += width) {
      const std::uint64_t bits = little_endian(p, width);
      if (width == 1) {
        a.values.push_back(static_cast<double>(bits));
      } else if (width == 4) {
        const auto narrow = static_cast<std::uint32_t>(bits);
        float f;
        std::memcpy(&f, &narrow, sizeof f);
        a.values.push_back(f);
      } else {
        double d;
        std::memcpy(&d, &bits, sizeof d);
        a.values.push_back(d);
      }
    }
    if (!blocks.emplace(a.offset, 8 + bytes).second) throw std::runtime_error(path + ": two arrays at one offset");
    if (v.arrays.count(name)) throw std::runtime_error(path + ": two arrays named " + name);
    v.names.push_back(name);
    v.arrays[name] = std::move(a);
  }
  std::uint64_t next = 0;
  for (const auto& [offset, size] : blocks) {
    if (offset != next)
      throw std::runtime_error(path + ": an array at offset " + std::to_string(offset) + ", the one before ends at " +
                               std::to_string(next));
    next = offset + size;
  }
  if (data.size() != v.appended_at + next + kClosing.size() || data.compare(v.appended_at + next, std::string::npos, kClosing) != 0)
    throw std::runtime_error(path + ": " + std::to_string(data.size()) + " bytes, the arrays end at " +
                             std::to_string(v.appended_at + next) + " and the closing tags should follow");
  return v;
}

// `got`, a value of a .vti array of `type`, against `want`, a double known
// to within `slack`: a Float32 array rounds to nearest, within 2^-24 of the
// value, Float64 holds it as it was.
inline bool vti_close(const std::string& type, double got, double want, double slack) {
  const double rounding = type == "Float32" ? std::ldexp(std::fabs(want) + slack, -24) : 0.0;
  return std::fabs(got - want) <= rounding + slack;
}

// A .pvd collection: (timestep, file) per DataSet, in file order.
struct PvdEntry {
  int step;
  std::string file;
  bool operator==(const PvdEntry& o) const { return step == o.step && file == o.file; }
};

inline std::vector<PvdEntry> read_pvd(const std::string& path) {
  const std::string xml = slurp(path);
  std::size_t at = 0;
  expect_attribute(xml_element(xml, "VTKFile", 0, at), "type", "Collection");
  if (xml.find("<Collection>", at) == std::string::npos || xml.find("</Collection>") == std::string::npos)
    throw std::runtime_error(path + ": no <Collection>");
  std::vector<PvdEntry> entries;
  while (xml.find("<DataSet ", at) != std::string::npos) {
    const auto d = xml_element(xml, "DataSet", at, at);
    entries.push_back({std::stoi(d.at("timestep")), d.at("file")});
  }
  return entries;
}

}  // namespace d2q9::test
