#include "device/kernel_cache.hpp"

#include <sys/stat.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "model/number_text.hpp"
#include "model/output.hpp"

namespace d2q9 {

namespace {

// An entry: this line, the length of the build's description and the
// description itself (so a hash collision is a miss, not a wrong kernel),
// the compile's microseconds, the image's checksum, then the image.
constexpr char kMagic[] = "d2q9-bgk kernel image 2\n";

std::string description(const KernelBuild& b) {
  // Lengths first, so that no two builds share a description.
  std::string d;
  for (const std::string* part : {&b.backend, &b.device, &b.driver, &b.options, &b.source})
    d += std::to_string(part->size()) + ":" + *part + "\n";
  return d;
}

void append_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t read_u64(const std::string& in, std::size_t at) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(in[at + i]);
  return v;
}

void warn_damaged(const std::string& path, const char* why) {
  std::fprintf(stderr, "warning: kernel cache entry %s is damaged (%s): compiling again\n", path.c_str(), why);
}

}  // namespace

std::string cache_dir() {
  if (const char* d = std::getenv("D2Q9_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/d2q9-bgk";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/d2q9-bgk";
  return "";
}

bool make_dirs(const std::string& dir) {
  for (std::size_t pos = 1; pos != std::string::npos;) {
    pos = dir.find('/', pos + 1);
    if (::mkdir(dir.substr(0, pos).c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return true;
}

std::string kernel_image_path(const KernelBuild& build) {
  const std::string dir = cache_dir();
  if (dir.empty()) return "";
  const std::string d = description(build);
  return dir + "/kernels/" + build.backend + "-" + hex64(XXH3_64bits(d.data(), d.size())) + ".bin";
}

std::optional<CachedImage> load_kernel_image(const KernelBuild& build) {
  const std::string path = kernel_image_path(build);
  if (path.empty()) return std::nullopt;
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  const std::string entry((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string d = description(build);
  const std::size_t magic = sizeof kMagic - 1;
  if (entry.size() < magic + 8 || entry.compare(0, magic, kMagic) != 0) {
    warn_damaged(path, "not a kernel image");
    return std::nullopt;
  }
  const std::uint64_t d_size = read_u64(entry, magic);
  const std::size_t image_at = magic + 8 + d_size + 16;
  if (d_size != d.size() || entry.size() < image_at) {
    // Another build whose description hashed alike, or a cut file.
    if (entry.size() < image_at) warn_damaged(path, "cut short");
    return std::nullopt;
  }
  if (entry.compare(magic + 8, d_size, d) != 0) return std::nullopt;
  CachedImage cached;
  cached.image = entry.substr(image_at);
  cached.compile_s = static_cast<double>(read_u64(entry, magic + 8 + d_size)) * 1e-6;
  if (XXH3_64bits(cached.image.data(), cached.image.size()) != read_u64(entry, magic + 16 + d_size)) {
    warn_damaged(path, "checksum mismatch");
    return std::nullopt;
  }
  return cached;
}

void store_kernel_image(const KernelBuild& build, const std::string& image, double compile_s) {
  const std::string path = kernel_image_path(build);
  if (path.empty() || image.empty()) return;
  if (!make_dirs(cache_dir() + "/kernels")) return;
  const std::string d = description(build);
  std::string entry(kMagic);
  append_u64(entry, d.size());
  entry += d;
  append_u64(entry, static_cast<std::uint64_t>(std::max(0.0, compile_s) * 1e6));
  append_u64(entry, XXH3_64bits(image.data(), image.size()));
  entry += image;
  try {
    AtomicFile out(path);  // a reader never sees half an entry
    if (std::fwrite(entry.data(), 1, entry.size(), out.get()) == entry.size()) out.commit();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "warning: compiled kernels not cached: %s\n", e.what());
  }
}

}  // namespace d2q9
