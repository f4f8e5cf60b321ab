#include "io/checkpoint.hpp"

#include "core/shortest_text.hpp"
#include "io/number_text.hpp"
#include "problem/storage16.hpp"

#include <nlohmann/json.hpp>

#include <dirent.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <memory>
#include <cstdio>
#include <cstdlib>
#include <utility>


static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "checkpoints are written in the host's byte order, little-endian");

namespace d2q9 {

namespace {

constexpr char kMagic[8] = {'D', '2', 'Q', '9', 'C', 'K', 'P', 'T'};
// The newest version read; a 9-plane lattice is still written as version 3
// (write_version), so its files stay what they were.
constexpr std::uint32_t kVersion = 4;
// Version 4 adds the values per cell, after the value format.
constexpr std::uint32_t kPlanesVersion = 4;
// Version 2 adds the run record, whose length is bounded so a forged one cannot exhaust memory.
constexpr std::uint32_t kMaxRecordBytes = 1 << 20;
// magic, version, real size, 4 ints, 3 doubles, mask hash, step count
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 4 * 4 + 3 * 8 + 8 + 8;
constexpr std::size_t kChecksumBytes = 8;

// The lattices a checkpoint may hold: the flow's, or the flow's and the temperature's.
constexpr std::uint32_t kFlowPlanes = kSpeeds, kHeatPlanes = kSpeeds + kHeatSpeeds;
bool known_planes(std::uint64_t planes) { return planes == kFlowPlanes || planes == kHeatPlanes; }

std::uint32_t write_version(std::uint32_t planes) { return planes == kFlowPlanes ? 3 : kPlanesVersion; }

// The header's value format: bytes per value, and in the upper half which
// 16-bit format (codes kept exactly, so a restart continues bit-exactly).
constexpr std::uint32_t kFp16cTag = 1u << 16;
std::uint32_t value_format(Precision p) {
  switch (p) {
    case Precision::Double: return sizeof(double);
    case Precision::Fp16s: return 2;
    case Precision::Fp16c: return 2 | kFp16cTag;
    default: return sizeof(float);
  }
}


// Appends and hashes everything written, so the checksum needs no second pass.
class HashingWriter {
 public:
  HashingWriter(std::FILE* out, const std::string& path) : out_(out), path_(path), state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_64bits_reset(state_);
  }
  ~HashingWriter() { XXH3_freeState(state_); }
  HashingWriter(const HashingWriter&) = delete;
  HashingWriter& operator=(const HashingWriter&) = delete;

  void write(const void* data, std::size_t n) {
    if (n == 0) return;  // an empty series' data() may be null, which neither call takes
    XXH3_64bits_update(state_, data, n);
    if (std::fwrite(data, 1, n, out_) != n)
      throw std::runtime_error(path_ + ": write failed (" + std::strerror(errno) + ")");
  }
  template <typename T>
  void put(T value) {
    write(&value, sizeof value);
  }
  std::uint64_t digest() const { return XXH3_64bits_digest(state_); }

