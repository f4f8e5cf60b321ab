// d2q9-bench: throughput of one backend on one device, in one process.
// Measures the copy bandwidth, then runs square boxes and the coursework
// problems, and writes CSV and JSON records into results/.
#include <boost/program_options.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "model/printable.hpp"
#include "app/cli.hpp"
#include "d2q9_commit.hpp"
#include "device/backend.hpp"
#include "device/kernel_source.hpp"
#include "model/output.hpp"
#include "model/problem.hpp"

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
  int nx = 0, ny = 0, steps = 0;
  double seconds = 0, mlups = 0, effective_gbs = 0, percent_of_copy = 0;
  std::string local_size;
  std::string variant;
  int rows_per_item = 1;
  std::string skipped;  // why the case did not run
};

Params box_params(int n) {
  Params p;
  p.nx = p.ny = n;
  p.max_iters = 1000;
  p.reynolds_dim = 10;
  p.density = 0.1;
  p.accel = 0.005;
  p.omega = 1.85;
  return p;
}

ObstacleMask box_mask(int n) {
  ObstacleMask m(n, n);
  for (int i = 0; i < n; ++i) {
    m.blocked[i] = m.blocked[i + static_cast<std::size_t>(n - 1) * n] = 1;
    m.blocked[static_cast<std::size_t>(i) * n] = m.blocked[n - 1 + static_cast<std::size_t>(i) * n] = 1;
  }
  return m;
}

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
    LocalSizeChoice choice = make_tuned_solver(bench.backend, c.params, c.mask, bench.config, false);
    const LaunchPlan plan = *choice.solver->launch_plan();
    r.variant = to_string(plan.variant);
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
    r.effective_gbs = r.mlups * 1e6 * bench.bytes_per_update / 1e9;
    r.percent_of_copy = 100.0 * r.effective_gbs * 1e9 / bench.copy_bandwidth;
    r.local_size = plan.local.text();
    std::printf("%-22s %8d %10.4f %10.1f %12.1f %10.1f %8s %10s %4d\n", r.name.c_str(), r.steps, r.seconds, r.mlups,
                r.effective_gbs, r.percent_of_copy, r.local_size.c_str(), r.variant.c_str(), r.rows_per_item);
  } catch (const DeviceError& e) {
    r.skipped = e.what();
    std::printf("%-22s skipped: %s\n", r.name.c_str(), r.skipped.c_str());
  }
  std::fflush(stdout);
  return r;
}

// The serial oracle's throughput on an n x n box, for the CPU-device speed-up ratio.
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
  double device_mlups = 0;
  for (const auto& r : results)
    if (r.name == "box_" + std::to_string(n)) device_mlups = r.mlups;
  std::printf("serial reference at %dx%d: %.1f MLUPS; this device: %.1f MLUPS (%.1fx)\n", n, n, mlups, device_mlups,
              device_mlups / mlups);
  return {{"case", "box_" + std::to_string(n)}, {"steps", steps}, {"mlups", mlups}, {"device_speedup", device_mlups / mlups}};
}

nlohmann::json case_json(const CaseResult& r) {
  return {{"case", r.name},          {"nx", r.nx},
          {"ny", r.ny},              {"steps", r.steps},
          {"seconds", r.seconds},    {"mlups", r.mlups},
          {"effective_gbs", r.effective_gbs}, {"percent_of_copy", r.percent_of_copy},
          {"local_size", r.local_size}, {"kernel_variant", r.variant},
          {"rows_per_item", r.rows_per_item}, {"skipped", r.skipped}};
}

void write_csv(std::FILE* out, const std::vector<CaseResult>& results, const DeviceDescription& dev,
               const std::string& backend, const std::string& precision, double copy_bw) {
  std::fprintf(out,
               "case,nx,ny,steps,seconds,mlups,effective_gbs,percent_of_copy,local_size,device,driver,backend,"
               "precision,variant,rows_per_item,commit,copy_gbs,skipped\n");
  for (const auto& r : results)
    std::fprintf(out, "%s,%d,%d,%d,%.6f,%.2f,%.2f,%.2f,%s,\"%s\",\"%s\",%s,%s,%s,%d,%s,%.2f,\"%s\"\n", r.name.c_str(),
                 r.nx, r.ny, r.steps, r.seconds, r.mlups, r.effective_gbs, r.percent_of_copy, r.local_size.c_str(),
                 dev.name.c_str(), dev.driver.c_str(), backend.c_str(), precision.c_str(), r.variant.c_str(),
                 r.rows_per_item, D2Q9_COMMIT, copy_bw / 1e9, r.skipped.c_str());
}

}  // namespace

