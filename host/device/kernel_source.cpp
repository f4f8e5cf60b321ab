#include "device/kernel_source.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <cmath>
#include <dlfcn.h>
#include <unistd.h>

#include "problem/storage16.hpp"

namespace d2q9 {

namespace {

std::string executable_dir() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<std::size_t>(n));
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The line of a compiler log a reader needs first: its first error, else its
// first non-empty line.
std::string first_diagnostic(const std::string& log) {
  std::istringstream lines(log);
  std::string first;
  for (std::string line; std::getline(lines, line);) {
    std::string lower = line;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.find("error") != std::string::npos) return line;
    if (first.empty() && line.find_first_not_of(" \t\r") != std::string::npos) first = line;
  }
  return first.empty() ? "the compiler gave no log" : first;
}

bool has_kernel(const std::string& dir) { return std::ifstream(dir + "/" + kKernelFile).good(); }

std::string folder_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

// The folder of the binary holding this code: the d2q9 shared library where
// a program links it (its kernels are installed relative to it), else the program.
std::string code_dir() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&executable_dir), &info) == 0 || !info.dli_fname) return executable_dir();
  char resolved[PATH_MAX];
  if (!::realpath(info.dli_fname, resolved)) return executable_dir();
  return folder_of(resolved);
}

std::string literal(double value, Precision precision) {
  char buf[64];
  // Exponent form always has a '.', so the 'f' suffix stays a valid literal.
  if (precision != Precision::Double)
    std::snprintf(buf, sizeof buf, "%.9ef", static_cast<double>(static_cast<float>(value)));
  else
    std::snprintf(buf, sizeof buf, "%.17e", value);
  return buf;
}

}  // namespace

std::vector<std::string> default_kernels_dirs() {
  std::vector<std::string> dirs;
  const std::string exe = executable_dir();
  dirs.push_back(exe + "/cl");
  dirs.push_back(exe + "/../share/d2q9-bgk/cl");
  const std::string lib = code_dir();
  if (lib != exe) {
    dirs.push_back(lib + "/cl");  // the build tree
#ifdef D2Q9_KERNELS_FROM_LIBDIR
    dirs.push_back(lib + "/" D2Q9_KERNELS_FROM_LIBDIR);  // installed: share/d2q9-bgk/cl from the library's folder
#endif
  }
  return dirs;
}

std::string find_kernels_dir(const std::string& requested, const std::vector<std::string>& places) {
  if (!requested.empty()) {
    if (!has_kernel(requested))
      throw DeviceError(requested + ": no " + kKernelFile + " in the kernels directory given by --kernels-dir");
    return requested;
  }
  if (const char* env = std::getenv("D2Q9_KERNELS_DIR"); env && *env) {
    if (!has_kernel(env))
      throw DeviceError(std::string(env) + ": no " + kKernelFile + " in the kernels directory given by D2Q9_KERNELS_DIR");
    return env;
  }
  std::string tried;
  for (const std::string& dir : places) {
    if (has_kernel(dir)) return dir;
    tried += (tried.empty() ? "" : ", ") + dir;
  }
  // A library user has no command line: name every way to say where they are.
  throw DeviceError(std::string("cannot find the kernels (") + kKernelFile + ") in " + tried +
                    "; set SimulationOptions::kernels_dir or the environment variable D2Q9_KERNELS_DIR"
                    " (d2q9-bgk: pass --kernels-dir)");
}

std::string find_kernels_dir(const std::string& requested) {
  return find_kernels_dir(requested, default_kernels_dirs());
}

