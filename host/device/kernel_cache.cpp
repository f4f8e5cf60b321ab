#include "device/kernel_cache.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "io/number_text.hpp"
#include "io/output.hpp"

namespace d2q9 {

namespace {

// An entry: this line, the length of the build's description and the
// description itself (so a hash collision is a miss, not a wrong kernel),
// the compile's microseconds, the checksum of those microseconds and the
// image (the compile time prices a launch search: it is trusted no more
// than the image), then the image.
constexpr char kMagic[] = "d2q9-bgk kernel image 3\n";
constexpr std::size_t kMaxImageBytes = std::size_t(1) << 30;

std::uint64_t entry_checksum(std::uint64_t compile_us, const std::string& image) {
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  unsigned char us[8];
  for (int i = 0; i < 8; ++i) us[i] = static_cast<unsigned char>((compile_us >> (8 * i)) & 0xff);
  XXH3_64bits_update(state, us, sizeof us);
  XXH3_64bits_update(state, image.data(), image.size());
  const std::uint64_t sum = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return sum;
}

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

namespace {

std::string configured_cache_dir() {
  if (const char* d = std::getenv("D2Q9_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/d2q9-bgk";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/d2q9-bgk";
  return "";
}

// Once a process: the cache is unusable, and why.
bool warn_cache_unusable(const std::string& dir, const std::string& why) {
  static bool warned = false;
  if (!warned) std::fprintf(stderr, "warning: cache folder %s %s: nothing is cached\n", dir.c_str(), why.c_str());
  warned = true;
  return false;
}

}  // namespace

std::string cache_dir() {
  const std::string dir = configured_cache_dir();
  struct stat st {};
  if (!dir.empty() && ::stat(dir.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
    warn_cache_unusable(dir, "is not a folder");
    return "";
  }
  return dir;
}

std::string made_cache_dir() {
  const std::string dir = cache_dir();
  if (dir.empty()) return dir;
  if (!make_dirs(dir)) {
    warn_cache_unusable(dir, std::string("cannot be made (") + std::strerror(errno) + ")");
    return "";
  }
  return dir;
}

std::optional<std::string> read_cache_entry(const std::string& path, std::size_t max_bytes, const char* what,
                                            const char* then) {
  // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT && errno != ENOTDIR)
      std::fprintf(stderr, "warning: %s %s cannot be read (%s): %s\n", what, path.c_str(), std::strerror(errno), then);
    return std::nullopt;
  }
  struct stat st {};
  std::string bytes;
  const char* problem = nullptr;
  bool irregular = false;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    problem = "is not a regular file", irregular = true;
  else if (static_cast<unsigned long long>(st.st_size) > max_bytes)
    problem = "is larger than any entry";
  else {
    bytes.resize(static_cast<std::size_t>(st.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);  // a file cut while reading: its checks fail
  }
  ::close(fd);
  if (problem) {
    std::fprintf(stderr, "warning: %s %s %s: %s\n", what, path.c_str(), problem, then);
    if (irregular && ::unlink(path.c_str()) != 0) ::rmdir(path.c_str());  // a link goes, not what it names
    return std::nullopt;
  }
  return bytes;
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
  // The format's version in the name: builds of other versions keep their own entries.
  return dir + "/kernels/" + build.backend + "-" + hex64(XXH3_64bits(d.data(), d.size())) + "-v3.bin";
}

std::optional<CachedImage> load_kernel_image(const KernelBuild& build) {
  const std::string path = kernel_image_path(build);
  if (path.empty()) return std::nullopt;
  const std::optional<std::string> read = read_cache_entry(path, kMaxImageBytes, "kernel cache entry", "compiling again");
  if (!read) return std::nullopt;
  const std::string& entry = *read;
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
  const std::uint64_t compile_us = read_u64(entry, magic + 8 + d_size);
  cached.compile_s = static_cast<double>(compile_us) * 1e-6;
  if (entry_checksum(compile_us, cached.image) != read_u64(entry, magic + 16 + d_size)) {
    warn_damaged(path, "checksum mismatch");
    return std::nullopt;
  }
  return cached;
}

void store_kernel_image(const KernelBuild& build, const std::string& image, double compile_s) {
  const std::string path = kernel_image_path(build);
  if (path.empty() || image.empty()) return;
  if (made_cache_dir().empty()) return;
  // A folder that exists but cannot be written (read-only) says so, once.
  if (!make_dirs(cache_dir() + "/kernels")) {
    warn_cache_unusable(cache_dir(), std::string("cannot be written (") + std::strerror(errno) + ")");
    return;
  }
  const std::string d = description(build);
  std::string entry(kMagic);
  append_u64(entry, d.size());
  entry += d;
  const auto compile_us = static_cast<std::uint64_t>(std::max(0.0, compile_s) * 1e6);
  append_u64(entry, compile_us);
  append_u64(entry, entry_checksum(compile_us, image));
  entry += image;
  try {
    AtomicFile out(path);  // a reader never sees half an entry
    if (std::fwrite(entry.data(), 1, entry.size(), out.get()) == entry.size()) out.commit();
  } catch (const std::exception& e) {
    warn_cache_unusable(cache_dir(), std::string("cannot be written (") + e.what() + ")");
  }
}

}  // namespace d2q9
