#include "problem/png_mask.hpp"

#include <png.h>

#include <memory>
#include <new>

#include "problem/problem.hpp"

namespace d2q9 {

PngMask decode_png_mask(const unsigned char* bytes, std::size_t size, const std::string& name, int width, int height) {
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  // png_image_free is safe on a freed or never-opened image.
  std::unique_ptr<png_image, void (*)(png_imagep)> owner(&png, png_image_free);
  if (!png_image_begin_read_from_memory(&png, bytes, size))
    throw InputError(name + ": not a readable PNG (" + png.message + ")");
  if (png.width != static_cast<png_uint_32>(width) || png.height != static_cast<png_uint_32>(height))
    throw InputError(name + ": the picture is " + std::to_string(png.width) + "x" + std::to_string(png.height) +
                     " pixels, but the grid is " + std::to_string(width) + "x" + std::to_string(height) +
                     " cells: a mask needs one pixel per cell");
  png.format = PNG_FORMAT_RGB;  // any alpha is composited onto the background below
  const png_color white{255, 255, 255};
  std::vector<std::uint8_t> rgb;
  try {
    rgb.resize(PNG_IMAGE_SIZE(png));
  } catch (const std::bad_alloc&) {
    throw InputError(name + ": out of memory for a " + std::to_string(width) + "x" + std::to_string(height) + " picture");
  }
  if (!png_image_finish_read(&png, &white, rgb.data(), 0, nullptr))
    throw InputError(name + ": damaged PNG (" + png.message + ")");

  PngMask mask;
  mask.width = width;
  mask.height = height;
  mask.dark.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  for (std::size_t i = 0; i < mask.dark.size(); ++i) {
    const unsigned r = rgb[3 * i], g = rgb[3 * i + 1], b = rgb[3 * i + 2];
    // Rec. 601 luma in thousandths, exactly: below 128 is below 128000.
    mask.dark[i] = 299 * r + 587 * g + 114 * b < 128000 ? 1 : 0;
  }
  return mask;
}

PngMask read_png_mask(const std::string& path, int width, int height, std::uint64_t max_bytes) {
  const std::string bytes = read_text_file(path, max_bytes);
  return decode_png_mask(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), path, width, height);
}

}  // namespace d2q9
