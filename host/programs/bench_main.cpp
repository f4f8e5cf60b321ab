// d2q9-bench: throughput of one backend on one device, in one process.
// Measures the copy bandwidth, then runs square boxes and the coursework
// problems in each precision asked for, and writes CSV and JSON records into
// results/. --sweep-local-size times every work-group shape of the coursework
// problems instead (app/sweep.hpp).
#include <algorithm>
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/printable.hpp"
#include "app/bench_boxes.hpp"
#include "app/cli.hpp"
#include "app/sweep.hpp"
#include "app/version.hpp"
#include "sim/backend.hpp"
#include "sim/launch_policy.hpp"
#include "device/kernel_source.hpp"
#include "io/output.hpp"
#include "problem/problem.hpp"

namespace po = boost::program_options;
using namespace d2q9;

namespace {

struct BenchCase {
  std::string name;
  Params params;
  ObstacleMask mask;
  int steps;  // 0: choose from --min-seconds
};

struct CaseResult {
  std::string name;
  std::string precision;
  double bytes_per_update = 0;  // counted in effective_gbs
  int nx = 0, ny = 0, steps = 0;
  double seconds = 0, mlups = 0, effective_gbs = 0, percent_of_copy = 0;
  std::string local_size;
  std::string variant;
  int rows_per_item = 1;
  std::string skipped;  // why the case did not run
};

Params box_params(int n) { return d2q9::box_params(n, n, 1000, 10); }
Params heat_box_params(int n) { return d2q9::heat_box_params(n, n, 1000, 10); }
ObstacleMask box_mask(int n) { return d2q9::box_mask(n, n); }
ObstacleMask heat_box_mask(int n) { return d2q9::heat_box_mask(n, n); }

double now_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string slug(std::string s) {
  for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  std::string out;
  for (char c : s)
    if (!(c == '-' && (out.empty() || out.back() == '-'))) out += c;
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

constexpr std::size_t kMiB = std::size_t{1} << 20;
const char* const kCourseworkSizes[] = {"128x128", "128x256", "256x256", "1024x1024"};

// Copy buffers smaller than this would be measured (partly) in the cache:
// four times the last-level cache, and 64 MiB where the device reports a
// small cache or none.
std::size_t smallest_copy_bytes(const DeviceDescription& dev) {
  return std::max<std::size_t>(4 * dev.cache_bytes, 64 * kMiB);
}

std::string mib_text(unsigned long long bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / kMiB);
  return buf;
}

// The coursework problems: `requested` if given, else inputs/ beside the
// build folder (a build inside the source tree), ../share/d2q9-bgk/inputs
// beside an installed executable, or ./inputs.
std::string find_inputs_dir(const std::string& requested) {
  std::error_code ec;
  const auto has_inputs = [&ec](const std::string& dir) {
    return std::filesystem::exists(dir + "/input_128x128.params", ec);
  };
  if (!requested.empty()) {
    if (!has_inputs(requested))
      throw UsageError(requested + ": no coursework inputs (input_128x128.params) in the folder given by --inputs-dir; "
                                   "pass the folder holding them, or --no-coursework");
    return requested;
  }
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).parent_path().string();
  const std::vector<std::string> candidates = {exe + "/../inputs", exe + "/../share/d2q9-bgk/inputs", "inputs"};
  for (const std::string& dir : candidates)
    if (has_inputs(dir)) return dir;
  throw UsageError("cannot find the coursework inputs (input_128x128.params) in " + candidates[0] + ", " +
                   candidates[1] + " or ./inputs; pass --inputs-dir DIR, or --no-coursework");
}