 private:
  std::FILE* out_;
  std::string path_;
  XXH3_state_t* state_;
};

template <typename Real>
void write_values(HashingWriter& w, const std::vector<double>& values) {
  // In blocks, so a large lattice needs no second full-size copy.
  constexpr std::size_t kBlock = 1 << 16;
  std::vector<Real> block;
  block.reserve(kBlock);
  for (std::size_t at = 0; at < values.size(); at += kBlock) {
    const std::size_t n = std::min(kBlock, values.size() - at);
    block.assign(values.begin() + at, values.begin() + at + n);
    w.write(block.data(), n * sizeof(Real));
  }
}

void write_codes(HashingWriter& w, const Checkpoint& c) {
  std::vector<std::uint16_t> codes(c.f.size());  // a quarter of c.f's size: no need for blocks
  Storage16(c.precision, c.params.density, c.thermal_codes).encode_planes(c.f.data(), c.f.size(), codes.data());
  w.write(codes.data(), codes.size() * sizeof(std::uint16_t));
}

std::string record_text(const RunRecord& r) {
  if (r.empty()) return "";
  nlohmann::json options = nlohmann::json::array();
  for (const auto& [name, value] : r.options) options.push_back({name, value});
  nlohmann::json settings = nlohmann::json::array();
  for (const auto& [name, value] : r.settings) settings.push_back({name, value});
  return nlohmann::json{{"param_file", r.param_file},       {"param_hash", hex64(r.param_hash)},
                        {"obstacle_file", r.obstacle_file}, {"obstacle_hash", hex64(r.obstacle_hash)},
                        {"options", options},               {"settings", settings}}
      .dump();
}

// The record is inside the checksummed bytes, so a failure here means a
// writer bug or a forged file: one line either way.
RunRecord parse_record(const std::string& text, const std::string& filename) {
  RunRecord r;
  if (text.empty()) return r;
  try {
    const nlohmann::json j = nlohmann::json::parse(text);
    r.param_file = j.at("param_file").get<std::string>();
    r.obstacle_file = j.at("obstacle_file").get<std::string>();
    r.param_hash = std::stoull(j.at("param_hash").get<std::string>(), nullptr, 16);
    r.obstacle_hash = std::stoull(j.at("obstacle_hash").get<std::string>(), nullptr, 16);
    for (const auto& option : j.at("options"))
      r.options.emplace_back(option.at(0).get<std::string>(), option.at(1).get<std::string>());
    if (j.contains("settings"))
      for (const auto& setting : j.at("settings"))
        r.settings.emplace_back(setting.at(0).get<std::string>(), setting.at(1).get<std::string>());
  } catch (const std::exception& e) {
    throw InputError(filename + ": corrupt checkpoint: unreadable run record (" + e.what() + ")");
  }
  if (r.param_file.empty() || r.obstacle_file.empty())
    throw InputError(filename + ": corrupt checkpoint: the run record names no input files");
  return r;
}

// Bounds-checked cursor over the file's bytes.
class Reader {
 public:
  Reader(const unsigned char* bytes, std::size_t size) : bytes_(bytes), size_(size) {}
  std::size_t remaining() const { return size_ - at_; }
  template <typename T>
  T get() {
    T value;
    std::memcpy(&value, bytes_ + at_, sizeof value);  // callers check remaining() first
    at_ += sizeof value;
    return value;
  }
  void skip(std::size_t count) { at_ += count; }  // callers check the size first
  void get_bytes(void* out, std::size_t count) {
    std::memcpy(out, bytes_ + at_, count);  // callers check the size first
    at_ += count;
  }
  template <typename Real>
  void get_values(std::vector<double>& out, std::size_t count) {
    out.resize(count);
    const unsigned char* p = bytes_ + at_;
    for (std::size_t i = 0; i < count; ++i, p += sizeof(Real)) {
      Real v;
      std::memcpy(&v, p, sizeof v);
      out[i] = static_cast<double>(v);
    }
    at_ += count * sizeof(Real);
  }

