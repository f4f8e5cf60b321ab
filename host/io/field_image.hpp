// The live view's pictures (host/serve/): one field of the flow, sampled
// down to at most a requested width and colour-mapped into RGBA, obstacles
// grey, y upward. A device backend samples them with cl/render.cl; this is
// the host's way, from the flow fields, for backends without it; the colours
// are the host's either way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/fields.hpp"
#include "io/picture.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

enum class ImageField { Speed = 0, Vorticity = 1, Density = 2, Temperature = 3 };
// "speed", "vorticity", "density" or "temperature"; nullopt otherwise.
std::optional<ImageField> parse_image_field(const std::string& text);
const char* to_string(ImageField field);

// The picture asked for: no wider than `width` pixels (at least 1).
struct FieldImageRequest {
  ImageField field = ImageField::Speed;
  int width = 512;
};

// Cells per pixel side, and the picture's size, for an nx x ny grid drawn at
// most `width` wide: every `scale`-th cell from the centre of each block
// (the same cells on the device and the host).
struct FieldImageLayout {
  int scale = 1, width = 1, height = 1;
};
FieldImageLayout field_image_layout(int nx, int ny, int width);
// The cell (ii, jj) pixel (px, py) shows, py = 0 the top row.
inline int image_cell_x(const FieldImageLayout& l, int nx, int px) {
  const int ii = px * l.scale + l.scale / 2;
  return ii < nx ? ii : nx - 1;
}
inline int image_cell_y(const FieldImageLayout& l, int ny, int py) {
  const int jj = (l.height - 1 - py) * l.scale + l.scale / 2;
  return jj < ny ? jj : ny - 1;
}

// The picture's pixel rows [first, first + count), top row first, whose
// cells lie in grid rows [first_row, first_row + rows) of an ny-row grid: an
// MPI rank's part of the picture (count 0 where none does: a slab thinner
// than a pixel's block may show none). Each pixel row lies in one slab.
struct PixelRows {
  int first = 0, count = 0;
};
PixelRows image_rows_of(const FieldImageLayout& l, int ny, int first_row, int rows);

struct FieldImage {
  ImageField field = ImageField::Speed;
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // row-major, top row first, 4 bytes a pixel
  ColourRange range;               // what the colours run over (the colour bar's ends)
  std::string made_by;             // "device" or "host"
};

// The colours' range of the sampled fluid values (NaN: an obstacle):
// speed 0..max, vorticity -m..m, density and temperature min..max.
ColourRange image_range(ImageField field, const std::vector<float>& values);
// The colour of a sampled value (NaN: obstacle grey), alpha 255.
void image_colour(ImageField field, float value, const ColourRange& range, std::uint8_t* rgba);

// The picture of sampled values (width x height, top row first; NaN:
// obstacle) over their range; `made_by` says where they were sampled.
FieldImage colour_field_image(ImageField field, int width, int height, const std::vector<float>& values,
                              const std::string& made_by);

// The picture from the fields of the whole grid (the host's way).
FieldImage field_image(const FlowFields& fields, const ObstacleMask& mask, const FieldImageRequest& request);
// The sampled values (NaN: obstacle) of pixel rows `rows` of the picture laid
// out as `l` over `mask`'s grid, top row first, from `fields`, which hold
// those pixels' cells: the whole grid's, or an MPI rank's own rows (their
// vorticity from add_vorticity). field_image's values, row for row.
std::vector<float> field_image_values(const FlowFields& fields, const ObstacleMask& mask, ImageField field,
                                      const FieldImageLayout& l, PixelRows rows);

// The picture as a PNG file's bytes (RGB: every pixel is opaque).
std::string png_bytes(const FieldImage& image);

}  // namespace d2q9