// "float" or "float,fp16s,fp16c": the precisions to run, in the order given,
// each read by parse_precision.
std::vector<Precision> parse_precisions(const std::string& text) {
  std::vector<Precision> list;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    Precision p;
    if (!parse_precision(item, p))
      throw UsageError("--precision must be float, double, fp16s or fp16c, or a comma list of them, got '" + item +
                       "'" + (item == text ? "" : " in '" + text + "'"));
    if (std::find(list.begin(), list.end(), p) != list.end())
      throw UsageError("--precision lists " + item + " twice in '" + text + "'");
    list.push_back(p);
  }
  if (list.empty() || text.back() == ',')
    throw UsageError("--precision must be float, double, fp16s or fp16c, or a comma list of them, got '" + text + "'");
  return list;
}

// How the precisions appear in file names and records: "float", "float+fp16s".
std::string precisions_label(const std::vector<Precision>& list) {
  std::string label;
  for (Precision p : list) label += (label.empty() ? "" : "+") + std::string(to_string(p));
  return label;
}

// Bytes counted per cell update: 9 distributions (14 with heat) read and written, one mask byte.
double bytes_per_update(Precision p, int planes = kSpeeds) { return 2.0 * planes * stored_size(p) + 1.0; }

constexpr const char kCourseworkPrefix[] = "coursework_";

// A coursework problem as the bench finds it: inputs/input_<size>.params and obstacles_<size>.dat.
BenchCase coursework_case(const std::string& inputs, const std::string& size, int steps) {
  const Params p = read_params(inputs + "/input_" + size + ".params");
  return {kCourseworkPrefix + size, p, read_obstacles(inputs + "/obstacles_" + size + ".dat", p),
          steps > 0 ? steps : p.max_iters};
}

// "128,512,1024": box sizes of at least 4 cells a side (none: coursework only).
std::vector<int> parse_sizes(const std::string& text) {
  std::vector<int> sizes;
  std::stringstream tokens(text);
  for (std::string tok; std::getline(tokens, tok, ',');) {
    if (tok.empty()) continue;
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(tok, &used);
    } catch (const std::exception&) {
    }
    if (used != tok.size() || n < 4)
      throw UsageError("--sizes takes box sizes of at least 4, separated by commas, got '" + text + "'");
    sizes.push_back(n);
  }
  return sizes;
}

// What every case of one bench run shares.
struct Bench {
  Backend backend;
  SolverConfig config;
  double copy_bandwidth;    // bytes/s
  double bytes_per_update;  // counted per cell update
  double min_seconds;       // timed per square box case
};

// Times one case: a short probe sizes the run (boxes), the shape comes from
// the cache or a search, a warm-up runs, then the timed run from rest.
CaseResult time_case(const Bench& bench, BenchCase& c) {
  CaseResult r;
  r.name = c.name;
  r.precision = to_string(bench.config.device.precision);
  r.bytes_per_update = bytes_per_update(bench.config.device.precision, c.params.extensions.planes());
  r.nx = c.params.nx;
  r.ny = c.params.ny;
  try {
    int steps = c.steps;
    if (steps == 0) {
      // Size the timed run from a short one, so launch overhead and timer noise amortise.
      auto probe = make_solver(bench.backend, c.params, c.mask, bench.config);
      std::vector<double> av;
      probe->run(2, av);
      const double t0 = now_seconds();
      probe->run(5, av);
      const double per_step = (now_seconds() - t0) / 5;
      steps = static_cast<int>(std::clamp(bench.min_seconds / per_step, 10.0, 1e6));
    }
    c.params.max_iters = steps;
    LaunchChoice choice = make_tuned_solver(bench.backend, c.params, c.mask, bench.config, false);
    const LaunchPlan plan = *choice.solver->launch_plan();
    r.variant = variant_text(plan);
    r.rows_per_item = plan.rows_per_item;
    // Warm up (first launches, lazy just-in-time compilation on CPU
    // devices), then restart from the initial state for the timed run.
    std::vector<double> av;
    choice.solver->run(2, av);
    choice.solver->load_distributions(initial_distributions(c.params));
    av.clear();
    av.reserve(steps);
    const double t0 = now_seconds();
    choice.solver->run(steps, av);
    r.seconds = now_seconds() - t0;
    r.steps = steps;
    r.mlups = static_cast<double>(c.params.cells()) * steps / r.seconds / 1e6;
    r.effective_gbs = r.mlups * 1e6 * r.bytes_per_update / 1e9;
    r.percent_of_copy = 100.0 * r.effective_gbs * 1e9 / bench.copy_bandwidth;
    r.local_size = plan.local.text();
    std::printf("%-22s %-6s %8d %10.4f %10.1f %12.1f %10.1f %8s %10s %4d\n", r.name.c_str(), r.precision.c_str(),
                r.steps, r.seconds, r.mlups, r.effective_gbs, r.percent_of_copy, r.local_size.c_str(),
                r.variant.c_str(), r.rows_per_item);
  } catch (const DeviceError& e) {
    r.skipped = e.what();
    std::printf("%-22s %-6s skipped: %s\n", r.name.c_str(), r.precision.c_str(), r.skipped.c_str());
  }
  std::fflush(stdout);
  return r;
}

