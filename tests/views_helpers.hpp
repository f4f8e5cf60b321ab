// Reading back what the picture, VTK and summary writers produce: each reader
// accepts exactly what the program writes and throws on anything else.
#pragma once

#include <png.h>

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


// RFC 4648 base64 with padding; throws on any other character.
inline std::string decode_base64(const std::string& text) {
  auto digit = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    throw std::runtime_error(std::string("not base64: '") + c + "'");
  };
  if (text.size() % 4 != 0) throw std::runtime_error("base64 length not a multiple of 4");
  std::string out;
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const int pad = (text[i + 3] == '=') + (text[i + 2] == '=');
    if (pad && i + 4 != text.size()) throw std::runtime_error("base64 padding before the end");
    std::uint32_t group = digit(text[i]) << 18 | digit(text[i + 1]) << 12;
    if (pad < 2) group |= digit(text[i + 2]) << 6;
    if (pad < 1) group |= digit(text[i + 3]);
    out.push_back(static_cast<char>(group >> 16));
    if (pad < 2) out.push_back(static_cast<char>((group >> 8) & 0xff));
    if (pad < 1) out.push_back(static_cast<char>(group & 0xff));
  }
  return out;
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

// An XML ImageData file as write_vti writes it: little-endian, UInt64
// headers, one Piece covering the whole extent, inline base64 arrays.
struct VtiArray {
  std::string type;  // "Float64" or "UInt8"
  int components = 0;
  std::vector<double> values;  // components per point
};
struct VtiImage {
  std::string whole_extent, origin, spacing;
  int nx = 0, ny = 0;
  std::vector<std::string> names;  // in file order
  std::map<std::string, VtiArray> arrays;
};

inline VtiImage read_vti(const std::string& path) {
  const std::string xml = slurp(path);
  if (xml.rfind("<?xml version=\"1.0\"?>\n", 0) != 0) throw std::runtime_error(path + ": no XML declaration");
  std::size_t at = 0;
  const auto file = xml_element(xml, "VTKFile", 0, at);
  expect_attribute(file, "type", "ImageData");
  expect_attribute(file, "byte_order", "LittleEndian");
  expect_attribute(file, "header_type", "UInt64");
  VtiImage v;
  const auto image = xml_element(xml, "ImageData", at, at);
  v.whole_extent = image.at("WholeExtent");
  v.origin = image.at("Origin");
  v.spacing = image.at("Spacing");
  int x0, x1, y0, y1, z0, z1;
  if (std::sscanf(v.whole_extent.c_str(), "%d %d %d %d %d %d", &x0, &x1, &y0, &y1, &z0, &z1) != 6 || x0 != 0 ||
      y0 != 0 || z0 != 0 || z1 != 0)
    throw std::runtime_error(path + ": unexpected WholeExtent '" + v.whole_extent + "'");
  v.nx = x1 + 1;
  v.ny = y1 + 1;
  expect_attribute(xml_element(xml, "Piece", at, at), "Extent", v.whole_extent);
  const std::size_t points = static_cast<std::size_t>(v.nx) * v.ny;
  xml_element(xml, "PointData", at, at);
  const std::size_t data_end = xml.find("</PointData>", at);
  if (data_end == std::string::npos) throw std::runtime_error(path + ": no </PointData>");
  while (true) {
    std::size_t next = 0;
    const auto found = xml.find("<DataArray ", at);
    if (found == std::string::npos || found > data_end) break;
    const auto element = xml_element(xml, "DataArray", at, next);
    expect_attribute(element, "format", "binary");
    VtiArray a;
    a.type = element.at("type");
    a.components = std::stoi(element.at("NumberOfComponents"));
    const auto close = xml.find("</DataArray>", next);
    std::string text = xml.substr(next, close - next);
    text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == ' ' || c == '\n'; }), text.end());
    const std::string bytes = decode_base64(text);
    const std::size_t width = a.type == "Float64" ? 8 : a.type == "UInt8" ? 1 : 0;
    if (width == 0) throw std::runtime_error(path + ": unexpected type " + a.type);
    const std::size_t count = points * a.components;
    std::uint64_t header = 0;
    for (int b = 7; b >= 0 && bytes.size() >= 8; --b) header = header << 8 | static_cast<unsigned char>(bytes[b]);
    if (bytes.size() != 8 + count * width || header != count * width)
      throw std::runtime_error(path + ": " + element.at("Name") + " holds " + std::to_string(bytes.size()) +
                               " bytes, header says " + std::to_string(header));
    for (std::size_t i = 0; i < count; ++i) {
      const char* p = bytes.data() + 8 + i * width;
      if (width == 1) {
        a.values.push_back(static_cast<unsigned char>(*p));
        continue;
      }
      std::uint64_t bits = 0;
      for (int b = 7; b >= 0; --b) bits = bits << 8 | static_cast<unsigned char>(p[b]);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      a.values.push_back(d);
    }
    v.names.push_back(element.at("Name"));
    v.arrays[element.at("Name")] = std::move(a);
    at = close + 1;
  }
  return v;
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