 private:
  const unsigned char* bytes_;
  std::size_t size_;
  std::size_t at_ = 0;
};


// The same rules read_params applies: a checkpoint must describe a runnable problem.
std::string invalid_params(const Params& p) {
  if (p.nx < 2 || p.ny < 2) return "grid " + std::to_string(p.nx) + "x" + std::to_string(p.ny) + " is smaller than 2x2";
  if (p.max_iters <= 0) return "maxIters " + std::to_string(p.max_iters) + " is not positive";
  if (p.reynolds_dim <= 0) return "reynolds_dim " + std::to_string(p.reynolds_dim) + " is not positive";
  if (!(std::isfinite(p.density) && p.density > 0.0)) return "density " + shortest_text(p.density) + " is not positive";
  if (!std::isfinite(p.accel)) return "accel " + shortest_text(p.accel) + " is not finite";
  if (!(p.omega > 0.0 && p.omega < 2.0)) return "omega " + shortest_text(p.omega) + " is outside (0, 2)";
  return "";
}

// Unmaps on scope exit.
struct Mapping {
  void* data = MAP_FAILED;
  std::size_t size = 0;
  ~Mapping() {
    if (data != MAP_FAILED) ::munmap(data, size);
  }
};

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

// A file that appears at `path` complete or not at all. Where the file system
// supports O_TMPFILE the data is written to an unnamed file that only gets a
// name once complete and synced, so even SIGKILL mid-write leaves nothing
// behind; elsewhere it is a named temporary file, removed unless committed.
class DurableFile {
 public:
  explicit DurableFile(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp." + std::to_string(::getpid())) {
    const auto slash = path_.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash);
    int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    unnamed_ = fd >= 0;
    if (!unnamed_) fd = ::open(tmp_.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) throw std::runtime_error(path_ + ": cannot create checkpoint (" + std::strerror(errno) + ")");
    file_ = ::fdopen(fd, "wb");
    if (!file_) {
      ::close(fd);
      throw std::runtime_error(path_ + ": cannot create checkpoint (" + std::strerror(errno) + ")");
    }
  }
  ~DurableFile() {
    if (file_) std::fclose(file_);
    if (!unnamed_ && !committed_) ::unlink(tmp_.c_str());
  }
  DurableFile(const DurableFile&) = delete;
  DurableFile& operator=(const DurableFile&) = delete;
  std::FILE* get() const { return file_; }

  void commit() {
    if (std::fflush(file_) != 0 || ::fsync(::fileno(file_)) != 0) fail("write failed");
    if (unnamed_) {
      // Named only now; a kill between this and the rename leaves a complete file.
      const std::string fd_path = "/proc/self/fd/" + std::to_string(::fileno(file_));
      ::unlink(tmp_.c_str());
      if (::linkat(AT_FDCWD, fd_path.c_str(), AT_FDCWD, tmp_.c_str(), AT_SYMLINK_FOLLOW) != 0)
        fail("cannot name the checkpoint file");
      unnamed_ = false;
    }
    const int closed = std::fclose(file_);
    file_ = nullptr;
    if (closed != 0) fail("write failed");
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) fail("cannot rename the temporary file into place");
    committed_ = true;
  }

 private:
  [[noreturn]] void fail(const char* what) {
    throw std::runtime_error(path_ + ": " + what + " (" + std::strerror(errno) + ")");
  }
  std::string path_;
  std::string tmp_;
  std::FILE* file_ = nullptr;
  bool unnamed_ = false;
  bool committed_ = false;
};

}  // namespace

void remove_stale_checkpoint_temps(const std::string& path) {
  const auto slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path.substr(0, slash);
  const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp.";
  const std::string own = prefix + std::to_string(::getpid());
  DIR* d = ::opendir(dir.c_str());
  if (!d) return;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) == 0 && name != own) ::unlink((dir + "/" + name).c_str());
  }
  ::closedir(d);
}

std::uint64_t file_hash(const std::string& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  XXH3_state_t* state = XXH3_createState();
  if (!state) throw std::bad_alloc();
  std::unique_ptr<XXH3_state_t, XXH_errorcode (*)(XXH3_state_t*)> owner(state, XXH3_freeState);
  XXH3_64bits_reset(state);
  char block[1 << 16];
  for (;;) {
    const ssize_t n = ::read(file.fd, block, sizeof block);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw InputError(path + ": cannot read (" + std::strerror(errno) + ")");
    if (n == 0) break;
    XXH3_64bits_update(state, block, static_cast<std::size_t>(n));
  }
  return XXH3_64bits_digest(state);
}