std::vector<std::uint8_t> obstacle_buffer(const ObstacleMask& mask) {
  std::vector<std::uint8_t> bytes(mask.kinds);
  if (mask.links.empty()) return bytes;
  const std::size_t cells = mask.kinds.size();
  bytes.insert(bytes.end(), mask.links.begin(), mask.links.end());
  bytes.resize(bytes.size() + cells, 0);
  std::uint8_t* any = bytes.data() + 9 * cells;
  for (std::size_t k = 0; k < 8; ++k)
    for (std::size_t c = 0; c < cells; ++c) any[c] |= mask.links[k * cells + c] != 0;
  return bytes;
}

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DeviceError(path + ": cannot open kernel source");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `#include "part.cl"` at the start of a line names a part of the program in
// the same folder; anything else is the text itself.
std::string included_part(const std::string& line) {
  const std::string head = "#include \"";
  if (line.compare(0, head.size(), head) != 0) return "";
  const auto end = line.find('"', head.size());
  const std::string name = end == std::string::npos ? "" : line.substr(head.size(), end - head.size());
  const bool part = name.size() > 3 && name.compare(name.size() - 3, 3, ".cl") == 0 &&
                    name.find('/') == std::string::npos && line.find_first_not_of(" \t\r", end + 1) == std::string::npos;
  return part ? name : "";
}

}  // namespace

std::string read_kernel_source(const std::string& dir, const std::string& file) {
  const std::string text = read_text(dir + "/" + file);
  std::string out;
  std::istringstream lines(text);
  int number = 0;
  bool joined = false;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    const std::string part = included_part(line);
    if (part.empty()) {
      out += line + "\n";
      continue;
    }
    // #line keeps a build log's line numbers those of each part's own file.
    out += "#line 1 \"" + part + "\"\n" + read_kernel_source(dir, part);
    out += "#line " + std::to_string(number + 1) + " \"" + file + "\"\n";
    joined = true;
  }
  // A file without parts is read as it is (its last newline too).
  return joined ? out : text;
}

namespace {
const std::string kProbesInLaunch = "PROBES_IN_LAUNCH=1";
}  // namespace

std::vector<std::string> defines_without_probes(const std::vector<std::string>& defines) {
  std::vector<std::string> out;
  if (std::find(defines.begin(), defines.end(), kProbesInLaunch) == defines.end()) return out;
  std::copy_if(defines.begin(), defines.end(), std::back_inserter(out),
               [](const std::string& d) { return d != kProbesInLaunch; });
  return out;
}