int main(int argc, char* argv[]) {
  po::options_description desc("d2q9-bench options");
  // clang-format off
  desc.add_options()
    ("help,h", "show this help")
    ("backend,b", po::value<std::string>()->default_value("opencl"), "opencl | cuda")
    ("device,d", po::value<int>()->default_value(-1), "OpenCL device index (default: first GPU, else first device)")
    ("precision,p", po::value<std::string>()->default_value("float"), "float | double | fp16s | fp16c")
    ("kernel-variant", po::value<std::string>()->default_value("auto"), "auto | split | fused | fused-x2")
    ("local-size,l", po::value<std::string>()->default_value("auto"), "WxH or auto (tuned per case, cached)")
    ("kernels-dir", po::value<std::string>(), "folder holding the .cl files")
    ("inputs-dir", po::value<std::string>()->default_value("inputs"), "folder with the coursework problems")
    ("output-dir,o", po::value<std::string>(), "where the CSV/JSON go (default results/<device>)")
    ("sizes", po::value<std::string>()->default_value("128,256,512,1024,2048,4096,8192"), "square box sizes")
    ("coursework-steps", po::value<int>()->default_value(0), "steps for the coursework problems (0: their own)")
    ("min-seconds", po::value<double>()->default_value(1.0), "timed seconds per square box case")
    ("copy-mib", po::value<int>()->default_value(1024), "size of each copy buffer in MiB")
    ("rows-per-item", po::value<int>()->default_value(0), "rows per work-item of one-step kernels (0: chosen per grid)")
    ("reference-at", po::value<int>()->default_value(0), "also time the serial reference on this box size");
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
    const std::optional<Backend> parsed = parse_backend(vm["backend"].as<std::string>());
    if (!parsed || *parsed == Backend::Reference)
      throw UsageError("--backend must be opencl or cuda, got '" + vm["backend"].as<std::string>() + "'");
    const Backend backend_id = *parsed;
    const std::string backend = to_string(backend_id);
    SolverConfig base;
    base.device.device = vm["device"].as<int>();
    const std::string precision = vm["precision"].as<std::string>();
    if (!parse_precision(precision, base.device.precision))
      throw UsageError("--precision must be float, double, fp16s or fp16c, got '" + precision + "'");
    const std::string variant = vm["kernel-variant"].as<std::string>();
    try {
      base.launch.variant = parse_kernel_variant(variant);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    base.launch.rows_per_item = vm["rows-per-item"].as<int>();
    if (base.launch.rows_per_item < 0 || base.launch.rows_per_item > 64)
      throw UsageError("--rows-per-item must be 0 to 64");
    base.launch.local = parse_local_size(vm["local-size"].as<std::string>());
    base.device.kernels_dir = find_kernels_dir(vm.count("kernels-dir") ? vm["kernels-dir"].as<std::string>() : "");
    const DeviceDescription dev = describe_device(backend_id, base.device.device);
    const std::size_t real_size = d2q9::stored_size(base.device.precision);
    const double bytes_per_update = 2.0 * kSpeeds * real_size + 1.0;  // read + write 9 values, one mask byte
    const std::string out_dir =
        vm.count("output-dir") ? vm["output-dir"].as<std::string>() : "results/" + slug(dev.name);
    std::system(("mkdir -p '" + out_dir + "'").c_str());

    std::printf("d2q9-bench on %s (%s; driver %s), %s, %s, %s variant, commit %s\n", dev.name.c_str(),
                dev.platform.c_str(), dev.driver.c_str(), backend.c_str(), precision.c_str(), variant.c_str(),
                D2Q9_COMMIT);
    std::size_t copy_bytes = static_cast<std::size_t>(vm["copy-mib"].as<int>()) << 20;
    copy_bytes = std::min<std::size_t>(copy_bytes, dev.memory_bytes / 4);
    const double copy_bw = copy_bandwidth(backend_id, base.device.device, base.device.kernels_dir, copy_bytes);
    std::printf("copy bandwidth: %.1f GB/s (2 x %zu MiB buffers, read + write counted)\n", copy_bw / 1e9,
                copy_bytes >> 20);

    std::vector<BenchCase> cases;
    std::stringstream sizes(vm["sizes"].as<std::string>());
    for (std::string tok; std::getline(sizes, tok, ',');) {
      if (tok.empty()) continue;
      const int n = std::stoi(tok);
      cases.push_back({"box_" + std::to_string(n), box_params(n), box_mask(n), 0});
    }
    const std::string inputs = vm["inputs-dir"].as<std::string>();
    for (const char* size : {"128x128", "128x256", "256x256", "1024x1024"}) {
      const Params p = read_params(inputs + "/input_" + size + ".params");
      const int steps = vm["coursework-steps"].as<int>() > 0 ? vm["coursework-steps"].as<int>() : p.max_iters;
      cases.push_back({std::string("coursework_") + size, p, read_obstacles(inputs + "/obstacles_" + size + ".dat", p), steps});
    }

    const Bench bench{backend_id, base, copy_bw, bytes_per_update, vm["min-seconds"].as<double>()};
    std::vector<CaseResult> results;
    std::printf("%-22s %8s %10s %10s %12s %10s %8s %10s %4s\n", "case", "steps", "seconds", "MLUPS", "eff. GB/s",
                "% of copy", "local", "variant", "rows");
    for (BenchCase& c : cases) results.push_back(time_case(bench, c));

    const int reference_at = vm["reference-at"].as<int>();
    const nlohmann::json reference = reference_at > 0 ? time_reference(bench, reference_at, results) : nullptr;

    const std::string stem = out_dir + "/bench_" + backend + "_" + precision + "_" + variant;
    nlohmann::json j = {{"device", dev.name},
                        {"platform", dev.platform},
                        {"driver", dev.driver},
                        {"device_version", dev.version},
                        {"backend", backend},
                        {"precision", precision},
                        {"kernel_variant", variant},
                        {"commit", D2Q9_COMMIT},
                        {"copy_bandwidth_gbs", copy_bw / 1e9},
                        {"copy_buffer_bytes", copy_bytes},
                        {"bytes_per_cell_update", bytes_per_update},
                        {"bytes_counted", "read and write of 9 distributions (" + std::to_string(real_size) +
                                              " bytes each) plus one obstacle-mask byte per cell update"},
                        {"serial_reference", reference},
                        {"cases", nlohmann::json::array()}};
    OutputSet files;
    write_csv(files.add(stem + ".csv"), results, dev, backend, precision, copy_bw);
    for (const auto& r : results) j["cases"].push_back(case_json(r));
    std::fputs((j.dump(2) + "\n").c_str(), files.add(stem + ".json"));
    files.commit();
    std::printf("wrote %s.csv and %s.json\n", stem.c_str(), stem.c_str());
    return 0;
  } catch (const UsageError& e) {
    std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", printable(e.what()).c_str());
    return 1;
  }
}
