#include "app/cli.hpp"

#include <boost/program_options.hpp>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <vector>

#include "problem/problem_file.hpp"
#include "core/spelling.hpp"

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
    ("backend,b", po::value<std::string>()->default_value("opencl"), backend_choices(true).c_str())
    ("device,d", po::value<std::string>(), "device index from --list-devices, among the chosen backend's devices (default: first GPU, else first device)")
    ("local-size,l", po::value<std::string>()->default_value("auto"),
     "work-group shape WxH, e.g. 128x1, or auto: the cached fastest launch for this device, problem size and "
     "variant (from --tune, or from a search on a run's own steps where the run is long enough to pay for it), "
     "else the default")
    ("tune", "search the work-group shapes afresh, print their timings and cache the fastest")
    ("autotune", "the same as --tune, for under mpirun (whose own --tune option takes the other spelling)")
    ("output-dir,o", po::value<std::string>()->default_value("."),
     "where every output goes (relative --png, --vtk and --summary-json names too); created if missing, its parent must exist")
    ("kernels-dir", po::value<std::string>(), "folder holding d2q9_bgk.cl (default: next to the executable)")
    ("precision,p", po::value<std::string>()->default_value("float"), "float | double | fp16s | fp16c: fp16s and fp16c compute in float and store the distributions in 16 bits (half the memory traffic; see docs/performance.md)")
    ("collision", po::value<std::string>(), "bgk | trt[:LAMBDA] | regularised: the collision of fluid cells, over what a "
     "problem file says (default bgk; TRT's magic parameter LAMBDA defaults to the problem file's, else 1/4; see docs/collision.md)")
    ("smagorinsky", po::value<std::string>(), "C: the Smagorinsky subgrid model's constant, over what a problem file "
     "says, with any --collision (0: no model, the default; 0.1 to 0.17 usual; see docs/collision.md)")
    ("kernel-variant", po::value<std::string>()->default_value("auto"),
     "split: accelerate_flow and propagate_rebound_collide launched per step | fused: one launch per step "
     "(acceleration folded into the step before) | fused-rows: a row per "
     "work-item, no barriers (CPU devices; local size 1x1) | blocked: several steps per launch on tiles in local "
     "memory | auto: on GPUs blocked; on "
     "CPUs fused-rows (fused on rusticl, or when --local-size is given); distributions are identical")
    ("block-steps", po::value<std::string>(), "--kernel-variant blocked: steps per launch (default 4)")
    ("tile", po::value<std::string>(), "--kernel-variant blocked: cells WxH each work-group owns (default: the "
     "largest square whose halo of block-steps cells fits the device's local memory)")
    ("slab-rows", po::value<std::string>(),
     "under mpirun with several ranks: rows of each rank's slab, bottom to top, e.g. 12,17,1 (default: an even "
     "split in whole work-group rows)")
    ("checkpoint-every", po::value<std::string>(), "write the run's state to checkpoint.d2q9 in the output directory every N steps")
    ("overwrite-checkpoint", "with --checkpoint-every: start afresh even where the output directory holds another "
     "run's checkpoint.d2q9, which is then lost (without it such a run is refused; --restart continues it)")
    ("until-steady", po::value<std::string>(), "stop once the run is steady: when av_vels and each measured body's Fx "
     "and Fy change by less than TOL (relative) over a window of max(1000, steps/10) steps; the outputs are then "
     "those of the steps run (over a problem file's [flow] until_steady; see docs/running.md)")
    ("restart", po::value<std::string>(), "continue the run saved in this checkpoint file; alone, with the input files, output directory and options of the run that wrote it (options given now override them)")
    ("quiet,q", "print only errors (and no progress line)")
    ("png", po::value<std::string>(), "picture of the final state (default: final_state.png; with --field vorticity "
     "final_state_vorticity.png, with temperature final_state_temperature.png; with both, the vorticity picture is "
     "FILE with _vorticity before .png)")
    ("no-png", "write no final picture")
    ("field", po::value<std::string>()->default_value("speed"), "what the pictures show: speed (|u|) | vorticity "
     "(blue-white-red about 0; obstacles count as velocity 0) | both | temperature (a problem with [heat])")
    ("scale", po::value<std::string>()->default_value("auto"), "colour range of the pictures: auto (each picture its "
     "own) | fixed (the first picture's, kept for every later snapshot and the final picture) | MIN:MAX (with "
     "--field both, speed's then vorticity's: 0:0.05,-0.01:0.01; vorticity ranges are -W:W)")
    ("snapshot-every", po::value<std::string>(), "also write snapshots every N steps into the output directory: "
     "snapshot_<step>.png (and snapshot_<step>_vorticity.png)")
    ("snapshot-format", po::value<std::string>()->default_value("png"), "png | vti | png,vti: what a snapshot is: "
     "pictures, and/or snapshot_<step>.vti with snapshots.pvd listing every frame for ParaView")
    ("vtk", po::value<std::string>(), "final state for ParaView: FILE.vti (XML image data: velocity, density, speed, "
     "vorticity, obstacle), FILE.pvti (the same in pieces FILE_<rank>.vti, one per MPI rank: for large grids) or "
     "FILE.vtk (legacy, without vorticity)")
    ("final-state", po::value<std::string>(), "text | vti | both: the final state as final_state.dat (the "
     "coursework's text, a line per cell), final_state.vti (XML image data with raw binary arrays, as --vtk "
     "FILE.vti writes: under a third of the size, for ParaView and d2q9-check) or both (default: text for a .params "
     "file, vti for a problem file unless its [output] final_state says otherwise)")
    ("summary-json", po::value<std::string>(), "run summary (parameters, device, times, MLUPS, Reynolds number) as JSON")
    ("serve", po::value<std::string>(), "[HOST:]PORT: serve a live view of the run (the flow, its speed, forces and "
     "probes; pause, resume, checkpoint, stop) at http://HOST:PORT/?token=... as printed at the start; HOST "
     "127.0.0.1 unless given, PORT 0 any free port; under mpirun rank 0 serves the whole run (see "
     "docs/live-view.md)");
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