// The serial oracle's throughput on an n x n box in the bench's precision, for the CPU-device speed-up ratio.
nlohmann::json time_reference(const Bench& bench, int n, const std::vector<CaseResult>& results) {
  const Params p = box_params(n);
  const ObstacleMask m = box_mask(n);
  SolverConfig config = bench.config;
  config.launch = LaunchRequest{};
  std::unique_ptr<Solver> ref = make_solver(Backend::Reference, p, m, config);
  std::vector<double> av;
  const double t0 = now_seconds();
  int steps = 0;
  while (now_seconds() - t0 < bench.min_seconds) ref->run(10, av), steps += 10;
  const double mlups = static_cast<double>(p.cells()) * steps / (now_seconds() - t0) / 1e6;
  const std::string precision = to_string(config.device.precision);
  double device_mlups = 0;
  for (const auto& r : results)
    if (r.name == "box_" + std::to_string(n) && r.precision == precision) device_mlups = r.mlups;
  std::printf("serial reference at %dx%d in %s: %.1f MLUPS; this device: %.1f MLUPS (%.1fx)\n", n, n,
              precision.c_str(), mlups, device_mlups, device_mlups / mlups);
  return {{"case", "box_" + std::to_string(n)}, {"precision", precision},       {"steps", steps},
          {"mlups", mlups},                     {"device_speedup", device_mlups / mlups}};
}

nlohmann::json case_json(const CaseResult& r) {
  return {{"case", r.name},          {"precision", r.precision},
          {"bytes_per_cell_update", r.bytes_per_update},
          {"nx", r.nx},
          {"ny", r.ny},              {"steps", r.steps},
          {"seconds", r.seconds},    {"mlups", r.mlups},
          {"effective_gbs", r.effective_gbs}, {"percent_of_copy", r.percent_of_copy},
          {"local_size", r.local_size}, {"kernel_variant", r.variant},
          {"rows_per_item", r.rows_per_item}, {"skipped", r.skipped}};
}

// `version` is the last column so that readers of older records find every
// other column where it was.
void write_csv(std::FILE* out, const std::vector<CaseResult>& results, const DeviceDescription& dev,
               const std::string& backend, double copy_bw, const BuildInfo& build) {
  std::fprintf(out,
               "case,nx,ny,steps,seconds,mlups,effective_gbs,percent_of_copy,local_size,device,driver,backend,"
               "precision,variant,rows_per_item,commit,copy_gbs,skipped,version\n");
  for (const auto& r : results)
    std::fprintf(out, "%s,%d,%d,%d,%.6f,%.2f,%.2f,%.2f,%s,\"%s\",\"%s\",%s,%s,%s,%d,%s,%.2f,\"%s\",%s\n",
                 r.name.c_str(), r.nx, r.ny, r.steps, r.seconds, r.mlups, r.effective_gbs, r.percent_of_copy,
                 r.local_size.c_str(), dev.name.c_str(), dev.driver.c_str(), backend.c_str(), r.precision.c_str(),
                 r.variant.c_str(), r.rows_per_item, build.commit.c_str(), copy_bw / 1e9, r.skipped.c_str(),
                 build.version.c_str());
}


