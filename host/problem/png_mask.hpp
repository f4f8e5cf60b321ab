// Obstacle masks drawn as pictures: which pixels of a PNG are dark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace d2q9 {

// A PNG's pixels as dark (1) or light (0), row-major with the picture's top
// row first, as it is shown. A pixel is dark when its luma
// (0.299 R + 0.587 G + 0.114 B, 0..255, after any transparency is composited
// onto white) is below 128. Any PNG colour type and bit depth is accepted.
struct PngMask {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> dark;

  bool at(int x, int y) const { return dark[static_cast<std::size_t>(x) + static_cast<std::size_t>(y) * width] != 0; }
};

// InputError "<name>: ..." when the bytes are no PNG, are damaged, or the
// picture is not `width` x `height` pixels (checked before it is decoded).
PngMask decode_png_mask(const unsigned char* bytes, std::size_t size, const std::string& name, int width, int height);

// The file read whole (at most `max_bytes`), then decode_png_mask.
PngMask read_png_mask(const std::string& path, int width, int height, std::uint64_t max_bytes);

}  // namespace d2q9