// A count of at least 1: one message for "0", "-3" and "x" alike.
int parse_positive(const std::string& text, const std::string& what) {
  int v = 0;
  try {
    v = parse_non_negative(text, what);
  } catch (const UsageError&) {
  }
  if (v < 1) throw UsageError(what + " must be a positive integer, got '" + text + "'");
  return v;
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

std::vector<PictureField> parse_picture_fields(const std::string& text) {
  if (text == "speed") return {PictureField::Speed};
  if (text == "vorticity") return {PictureField::Vorticity};
  if (text == "both") return {PictureField::Speed, PictureField::Vorticity};
  if (text == "temperature") return {PictureField::Temperature};
  throw UsageError("--field must be speed, vorticity, both or temperature, got '" + text + "'");
}

// "MIN:MAX[,MIN:MAX]", one range per field drawn.
PictureScale parse_picture_scale(const std::string& text, const std::vector<PictureField>& fields) {
  PictureScale scale;
  if (text == "auto") return scale;
  if (text == "fixed") {
    scale.mode = PictureScale::Mode::Fixed;
    return scale;
  }
  scale.mode = PictureScale::Mode::Given;
  auto number = [&](const std::string& part) {
    std::size_t used = 0;
    double v = 0.0;
    try {
      v = std::stod(part, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (part.empty() || used != part.size() || !std::isfinite(v))
      throw UsageError("--scale must be auto, fixed or MIN:MAX (e.g. 0:0.05), got '" + text + "'");
    return v;
  };
  std::istringstream list(text);
  for (std::string range; std::getline(list, range, ',');) {
    const auto colon = range.find(':');
    if (colon == std::string::npos || text.back() == ',')
      throw UsageError("--scale must be auto, fixed or MIN:MAX (e.g. 0:0.05), got '" + text + "'");
    const ColourRange r{number(range.substr(0, colon)), number(range.substr(colon + 1))};
    if (!(r.low < r.high)) throw UsageError("--scale range " + range + " needs MIN < MAX");
    scale.given.push_back(r);
  }
  if (scale.given.size() != fields.size())
    throw UsageError(fields.size() == 2 ? "--scale with --field both needs two ranges, speed's then vorticity's "
                                          "(e.g. 0:0.05,-0.01:0.01), got '" + text + "'"
                                        : "--scale needs one range MIN:MAX for one field, got '" + text + "'");
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (fields[i] == PictureField::Vorticity && scale.given[i].low != -scale.given[i].high)
      throw UsageError("--scale: the vorticity range must be symmetric about 0 (-W:W), got '" + text + "'");
  return scale;
}

// "png", "vti" or both, comma-separated.
void parse_snapshot_format(const std::string& text, Options& o) {
  o.snapshot_png = o.snapshot_vti = false;
  std::istringstream list(text);
  bool ok = !text.empty() && text.back() != ',';
  for (std::string item; ok && std::getline(list, item, ',');) {
    bool& chosen = item == "png" ? o.snapshot_png : o.snapshot_vti;
    ok = (item == "png" || item == "vti") && !chosen;
    chosen = true;
  }
  if (!ok) throw UsageError("--snapshot-format must be png, vti or png,vti, got '" + text + "'");
}

// "; did you mean --tune?" for a mistyped long option, else "".
std::string did_you_mean(std::string typed, const po::options_description& options) {
  if (typed.compare(0, 2, "--") != 0) return "";
  typed = typed.substr(2, typed.find('=') == std::string::npos ? std::string::npos : typed.find('=') - 2);
  std::vector<std::string> names;
  for (const auto& option : options.options()) names.push_back(option->long_name());
  const std::string best = closest_name(typed, names);
  return best.empty() ? "" : "; did you mean --" + best + "?";
}

}  // namespace

CollisionChoice parse_collision(const std::string& text) {
  const std::string error = "--collision must be bgk, trt, trt:LAMBDA (e.g. trt:0.1875) or regularised, got '" + text + "'";
  const auto colon = text.find(':');
  const auto op = parse_collision_operator(text.substr(0, colon));
  if (!op) throw UsageError(error);
  CollisionChoice choice{*op, std::nullopt};
  if (colon != std::string::npos) {
    if (*op != CollisionOperator::Trt) throw UsageError(error);
    const std::string lambda = text.substr(colon + 1);
    char* end = nullptr;
    const double magic = std::strtod(lambda.c_str(), &end);
    if (lambda.empty() || *end != '\0' || !(magic > 0) || !std::isfinite(magic))
      throw UsageError("--collision trt:LAMBDA needs a positive number LAMBDA, got '" + lambda + "'");
    if (const std::string why = trt_magic_problem(magic); !why.empty())
      throw UsageError("--collision trt:" + lambda + ": Lambda " + why);
    choice.trt_magic = magic;
  }
  return choice;
}

double parse_smagorinsky(const std::string& text) {
  char* end = nullptr;
  const double constant = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(constant))
    throw UsageError("--smagorinsky needs a number C, got '" + text + "'");
  if (const std::string why = smagorinsky_problem(constant); !why.empty())
    throw UsageError("--smagorinsky " + text + ": C " + why);
  return constant;
}

LocalSize parse_shape(const std::string& text, const std::string& option) {
  if (text == "auto") return {};
  const auto x = text.find('x');
  if (x == std::string::npos) throw UsageError(option + " must be WxH (e.g. 128x1) or auto, got '" + text + "'");
  const int w = parse_non_negative(text.substr(0, x), option + " width");
  const int h = parse_non_negative(text.substr(x + 1), option + " height");
  if (w < 1 || h < 1) throw UsageError(option + " must be at least 1x1, got '" + text + "'");
  return {w, h};
}

LocalSize parse_local_size(const std::string& text) { return parse_shape(text, "--local-size"); }

namespace {

// The parsed options, each also recorded in o.given as typed so that a
// checkpoint can replay them (resume_options).
po::variables_map parse_options(int argc, const char* const argv[], Options& o) {
  po::options_description hidden;
  hidden.add_options()("paramfile", po::value<std::string>())("obstaclefile", po::value<std::string>());
  po::options_description all;
  all.add(visible_options()).add(hidden);
  po::positional_options_description positional;
  positional.add("paramfile", 1).add("obstaclefile", 1);

  po::variables_map vm;
  try {
    const po::parsed_options parsed = po::command_line_parser(argc, argv).options(all).positional(positional).run();
    for (const po::option& option : parsed.options)
      if (option.position_key < 0)
        o.given.emplace_back(option.string_key, option.value.empty() ? "" : option.value.front());
    po::store(parsed, vm);
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    throw UsageError(boost_error_message(argc, argv, all, positional) + did_you_mean(e.get_option_name(), visible_options()));
  } catch (const po::error&) {
    throw UsageError(boost_error_message(argc, argv, all, positional));
  }
  return vm;
}

void read_switches(const po::variables_map& vm, Options& o) {
  o.help = vm.count("help") > 0;
  o.version = vm.count("version") > 0;
  o.list_devices = vm.count("list-devices") > 0;
  o.quiet = vm.count("quiet") > 0;
  o.overwrite_checkpoint = vm.count("overwrite-checkpoint") > 0;
  o.tune = vm.count("tune") > 0 || vm.count("autotune") > 0;
}

void read_input_files(const po::variables_map& vm, Options& o) {
  if (vm.count("restart")) o.restart_file = vm["restart"].as<std::string>();
  // With --restart the checkpoint may name the files (see resume_options).
  // A problem file (.toml) describes the obstacles itself.
  const bool problem_file = vm.count("paramfile") && is_problem_file(vm["paramfile"].as<std::string>());
  if (problem_file && vm.count("obstaclefile"))
    throw UsageError("a problem file (" + vm["paramfile"].as<std::string>() + ") describes its obstacles itself: "
                     "give it alone, without an obstacle file");
  if ((!problem_file && vm.count("paramfile") != vm.count("obstaclefile")) ||
      (!vm.count("paramfile") && o.restart_file.empty()))
    throw UsageError("expected two arguments: <paramfile> <obstaclefile>, or one problem file ending in .toml");
  if (vm.count("paramfile")) {
    o.param_file = vm["paramfile"].as<std::string>();
    if (!problem_file) o.obstacle_file = vm["obstaclefile"].as<std::string>();
  }
}

// Backend, device, folders, precision and collision: what is computed, and where.
void read_device_options(const po::variables_map& vm, Options& o) {
  const std::string backend = vm["backend"].as<std::string>();
  const std::optional<Backend> parsed = parse_backend(backend);
  if (!parsed) throw UsageError("--backend must be " + backend_names() + ", got '" + backend + "'");
  o.backend = *parsed;
  if (vm.count("device")) o.device = parse_non_negative(vm["device"].as<std::string>(), "--device");
  o.local_size = parse_local_size(vm["local-size"].as<std::string>());
  o.output_dir = vm["output-dir"].as<std::string>();
  if (vm.count("kernels-dir")) o.kernels_dir = vm["kernels-dir"].as<std::string>();
  const std::string precision = vm["precision"].as<std::string>();
  if (!parse_precision(precision, o.precision))
    throw UsageError("--precision must be float, double, fp16s or fp16c, got '" + precision + "'");
  if (vm.count("collision")) o.collision = parse_collision(vm["collision"].as<std::string>());
  if (vm.count("smagorinsky")) o.smagorinsky = parse_smagorinsky(vm["smagorinsky"].as<std::string>());
}

// "12,17,1": rows of each rank's slab, bottom to top.
std::vector<int> parse_slab_rows(const std::string& text) {
  std::vector<int> rows;
  std::istringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    rows.push_back(parse_non_negative(item, "--slab-rows entry"));
    if (rows.back() < 1) throw UsageError("--slab-rows entries must be at least 1, got '0'");
  }
  if (rows.empty()) throw UsageError("--slab-rows needs a comma-separated list of row counts");
  return rows;
}

// Kernel variant, blocking and slabs: how the steps are launched.
void read_launch_options(const po::variables_map& vm, Options& o) {
  try {
    o.variant = parse_kernel_variant(vm["kernel-variant"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (vm.count("block-steps")) {
    o.block_steps = parse_non_negative(vm["block-steps"].as<std::string>(), "--block-steps");
    if (o.block_steps < 1) throw UsageError("--block-steps must be at least 1, got '0'");
  }
  if (vm.count("tile")) o.tile = parse_shape(vm["tile"].as<std::string>(), "--tile");
  if (vm.count("slab-rows")) o.slab_rows = parse_slab_rows(vm["slab-rows"].as<std::string>());
}

// ParaView chooses its reader by extension, and the extension chooses the format.
void check_vtk_file_name(const std::string& file) {
  auto ends_with = [&](const std::string& ext) {
    return file.size() > ext.size() && file.compare(file.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (!ends_with(".vtk") && !ends_with(".vti") && !ends_with(".pvti"))
    throw UsageError("--vtk FILE must end in .vti (XML image data), .pvti (XML image data in one piece per MPI "
                     "rank) or .vtk (legacy VTK), got '" + file + "'");
}

// The final picture, snapshots, VTK file and summary, and how pictures look.
void read_output_options(const po::variables_map& vm, Options& o) {
  for (const char* name : {"png", "vtk", "summary-json"})
    if (vm.count(name) && vm[name].as<std::string>().empty())
      throw UsageError(std::string("--") + name + " needs a file name");
  o.no_png = vm.count("no-png") > 0;
  if (vm.count("png")) o.png_file = vm["png"].as<std::string>();
  if (o.no_png && !o.png_file.empty()) throw UsageError("--png and --no-png contradict each other");
  if (vm.count("snapshot-every")) {
    o.snapshot_every = parse_positive(vm["snapshot-every"].as<std::string>(), "--snapshot-every");
  }
  if (vm.count("vtk")) {
    o.vtk_file = vm["vtk"].as<std::string>();
    check_vtk_file_name(o.vtk_file);
  }
  if (vm.count("final-state")) {
    const std::string format = vm["final-state"].as<std::string>();
    o.final_state = parse_final_state_format(format);
    if (!o.final_state) throw UsageError("--final-state must be text, vti or both, got '" + format + "'");
  }
  o.fields = parse_picture_fields(vm["field"].as<std::string>());
  o.scale = parse_picture_scale(vm["scale"].as<std::string>(), o.fields);
  parse_snapshot_format(vm["snapshot-format"].as<std::string>(), o);
  if (!vm["snapshot-format"].defaulted() && o.snapshot_every == 0)
    throw UsageError("--snapshot-format needs --snapshot-every");
  const bool pictures = !o.no_png || (o.snapshot_every > 0 && o.snapshot_png);
  for (const char* name : {"field", "scale"})
    if (!vm[name].defaulted() && !pictures)
      throw UsageError(std::string("--") + name + " applies to pictures, but --no-png and no PNG snapshots leave none");
  if (vm.count("summary-json")) o.summary_json_file = vm["summary-json"].as<std::string>();
}

double parse_steady_tolerance(const std::string& text) {
  std::size_t used = 0;
  double tol = 0;
  try {
    tol = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (text.empty() || used != text.size() || !(tol > 0) || !std::isfinite(tol))
    throw UsageError("--until-steady must be a positive number (a relative change, e.g. 1e-6), got '" + text + "'");
  return tol;
}

}  // namespace

Options parse_command_line(int argc, const char* const argv[]) {
  Options o;
  const po::variables_map vm = parse_options(argc, argv, o);
  read_switches(vm, o);
  if (o.help || o.version || o.list_devices) return o;
  read_input_files(vm, o);
  read_device_options(vm, o);
  read_launch_options(vm, o);
  read_output_options(vm, o);
  if (vm.count("checkpoint-every")) {
    o.checkpoint_every = parse_positive(vm["checkpoint-every"].as<std::string>(), "--checkpoint-every");
  }
  if (vm.count("until-steady")) o.until_steady = parse_steady_tolerance(vm["until-steady"].as<std::string>());
  if (vm.count("serve")) {
    try {
      o.serve = parse_serve_address(vm["serve"].as<std::string>());
    } catch (const InputError& e) {
      throw UsageError(e.what());
    }
  }
  return o;
}

Options resume_options(const Options& given, const std::vector<std::pair<std::string, std::string>>& recorded,
                       const std::string& param_file, const std::string& obstacle_file) {
  auto given_now = [&](const std::string& name) {
    return std::any_of(given.given.begin(), given.given.end(), [&](const auto& g) { return g.first == name; });
  };
  // An option given now also replaces the recorded ones it contradicts, and
  // another device makes the recorded launch plan meaningless.
  auto replaced = [&](const std::string& name) {
    if (given_now(name)) return true;
    if (name == "png") return given_now("no-png");
    if (name == "no-png") return given_now("png");
    if (name == "local-size" || name == "kernel-variant") return given_now("backend") || given_now("device");
    if (name == "block-steps" || name == "tile")
      return given_now("kernel-variant") || given_now("backend") || given_now("device");
    // How pictures look means nothing once none is drawn.
    const bool snapshots = given_now("snapshot-every") ||
                           std::any_of(recorded.begin(), recorded.end(), [](const auto& r) { return r.first == "snapshot-every"; });
    if (name == "field" || name == "scale") return given_now("no-png") && !snapshots;
    return false;
  };
  std::vector<std::string> args{"d2q9-bgk"};
  auto add = [&](const std::pair<std::string, std::string>& option) {
    args.push_back("--" + option.first);
    if (!option.second.empty()) args.push_back(option.second);
  };
  for (const auto& option : recorded)
    if (!replaced(option.first)) add(option);
  for (const auto& option : given.given) add(option);
  args.push_back("--");  // file names are never options
  const std::string& first = given.param_file.empty() ? param_file : given.param_file;
  args.push_back(first);
  // A problem-file run records its problem file as its obstacle file too.
  if (!is_problem_file(first)) args.push_back(given.param_file.empty() ? obstacle_file : given.obstacle_file);
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data());
}

std::string usage_text(const std::string& program) {
  std::ostringstream out;
  out << "Usage: " << program << " [options] <paramfile> <obstaclefile>\n"
      << "       " << program << " [options] <problem.toml>\n"
      << "       " << program << " --restart FILE [options]\n"
      << "D2Q9 BGK lattice Boltzmann flow solver (OpenCL; CUDA where built).\n"
      << "Writes av_vels.dat and the final state into the output directory: final_state.dat for a .params\n"
      << "file, final_state.vti for a problem file (--final-state chooses).\n\n"
      << visible_options()
      << "\nA problem file (.toml) gives the grid, the flow, the edges (periodic, walls, moving walls, inlets,\n"
      << "outlet), obstacles (circles, rectangles, PNG masks) and what to measure in one file; see\n"
      << "docs/problem-files.md, docs/forces-and-probes.md and inputs/examples/. Flow past a cylinder with\n"
      << "its drag and lift in forces.csv and two probes in probes.csv:\n\n"
      << "    [grid]\n"
      << "    nx = 220\n"
      << "    ny = 43\n"
      << "    [flow]\n"
      << "    steps = 20000\n"
      << "    viscosity = 0.03335  # or omega = 1.7, or reynolds = 20.0 with velocity = 0.0667 and length = 10\n"
      << "    collision = \"trt\"    # or \"bgk\" (default), \"regularised\"\n"
      << "    [edges]\n"
      << "    left = { inlet_velocity = { parabolic = 0.1 } }   # or [ux, uy]: uniform\n"
      << "    right = { outlet_density = 1.0 }\n"
      << "    bottom = \"wall\"       # or \"periodic\" (default), { wall_velocity = [ux, uy] }\n"
      << "    top = \"wall\"\n"
      << "    [[obstacle]]          # any number of these: circle, rectangle or mask each\n"
      << "    name = \"cylinder\"    # named bodies get their force measured\n"
      << "    boundary = \"interpolated\"   # the circle, not its cells' staircase, is the wall\n"
      << "    circle = { center = [20.0, 20.5], radius = 5.0 }\n"
      << "    [forces]              # for Cd and Cl = 2 F / (density velocity^2 length)\n"
      << "    velocity = 0.0667\n"
      << "    length = 10\n"
      << "    [probes]              # rho, ux, uy of named cells every N steps\n"
      << "    every = 10\n"
      << "    front = [14, 20]\n"
      << "    back = [26, 20]\n";
  return out.str();
}

}  // namespace d2q9