// What the bench and the sweep share, every option checked before anything is timed.
struct Setup {
  Backend backend = Backend::OpenCL;
  SolverConfig base;  // the precision is set per run
  std::vector<Precision> precisions;
  std::string precision_label;  // "float", "float+fp16s": file names and records
  std::string variant;          // --kernel-variant as given
  int coursework_steps = 0;
  std::vector<BenchCase> coursework;  // empty without the coursework problems
  DeviceDescription dev;
  std::string out_dir;
  BuildInfo build;
};

// The bench's own options after --quick's defaults, with the copy buffer sized for the device.
struct BenchOptions {
  std::vector<int> sizes;
  std::vector<int> heat_sizes;  // thermal boxes (heatbox_N)
  double min_seconds = 1.0;
  int reference_at = 0;
  std::size_t copy_bytes = 0;
};

// Options of the bench's boxes, copy and coursework timing: a sweep would
// ignore them, so it refuses them instead.
void refuse_bench_only_options(const po::variables_map& vm) {
  for (const char* option : {"quick", "no-coursework", "sizes", "min-seconds", "copy-mib", "reference-at", "local-size"})
    if (vm.count(option) && !vm[option].defaulted())
      throw UsageError(std::string("--") + option + " is not for --sweep-local-size, which times every work-group " +
                       "shape of the coursework problems and nothing else: leave it out, or run the bench without " +
                       "--sweep-local-size");
}

