#include "app/cli.hpp"

#include <boost/program_options.hpp>
#include <algorithm>
#include <sstream>
#include <vector>

namespace po = boost::program_options;

namespace d2q9 {

namespace {

po::options_description visible_options() {
  po::options_description desc("Options");
  // clang-format off
  desc.add_options()
    ("help,h", "show this help and exit")
    ("version", "print the version, the commit it was built from and the backends built in, and exit")
    ("list-devices", "list every device with its index for --device, and exit")
    ("backend,b", po::value<std::string>()->default_value("opencl"), "opencl | cuda (NVIDIA GPUs, when built) | reference (serial CPU oracle)")
    ("device,d", po::value<std::string>(), "device index from --list-devices, among the chosen backend's devices (default: first GPU, else first device)")
    ("local-size,l", po::value<std::string>()->default_value("auto"),
     "work-group shape WxH, e.g. 128x1, or auto: the cached fastest shape for this device, problem size and "
     "variant, found by a short search on the first large run")
    ("tune", "search the work-group shapes afresh, print their timings and cache the fastest")
    ("output-dir,o", po::value<std::string>()->default_value("."), "where av_vels.dat and final_state.dat go")
    ("kernels-dir", po::value<std::string>(), "folder holding d2q9_bgk.cl (default: next to the executable)")
    ("precision,p", po::value<std::string>()->default_value("float"), "float | double | fp16s | fp16c: fp16s and fp16c compute in float and store the distributions in 16 bits (half the memory traffic; see docs/performance.md)")
    ("kernel-variant", po::value<std::string>()->default_value("auto"),
     "split: accelerate_flow and propagate_rebound_collide launched per step | fused: one launch per step "
     "(acceleration folded into the step before) | fused-x2: two steps per launch | fused-rows: a row per "
     "work-item, no barriers (CPU devices; local size 1x1) | auto: on GPUs fused-x2 on small grids, else fused; on "
     "CPUs fused-rows (fused when --local-size is given); distributions are identical")
    ("slab-rows", po::value<std::string>(),
     "under mpirun with several ranks: rows of each rank's slab, bottom to top, e.g. 12,17,1 (default: an even "
     "split in whole work-group rows)")
    ("checkpoint-every", po::value<std::string>(), "write the run's state to checkpoint.d2q9 in the output directory every N steps")
    ("restart", po::value<std::string>(), "continue the run saved in this checkpoint file")
    ("quiet,q", "print only errors (and no progress line)")
    ("png", po::value<std::string>(), "picture of the final speed |u| (default: final_state.png in the output directory)")
    ("no-png", "write no picture")
    ("snapshot-every", po::value<std::string>(), "also write a picture every N steps, snapshot_<step>.png in the output directory")
    ("vtk", po::value<std::string>(), "final state as legacy VTK image data (FILE.vtk) for ParaView")
    ("summary-json", po::value<std::string>(), "run summary (parameters, device, times, MLUPS, Reynolds number) as JSON");
  // clang-format on
  return desc;
}

int parse_non_negative(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  long v = -1;
  try {
    v = std::stol(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || text.empty() || v < 0 || v > 1000000000)
    throw UsageError(what + " must be a non-negative integer, got '" + text + "'");
  return static_cast<int>(v);
}

// Boost fills its message template by replacing placeholders such as
// %canonical_option% until none is left, so an argument that itself holds one
// loops forever (a fuzzer finding). The message therefore comes from parsing
// again with every '%' stood in for, which fails the same way.
std::string boost_error_message(int argc, const char* const argv[], const po::options_description& all,
                                const po::positional_options_description& positional) {
  constexpr char kStandIn = '\x1a';
  std::vector<std::string> args(argv + 1, argv + argc);
  for (auto& a : args) std::replace(a.begin(), a.end(), '%', kStandIn);
  std::string message = "invalid command line";
  try {
    po::variables_map vm;
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    message = e.what();
  }
  std::replace(message.begin(), message.end(), kStandIn, '%');
  return message;
}

}  // namespace

LocalSize parse_local_size(const std::string& text) {
  if (text == "auto") return {};
  const auto x = text.find('x');
  if (x == std::string::npos)
    throw UsageError("--local-size must be WxH (e.g. 128x1) or auto, got '" + text + "'");
  const int w = parse_non_negative(text.substr(0, x), "--local-size width");
  const int h = parse_non_negative(text.substr(x + 1), "--local-size height");
  if (w < 1 || h < 1) throw UsageError("--local-size must be at least 1x1, got '" + text + "'");
  return {w, h};
}

Options parse_command_line(int argc, const char* const argv[]) {
  po::options_description hidden;
  hidden.add_options()("paramfile", po::value<std::string>())("obstaclefile", po::value<std::string>());
  po::options_description all;
  all.add(visible_options()).add(hidden);
  po::positional_options_description positional;
  positional.add("paramfile", 1).add("obstaclefile", 1);

  po::variables_map vm;
  try {
    po::store(po::command_line_parser(argc, argv).options(all).positional(positional).run(), vm);
    po::notify(vm);
  } catch (const po::error&) {
    throw UsageError(boost_error_message(argc, argv, all, positional));
  }

  Options o;
  o.help = vm.count("help") > 0;
  o.version = vm.count("version") > 0;
  o.list_devices = vm.count("list-devices") > 0;
  o.quiet = vm.count("quiet") > 0;
  o.tune = vm.count("tune") > 0;
  if (o.help || o.version || o.list_devices) return o;

  if (!vm.count("paramfile") || !vm.count("obstaclefile"))
    throw UsageError("expected two arguments: <paramfile> <obstaclefile>");
  o.param_file = vm["paramfile"].as<std::string>();
  o.obstacle_file = vm["obstaclefile"].as<std::string>();

  const std::string backend = vm["backend"].as<std::string>();
  const std::optional<Backend> parsed = parse_backend(backend);
  if (!parsed) throw UsageError("--backend must be opencl, cuda or reference, got '" + backend + "'");
  o.backend = *parsed;
  if (vm.count("device")) o.device = parse_non_negative(vm["device"].as<std::string>(), "--device");
  o.local_size = parse_local_size(vm["local-size"].as<std::string>());
  o.output_dir = vm["output-dir"].as<std::string>();
  if (vm.count("kernels-dir")) o.kernels_dir = vm["kernels-dir"].as<std::string>();
  const std::string precision = vm["precision"].as<std::string>();
  if (!parse_precision(precision, o.precision))
    throw UsageError("--precision must be float, double, fp16s or fp16c, got '" + precision + "'");
  try {
    o.variant = parse_kernel_variant(vm["kernel-variant"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (vm.count("slab-rows")) {
    std::istringstream list(vm["slab-rows"].as<std::string>());
    for (std::string item; std::getline(list, item, ',');) {
      o.slab_rows.push_back(parse_non_negative(item, "--slab-rows entry"));
      if (o.slab_rows.back() < 1) throw UsageError("--slab-rows entries must be at least 1, got '0'");
    }
    if (o.slab_rows.empty()) throw UsageError("--slab-rows needs a comma-separated list of row counts");
  }

  for (const char* name : {"png", "vtk", "summary-json"})
    if (vm.count(name) && vm[name].as<std::string>().empty())
      throw UsageError(std::string("--") + name + " needs a file name");
  o.no_png = vm.count("no-png") > 0;
  if (vm.count("png")) o.png_file = vm["png"].as<std::string>();
  if (o.no_png && !o.png_file.empty()) throw UsageError("--png and --no-png contradict each other");
  if (vm.count("snapshot-every")) {
    o.snapshot_every = parse_non_negative(vm["snapshot-every"].as<std::string>(), "--snapshot-every");
    if (o.snapshot_every < 1) throw UsageError("--snapshot-every must be at least 1, got '0'");
  }
  if (vm.count("vtk")) {
    o.vtk_file = vm["vtk"].as<std::string>();
    // ParaView chooses its reader by extension, and this is the legacy format.
    if (o.vtk_file.size() < 5 || o.vtk_file.compare(o.vtk_file.size() - 4, 4, ".vtk") != 0)
      throw UsageError("--vtk writes legacy VTK: the file name must end in .vtk, got '" + o.vtk_file + "'");
  }
  if (vm.count("summary-json")) o.summary_json_file = vm["summary-json"].as<std::string>();
  if (vm.count("checkpoint-every")) {
    o.checkpoint_every = parse_non_negative(vm["checkpoint-every"].as<std::string>(), "--checkpoint-every");
    if (o.checkpoint_every == 0) throw UsageError("--checkpoint-every must be at least 1");
  }
  if (vm.count("restart")) o.restart_file = vm["restart"].as<std::string>();
  return o;
}

std::string usage_text(const std::string& program) {
  std::ostringstream out;
  out << "Usage: " << program << " [options] <paramfile> <obstaclefile>\n"
      << "D2Q9 BGK lattice Boltzmann flow solver (OpenCL; CUDA where built).\n"
      << "Writes av_vels.dat and final_state.dat into the output directory.\n\n"
      << visible_options();
  return out.str();
}

}  // namespace d2q9