std::uint64_t obstacle_mask_hash(const ObstacleMask& mask) {
  // Open boundaries' cells hash as plain fluid, as the first checkpoints
  // (with a left inlet and a right outlet, which kinds did not mark) hold
  // them: the edges' kinds are recorded settings (problem_settings.cpp).
  std::vector<std::uint8_t> kinds(mask.kinds);
  for (std::uint8_t& b : kinds)
    if (open_edge_of(b) >= 0) b = kFluid;
  if (mask.links.empty()) return XXH3_64bits(kinds.data(), kinds.size());
  XXH3_state_t* state = XXH3_createState();
  XXH3_64bits_reset(state);
  XXH3_64bits_update(state, kinds.data(), kinds.size());
  XXH3_64bits_update(state, mask.links.data(), mask.links.size());
  const std::uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return hash;
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  // A caller's mistake, refused before the file is touched.
  const auto planes = static_cast<std::uint32_t>(c.planes());
  if (c.f.size() != planes * c.params.cells() || !known_planes(planes))
    throw std::invalid_argument(path + ": a checkpoint holds 9 or 14 values per cell of its " +
                                std::to_string(c.params.nx) + "x" + std::to_string(c.params.ny) + " grid, not " +
                                std::to_string(c.f.size()) + " values");
  if ((is_16bit(c.precision) && planes != kFlowPlanes) != c.thermal_codes.has_value())
    throw std::invalid_argument(path + ": 16-bit values of a temperature lattice, and only they, come with its codes");
  DurableFile file(path);
  HashingWriter w(file.get(), path);
  w.write(kMagic, sizeof kMagic);
  w.put<std::uint32_t>(write_version(planes));
  w.put<std::uint32_t>(value_format(c.precision));
  if (planes != kFlowPlanes) w.put<std::uint32_t>(planes);
  if (c.thermal_codes) {
    w.put<double>(c.thermal_codes->rest_temperature);
    w.put<double>(c.thermal_codes->scale);
  }
  for (int v : {c.params.nx, c.params.ny, c.params.max_iters, c.params.reynolds_dim}) w.put<std::int32_t>(v);
  for (double v : {c.params.density, c.params.accel, c.params.omega}) w.put<double>(v);
  w.put<std::uint64_t>(c.mask_hash);
  w.put<std::uint64_t>(c.av_vels.size());
  const std::string record = record_text(c.run);
  w.put<std::uint32_t>(static_cast<std::uint32_t>(record.size()));
  w.write(record.data(), record.size());
  w.write(c.av_vels.data(), c.av_vels.size() * sizeof(double));
  w.put<std::uint32_t>(static_cast<std::uint32_t>(c.series.size()));
  for (const auto& [name, values] : c.series) {
    w.put<std::uint32_t>(static_cast<std::uint32_t>(name.size()));
    w.write(name.data(), name.size());
    w.put<std::uint64_t>(values.size());
    w.write(values.data(), values.size() * sizeof(double));
  }
  if (is_16bit(c.precision))
    write_codes(w, c);
  else if (c.precision == Precision::Float)
    write_values<float>(w, c.f);
  else
    write_values<double>(w, c.f);
  const std::uint64_t checksum = w.digest();
  if (std::fwrite(&checksum, sizeof checksum, 1, file.get()) != 1)
    throw std::runtime_error(path + ": write failed (" + std::strerror(errno) + ")");
  file.commit();
}

bool holds_checkpoint_of(const std::string& path, const Params& params, const ObstacleMask& mask, Precision precision) {
  // The header up to the mask's hash, as write_checkpoint writes it; the steps after it may differ.
  unsigned char expected[8 + 4 + 4 + 4 + 2 * 8 + 4 * 4 + 3 * 8 + 8], found[sizeof expected];
  unsigned char* at = expected;
  const auto put = [&](const auto& v) {
    std::memcpy(at, &v, sizeof v);
    at += sizeof v;
  };
  std::memcpy(at, kMagic, sizeof kMagic);
  at += sizeof kMagic;
  const auto planes = static_cast<std::uint32_t>(params.extensions.planes());
  put(write_version(planes));
  put(static_cast<std::uint32_t>(value_format(precision)));
  if (planes != kFlowPlanes) put(planes);
  if (const std::optional<ThermalCodes> t = thermal_codes(precision, params)) {
    put(t->rest_temperature);
    put(t->scale);
  }
  const std::size_t length = static_cast<std::size_t>(at - expected) + 4 * 4 + 3 * 8 + 8;
  for (int v : {params.nx, params.ny, params.max_iters, params.reynolds_dim}) put(static_cast<std::int32_t>(v));
  for (double v : {params.density, params.accel, params.omega}) put(v);
  put(static_cast<std::uint64_t>(obstacle_mask_hash(mask)));
  std::FILE* in = std::fopen(path.c_str(), "rb");
  if (!in) return false;
  const bool read = std::fread(found, 1, length, in) == length;
  std::fclose(in);
  return read && std::memcmp(found, expected, length) == 0;
}

