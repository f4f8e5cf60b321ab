// Reading back what the picture, VTK and summary writers produce.
#pragma once

#include <png.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "helpers.hpp"
#include "model/picture.hpp"

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

}  // namespace d2q9::test