Setup read_setup(const po::variables_map& vm, bool sweep) {
  Setup s;
  const bool quick = vm.count("quick") > 0;
  const std::optional<Backend> parsed = parse_backend(vm["backend"].as<std::string>());
  if (!parsed || *parsed == Backend::Reference)
    throw UsageError("--backend must be " + backend_names(true) + ", got '" + vm["backend"].as<std::string>() + "'");
  s.backend = *parsed;
  s.base.device.device = vm["device"].as<int>();
  s.precisions = parse_precisions(vm["precision"].as<std::string>());
  s.precision_label = precisions_label(s.precisions);
  s.variant = vm["kernel-variant"].as<std::string>();
  try {
    s.base.launch.variant = parse_kernel_variant(s.variant);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (sweep && s.base.launch.variant == KernelVariant::FusedRows)
    throw UsageError("--kernel-variant fused-rows takes no work-group shape, so --sweep-local-size has none to time: "
                     "name split or fused, or leave it out (where fused-rows is the default, the sweep times fused)");
  s.base.launch.rows_per_item = vm["rows-per-item"].as<int>();
  if (s.base.launch.rows_per_item < 0 || s.base.launch.rows_per_item > 64)
    throw UsageError("--rows-per-item must be 0 to 64");
  s.base.launch.local = parse_local_size(vm["local-size"].as<std::string>());
  s.base.launch.block_steps = vm["block-steps"].as<int>();
  if (s.base.launch.block_steps < 0) throw UsageError("--block-steps must be 0 (default) or more");
  s.base.launch.tile = parse_shape(vm["tile"].as<std::string>(), "--tile");
  s.coursework_steps = vm["coursework-steps"].as<int>();
  if (s.coursework_steps < 0) throw UsageError("--coursework-steps must be 0 (their own) or more");
  const bool coursework = sweep || (!vm.count("no-coursework") && !(quick && !vm.count("inputs-dir")));
  if (coursework) {
    const std::string inputs = find_inputs_dir(vm.count("inputs-dir") ? vm["inputs-dir"].as<std::string>() : "");
    for (const char* size : kCourseworkSizes) s.coursework.push_back(coursework_case(inputs, size, s.coursework_steps));
  }
  s.base.device.kernels_dir = find_kernels_dir(vm.count("kernels-dir") ? vm["kernels-dir"].as<std::string>() : "");
  s.dev = describe_device(s.backend, s.base.device.device);
  s.out_dir = vm.count("output-dir") ? vm["output-dir"].as<std::string>() : "results/" + slug(s.dev.name);
  s.build = build_info();
  return s;
}

BenchOptions read_bench_options(const po::variables_map& vm, const DeviceDescription& dev) {
  const bool quick = vm.count("quick") > 0;
  BenchOptions o;
  o.sizes = parse_sizes(quick && vm["sizes"].defaulted() ? "128,512,1024" : vm["sizes"].as<std::string>());
  if (vm.count("heat-sizes")) o.heat_sizes = parse_sizes(vm["heat-sizes"].as<std::string>());
  o.min_seconds = quick && vm["min-seconds"].defaulted() ? 0.2 : vm["min-seconds"].as<double>();
  if (!(o.min_seconds > 0 && o.min_seconds <= 3600)) throw UsageError("--min-seconds must be above 0 and at most 3600");
  o.reference_at = vm["reference-at"].as<int>();
  if (o.reference_at != 0 && o.reference_at < 4)
    throw UsageError("--reference-at must be 0 (off) or a box size of at least 4");

  const std::size_t smallest_copy = smallest_copy_bytes(dev);
  const int copy_mib = vm["copy-mib"].as<int>();
  o.copy_bytes = quick && vm["copy-mib"].defaulted() ? smallest_copy
                                                     : static_cast<std::size_t>(std::max(copy_mib, 0)) * kMiB;
  if (o.copy_bytes < smallest_copy)
    throw UsageError("--copy-mib " + std::to_string(copy_mib) + " would be measured in the device's last-level " +
                     "cache (" + (dev.cache_bytes ? mib_text(dev.cache_bytes) : std::string("of unknown size")) +
                     "), not its memory: use --copy-mib " + std::to_string((smallest_copy + kMiB - 1) / kMiB) +
                     " or more");
  o.copy_bytes = std::min<std::size_t>(o.copy_bytes, dev.memory_bytes / 4);
  if (o.copy_bytes < smallest_copy)
    throw DeviceError("the device's " + mib_text(dev.memory_bytes) + " of memory cannot hold two copy buffers of " +
                      mib_text(smallest_copy) + " (4x its last-level cache) with room to spare");
  return o;
}

// "read and write of 9 distributions (4 bytes each) ..." or, for several
// precisions, "(4 bytes each in float, 2 in fp16s)".
std::string bytes_counted(const std::vector<Precision>& precisions) {
  std::string each;
  for (Precision p : precisions)
    each += (each.empty() ? std::to_string(stored_size(p)) + " bytes each" : ", " + std::to_string(stored_size(p))) +
            (precisions.size() > 1 ? std::string(" in ") + to_string(p) : "");
  return "read and write of 9 distributions (" + each + ") plus one obstacle-mask byte per cell update";
}

// The copy bandwidth once, then every case in each precision, in the order given.
int run_bench(const Setup& s, const BenchOptions& o) {
  const std::string backend = to_string(s.backend);
  std::vector<BenchCase> cases;
  for (int n : o.sizes) cases.push_back({"box_" + std::to_string(n), box_params(n), box_mask(n), 0});
  for (int n : o.heat_sizes) cases.push_back({"heatbox_" + std::to_string(n), heat_box_params(n), heat_box_mask(n), 0});
  cases.insert(cases.end(), s.coursework.begin(), s.coursework.end());

  std::printf("d2q9-bench %s on %s (%s; driver %s), %s, %s, %s variant, commit %s\n", s.build.version.c_str(),
              s.dev.name.c_str(), s.dev.platform.c_str(), s.dev.driver.c_str(), backend.c_str(),
              s.precision_label.c_str(), s.variant.c_str(), s.build.commit.c_str());
  const double copy_bw = copy_bandwidth(s.backend, s.base.device.device, s.base.device.kernels_dir, o.copy_bytes);
  std::printf("copy bandwidth: %.1f GB/s (2 x %zu MiB buffers, read + write counted; last-level cache %s)\n",
              copy_bw / 1e9, o.copy_bytes >> 20, s.dev.cache_bytes ? mib_text(s.dev.cache_bytes).c_str() : "unknown");

  std::vector<Bench> benches;
  for (Precision p : s.precisions) {
    SolverConfig config = s.base;
    config.device.precision = p;
    benches.push_back({s.backend, config, copy_bw, bytes_per_update(p), o.min_seconds});
  }
  std::vector<CaseResult> results;
  std::printf("%-22s %-6s %8s %10s %10s %12s %10s %8s %10s %4s\n", "case", "prec.", "steps", "seconds", "MLUPS",
              "eff. GB/s", "% of copy", "local", "variant", "rows");
  for (const Bench& bench : benches)
    for (BenchCase c : cases) results.push_back(time_case(bench, c));  // a copy: time_case sets its steps

  // The serial reference in the first precision, against that precision's box.
  const nlohmann::json reference = o.reference_at > 0 ? time_reference(benches.front(), o.reference_at, results) : nullptr;

  const std::string stem = s.out_dir + "/bench_" + backend + "_" + s.precision_label + "_" + s.variant;
  nlohmann::json precisions = nlohmann::json::array();
  for (Precision p : s.precisions) precisions.push_back(to_string(p));
  nlohmann::json j = {{"program", {{"name", "d2q9-bench"}, {"version", s.build.version}, {"commit", s.build.commit}}},
                      {"device", s.dev.name},
                      {"platform", s.dev.platform},
                      {"driver", s.dev.driver},
                      {"device_version", s.dev.version},
                      {"device_cache_bytes", s.dev.cache_bytes},
                      {"backend", backend},
                      {"precision", s.precision_label},
                      {"precisions", precisions},
                      {"kernel_variant", s.variant},
                      {"commit", s.build.commit},
                      {"copy_bandwidth_gbs", copy_bw / 1e9},
                      {"copy_buffer_bytes", o.copy_bytes},
                      {"bytes_counted", bytes_counted(s.precisions)},
                      {"serial_reference", reference},
                      {"cases", nlohmann::json::array()}};
  // With several precisions each case carries its own.
  if (s.precisions.size() == 1) j["bytes_per_cell_update"] = bytes_per_update(s.precisions.front());
  for (const auto& r : results) j["cases"].push_back(case_json(r));
  // Created only now, so that a bench that failed leaves no empty folder behind.
  std::filesystem::create_directories(s.out_dir);
  OutputSet files;
  write_csv(files.add(stem + ".csv"), results, s.dev, backend, copy_bw, s.build);
  std::fputs((j.dump(2) + "\n").c_str(), files.add(stem + ".json"));
  files.commit();
  std::printf("wrote %s.csv and %s.json\n", stem.c_str(), stem.c_str());
  return 0;
}

// Every work-group shape of each coursework problem, in each precision.
int run_sweep(const Setup& s) {
  const std::string backend = to_string(s.backend);
  std::printf("d2q9-bench %s --sweep-local-size on %s (%s; driver %s), %s, %s, %s variant, commit %s\n",
              s.build.version.c_str(), s.dev.name.c_str(), s.dev.platform.c_str(), s.dev.driver.c_str(),
              backend.c_str(), s.precision_label.c_str(), s.variant.c_str(), s.build.commit.c_str());
  if (s.coursework_steps > 0)
    std::printf("each shape: 2 warm-up steps, then %d steps timed\n", s.coursework_steps);
  else
    std::printf("each shape: 3 warm-up steps, then about 30 ms of steps timed (--coursework-steps N times N)\n");
  print_sweep_header();
  std::vector<SweepRow> rows;
  for (Precision p : s.precisions) {
    Sweep sweep{s.backend, s.base, s.coursework_steps};
    sweep.config.device.precision = p;
    for (const BenchCase& c : s.coursework) {
      const std::string problem = c.name.substr(sizeof kCourseworkPrefix - 1);
      for (SweepRow& r : sweep_problem(sweep, problem, c.params, c.mask)) rows.push_back(std::move(r));
    }
  }
  const std::string path = s.out_dir + "/sweep_" + backend + "_" + s.precision_label + ".csv";
  // Created only now, as for the bench's records.
  std::filesystem::create_directories(s.out_dir);
  OutputSet files;
  write_sweep_csv(files.add(path), rows, backend, s.dev.name, s.build);
  files.commit();
  std::printf("wrote %s\n", path.c_str());
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  po::options_description desc("d2q9-bench options");
  // clang-format off
  desc.add_options()
    ("help,h", "show this help")
    ("backend,b", po::value<std::string>()->default_value("opencl"), backend_choices(false).c_str())
    ("device,d", po::value<int>()->default_value(-1), "OpenCL device index (default: first GPU, else first device)")
    ("precision,p", po::value<std::string>()->default_value("float"),
     "float | double | fp16s | fp16c, or a comma list (e.g. float,fp16s): every case in each, in one process, "
     "the copy bandwidth measured once")
    ("kernel-variant", po::value<std::string>()->default_value("auto"),
     "auto | split | fused | fused-rows | blocked")
    ("block-steps", po::value<int>()->default_value(0), "--kernel-variant blocked: steps per launch (0: default)")
    ("tile", po::value<std::string>()->default_value("auto"), "--kernel-variant blocked: cells WxH per work-group, or auto")
    ("local-size,l", po::value<std::string>()->default_value("auto"), "WxH or auto (tuned per case, cached)")
    ("kernels-dir", po::value<std::string>(), "folder holding the .cl files")
    ("inputs-dir", po::value<std::string>(),
     "folder with the coursework problems (default: inputs/ beside the build folder, "
     "../share/d2q9-bgk/inputs when installed, or ./inputs)")
    ("output-dir,o", po::value<std::string>(),
     "where the CSV/JSON go (default results/<device>; created only when they are written)")
    ("quick", "seconds, not minutes: copy buffers of 4x the last-level cache (64 MiB at least), "
              "--sizes 128,512,1024, --min-seconds 0.2, no coursework unless --inputs-dir is given; "
              "options given explicitly override these")
    ("no-coursework", "skip the coursework problems")
    ("sizes", po::value<std::string>()->default_value("128,256,512,1024,2048,4096,8192"), "square box sizes")
    ("heat-sizes", po::value<std::string>(), "also thermal boxes of these sizes (heatbox_N: the box with a temperature "
     "lattice, a hot and a cold wall and buoyancy), in every precision")
    ("coursework-steps", po::value<int>()->default_value(0),
     "steps for the coursework problems (0: their own); with --sweep-local-size, steps timed per shape "
     "(0: about 30 ms)")
    ("min-seconds", po::value<double>()->default_value(1.0), "timed seconds per square box case")
    ("copy-mib", po::value<int>()->default_value(1024),
     "size of each copy buffer in MiB; refused below 4x the device's last-level cache (and below 64)")
    ("rows-per-item", po::value<int>()->default_value(0), "rows per work-item of one-step kernels (0: chosen per grid)")
    ("reference-at", po::value<int>()->default_value(0), "also time the serial reference on this box size")
    ("sweep-local-size",
     "instead of the bench: time every work-group shape (powers of two the device accepts) of each coursework "
     "problem, for the plan's variant (fused where that is fused-rows), into sweep_<backend>_<precision>.csv");
  // clang-format on
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    std::fprintf(stderr, "error: %s (see --help)\n", printable(e.what()).c_str());
    return 2;
  }
  if (vm.count("help")) {
    std::cout << desc;
    return 0;
  }
  try {
    const bool sweep = vm.count("sweep-local-size") > 0;
    if (sweep) {
      refuse_bench_only_options(vm);
      return run_sweep(read_setup(vm, true));
    }
    // Every option is checked before anything is timed or written.
    const Setup setup = read_setup(vm, false);
    return run_bench(setup, read_bench_options(vm, setup.dev));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
    return 1;
  }
}
