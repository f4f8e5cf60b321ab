#include "io/field_image.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace d2q9 {

std::optional<ImageField> parse_image_field(const std::string& text) {
  if (text == "speed") return ImageField::Speed;
  if (text == "vorticity") return ImageField::Vorticity;
  if (text == "density") return ImageField::Density;
  if (text == "temperature") return ImageField::Temperature;
  return std::nullopt;
}

const char* to_string(ImageField field) {
  switch (field) {
    case ImageField::Speed: return "speed";
    case ImageField::Vorticity: return "vorticity";
    case ImageField::Density: return "density";
    case ImageField::Temperature: return "temperature";
  }
  return "?";
}

FieldImageLayout field_image_layout(int nx, int ny, int width) {
  FieldImageLayout l;
  width = std::max(1, width);
  l.scale = (nx + width - 1) / width;
  l.width = (nx + l.scale - 1) / l.scale;
  l.height = (ny + l.scale - 1) / l.scale;
  return l;
}

ColourRange image_range(ImageField field, const std::vector<float>& values) {
  double low = INFINITY, high = -INFINITY;
  for (const float v : values)
    if (std::isfinite(v)) {
      low = std::min(low, static_cast<double>(v));
      high = std::max(high, static_cast<double>(v));
    }
  if (!(low <= high)) return {0.0, 0.0};  // no fluid pixel
  if (field == ImageField::Speed) return {0.0, high};
  if (field == ImageField::Vorticity) {
    const double m = std::max(std::fabs(low), std::fabs(high));
    return {-m, m};
  }
  return {low, high};
}

void image_colour(ImageField field, float value, const ColourRange& range, std::uint8_t* rgba) {
  Rgb c = kObstacleGrey;
  if (!std::isnan(value)) {
    const double span = range.high - range.low;
    const double t = span > 0 ? (value - range.low) / span : (field == ImageField::Vorticity ? 0.5 : 0.0);
    c = field == ImageField::Vorticity ? diverging(t) : viridis(t);
  }
  rgba[0] = c.r;
  rgba[1] = c.g;
  rgba[2] = c.b;
  rgba[3] = 255;
}

PixelRows image_rows_of(const FieldImageLayout& l, int ny, int first_row, int rows) {
  // A pixel row's cell row falls as py grows: the rows in the slab are consecutive.
  PixelRows out;
  for (int py = 0; py < l.height; ++py) {
    const int jj = image_cell_y(l, ny, py);
    if (jj < first_row || jj >= first_row + rows) continue;
    if (out.count == 0) out.first = py;
    ++out.count;
  }
  return out;
}

std::vector<float> field_image_values(const FlowFields& fields, const ObstacleMask& mask, ImageField field,
                                      const FieldImageLayout& l, PixelRows rows) {
  const std::vector<double>& source = field == ImageField::Speed       ? fields.speed
                                      : field == ImageField::Vorticity ? fields.vorticity
                                      : field == ImageField::Density   ? fields.density
                                                                       : fields.temperature;
  if (source.empty()) throw InputError("a picture of the temperature needs a problem with [heat]");
  std::vector<float> values(static_cast<std::size_t>(l.width) * rows.count);
  for (int r = 0; r < rows.count; ++r)
    for (int px = 0; px < l.width; ++px) {
      const int ii = image_cell_x(l, fields.nx, px), jj = image_cell_y(l, mask.ny, rows.first + r);
      if (jj < fields.first_row || jj >= fields.first_row + fields.ny)
        throw std::logic_error("field_image_values: a pixel row outside the fields' rows");
      const std::size_t cell = static_cast<std::size_t>(jj - fields.first_row) * fields.nx + ii;
      values[static_cast<std::size_t>(r) * l.width + px] = mask.at(ii, jj) ? NAN : static_cast<float>(source[cell]);
    }
  return values;
}

FieldImage field_image(const FlowFields& fields, const ObstacleMask& mask, const FieldImageRequest& request) {
  const FieldImageLayout l = field_image_layout(fields.nx, fields.ny, request.width);
  return colour_field_image(request.field, l.width, l.height,
                            field_image_values(fields, mask, request.field, l, PixelRows{0, l.height}), "host");
}

FieldImage colour_field_image(ImageField field, int width, int height, const std::vector<float>& values,
                              const std::string& made_by) {
  FieldImage image;
  image.field = field;
  image.width = width;
  image.height = height;
  image.range = image_range(field, values);
  image.rgba.resize(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) image_colour(field, values[i], image.range, &image.rgba[4 * i]);
  image.made_by = made_by;
  return image;
}

std::string png_bytes(const FieldImage& image) {
  RgbImage rgb;
  rgb.width = image.width;
  rgb.height = image.height;
  rgb.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
  for (std::size_t i = 0; i < rgb.pixels.size(); ++i)
    rgb.pixels[i] = {image.rgba[4 * i], image.rgba[4 * i + 1], image.rgba[4 * i + 2]};
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* memory = ::open_memstream(&data, &size);
  if (!memory) throw std::runtime_error("live view: no memory for a picture");
  try {
    write_png(memory, rgb, "live picture");
  } catch (...) {
    std::fclose(memory);
    std::free(data);
    throw;
  }
  std::fclose(memory);
  std::string bytes(data, size);
  std::free(data);
  return bytes;
}

}  // namespace d2q9
