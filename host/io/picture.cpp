#include "io/picture.hpp"

#include <png.h>

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <stdexcept>

namespace d2q9 {

namespace {

// matplotlib's viridis sampled at 16 equally spaced points; linear
// interpolation between them stays within about 1/255 of the full table.
constexpr double kViridis[16][3] = {
    {0.267004, 0.004874, 0.329415}, {0.282327, 0.094955, 0.417331}, {0.277018, 0.185228, 0.489960},
    {0.253935, 0.265254, 0.529983}, {0.221989, 0.339161, 0.548752}, {0.190631, 0.407061, 0.556089},
    {0.163625, 0.471133, 0.558148}, {0.139147, 0.533812, 0.555298}, {0.120565, 0.596422, 0.543611},
    {0.134692, 0.658636, 0.517649}, {0.208030, 0.718701, 0.472873}, {0.327796, 0.773980, 0.406640},
    {0.477504, 0.821444, 0.318195}, {0.647257, 0.858400, 0.209861}, {0.824940, 0.884720, 0.106217},
    {0.993248, 0.906157, 0.143936}};

// ColorBrewer's 11-class RdBu, blue end first; its middle is white
// (247, 247, 247), and no interpolation between neighbours is the obstacle grey.
constexpr double kRdBuReversed[11][3] = {
    {5, 48, 97},     {33, 102, 172},  {67, 147, 195},  {146, 197, 222}, {209, 229, 240}, {247, 247, 247},
    {253, 219, 199}, {244, 165, 130}, {214, 96, 77},   {178, 24, 43},   {103, 0, 31}};

constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kBlack{0, 0, 0};
constexpr Rgb kNotFinite{255, 0, 0};  // a diverged run shows where it broke

// A 5x7 pixel font for the few characters the labels use.
constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;
struct Glyph {
  char c;
  const char* rows[kGlyphHeight];
};
constexpr Glyph kFont[] = {
    {'0', {".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."}},
    {'1', {"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}},
    {'2', {".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}},
    {'3', {"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}},
    {'4', {"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}},
    {'5', {"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}},
    {'6', {"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}},
    {'7', {"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}},
    {'8', {".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}},
    {'9', {".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}},
    {'.', {".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}},
    {'-', {".....", ".....", ".....", ".###.", ".....", ".....", "....."}},
    {'+', {".....", "..#..", "..#..", "#####", "..#..", "..#..", "....."}},
    {'e', {".....", ".....", ".###.", "#...#", "#####", "#....", ".###."}},
    {'|', {"..#..", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}},
    {'u', {".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"}},
    {'s', {".....", ".....", ".####", "#....", ".###.", "....#", "####."}},
    {'p', {".....", ".....", "####.", "#...#", "####.", "#....", "#...."}},
    {'t', {".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."}},
    {'v', {".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."}},
    {'o', {".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."}},
    {'r', {".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."}},
    {' ', {".....", ".....", ".....", ".....", ".....", ".....", "....."}},
};

const Glyph* find_glyph(char c) {
  for (const auto& g : kFont)
    if (g.c == c) return &g;
  return nullptr;
}

class Canvas {
 public:
  explicit Canvas(RgbImage& image) : image_(image) {}
  void set(int x, int y, Rgb c) {
    if (x >= 0 && y >= 0 && x < image_.width && y < image_.height)
      image_.pixels[static_cast<std::size_t>(y) * image_.width + x] = c;
  }
  void fill(int x, int y, int w, int h, Rgb c) {
    for (int yy = y; yy < y + h; ++yy)
      for (int xx = x; xx < x + w; ++xx) set(xx, yy, c);
  }
  // Text with its top-left corner at (x, y); unknown characters are left blank.
  void text(int x, int y, const std::string& s, int scale, Rgb c) {
    for (char ch : s) {
      if (const Glyph* g = find_glyph(ch))
        for (int row = 0; row < kGlyphHeight; ++row)
          for (int col = 0; col < kGlyphWidth; ++col)
            if (g->rows[row][col] == '#') fill(x + col * scale, y + row * scale, scale, scale, c);
      x += kGlyphAdvance * scale;
    }
  }

 private:
  RgbImage& image_;
};

constexpr int kLabelChars = 10;  // "|u|", "step 80000", "-1.23e-05"
constexpr int kTargetSide = 512;

}  // namespace

Rgb diverging(double t) {
  if (!(t > 0.0)) t = 0.0;
  if (t > 1.0) t = 1.0;
  const double pos = t * 10.0;
  const int i = std::min(9, static_cast<int>(pos));
  const double w = pos - i;
  auto channel = [&](int k) {
    return static_cast<std::uint8_t>(std::lround(kRdBuReversed[i][k] * (1.0 - w) + kRdBuReversed[i + 1][k] * w));
  };
  return {channel(0), channel(1), channel(2)};
}

Rgb viridis(double t) {
  if (!(t > 0.0)) t = 0.0;  // NaN too
  if (t > 1.0) t = 1.0;
  const double pos = t * 15.0;
  const int i = std::min(14, static_cast<int>(pos));
  const double w = pos - i;
  auto channel = [&](int k) {
    const double v = kViridis[i][k] * (1.0 - w) + kViridis[i + 1][k] * w;
    return static_cast<std::uint8_t>(std::lround(v * 255.0));
  };
  return {channel(0), channel(1), channel(2)};
}

PictureLayout picture_layout(int nx, int ny) {
  PictureLayout l{};
  l.scale = std::max(1, kTargetSide / std::max(nx, ny));
  const int field_w = nx * l.scale, field_h = ny * l.scale;
  l.text_scale = std::max(field_w, field_h) >= 256 ? 2 : 1;
  const int margin = 8 * l.text_scale;
  const int text_h = kGlyphHeight * l.text_scale;
  l.field_x = margin;
  l.field_y = margin;
  l.bar_x = l.field_x + field_w + margin;
  l.bar_y = margin;
  l.bar_width = 8 * l.text_scale;
  // Tall enough for the labels at both ends and the two in the middle.
  l.bar_height = std::max(field_h, 6 * text_h);
  const int label_w = kLabelChars * kGlyphAdvance * l.text_scale;
  l.width = l.bar_x + l.bar_width + margin / 2 + label_w + margin;
  l.height = margin + std::max(field_h, l.bar_height) + margin;
  l.width += l.width % 2;
  l.height += l.height % 2;
  return l;
}

std::string bar_label(PictureField field, double value) {
  char buf[32];
  if (value == 0.0) value = 0.0;  // no "-0"
  std::snprintf(buf, sizeof buf, field == PictureField::Vorticity && value != 0.0 ? "%+.3g" : "%.3g", value);
  return buf;
}

const std::vector<double>& picture_values(PictureField field, const FlowFields& fields) {
  return field == PictureField::Speed ? fields.speed : field == PictureField::Vorticity ? fields.vorticity : fields.temperature;
}

ColourRange own_range(PictureField field, const FlowFields& fields, const ObstacleMask& mask) {
  const std::vector<double>& values = picture_values(field, fields);
  const std::uint8_t* blocked = mask.kinds.data() + static_cast<std::size_t>(fields.first_row) * fields.nx;
  if (field == PictureField::Temperature) {
    ColourRange r{INFINITY, -INFINITY};
    for (std::size_t cell = 0; cell < values.size(); ++cell)
      if (!is_obstacle(blocked[cell]) && std::isfinite(values[cell]))
        r = {std::min(r.low, values[cell]), std::max(r.high, values[cell])};
    return r.low <= r.high ? r : ColourRange{};
  }
  double largest = 0.0;
  for (std::size_t cell = 0; cell < values.size(); ++cell)
    if (!is_obstacle(blocked[cell]) && std::isfinite(values[cell])) largest = std::max(largest, std::fabs(values[cell]));
  return field == PictureField::Speed ? ColourRange{0.0, largest} : ColourRange{-largest, largest};
}

Rgb field_colour(PictureField field, double value, const ColourRange& range) {
  if (!std::isfinite(value)) return kNotFinite;
  const bool sequential = field != PictureField::Vorticity;
  if (!(range.high > range.low)) return sequential ? viridis(0.0) : diverging(0.5);
  const double t = (value - range.low) / (range.high - range.low);
  return sequential ? viridis(t) : diverging(t);
}

RgbImage render_picture(PictureField field, const FlowFields& fields, const ObstacleMask& mask,
                        const ColourRange& range, const std::string& caption) {
  return render_cells(field, fields.nx, fields.ny, cell_colours(field, fields, mask, range), range, caption);
}

std::vector<Rgb> cell_colours(PictureField field, const FlowFields& fields, const ObstacleMask& mask,
                              const ColourRange& range) {
  const std::vector<double>& values = picture_values(field, fields);
  const std::uint8_t* blocked = mask.kinds.data() + static_cast<std::size_t>(fields.first_row) * fields.nx;
  std::vector<Rgb> cells(values.size());
  for (std::size_t cell = 0; cell < values.size(); ++cell)
    cells[cell] = is_obstacle(blocked[cell]) ? kObstacleGrey : field_colour(field, values[cell], range);
  return cells;
}

RgbImage render_cells(PictureField field, int nx, int ny, const std::vector<Rgb>& cells, const ColourRange& range,
                      const std::string& caption) {
  const PictureLayout l = picture_layout(nx, ny);
  RgbImage image;
  image.width = l.width;
  image.height = l.height;
  image.pixels.assign(static_cast<std::size_t>(l.width) * l.height, kWhite);
  Canvas canvas(image);

  for (int jj = 0; jj < ny; ++jj)
    for (int ii = 0; ii < nx; ++ii)
      canvas.fill(l.field_x + ii * l.scale, l.field_y + (ny - 1 - jj) * l.scale, l.scale, l.scale,
                  cells[static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * nx]);

  // Bar rows from the top (range.high) to the bottom (range.low).
  for (int row = 0; row < l.bar_height; ++row) {
    const double t = l.bar_height > 1 ? 1.0 - static_cast<double>(row) / (l.bar_height - 1) : 1.0;
    canvas.fill(l.bar_x, l.bar_y + row, l.bar_width, 1, field != PictureField::Vorticity ? viridis(t) : diverging(t));
  }
  const int ts = l.text_scale, text_h = kGlyphHeight * ts;
  const int label_x = l.bar_x + l.bar_width + 4 * ts;
  canvas.text(label_x, l.bar_y, bar_label(field, range.high), ts, kBlack);
  canvas.text(label_x, l.bar_y + l.bar_height - text_h, bar_label(field, range.low), ts, kBlack);
  const int middle = l.bar_y + l.bar_height / 2;
  canvas.text(label_x, middle - text_h - ts,
              field == PictureField::Speed ? "|u|" : field == PictureField::Vorticity ? "vort" : "T", ts, kBlack);
  if (!caption.empty()) canvas.text(label_x, middle + 2 * ts, caption, ts, kBlack);
  return image;
}

namespace {

std::uint32_t crc32(const unsigned char* data, std::size_t n, std::uint32_t crc = 0xffffffffu) {
  for (std::size_t i = 0; i < n; ++i) {
    crc ^= data[i];
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return crc;
}

void put_be32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xffu));
}

}  // namespace

std::string png_signature_chunk() {
  const std::string type_and_data = std::string("tEXtSoftware") + '\0' + "d2q9-bgk";
  std::string chunk;
  put_be32(chunk, static_cast<std::uint32_t>(type_and_data.size() - 4));
  chunk += type_and_data;
  put_be32(chunk, ~crc32(reinterpret_cast<const unsigned char*>(type_and_data.data()), type_and_data.size()));
  return chunk;
}

void write_png(std::FILE* out, const RgbImage& image, const std::string& name) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  png.width = static_cast<png_uint_32>(image.width);
  png.height = static_cast<png_uint_32>(image.height);
  png.format = PNG_FORMAT_RGB;
  static_assert(sizeof(Rgb) == 3, "pixels are packed RGB triples");
  png_alloc_size_t size = 0;
  const auto fail = [&]() {
    const std::string why = png.message;
    png_image_free(&png);
    throw std::runtime_error(name + ": cannot write PNG (" + why + ")");
  };
  if (!png_image_write_to_memory(&png, nullptr, &size, 0, image.pixels.data(), 0, nullptr)) fail();
  std::string bytes(size, '\0');
  if (!png_image_write_to_memory(&png, bytes.data(), &size, 0, image.pixels.data(), 0, nullptr)) fail();
  bytes.resize(size);
  // The signature goes before IEND, the last 12 bytes.
  bytes.insert(bytes.size() - 12, png_signature_chunk());
  std::fwrite(bytes.data(), 1, bytes.size(), out);  // the file's error flag says whether it failed
}

}  // namespace d2q9