namespace {

// The largest power of two below the work-group size: where the in-group sum halves from; 0 for one work-item.
int reduce_pow2(LocalSize local) {
  int pow2 = 1;
  while (pow2 * 2 < local.x * local.y) pow2 *= 2;
  if (local.x * local.y == 1) pow2 = 0;
  return pow2;
}

// The grid, the coursework's constants and the launch shape every kernel is compiled for.
std::vector<std::string> launch_defines(const Params& params, Precision precision, const LaunchPlan& plan,
                                        bool every_kernel) {
  const LocalSize local = plan.local;
  std::vector<std::string> defines = {
      "NX=" + std::to_string(params.nx),
      "NY=" + std::to_string(params.ny),
      "DENSITY=" + literal(params.density, precision),
      "ACCEL=" + literal(params.accel, precision),
      "OMEGA=" + literal(params.omega, precision),
      "LOCAL_SIZE_X=" + std::to_string(local.x),
      "LOCAL_SIZE_Y=" + std::to_string(local.y),
      "REDUCE_POW2=" + std::to_string(reduce_pow2(local)),
      "ROWS_PER_ITEM=" + std::to_string(plan.rows_per_item),
  };
  if (plan.variant == KernelVariant::Blocked) {
    defines.push_back("BLOCK_STEPS=" + std::to_string(plan.block_steps));
    defines.push_back("TILE_X=" + std::to_string(plan.tile.x));
    defines.push_back("TILE_Y=" + std::to_string(plan.tile.y));
  }
  if (!every_kernel) {
    // propagate_rebound_collide (1), _rows (4); _blocked comes with BLOCK_STEPS.
    const int kernels = plan.variant == KernelVariant::FusedRows ? 4
                        : plan.variant == KernelVariant::Blocked ? 0
                                                                 : 1;
    defines.push_back("STEP_KERNELS=" + std::to_string(kernels));
  }
  return defines;
}

// Index width, the real type and how distributions are stored.
void add_storage_defines(std::vector<std::string>& defines, const Params& params, Precision precision) {
  if (needs_64bit_indices(params)) defines.push_back("INDEX64=1");
  if (precision == Precision::Double) defines.push_back("REAL_IS_DOUBLE=1");
  if (is_16bit(precision)) {
    const Storage16 storage(precision, params);
    defines.push_back(precision == Precision::Fp16s ? "STORAGE_FP16S=1" : "STORAGE_FP16C=1");
    defines.push_back("STORAGE_SCALE=" + literal(storage.scale(), precision));
    defines.push_back("STORAGE_INV_SCALE=" + literal(storage.inv_scale(), precision));
    if (const std::optional<ThermalCodes>& t = storage.thermal()) {
      // The temperature's planes (lattice.cl: rest_value, storage_scale).
      defines.push_back("THERMAL_REST=" + literal(t->rest_temperature, precision));
      defines.push_back("THERMAL_STORAGE_SCALE=" + literal(t->scale, precision));
      defines.push_back("THERMAL_STORAGE_INV_SCALE=" + literal(1.0 / t->scale, precision));
    }
  }
}

// The kernels' name of an edge in its open boundary's defines (LEFT_INLET ...).
const char* edge_macro(Edge e) {
  switch (e) {
    case Edge::Left: return "LEFT";
    case Edge::Right: return "RIGHT";
    case Edge::Bottom: return "BOTTOM";
    case Edge::Top: return "TOP";
  }
  return "";
}

// An open boundary's row of the table the kernels read: its kind and values
// as defines of its edge (cl/open_edges.cl). A slab's parabolic profile is
// the whole grid's.
void add_open_boundary_defines(std::vector<std::string>& defines, const Params& grid, const OpenBoundary& b,
                               Precision precision) {
  const std::string edge = edge_macro(b.edge);
  if (!b.inlet()) {
    defines.push_back(edge + "_OUTLET=1");
    defines.push_back(edge + "_DENSITY=" + literal(b.density, precision));
    return;
  }
  defines.push_back(edge + "_INLET=1");
  if (b.parabolic) {
    defines.push_back(edge + "_PARABOLIC=1");
    defines.push_back(edge + "_PROFILE=" + literal(inlet_profile_factor(grid, b), precision));
    defines.push_back(edge + "_SPAN=" + literal(inlet_span(grid, b.edge), precision));
  } else {
    const Vec2 nt = edge_frame_velocity(b.edge, b.velocity);
    defines.push_back(edge + "_UN=" + literal(nt.x, precision));
    defines.push_back(edge + "_UT=" + literal(nt.y, precision));
  }
}

// The open boundaries, and the sponges beside them with their far field.
void add_open_defines(std::vector<std::string>& defines, const Params& params, Precision precision,
                      const std::optional<SlabRows>& slab) {
  const Extensions& x = params.extensions;
  if (!x.open()) return;
  Params grid = params;
  if (slab) grid.ny = slab->grid_ny;
  defines.push_back("OPEN_EDGES=1");
  for (const OpenBoundary& b : x.open_boundaries) add_open_boundary_defines(defines, grid, b, precision);
  if (x.inlet() && x.inlet_ramp_steps > 0) defines.push_back("INLET_RAMP=" + std::to_string(x.inlet_ramp_steps));
  if (!x.sponges()) return;
  defines.push_back("SPONGE=1");
  for (Edge e : {Edge::Left, Edge::Right, Edge::Bottom, Edge::Top})
    defines.push_back(std::string("SPONGE_") + edge_macro(e) + "=" + std::to_string(x.sponge(e)));
  defines.push_back("SPONGE_STRENGTH=" + literal(Extensions::kSpongeStrength, precision));
  defines.push_back(std::string("FAR_FIELD_") + edge_macro(x.inlet()->edge) + "=1");
  defines.push_back("FAR_DENSITY=" + literal(*x.outlet_density(), precision));
}

// Each moving wall number's velocity, (ux, uy) after one another.
void add_moving_wall_defines(std::vector<std::string>& defines, const Extensions& x, Precision precision) {
  defines.push_back("MOVING_WALL=1");
  defines.push_back("WALL_NUMBERS=" + std::to_string(x.wall_velocities.size()));
  std::string table;
  for (const Vec2& v : x.wall_velocities)
    table += (table.empty() ? "" : ",") + literal(v.x, precision) + "," + literal(v.y, precision);
  defines.push_back("WALL_VELOCITIES={" + table + "}");
  if (x.wall_rotations.empty()) return;
  std::string turns;
  for (const Extensions::Rotation& r : x.wall_rotations)
    turns += (turns.empty() ? "" : ",") + literal(r.omega, precision) + "," + literal(r.centre.x, precision) + "," +
             literal(r.centre.y, precision);
  defines.push_back("WALL_ROTATIONS={" + turns + "}");
}

// Heat (cl/heat.cl): the temperature lattice's rates, buoyancy, each wall
// number's thermal boundary and the inlets' temperatures.
void add_heat_defines(std::vector<std::string>& defines, const Extensions& x, Precision precision) {
  if (!x.heat) return;
  defines.push_back("THERMAL=1");
  defines.push_back("THERMAL_OMEGA=" + literal(x.thermal_omega(), precision));
  if (x.thermal_collision == CollisionOperator::Trt) {
    defines.push_back("THERMAL_TRT=1");
    defines.push_back("THERMAL_OMEGA_EVEN=" + literal(x.thermal_omega_even(), precision));
  }
  if (x.buoyant()) {
    defines.push_back("BUOYANCY=1");
    defines.push_back("BUOYANCY_X=" + literal(x.buoyancy.x, precision));
    defines.push_back("BUOYANCY_Y=" + literal(x.buoyancy.y, precision));
    defines.push_back("T_REF=" + literal(x.reference_temperature, precision));
  }
  const bool walls = std::any_of(x.thermal_walls.begin(), x.thermal_walls.end(),
                                 [](const ThermalWall& w) { return w.kind != ThermalWall::Kind::Adiabatic; });
  if (walls) {
    std::string kinds, values;
    for (const ThermalWall& w : x.thermal_walls) {
      kinds += (kinds.empty() ? "" : ",") + std::to_string(static_cast<int>(w.kind));
      values += (values.empty() ? "" : ",") + literal(w.value, precision);
    }
    defines.push_back("THERMAL_WALLS=1");
    defines.push_back("THERMAL_WALL_COUNT=" + std::to_string(x.thermal_walls.size()));
    defines.push_back("THERMAL_WALL_KINDS={" + kinds + "}");
    defines.push_back("THERMAL_WALL_VALUES={" + values + "}");
  }
  for (const OpenBoundary& b : x.open_boundaries)
    if (b.inlet()) defines.push_back(std::string(edge_macro(b.edge)) + "_INLET_T=" + literal(b.temperature, precision));
}

// Each addition to the coursework's model is compiled in only when used.
void add_extension_defines(std::vector<std::string>& defines, const Params& params, Precision precision,
                           const LaunchPlan& plan, const std::optional<SlabRows>& slab) {
  const Extensions& x = params.extensions;
  if (x.moving_walls()) add_moving_wall_defines(defines, x, precision);
  if (x.free_slip) defines.push_back("FREE_SLIP=1");
  add_heat_defines(defines, x, precision);
  if (x.forced() || x.buoyant()) {
    defines.push_back("BODY_FORCE=1");
    defines.push_back("FORCE_X=" + literal(x.body_force.x, precision));
    defines.push_back("FORCE_Y=" + literal(x.body_force.y, precision));
    // A component that is +0 on every cell: the forcing's products by it are left out (cl/cell_physics.cl).
    const auto zero = [&](double force, double buoyancy) {
      return force == 0 && !std::signbit(force) && (!x.buoyant() || buoyancy == 0);
    };
    if (zero(x.body_force.x, x.buoyancy.x)) defines.push_back("FORCE_X_ZERO=1");
    if (zero(x.body_force.y, x.buoyancy.y)) defines.push_back("FORCE_Y_ZERO=1");
  }
  if (x.measured_bodies > 0) defines.push_back("FORCE_BODIES=" + std::to_string(x.measured_bodies));
  if (x.curved_walls) defines.push_back("CURVED_LINKS=1");
  if (blocked_samples_inside(params, plan)) defines.push_back(kProbesInLaunch);
  if (x.curved_walls && plan.variant == KernelVariant::Blocked && plan.curved_slots > 0)
    defines.push_back("CURVED_SLOTS=" + std::to_string(plan.curved_slots));
  add_open_defines(defines, params, precision, slab);
}

void add_collision_defines(std::vector<std::string>& defines, const Params& params, Precision precision) {
  const Extensions& x = params.extensions;
  if (x.collision == CollisionOperator::Trt) {
    defines.push_back("COLLISION_TRT=1");
    defines.push_back("OMEGA_MINUS=" + literal(trt_omega_minus(params.omega, x.trt_magic), precision));
  } else if (x.collision == CollisionOperator::Regularised) {
    defines.push_back("COLLISION_REGULARISED=1");
  }
  if (x.subgrid()) {
    defines.push_back("SMAGORINSKY=1");
    defines.push_back("SMAGORINSKY_TAU0=" + literal(1.0 / params.omega, precision));
    defines.push_back("SMAGORINSKY_FACTOR=" + literal(smagorinsky_factor(x.smagorinsky), precision));
    if (x.collision == CollisionOperator::Trt) defines.push_back("TRT_MAGIC=" + literal(x.trt_magic, precision));
  }
}

// The rows an MPI rank's slab steps, and where they lie in the whole grid.
void add_slab_defines(std::vector<std::string>& defines, const SlabRows& slab, const LaunchPlan& plan) {
  defines.push_back("FIRST_ROW=" + std::to_string(slab.first_row));
  defines.push_back("LAST_ROW=" + std::to_string(slab.last_row));
  defines.push_back("ACCEL_ROW=" + std::to_string(slab.accel_row));
  if (plan.variant == KernelVariant::Blocked) {
    // The blocked kernel steps its halo rows too: it passes collide() the
    // grid's rows, so ROW_OFFSET stays 0 (cl/d2q9_bgk.cl, BLOCKED_SLAB).
    defines.push_back("BLOCKED_SLAB=1");
    defines.push_back("GRID_NY=" + std::to_string(slab.grid_ny));
    defines.push_back("SLAB_ROW0=" + std::to_string(slab.row_offset));
    const int rows = slab.last_row - slab.first_row + 1;
    defines.push_back("SLAB_GROUPS=" + std::to_string(plan.groups_x * ((rows + plan.tile.y - 1) / plan.tile.y)));
  } else {
    // The grid's rows, for open edges' profiles and sponges at the bottom and top.
    defines.push_back("GRID_NY=" + std::to_string(slab.grid_ny));
    defines.push_back("ROW_OFFSET=" + std::to_string(slab.row_offset));
  }
}

}  // namespace

