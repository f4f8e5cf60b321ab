// Pictures of the flow: the speed |u| per cell in a perceptually uniform
// colour map (viridis), or the vorticity in a diverging one (blue, white at
// 0, red), obstacles grey, y upward, with a labelled colour bar.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "io/fields.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

struct Rgb {
  std::uint8_t r, g, b;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

// Obstacle cells; neither colour map ever gives this grey, so it cannot mean a value.
constexpr Rgb kObstacleGrey{128, 128, 128};

// Viridis at t in [0, 1] (clamped).
Rgb viridis(double t);

// ColorBrewer's RdBu reversed at t in [0, 1] (clamped): dark blue, white at
// 0.5, dark red.
Rgb diverging(double t);

enum class PictureField { Speed, Vorticity, Temperature };
// The values a picture of `field` shows (FlowFields::temperature with heat).
const std::vector<double>& picture_values(PictureField field, const FlowFields& fields);

// The values a picture's colours run over, bottom to top of its colour bar;
// values beyond it take the end colours.
struct ColourRange {
  double low = 0.0, high = 0.0;
  bool operator==(const ColourRange& o) const { return low == o.low && high == o.high; }
};

// The range a picture takes for itself: speed from 0 to the fastest fluid
// cell, temperature from the coldest to the hottest, vorticity from -m to m, m the largest |w| of a fluid cell (symmetric,
// so white is 0). Non-finite values are left out. Over the rows `fields`
// holds: the whole grid's range has the largest high of its parts' ranges.
ColourRange own_range(PictureField field, const FlowFields& fields, const ObstacleMask& mask);

// How a run's pictures choose their ranges (--scale): each its own range
// (Auto), the first picture's range kept for the later ones (Fixed), or the
// ranges given, one per field drawn in the order speed, vorticity (Given).
struct PictureScale {
  enum class Mode { Auto, Fixed, Given } mode = Mode::Auto;
  std::vector<ColourRange> given;
};

// The colour of `value` in a picture of `field` over `range`; an empty range
// (a fluid at rest) gives the colour of its low end for speed and white for
// vorticity.
Rgb field_colour(PictureField field, double value, const ColourRange& range);

// Where things are in a picture of an nx x ny grid: cell (ii, jj) covers
// scale x scale pixels from (field_x + ii*scale, field_y + (ny-1-jj)*scale).
struct PictureLayout {
  int scale;             // pixels per cell side: small grids are enlarged to about 512 pixels
  int field_x, field_y;  // top-left corner of the flow field
  int bar_x, bar_y;      // top-left corner of the colour bar
  int bar_width, bar_height;
  int text_scale;        // font pixels per glyph pixel
  int width, height;     // whole image, both even so video encoders accept the frames
};
PictureLayout picture_layout(int nx, int ny);

struct RgbImage {
  int width = 0;
  int height = 0;
  std::vector<Rgb> pixels;  // row-major, top row first
  Rgb at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
};

// A colour bar's end label: "%.3g", vorticity's with its sign ("+0.0123").
std::string bar_label(PictureField field, double value);

// `field` over `range` with its colour bar, labelled with the range's ends
// (vorticity: signed) and the field ("|u|" or "vort"); `caption`, if not
// empty, is written beside the bar (e.g. "step 1000").
RgbImage render_picture(PictureField field, const FlowFields& fields, const ObstacleMask& mask,
                        const ColourRange& range, const std::string& caption = "");

// render_picture in two halves, for a grid split across ranks: each rank
// colours the cells of its rows (obstacles grey; row-major over fields' rows,
// 3 bytes a cell), and the cells of the whole nx x ny grid, bottom row first,
// make the picture.
std::vector<Rgb> cell_colours(PictureField field, const FlowFields& fields, const ObstacleMask& mask,
                              const ColourRange& range);
RgbImage render_cells(PictureField field, int nx, int ny, const std::vector<Rgb>& cells, const ColourRange& range,
                      const std::string& caption = "");

// 8-bit RGB PNG; std::runtime_error naming `name` on failure.
// The picture carries a tEXt chunk kPngSignature ("Software" = "d2q9-bgk")
// just before its end, so that viewers name the program that drew it (a mark
// is no proof of whose file it is: the output folder's manifest is,
// io/output_guard.hpp).
void write_png(std::FILE* out, const RgbImage& image, const std::string& name);

// The bytes of that tEXt chunk, length and CRC included.
std::string png_signature_chunk();

}  // namespace d2q9
