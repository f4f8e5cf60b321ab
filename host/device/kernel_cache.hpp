// Compiled kernels kept between runs (OpenCL program binaries, CUDA cubins),
// one file for each device, driver, source text and build options, in the
// folder that holds the tuning cache: a run that finds its kernels there
// skips the compiler. Like the tuning cache it is only an optimisation: an
// entry that is damaged or for something else is a warning and a compile.
#pragma once

#include <optional>
#include <string>

namespace d2q9 {

// $D2Q9_CACHE_DIR, else $XDG_CACHE_HOME/d2q9-bgk, else ~/.cache/d2q9-bgk;
// empty when none of them is set, or when it names something that is no
// folder or cannot be made one (nothing is cached then: said once, in one
// warning line).
std::string cache_dir();
// Creates `dir` and its parents where missing; false if it cannot.
bool make_dirs(const std::string& dir);
// The cache's folder, made where missing; empty (with the one warning) if it
// cannot be.
std::string made_cache_dir();

// A cache entry's bytes: none when `path` does not exist, or (with a
// warning "<what> <path> <problem>: <then>") when it is no regular file,
// which is then removed so that the next store can replace it, or holds
// more than `max_bytes`. Never blocks on a FIFO nor reads a device.
std::optional<std::string> read_cache_entry(const std::string& path, std::size_t max_bytes, const char* what,
                                            const char* then);

// Everything a compiled image depends on.
struct KernelBuild {
  std::string backend;  // "opencl", "cuda"
  std::string device;   // device and platform names
  std::string driver;   // driver (and compiler) versions
  std::string source;   // the whole text compiled
  std::string options;  // build options, defines included
};

struct CachedImage {
  std::string image;
  double compile_s = 0;  // what compiling it took: what a build of similar kernels would cost
};

// The image compiled earlier for exactly `build`, if the cache holds it.
std::optional<CachedImage> load_kernel_image(const KernelBuild& build);
// Best effort: an image that cannot be cached costs a compile next time.
void store_kernel_image(const KernelBuild& build, const std::string& image, double compile_s);
// Where the image for `build` is (or would be) kept; empty without a cache.
std::string kernel_image_path(const KernelBuild& build);

}  // namespace d2q9