namespace {

InputError checkpoint_error(const std::string& filename, const std::string& problem) {
  return InputError(filename + ": " + problem);
}

// What the header says about the rest of the file.
struct Header {
  std::uint32_t version = 0;
  std::uint32_t real_size = 0;     // bytes per stored value
  std::uint32_t planes = kFlowPlanes;  // values per cell (version 4 on; 9 before)
  std::uint64_t steps = 0;         // av_vels' values
  std::uint32_t record_bytes = 0;  // the run record's (version 2 on)
};

// The temperature planes' codes of a 16-bit heat checkpoint: T0 finite, the scale a power of two.
void read_thermal_codes(Reader& r, Checkpoint& c, const std::string& filename) {
  if (r.remaining() < 2 * sizeof(double) + kHeaderBytes - (8 + 4 + 4))
    throw checkpoint_error(filename, "truncated checkpoint: it ends inside the header");
  ThermalCodes t;
  t.rest_temperature = r.get<double>();
  t.scale = r.get<double>();
  int exponent = 0;
  if (!std::isfinite(t.rest_temperature) || !(std::frexp(t.scale, &exponent) == 0.5) || std::abs(exponent) > 101)
    throw checkpoint_error(filename, "corrupt checkpoint: the temperature's 16-bit codes (T0 " +
                                         shortest_text(t.rest_temperature) + ", scale " + shortest_text(t.scale) +
                                         ") are no rest temperature and power of two");
  c.thermal_codes = t;
}

// The header's problem, precision and mask hash go into c; r is left at the run record.
Header read_header(Reader& r, Checkpoint& c, const std::string& filename) {
  Header h;
  r.get<std::uint64_t>();  // magic, checked by the caller
  h.version = r.get<std::uint32_t>();
  if (h.version > kVersion || h.version == 0)
    throw checkpoint_error(filename, "checkpoint format version " + std::to_string(h.version) +
                                         " is not supported (this program reads " + std::to_string(kVersion) + ")");
  const auto format = r.get<std::uint32_t>();
  bool known = false;
  for (Precision p : {Precision::Float, Precision::Double, Precision::Fp16s, Precision::Fp16c})
    if (format == value_format(p)) {
      c.precision = p;
      known = true;
    }
  if (!known)
    throw checkpoint_error(filename, "corrupt checkpoint: value format " + std::to_string(format) +
                                         " is none of float, double, fp16s, fp16c");
  h.real_size = format & 0xffffu;
  if (h.version >= kPlanesVersion) {
    // The rest of the fixed header follows it: nx to the step count.
    if (r.remaining() < sizeof h.planes + kHeaderBytes - (8 + 4 + 4))
      throw checkpoint_error(filename, "truncated checkpoint: it ends inside the header");
    h.planes = r.get<std::uint32_t>();
    if (!known_planes(h.planes))
      throw checkpoint_error(filename, "corrupt checkpoint: " + std::to_string(h.planes) +
                                           " values per cell is neither 9 (the flow's) nor 14 (the flow's and the "
                                           "temperature's)");
    if (is_16bit(c.precision) && h.planes != kFlowPlanes) read_thermal_codes(r, c, filename);
  }
  c.params.nx = r.get<std::int32_t>();
  c.params.ny = r.get<std::int32_t>();
  c.params.max_iters = r.get<std::int32_t>();
  c.params.reynolds_dim = r.get<std::int32_t>();
  c.params.density = r.get<double>();
  c.params.accel = r.get<double>();
  c.params.omega = r.get<double>();
  c.mask_hash = r.get<std::uint64_t>();
  h.steps = r.get<std::uint64_t>();
  if (h.version >= 2) {
    if (r.remaining() < sizeof h.record_bytes)
      throw checkpoint_error(filename, "truncated checkpoint: it ends inside the header");
    h.record_bytes = r.get<std::uint32_t>();
    if (h.record_bytes > kMaxRecordBytes || h.record_bytes > r.remaining())
      throw checkpoint_error(filename, "truncated or corrupt checkpoint: a run record of " +
                                           std::to_string(h.record_bytes) + " bytes does not fit in the file");
  }
  return h;
}

void check_header_values(const Checkpoint& c, std::uint64_t steps, const std::string& filename) {
  const std::string problem = invalid_params(c.params);
  if (!problem.empty()) throw checkpoint_error(filename, "corrupt checkpoint: " + problem);
  if (steps > static_cast<std::uint64_t>(c.params.max_iters))
    throw checkpoint_error(filename, "corrupt checkpoint: " + std::to_string(steps) + " steps done of maxIters " +
                                         std::to_string(c.params.max_iters));
}

// Where version 3's series lie: each one's name length and count, and the bytes of them all.
struct SeriesLayout {
  std::vector<std::pair<std::size_t, std::uint64_t>> at;  // name length, count
  std::size_t bytes = 0;
};

// The series lie between av_vels (ending `needed` bytes before the distributions
// and checksum) and the distributions; each is checked against the bytes left before it is read.
SeriesLayout scan_series(const unsigned char* bytes, std::size_t size, unsigned __int128 needed,
                         std::uint64_t distribution_bytes, const std::string& filename) {
  SeriesLayout series;
  if (!(needed + sizeof(std::uint32_t) <= size)) {
    series.bytes = sizeof(std::uint32_t);  // reported by the caller as too short
    return series;
  }
  const std::size_t at = static_cast<std::size_t>(needed - distribution_bytes - kChecksumBytes);
  Reader s(bytes + at, size - kChecksumBytes - at - static_cast<std::size_t>(distribution_bytes));
  auto fits = [&](unsigned __int128 n) { return n <= s.remaining(); };
  const auto past_the_file = [&] {
    return checkpoint_error(filename, "truncated or corrupt checkpoint: its series run past the file");
  };
  const auto count = s.get<std::uint32_t>();
  series.bytes = sizeof(std::uint32_t);
  for (std::uint32_t i = 0; i < count; ++i) {
    if (!fits(sizeof(std::uint32_t))) throw past_the_file();
    const auto name_size = s.get<std::uint32_t>();
    if (!fits(name_size + sizeof(std::uint64_t))) throw past_the_file();
    std::string skipped(name_size, '\0');
    s.get_bytes(skipped.data(), name_size);
    const auto values = s.get<std::uint64_t>();
    if (!fits(static_cast<unsigned __int128>(values) * sizeof(double))) throw past_the_file();
    s.skip(values * sizeof(double));
    series.at.emplace_back(name_size, values);
    series.bytes += sizeof(std::uint32_t) + name_size + sizeof(std::uint64_t) + values * sizeof(double);
  }
  return series;
}

void check_file_size(unsigned __int128 needed, std::size_t size, const Params& params, std::uint64_t steps,
                     const std::string& filename) {
  if (needed != size)
    throw checkpoint_error(filename, "truncated or corrupt checkpoint: " + std::to_string(size) + " bytes, but a " +
                                         std::to_string(params.nx) + "x" + std::to_string(params.ny) + " grid after " +
                                         std::to_string(steps) + " steps needs " +
                                         (needed >> 64 ? std::string("more than 2^64")
                                                       : std::to_string(static_cast<std::uint64_t>(needed))));
}

void check_checksum(const unsigned char* bytes, std::size_t size, const std::string& filename) {
  std::uint64_t stored_checksum;
  std::memcpy(&stored_checksum, bytes + size - kChecksumBytes, sizeof stored_checksum);
  if (XXH3_64bits(bytes, size - kChecksumBytes) != stored_checksum)
    throw checkpoint_error(filename,
                           "corrupt checkpoint: checksum mismatch (the file was damaged or changed after it was written)");
}

void read_series(Reader& r, const SeriesLayout& series, Checkpoint& c) {
  r.get<std::uint32_t>();
  for (const auto& [name_size, count] : series.at) {
    r.get<std::uint32_t>();
    std::string name(name_size, '\0');
    r.get_bytes(name.data(), name_size);
    r.get<std::uint64_t>();
    std::vector<double> values;
    r.get_values<double>(values, count);
    c.series.emplace_back(std::move(name), std::move(values));
  }
}

void read_distributions(Reader& r, Checkpoint& c, std::uint64_t values) {
  if (is_16bit(c.precision)) {
    std::vector<std::uint16_t> codes(values);
    r.get_bytes(codes.data(), codes.size() * sizeof(std::uint16_t));
    c.f.resize(codes.size());
    Storage16(c.precision, c.params.density, c.thermal_codes).decode_planes(codes.data(), codes.size(), c.f.data());
  } else if (c.precision == Precision::Float) {
    r.get_values<float>(c.f, values);
  } else {
    r.get_values<double>(c.f, values);
  }
}

}  // namespace

