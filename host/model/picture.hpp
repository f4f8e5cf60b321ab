// Pictures of the flow: the speed |u| per cell in a perceptually uniform
// colour map (viridis), obstacles grey, y upward, with a labelled colour bar.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "model/problem.hpp"

namespace d2q9 {

struct Rgb {
  std::uint8_t r, g, b;
  bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

// Obstacle cells; viridis never has r == g == b, so grey cannot mean a speed.
constexpr Rgb kObstacleGrey{128, 128, 128};

// Viridis at t in [0, 1] (clamped).
Rgb viridis(double t);

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

// The speed field of distributions `f` (layout as Solver::distributions) with
// a colour bar from 0 to the largest fluid speed; `caption`, if not empty, is
// written beside the bar (e.g. "step 1000").
RgbImage render_speed_picture(const Params& params, const ObstacleMask& mask, const std::vector<double>& f,
                              const std::string& caption = "");

// 8-bit RGB PNG; std::runtime_error naming `name` on failure.
void write_png(std::FILE* out, const RgbImage& image, const std::string& name);

}  // namespace d2q9