std::vector<std::string> kernel_defines(const Params& params, Precision precision, const LaunchPlan& plan,
                                        const std::optional<SlabRows>& slab,
                                        bool every_kernel) {
  std::vector<std::string> defines = launch_defines(params, precision, plan, every_kernel);
  add_storage_defines(defines, params, precision);
  add_extension_defines(defines, params, precision, plan, slab);
  add_collision_defines(defines, params, precision);
  if (slab) add_slab_defines(defines, *slab, plan);
  return defines;
}

std::string build_failure_message(const std::string& where, const std::string& options, const std::string& log) {
  std::string message = where + ": " + first_diagnostic(log);
  std::error_code ec;
  const auto dir = std::filesystem::temp_directory_path(ec);
  const std::string path = (ec ? std::string("/tmp") : dir.string()) + "/d2q9-build-" + std::to_string(::getpid()) + ".log";
  std::ofstream out(path, std::ios::trunc);
  out << where << "\noptions: " << options << "\n\n" << log;
  out.close();
  if (out) return message + " (options and full build log in " + path + ")";
  return message + " (the full build log could not be saved to " + path + "; options: " + options + ")";
}

bool needs_64bit_indices(const Params& params) {
  return static_cast<unsigned long long>(params.extensions.planes()) * params.cells() > static_cast<unsigned long long>(INT_MAX);
}

}  // namespace d2q9