Checkpoint parse_checkpoint(const unsigned char* bytes, std::size_t size, const std::string& filename) {
  if (size < sizeof kMagic || std::memcmp(bytes, kMagic, sizeof kMagic) != 0)
    throw checkpoint_error(filename, "not a d2q9-bgk checkpoint (no D2Q9CKPT header)");
  if (size < kHeaderBytes + kChecksumBytes)
    throw checkpoint_error(filename, "truncated checkpoint: " + std::to_string(size) + " bytes is shorter than the header");
  Reader r(bytes, size - kChecksumBytes);
  Checkpoint c;
  const Header h = read_header(r, c, filename);

  // Sizes are checked against the bytes present before anything is allocated.
  check_header_values(c, h.steps, filename);
  const std::uint64_t cells = c.params.cells();
  const std::uint64_t per_cell = static_cast<std::uint64_t>(h.planes) * h.real_size;
  const std::uint64_t av_bytes = h.steps * sizeof(double);
  // 128 bits: cells * per_cell can exceed 64 bits for a forged header.
  unsigned __int128 needed = static_cast<unsigned __int128>(cells) * per_cell + av_bytes + kHeaderBytes +
                             (h.version >= kPlanesVersion ? sizeof h.planes : 0) + (c.thermal_codes ? 2 * sizeof(double) : 0) +
                             (h.version >= 2 ? sizeof h.record_bytes + h.record_bytes : 0) + kChecksumBytes;
  SeriesLayout series;
  if (h.version >= 3) series = scan_series(bytes, size, needed, cells * per_cell, filename);
  needed += series.bytes;
  check_file_size(needed, size, c.params, h.steps, filename);
  check_checksum(bytes, size, filename);

  std::string record(h.record_bytes, '\0');
  r.get_bytes(record.data(), h.record_bytes);
  c.run = parse_record(record, filename);
  r.get_values<double>(c.av_vels, h.steps);
  if (h.version >= 3) read_series(r, series, c);
  read_distributions(r, c, cells * h.planes);
  return c;
}

