#include "io/output_guard.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "io/output.hpp"

namespace d2q9 {

namespace {

// Where `path` would be: its folder resolved (links, "..") and its name.
std::string normal_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  char resolved[PATH_MAX];
  if (!::realpath(dir.c_str(), resolved)) return path;
  return std::string(resolved) + "/" + name;
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool is_input(const std::string& path, const std::vector<std::string>& inputs) {
  for (const std::string& input : inputs)
    if (same_file(path, input)) return true;
  return false;
}

// What the manifest keeps of one file: enough to prove it is still the file
// the run wrote, unchanged. Any write changes ctime, which no user call can
// set back; the inode tells a replacement; no hash is needed (a final state
// is hundreds of MB, which hashing would read again).
struct FileRecord {
  std::uint64_t size = 0;
  std::uint64_t inode = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t ctime_ns = 0;
  bool operator==(const FileRecord& o) const {
    return size == o.size && inode == o.inode && mtime_ns == o.mtime_ns && ctime_ns == o.ctime_ns;
  }
};

std::optional<FileRecord> record_of(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  FileRecord r;
  r.size = static_cast<std::uint64_t>(st.st_size);
  r.inode = static_cast<std::uint64_t>(st.st_ino);
  r.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  r.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  return r;
}

constexpr const char* kManifestFormat = "d2q9-bgk outputs 2";

// The manifest's records by file name; empty when there is none, or the file
// of that name is not one (`ours` false: it is the user's, never replaced).
std::map<std::string, FileRecord> read_manifest(const std::string& path, bool& ours) {
  std::map<std::string, FileRecord> records;
  struct stat st {};
  ours = ::lstat(path.c_str(), &st) != 0;  // none yet: ours to write
  if (ours || !S_ISREG(st.st_mode)) return records;
  try {
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("format") != kManifestFormat) return records;
    for (const auto& f : j.at("files"))
      records[f.at("name").get<std::string>()] = {f.at("size").get<std::uint64_t>(), f.at("inode").get<std::uint64_t>(),
                                                  f.at("mtime_ns").get<std::int64_t>(),
                                                  f.at("ctime_ns").get<std::int64_t>()};
    ours = true;
  } catch (const std::exception&) {
    records.clear();
  }
  return records;
}

void write_manifest(const std::string& path, const std::map<std::string, FileRecord>& records) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& [name, r] : records)
    files.push_back({{"name", name}, {"size", r.size}, {"inode", r.inode}, {"mtime_ns", r.mtime_ns},
                     {"ctime_ns", r.ctime_ns}});
  const nlohmann::json j = {{"format", kManifestFormat}, {"files", files}};
  AtomicFile out(path);
  std::fputs((j.dump(1) + "\n").c_str(), out.get());
  out.commit();
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return normal_path(a) == normal_path(b);
}

void check_output_targets(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const OutputTarget target = classify_output(outputs[i]);
    // A device (/dev/null) may take several outputs; a FIFO's reader would get them mixed.
    struct stat st {};
    const bool device = target.kind == OutputTarget::Kind::WriteThrough && ::stat(target.path.c_str(), &st) == 0 &&
                        S_ISCHR(st.st_mode);
    for (std::size_t j = 0; j < i && !device; ++j)
      if (same_file(outputs[i], outputs[j]))
        throw InputError(outputs[i] + ": the run would write this file twice (also as " + outputs[j] + ")");
    if (is_input(outputs[i], inputs))
      throw InputError(outputs[i] + ": is an input of this run; the run would overwrite it");
  }
}

const std::vector<std::string>& own_output_names() {
  static const std::vector<std::string> names = {kAvVelsFile,        kFinalStateFile,         kFinalStateVtiFile,
                                                 kForcesFile,        kProbesFile,             kSpeedPictureFile,
                                                 kVorticityPictureFile, kTemperaturePictureFile, kNusseltFile};
  return names;
}

void tidy_output_dir(const std::string& dir, const std::vector<std::string>& written,
                     const std::vector<std::string>& inputs, const std::function<void(const std::string&)>& warn_to) {
  const auto warn = [&](const std::string& text) {
    if (warn_to) warn_to(text);
    else std::fprintf(stderr, "warning: %s\n", text.c_str());
  };
  const std::string manifest = dir + "/" + kOutputManifest;
  bool manifest_ours = false;
  const std::map<std::string, FileRecord> earlier = read_manifest(manifest, manifest_ours);
  for (const std::string& name : own_output_names()) {
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || is_input(path, written)) continue;
    const auto recorded = earlier.find(name);
    const std::optional<FileRecord> now = recorded == earlier.end() ? std::nullopt : record_of(path);
    if (is_input(path, inputs)) {
      warn(path + ": left in place: it is an input of this run");
    } else if (recorded == earlier.end()) {
      warn(path + ": left in place: this run does not write it, and no record shows an earlier run wrote it");
    } else if (!now || !(*now == recorded->second)) {
      warn(path + ": left in place: this run does not write it, and it changed since an earlier run wrote it");
    } else if (::unlink(path.c_str()) == 0) {
      warn("removed " + path + ": an earlier run's output, which this run does not write");
    } else {
      warn(path + " is an earlier run's output, which this run does not write, and cannot be removed (" +
           std::strerror(errno) + ")");
    }
  }
  if (!manifest_ours) {
    warn(manifest + ": not this program's record of its outputs: left as it is, and this run's outputs are not recorded");
    return;
  }
  std::map<std::string, FileRecord> records;
  for (const std::string& path : written) {
    const std::string name = base_name(path);
    if (!same_file(dir + "/" + name, path)) continue;
    if (const std::optional<FileRecord> r = record_of(path)) records[name] = *r;
  }
  try {
    write_manifest(manifest, records);
  } catch (const std::exception& e) {
    warn(std::string(e.what()) + ": the outputs are written, but not recorded for the next run's clean-up");
  }
}

void check_checkpoint_target(const std::string& path, const std::vector<std::string>& inputs, bool overwrite,
                             const std::function<bool(const std::string&)>& ours, const std::string& continue_hint,
                             const std::string& overwrite_hint) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    classify_output(path);  // its folder exists and can be written
    return;
  }
  if (S_ISDIR(st.st_mode)) throw InputError(path + ": is a directory, not a checkpoint file");
  if (!S_ISREG(st.st_mode))
    throw InputError(path + ": is not a regular file (a link, device or FIFO): a checkpoint replaces the file at its path");
  if (is_input(path, inputs)) throw InputError(path + ": is an input of this run; a checkpoint would overwrite it");
  if (::access(path.c_str(), W_OK) != 0 && errno == EACCES)
    throw InputError(path + ": is read-only; a checkpoint would replace it");
  if (overwrite || (ours && ours(path))) return;
  char magic[8] = {};
  std::FILE* in = std::fopen(path.c_str(), "rb");
  const bool checkpoint = in && std::fread(magic, 1, sizeof magic, in) == sizeof magic &&
                          std::memcmp(magic, "D2Q9CKPT", sizeof magic) == 0;
  if (in) std::fclose(in);
  if (!checkpoint)
    throw InputError(path + ": is not a checkpoint, and this run's checkpoint would replace it; choose another "
                     "path, or " + overwrite_hint + " to replace it");
  throw InputError(path + ": holds the checkpoint of another run, which this run would overwrite; " + continue_hint +
                   overwrite_hint + " to start afresh and lose it");
}

}  // namespace d2q9