Checkpoint read_checkpoint(const std::string& filename) {
  // Checked before it is opened: opening a FIFO would wait for a writer.
  struct stat st {};
  if (::stat(filename.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw InputError(filename + ": checkpoint is not a regular file");
  // O_NONBLOCK: should it become a FIFO meanwhile, the open still returns.
  Fd file{::open(filename.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)};
  if (file.fd < 0) throw InputError(filename + ": cannot open checkpoint (" + std::strerror(errno) + ")");
  if (::fstat(file.fd, &st) != 0) throw InputError(filename + ": cannot read checkpoint (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode)) throw InputError(filename + ": checkpoint is not a regular file");
  if (st.st_size == 0) return parse_checkpoint(nullptr, 0, filename);
  // Mapped rather than copied: a large lattice is then held once, as doubles.
  Mapping map;
  map.size = static_cast<std::size_t>(st.st_size);
  map.data = ::mmap(nullptr, map.size, PROT_READ, MAP_PRIVATE, file.fd, 0);
  if (map.data == MAP_FAILED) throw InputError(filename + ": cannot read checkpoint (" + std::strerror(errno) + ")");
  return parse_checkpoint(static_cast<const unsigned char*>(map.data), map.size, filename);
}

void check_checkpoint_matches(const Checkpoint& c, const std::string& checkpoint_file, const Params& params,
                              const std::string& param_file, const ObstacleMask& mask,
                              const std::string& obstacle_file, Precision precision) {
  auto mismatch = [&](const std::string& what, const std::string& in_checkpoint, const std::string& given,
                      const std::string& source) {
    return InputError(checkpoint_file + ": checkpoint does not match the inputs: it was written for " + what + " = " +
                      in_checkpoint + ", but " + source + " gives " + given);
  };
  const Params& p = c.params;
  const std::pair<const char*, std::pair<int, int>> ints[] = {{"nx", {p.nx, params.nx}},
                                                              {"ny", {p.ny, params.ny}},
                                                              {"maxIters", {p.max_iters, params.max_iters}},
                                                              {"reynolds_dim", {p.reynolds_dim, params.reynolds_dim}}};
  for (const auto& [name, values] : ints)
    if (values.first != values.second)
      throw mismatch(name, std::to_string(values.first), std::to_string(values.second), param_file);
  // Bitwise: both sides are parsed from text the same way, and any difference changes the run.
  const std::pair<const char*, std::pair<double, double>> reals[] = {{"density", {p.density, params.density}},
                                                                     {"accel", {p.accel, params.accel}},
                                                                     {"omega", {p.omega, params.omega}}};
  for (const auto& [name, values] : reals)
    if (std::memcmp(&values.first, &values.second, sizeof(double)) != 0)
      throw mismatch(name, shortest_text(values.first), shortest_text(values.second), param_file);
  // Before the mask: a problem given [heat] also numbers its heated walls.
  if (c.planes() != params.extensions.planes()) {
    const auto lattice = [](int planes) {
      return std::string(planes == kSpeeds ? "without" : "with") + " [heat] (" + std::to_string(planes) +
             " values per cell)";
    };
    throw InputError(checkpoint_file + ": checkpoint does not match the inputs: it was written for a problem " +
                     lattice(c.planes()) + ", but " + param_file + " gives one " + lattice(params.extensions.planes()));
  }
  if (c.mask_hash != obstacle_mask_hash(mask))
    throw InputError(checkpoint_file + ": checkpoint does not match the inputs: it was written for different obstacles than " +
                     obstacle_file);
  if (c.precision != precision)
    throw InputError(checkpoint_file + ": checkpoint does not match the inputs: it holds a " + to_string(c.precision) +
                     " run, but this run is --precision " + to_string(precision));
  const std::optional<ThermalCodes> codes = thermal_codes(precision, params);
  if (c.thermal_codes && codes && *c.thermal_codes != *codes)
    throw InputError(checkpoint_file + ": checkpoint does not match the inputs: it codes the temperature from T0 = " +
                     shortest_text(c.thermal_codes->rest_temperature) + " times " + shortest_text(c.thermal_codes->scale) +
                     ", but " + param_file + "'s temperatures give T0 = " + shortest_text(codes->rest_temperature) +
                     " times " + shortest_text(codes->scale));
}

}  // namespace d2q9
