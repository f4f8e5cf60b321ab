#include "problem/problem_file.hpp"

// toml++ is used header-only (TOML_HEADER_ONLY=1, set by CMakeLists.txt): the
// programs need no toml++ shared library where they are carried.
#include <toml++/toml.h>

#include <algorithm>
#include <map>
#include <array>
#include <cctype>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <stdexcept>
#include <string_view>

#include "core/shortest_text.hpp"
#include "problem/curved_links.hpp"
#include "problem/png_mask.hpp"
#include "core/spelling.hpp"

namespace d2q9 {

bool is_problem_file(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == ".toml";
}

const char* to_string(FinalStateFormat f) {
  switch (f) {
    case FinalStateFormat::Text: return "text";
    case FinalStateFormat::Vti: return "vti";
    case FinalStateFormat::Both: return "both";
  }
  return "";
}

std::optional<FinalStateFormat> parse_final_state_format(const std::string& text) {
  for (FinalStateFormat f : {FinalStateFormat::Text, FinalStateFormat::Vti, FinalStateFormat::Both})
    if (text == to_string(f)) return f;
  return std::nullopt;
}

FinalStateFormat final_state_format(const Problem& problem, std::optional<FinalStateFormat> asked) {
  if (asked) return *asked;
  if (problem.final_state) return *problem.final_state;
  return problem.source == Problem::Source::ProblemFile ? FinalStateFormat::Vti : FinalStateFormat::Text;
}

namespace {

// FNV-1a, 64 bits, over the fingerprint's fields in a fixed byte order.
struct Fnv {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  void bytes(const void* data, std::size_t size) {
    for (std::size_t i = 0; i < size; ++i) {
      h ^= static_cast<const unsigned char*>(data)[i];
      h *= 0x100000001b3ULL;
    }
  }
  void real(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    for (int k = 0; k < 8; ++k) {  // little-endian on every machine
      const unsigned char b = static_cast<unsigned char>(bits >> (8 * k));
      bytes(&b, 1);
    }
  }
  void byte(unsigned char b) { bytes(&b, 1); }
  void flag(bool present) { byte(present ? 1 : 0); }
};

// Heat: nothing without [heat], so every problem without it keeps its fingerprint.
void hash_heat(Fnv& f, const Extensions& e) {
  if (e.heat) {
    f.byte(48);
    f.real(e.diffusivity);
    f.byte(static_cast<unsigned char>(e.thermal_collision));
    if (e.thermal_collision == CollisionOperator::Trt) f.real(e.thermal_magic);
    f.real(e.buoyancy.x), f.real(e.buoyancy.y);
    f.real(e.reference_temperature), f.real(e.initial_temperature);
    f.real(e.heat_length), f.real(e.temperature_difference);
    for (const OpenBoundary& b : e.open_boundaries)
      if (b.inlet()) {
        f.byte(static_cast<unsigned char>(49 + static_cast<int>(b.edge)));
        f.real(b.temperature);
      }
  }
  if (!e.thermal_walls.empty()) {  // by number; none: every wall adiabatic
    f.byte(56);
    f.real(static_cast<double>(e.thermal_walls.size()));
    for (const ThermalWall& w : e.thermal_walls) {
      f.byte(static_cast<unsigned char>(w.kind));
      f.real(w.value);
    }
  }
}

}  // namespace

std::uint64_t extensions_fingerprint(const Extensions& e) {
  Fnv f;
  // The first fields in the order of the first checkpoints, which had one
  // wall velocity, a left inlet and a right outlet: theirs still match.
  const Vec2 wall = e.wall_velocities.empty() ? Vec2{} : e.wall_velocities[0];
  const OpenBoundary* left = e.open_at(Edge::Left);
  const OpenBoundary* right = e.open_at(Edge::Right);
  const OpenBoundary* inlet = left && left->inlet() ? left : nullptr;
  const OpenBoundary* outlet = right && !right->inlet() ? right : nullptr;
  f.real(wall.x);
  f.real(wall.y);
  f.real(e.body_force.x);
  f.real(e.body_force.y);
  f.flag(inlet != nullptr);
  if (inlet) f.real(inlet->velocity.x), f.real(inlet->velocity.y);
  f.flag(outlet != nullptr);
  if (outlet) f.real(outlet->density);
  // Added later: a uniform inlet adds nothing, so older checkpoints still match.
  if (inlet && inlet->parabolic) f.flag(true);
  if (e.inlet_ramp_steps > 0) f.real(e.inlet_ramp_steps);
  // Added after the first checkpoints: BGK adds nothing, so theirs still match.
  if (e.collision != CollisionOperator::Bgk) {
    f.byte(static_cast<unsigned char>(e.collision));
    if (e.collision == CollisionOperator::Trt) f.real(e.trt_magic);
  }
  const int left_sponge = inlet ? inlet->sponge : 0, right_sponge = outlet ? outlet->sponge : 0;
  if (left_sponge > 0 || right_sponge > 0) f.real(left_sponge), f.real(right_sponge);  // none adds nothing
  // Per-cell boundary kinds: what the first checkpoints could not hold adds
  // its values, and nothing where a problem has none of it.
  for (const OpenBoundary& b : e.open_boundaries) {
    if (&b == inlet || &b == outlet) continue;
    f.byte(static_cast<unsigned char>(16 + 2 * static_cast<int>(b.edge) + (b.inlet() ? 0 : 1)));
    f.real(b.velocity.x), f.real(b.velocity.y), f.real(b.density), f.real(b.sponge);
    f.flag(b.parabolic);
  }
  for (std::size_t n = 1; n < e.wall_velocities.size(); ++n) f.real(e.wall_velocities[n].x), f.real(e.wall_velocities[n].y);
  if (e.free_slip) f.flag(true);
  for (const Extensions::Rotation& r : e.wall_rotations) f.real(r.omega), f.real(r.centre.x), f.real(r.centre.y);
  if (e.subgrid()) {  // no model adds nothing
    f.byte(40);
    f.real(e.smagorinsky);
  }
  hash_heat(f, e);
  return f.h;
}

namespace {

// The lattice speed of sound, 1/sqrt(3): every velocity stays below it.
const double kSoundSpeed = 1.0 / std::sqrt(3.0);

const std::vector<std::string> kTables = {"grid", "flow", "edges", "obstacle", "forces", "probes", "heat", "output"};

// ": a problem file holds [grid], [flow], ..., [probes]": kTables, as written in a file.
std::string tables_held() {
  std::string text = ": a problem file holds ";
  for (std::size_t i = 0; i < kTables.size(); ++i) {
    text += i == 0 ? "" : i + 1 == kTables.size() ? " and " : ", ";
    text += kTables[i] == "obstacle" ? "[[obstacle]]" : "[" + kTables[i] + "]";
  }
  return text;
}
const std::vector<std::string> kGridKeys = {"nx", "ny"};
const std::vector<std::string> kFlowKeys = {"steps",    "density", "omega",  "viscosity", "reynolds",
                                            "velocity", "length",  "accel", "body_force", "collision", "magic",
                                            "smagorinsky", "inlet_ramp", "until_steady"};
const std::vector<std::string> kEdgeKeys = {"left", "right", "bottom", "top"};
const std::vector<std::string> kEdgeKinds = {"periodic", "wall", "free_slip"};
const std::vector<std::string> kEdgeTableKeys = {"wall_velocity", "inlet_velocity", "outlet_density", "sponge",
                                                  "temperature",   "heat_flux"};
const std::vector<std::string> kShapes = {"circle", "rectangle", "mask"};
const std::vector<std::string> kObstacleKeys = {"name",   "boundary",  "wall_velocity", "angular_velocity",
                                                "circle", "rectangle", "mask",          "temperature",
                                                "heat_flux"};
const std::vector<std::string> kForcesKeys = {"velocity", "length", "density"};
const std::vector<std::string> kInletProfileKeys = {"parabolic"};
const std::vector<std::string> kCircleKeys = {"center", "radius", "fill"};
const std::vector<std::string> kRectangleKeys = {"from", "to"};
const std::vector<std::string> kHeatKeys = {"diffusivity", "prandtl",  "collision", "magic",  "initial",
                                            "reference",   "gravity",  "expansion", "rayleigh", "length",
                                            "temperature_difference", "nusselt_every"};
const std::vector<std::string> kOutputKeys = {"final_state"};
// A wall's or an obstacle's thermal boundary: one of these.
const std::vector<std::string> kThermalKeys = {"temperature", "heat_flux"};

}  // namespace

std::vector<std::string> problem_file_keys() {
  std::vector<std::string> keys;
  auto add = [&](const std::string& table, const std::vector<std::string>& names) {
    for (const std::string& name : names) keys.push_back(table + "." + name);
  };
  add("grid", kGridKeys);
  add("flow", kFlowKeys);
  add("edges", kEdgeKeys);
  add("edges", kEdgeTableKeys);
  add("inlet_velocity", kInletProfileKeys);
  add("obstacle", kObstacleKeys);
  add("circle", kCircleKeys);
  add("rectangle", kRectangleKeys);
  add("forces", kForcesKeys);
  keys.push_back("probes.every");
  add("heat", kHeatKeys);
  add("output", kOutputKeys);
  return keys;
}

namespace {

// Where a key of another table belongs, for "it belongs in [grid]".
std::string home_of(const std::string& key) {
  auto in = [&](const std::vector<std::string>& keys) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  if (in(kGridKeys)) return "[grid]";
  if (in(kFlowKeys)) return "[flow]";
  if (in(kEdgeKeys)) return "[edges]";
  if (in(kEdgeTableKeys)) return "an edge's table, e.g. top = { wall_velocity = [0.1, 0.0] }";
  if (in(kShapes)) return "[[obstacle]]";
  if (in(kCircleKeys)) return "circle = { center = [x, y], radius = r }";
  if (in(kRectangleKeys)) return "rectangle = { from = [i, j], to = [i, j] }";
  if (in(kHeatKeys)) return "[heat]";
  if (in(kOutputKeys)) return "[output]";
  return "";
}

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string vec_text(const Vec2& v) { return "[" + shortest_text(v.x) + ", " + shortest_text(v.y) + "]"; }

// A value as the file gave it, or what kind of thing it is.
std::string describe(const toml::node& n) {
  if (const auto* v = n.as_integer()) return std::to_string(v->get());
  if (const auto* v = n.as_floating_point()) return shortest_text(v->get());
  if (const auto* v = n.as_string()) return "\"" + v->get() + "\"";
  if (const auto* v = n.as_boolean()) return v->get() ? "true" : "false";
  if (const auto* a = n.as_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < a->size(); ++i) {
      const toml::node& e = *a->get(i);
      out += (i ? ", " : "") + (e.is_array() || e.is_table() ? std::string(e.is_array() ? "[...]" : "{...}") : describe(e));
    }
    return out + "]";
  }
  if (n.is_table()) return "a table";
  return "a date or time";
}

using Entry = std::pair<const toml::key*, const toml::node*>;

// A table's entries in the order the file gives them (toml++ sorts them by name).
std::vector<Entry> in_file_order(const toml::table& t) {
  std::vector<Entry> out;
  for (auto&& [k, v] : t) out.emplace_back(&k, &v);
  auto position = [](const Entry& e) {
    const auto& p = e.first->source().begin.line ? e.first->source().begin : e.second->source().begin;
    return std::make_pair(p.line, p.column);
  };
  std::stable_sort(out.begin(), out.end(), [&](const Entry& a, const Entry& b) { return position(a) < position(b); });
  return out;
}

struct EdgeSpec {
  enum Kind { Periodic, Wall, Moving, FreeSlip, Inlet, Outlet } kind = Periodic;
  const char* name = "";
  unsigned line = 0;  // 0: not given (periodic by default)
  Vec2 velocity;
  bool parabolic = false;  // an inlet's Poiseuille profile, peak velocity.x
  double density = 0.0;
  int sponge = 0;             // an inlet's or outlet's absorbing layer, in cells
  unsigned sponge_line = 0;
  // With [heat]: a wall's thermal boundary, or an inlet's temperature (kind
  // Temperature); thermal_line 0: none given (adiabatic; an inlet at [heat]'s initial).
  ThermalWall thermal;
  unsigned thermal_line = 0;
  int number = 0;  // a moving or heated wall's (cell_number)
  bool open() const { return kind == Inlet || kind == Outlet; }
  bool periodic_pair() const { return kind == Periodic; }
  bool wall() const { return kind == Wall || kind == Moving || kind == FreeSlip; }

  std::string what() const {
    switch (kind) {
      case Periodic: return "periodic";
      case Wall: return "a wall";
      case Moving: return "a moving wall";
      case FreeSlip: return "a free-slip wall";
      case Inlet: return "an inlet";
      case Outlet: return "an outlet";
    }
    return "";
  }
};

struct ShapeSpec {
  enum Kind { Circle, Rectangle, Mask } kind = Circle;
  unsigned line = 0;
  Vec2 center;
  double radius = 0.0;
  bool outside = false;  // a circle's fill = "outside": the obstacle is all but its disc
  long long from[2] = {0, 0}, to[2] = {0, 0};
  std::string path;  // as written
  int body = 0;      // its measured body (1-based; 0: none)
  bool interpolated = false;  // boundary = "interpolated" (circles only)
  std::optional<Vec2> wall_velocity;  // a moving wall's (with angular_velocity: its centre's)
  double angular_velocity = 0.0;      // about its centre, counter-clockwise (radians per step)
  unsigned velocity_line = 0;
  ThermalWall thermal;        // with [heat]: its temperature or heat flux (adiabatic: none given)
  unsigned thermal_line = 0;  // 0: none given
  bool moving() const { return wall_velocity.has_value(); }
  Vec2 centre() const {
    if (kind == Circle) return center;
    return {0.5 * static_cast<double>(from[0] + to[0]), 0.5 * static_cast<double>(from[1] + to[1])};
  }
  int number = 0;  // its cells' number (cell_number): the body, or its motion's and thermal boundary's
};

// "temperature" or "heat_flux": the key that gives a thermal boundary of this kind.
const char* thermal_key(const ThermalWall& w) {
  return w.kind == ThermalWall::Kind::HeatFlux ? "heat_flux" : "temperature";
}

// A thermal boundary as a file gives it.
std::string thermal_text(const ThermalWall& w) {
  if (w.kind == ThermalWall::Kind::Adiabatic) return "no temperature or heat_flux";
  return std::string(thermal_key(w)) + " = " + shortest_text(w.value);
}

// A problem file read in stages, each a class that reads one part of it given
// what the stages before it read (Parser, the last, runs them in order).
// The first: the TOML document, its typed values and the errors that name
// their line.
class TomlReader {
 protected:
  TomlReader(const std::string& text, const std::string& filename) : file_(filename) {
    try {
      doc_ = toml::parse(std::string_view(text), std::string_view(filename));
    } catch (const toml::parse_error& e) {
      fail(e.source().begin.line, "invalid TOML: " + std::string(e.description()));
    }
  }

  [[noreturn]] void fail(unsigned line, const std::string& what) const {
    throw InputError(file_ + ":" + std::to_string(line == 0 ? 1 : line) + ": " + what);
  }
  static unsigned line_of(const toml::node& n) { return n.source().begin.line; }
  static unsigned line_of(const Entry& e) {
    return e.first->source().begin.line ? e.first->source().begin.line : line_of(*e.second);
  }

  // Unknown keys, with the likely one meant.
  void check_keys(const toml::table& t, const std::string& in, const std::vector<std::string>& known) const {
    for (const Entry& e : in_file_order(t)) {
      const std::string name(e.first->str());
      if (std::find(known.begin(), known.end(), name) != known.end()) continue;
      std::string message = "unknown key '" + name + "' in " + in;
      const std::string home = home_of(name);
      const std::string guess = closest_name(name, known);
      if (!guess.empty())
        message += "; did you mean '" + guess + "'?";
      else if (!home.empty())
        message += ": it belongs in " + home;
      else
        message += " (known keys: " + join(known) + ")";
      fail(line_of(e), message);
    }
  }

  void check_top_level() const {
    for (const Entry& e : in_file_order(doc_)) {
      const std::string name(e.first->str());
      if (std::find(kTables.begin(), kTables.end(), name) != kTables.end()) continue;
      const std::string guess = closest_name(name, kTables);
      const std::string shown = guess == "obstacle" ? "[[obstacle]]" : "[" + guess + "]";
      if (e.second->is_table() || e.second->is_array_of_tables())
        fail(line_of(e), "unknown table [" + name + "]" +
                             (guess.empty() ? tables_held()
                                            : "; did you mean " + shown + "?"));
      const std::string home = home_of(name);
      fail(line_of(e), "key '" + name + "' is outside any table" +
                           (!home.empty() && home[0] == '[' ? ": it belongs in " + home
                            : !guess.empty()                ? "; did you mean " + shown + "?"
                                                            : tables_held()));
    }
  }

  // The table `name` at the top level; nullptr when absent.
  const toml::table* top_table(const char* name, const char* what) const {
    const toml::node* n = doc_.get(name);
    if (!n) return nullptr;
    if (!n->is_table()) fail(line_of(*n), std::string(name) + " must be a table, " + what + ", got " + describe(*n));
    return n->as_table();
  }

  const toml::node& required(const toml::table& t, const char* key, const std::string& in, unsigned line) const {
    const toml::node* n = t.get(key);
    if (!n) fail(line, in + " needs " + key);
    return *n;
  }

  long long integer(const toml::node& n, const std::string& name) const {
    // A whole number written as a float (sponge = 3.0) is that integer.
    if (n.is_floating_point()) {
      const double v = n.as_floating_point()->get();
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 0x1p62) return static_cast<long long>(v);
    }
    if (!n.is_integer()) fail(line_of(n), name + " must be an integer, got " + describe(n));
    return n.as_integer()->get();
  }

  int int32(const toml::node& n, const std::string& name) const {
    const long long v = integer(n, name);
    if (v < INT_MIN || v > INT_MAX) fail(line_of(n), name + " must be an integer below 2^31, got " + describe(n));
    return static_cast<int>(v);
  }

  double real(const toml::node& n, const std::string& name) const {
    if (n.is_integer()) return static_cast<double>(n.as_integer()->get());
    if (!n.is_floating_point()) fail(line_of(n), name + " must be a number, got " + describe(n));
    const double v = n.as_floating_point()->get();
    if (!std::isfinite(v)) fail(line_of(n), name + " must be a finite number, got " + describe(n));
    return v;
  }

  double positive(const toml::node& n, const std::string& name) const {
    const double v = real(n, name);
    if (!(v > 0.0)) fail(line_of(n), name + " must be positive, got " + describe(n));
    return v;
  }

  const toml::array& pair(const toml::node& n, const std::string& name, const char* form) const {
    const toml::array* a = n.as_array();
    if (!a || a->size() != 2) fail(line_of(n), name + " must be a pair " + form + ", got " + describe(n));
    return *a;
  }

  Vec2 vec2(const toml::node& n, const std::string& name) const {
    const toml::array& a = pair(n, name, "[x, y]");
    return {real(*a.get(0), name + "[0]"), real(*a.get(1), name + "[1]")};
  }

  // A velocity in lattice units: below the speed of sound.
  Vec2 velocity(const toml::node& n, const std::string& name) const {
    const Vec2 v = vec2(n, name);
    const double speed = std::hypot(v.x, v.y);
    if (!(speed < kSoundSpeed)) {
      char shown[32];
      std::snprintf(shown, sizeof shown, "%.4g", speed);
      fail(line_of(n), name + " " + vec_text(v) + " has speed " + shown +
                           ", not below the lattice speed of sound 1/sqrt(3) = 0.57735");
    }
    return v;
  }

  // A name for CSV columns and JSON keys: letters, digits, '_' and '-'.
  std::string checked_name(const std::string& text, unsigned line, const std::string& what) const {
    const bool ok = !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
    if (!ok) fail(line, what + " '" + text + "' must be 1 to 64 letters, digits, '_' or '-' (it heads CSV columns)");
    return text;
  }
  std::string body_name(const toml::node& n, const std::string& what) const {
    const auto* s = n.as_string();
    if (!s) fail(line_of(n), what + " must be a string, got " + describe(n));
    return checked_name(s->get(), line_of(n), what);
  }

  std::string file_;
  toml::table doc_;
};

// [grid], [flow] and [heat]: the grid, the fluid and its temperature lattice.
class FlowReader : protected TomlReader {
 protected:
  using TomlReader::TomlReader;

  void read_grid() {
    grid_ = top_table("grid", "[grid] with nx and ny");
    if (!grid_) fail(1, "no [grid] table: a problem file needs [grid] with nx and ny");
    check_keys(*grid_, "[grid]", kGridKeys);
    nx_ = &required(*grid_, "nx", "[grid]", line_of(*grid_));
    ny_ = &required(*grid_, "ny", "[grid]", line_of(*grid_));
    params_.nx = int32(*nx_, "nx");
    params_.ny = int32(*ny_, "ny");
  }

  void read_flow() {
    flow_ = top_table("flow", "[flow] with steps and one of omega, viscosity or reynolds");
    if (!flow_) fail(1, "no [flow] table: a problem file needs [flow] with steps and one of omega, viscosity or reynolds");
    const toml::table& flow = *flow_;
    const unsigned at = line_of(flow);
    check_keys(flow, "[flow]", kFlowKeys);
    steps_ = &required(flow, "steps", "[flow]", at);
    params_.max_iters = int32(*steps_, "steps");
    density_ = flow.get("density");
    params_.density = density_ ? real(*density_, "density") : 1.0;
    if (const toml::node* n = flow.get("accel")) params_.accel = real(*n, "accel");
    if (const toml::node* n = flow.get("body_force")) params_.extensions.body_force = vec2(*n, "body_force");
    if (const toml::node* n = flow.get("collision")) {
      const auto* text = n->as_string();
      const auto op = text ? parse_collision_operator(text->get()) : std::nullopt;
      if (!op) fail(line_of(*n), "collision must be \"bgk\", \"trt\" or \"regularised\", got " + describe(*n));
      params_.extensions.collision = *op;
    }
    if (const toml::node* n = flow.get("magic")) {
      if (params_.extensions.collision != CollisionOperator::Trt)
        fail(line_of(*n), "magic is TRT's parameter: it goes with collision = \"trt\"");
      params_.extensions.trt_magic = positive(*n, "magic");
      if (const std::string why = trt_magic_problem(params_.extensions.trt_magic); !why.empty())
        fail(line_of(*n), "magic = " + shortest_text(params_.extensions.trt_magic) + " " + why);
    }
    if (const toml::node* n = flow.get("smagorinsky")) {
      params_.extensions.smagorinsky = real(*n, "smagorinsky");
      if (const std::string why = smagorinsky_problem(params_.extensions.smagorinsky); !why.empty())
        fail(line_of(*n), "smagorinsky = " + shortest_text(params_.extensions.smagorinsky) + " " + why);
    }
    inlet_ramp_ = flow.get("inlet_ramp");
    if (inlet_ramp_) {
      params_.extensions.inlet_ramp_steps = int32(*inlet_ramp_, "inlet_ramp");
      if (params_.extensions.inlet_ramp_steps < 1)
        fail(line_of(*inlet_ramp_), "inlet_ramp must be positive (steps), got " + describe(*inlet_ramp_));
    }
    if (const toml::node* n = flow.get("until_steady")) until_steady_ = positive(*n, "until_steady");
    length_ = flow.get("length");
    params_.reynolds_dim = length_ ? int32(*length_, "length") : params_.nx;

    // Exactly one way to give the viscosity.
    std::vector<std::pair<std::string, const toml::node*>> given;
    for (const char* key : {"omega", "viscosity", "reynolds"})
      if (const toml::node* n = flow.get(key)) given.emplace_back(key, n);
    std::sort(given.begin(), given.end(), [](const auto& a, const auto& b) { return line_of(*a.second) < line_of(*b.second); });
    if (given.empty()) fail(at, "[flow] needs one of omega, viscosity or reynolds (with velocity and length)");
    if (given.size() > 1)
      fail(line_of(*given[1].second), given[1].first + " and " + given[0].first + " (line " +
                                          std::to_string(line_of(*given[0].second)) +
                                          ") both set the viscosity: give exactly one of omega, viscosity or reynolds");
    relaxation_key_ = given[0].first;
    relaxation_ = given[0].second;
    const toml::node* velocity_n = flow.get("velocity");
    if (velocity_n && relaxation_key_ != "reynolds")
      fail(line_of(*velocity_n), "velocity goes with reynolds (viscosity = velocity * length / reynolds); with " +
                                     relaxation_key_ + " it means nothing: remove it");
    if (relaxation_key_ == "omega") {
      params_.omega = real(*relaxation_, "omega");
    } else if (relaxation_key_ == "viscosity") {
      viscosity_ = positive(*relaxation_, "viscosity");
      params_.omega = 1.0 / (3.0 * viscosity_ + 0.5);
    } else {
      if (!velocity_n || !length_)
        fail(line_of(*relaxation_), std::string("reynolds needs ") + (!velocity_n && !length_ ? "velocity and length" : !velocity_n ? "velocity" : "length") +
                                        " as well (viscosity = velocity * length / reynolds)");
      const double re = positive(*relaxation_, "reynolds");
      const double u = positive(*velocity_n, "velocity");
      if (!(u < kSoundSpeed))
        fail(line_of(*velocity_n), "velocity " + shortest_text(u) + " is not below the lattice speed of sound 1/sqrt(3) = 0.57735");
      viscosity_ = u * params_.reynolds_dim / re;
      params_.omega = 1.0 / (3.0 * viscosity_ + 0.5);
    }
  }

  // The limits a .params file's values obey (violated_params_limit), named as this file names them.
  void check_limits() const {
    const auto v = violated_params_limit(params_);
    if (!v) return;
    const std::string requirement = v->requirement;
    const std::pair<const char*, const toml::node*> source[] = {{"nx", nx_},           {"ny", ny_},
                                                               {"steps", steps_},     {"length", length_},
                                                               {"density", density_}, {"accel", nullptr},
                                                               {"omega", relaxation_}};
    const auto& [name, node] = source[v->index];
    if (!node) fail(line_of(*grid_), std::string(name) + " " + requirement);  // defaults obey every limit
    if (v->index == 6 && relaxation_key_ != "omega")
      fail(line_of(*node), relaxation_key_ + " " + describe(*node) +
                               (relaxation_key_ == "reynolds" ? " gives viscosity " + shortest_text(viscosity_) + " and" : " gives") +
                               " omega = 1 / (3 * viscosity + 0.5) = " + shortest_text(params_.omega) + ", which " + requirement);
    fail(line_of(*node), std::string(name) + " " + requirement + ", got " + describe(*node));
  }

  // [heat]: the temperature lattice (docs/heat.md): its diffusivity, its
  // collision, the temperatures it starts at and refers to, the buoyancy it
  // puts on the flow, and the Nusselt number's scales.
  void read_heat() {
    heat_ = top_table("heat", "[heat] with diffusivity or prandtl");
    if (!heat_) return;
    const toml::table& t = *heat_;
    const unsigned at = line_of(t);
    check_keys(t, "[heat]", kHeatKeys);
    HeatModel& h = params_.extensions;
    h.heat = true;
    const double viscosity = params_.viscosity();

    // Exactly one way to give the diffusivity.
    const toml::node* diffusivity = t.get("diffusivity");
    const toml::node* prandtl = t.get("prandtl");
    if (!diffusivity && !prandtl) fail(at, "[heat] needs diffusivity or prandtl (diffusivity = viscosity / prandtl)");
    if (diffusivity && prandtl) {
      const bool prandtl_later = line_of(*prandtl) >= line_of(*diffusivity);
      const toml::node& later = prandtl_later ? *prandtl : *diffusivity;
      const toml::node& earlier = prandtl_later ? *diffusivity : *prandtl;
      fail(line_of(later), std::string(prandtl_later ? "prandtl and diffusivity" : "diffusivity and prandtl") + " (line " +
                               std::to_string(line_of(earlier)) +
                               ") both set the diffusivity: give one of diffusivity or prandtl");
    }
    if (diffusivity) {
      h.diffusivity = positive(*diffusivity, "diffusivity");
    } else {
      h.diffusivity = viscosity / positive(*prandtl, "prandtl");
    }
    if (!(h.diffusivity > 0.0 && h.thermal_omega() < 2.0)) {
      const toml::node& n = diffusivity ? *diffusivity : *prandtl;
      fail(line_of(n), (diffusivity ? "diffusivity " + describe(n) + " gives"
                                    : "prandtl " + describe(n) + " gives diffusivity " + shortest_text(h.diffusivity) + " and") +
                           " omega_T = 1 / (3 * diffusivity + 0.5) = " + shortest_text(h.thermal_omega()) +
                           ", which must lie in (0, 2)");
    }
    read_thermal_collision(t);
    if (const toml::node* n = t.get("initial")) h.initial_temperature = real(*n, "initial");
    h.reference_temperature = h.initial_temperature;
    if (const toml::node* n = t.get("reference")) h.reference_temperature = real(*n, "reference");

    // The Nusselt number's scales (temperature_difference's default needs the walls: default_temperature_difference).
    const toml::node* length = t.get("length");
    const toml::node* difference = t.get("temperature_difference");
    h.heat_length = length ? positive(*length, "length") : static_cast<double>(params_.ny);
    if (difference) h.temperature_difference = positive(*difference, "temperature_difference");
    read_buoyancy(t, length, difference);
    if (const toml::node* every = t.get("nusselt_every")) {
      measure_.nusselt_every = int32(*every, "nusselt_every");
      nusselt_line_ = line_of(*every);
      if (measure_.nusselt_every < 1 || measure_.nusselt_every > params_.max_iters)
        fail(line_of(*every), "nusselt_every must be a number of steps from 1 to the run's " +
                                  std::to_string(params_.max_iters) + ", got " + describe(*every));
    }
  }

  // [heat]'s collision and magic: the temperature lattice's operator.
  void read_thermal_collision(const toml::table& t) {
    HeatModel& h = params_.extensions;
    if (const toml::node* n = t.get("collision")) {
      const auto* text = n->as_string();
      const auto op = text ? parse_collision_operator(text->get()) : std::nullopt;
      if (op == CollisionOperator::Regularised)
        fail(line_of(*n), "collision = " + describe(*n) + " is the flow's only: the temperature lattice collides by \"bgk\" or \"trt\"");
      if (!op) fail(line_of(*n), "collision must be \"bgk\" or \"trt\", got " + describe(*n));
      h.thermal_collision = *op;
    }
    if (const toml::node* n = t.get("magic")) {
      if (h.thermal_collision != CollisionOperator::Trt)
        fail(line_of(*n), "magic is TRT's parameter: it goes with collision = \"trt\"");
      h.thermal_magic = positive(*n, "magic");
      if (const std::string why = trt_magic_problem(h.thermal_magic); !why.empty())
        fail(line_of(*n), "magic = " + shortest_text(h.thermal_magic) + " " + why);
    }
  }

  // [heat]'s buoyancy: none, gravity with expansion, or rayleigh (gravity
  // then only its direction), once the diffusivity and the scales are read.
  void read_buoyancy(const toml::table& t, const toml::node* length, const toml::node* difference) {
    HeatModel& h = params_.extensions;
    const double viscosity = params_.viscosity();
    const toml::node* gravity = t.get("gravity");
    const toml::node* expansion = t.get("expansion");
    const toml::node* rayleigh = t.get("rayleigh");
    if (expansion && rayleigh) {
      const bool rayleigh_later = line_of(*rayleigh) >= line_of(*expansion);
      fail(line_of(rayleigh_later ? *rayleigh : *expansion),
           std::string(rayleigh_later ? "rayleigh and expansion" : "expansion and rayleigh") + " (line " +
               std::to_string(line_of(rayleigh_later ? *expansion : *rayleigh)) +
               ") both set the buoyancy: give gravity with expansion, or rayleigh with length and temperature_difference");
    }
    if (expansion && !gravity)
      fail(line_of(*expansion), "expansion needs gravity = [gx, gy] as well (buoyancy = -density * expansion * gravity)");
    if (gravity && !expansion && !rayleigh)
      fail(line_of(*gravity), "gravity needs expansion = beta (buoyancy = -density * expansion * gravity), "
                              "or rayleigh with length and temperature_difference");
    const char* const rayleigh_formula =
        "g * expansion = rayleigh * viscosity * diffusivity / (temperature_difference * length^3)";
    if (rayleigh && (!length || !difference))
      fail(line_of(*rayleigh), std::string("rayleigh needs ") +
                                   (!length && !difference ? "length and temperature_difference"
                                    : !length              ? "length"
                                                           : "temperature_difference") +
                                   " as well (" + rayleigh_formula + ")");
    const toml::node* buoyancy_node = expansion ? expansion : rayleigh;
    if (expansion) {
      const Vec2 g = vec2(*gravity, "gravity");
      const double beta = positive(*expansion, "expansion");
      h.buoyancy = {-params_.density * beta * g.x + 0.0, -params_.density * beta * g.y + 0.0};  // + 0.0: no -0
    } else if (rayleigh) {
      const double ra = positive(*rayleigh, "rayleigh");
      const Vec2 g = gravity ? vec2(*gravity, "gravity") : Vec2{0.0, -1.0};
      const double norm = std::hypot(g.x, g.y);
      if (!(norm > 0.0))
        fail(line_of(*gravity), "gravity " + vec_text(g) + " has no direction: with rayleigh it gives gravity's direction only");
      const double l = h.heat_length;
      const double g_beta = ra * viscosity * h.diffusivity / (h.temperature_difference * l * l * l);
      h.buoyancy = {-params_.density * g_beta * (g.x / norm) + 0.0, -params_.density * g_beta * (g.y / norm) + 0.0};
    }
    if (buoyancy_node && !(std::isfinite(h.buoyancy.x) && std::isfinite(h.buoyancy.y)))
      fail(line_of(*buoyancy_node), "the buoyancy " + vec_text(h.buoyancy) + " is not finite: " +
                                        (expansion ? "expansion or gravity is too large" : std::string(rayleigh_formula)));
  }

  // A cell [i, j] inside the grid.
  void cell(const toml::node& n, const std::string& name, long long out[2]) const {
    const toml::array& a = pair(n, name, "[i, j]");
    out[0] = integer(*a.get(0), name + "[0]");
    out[1] = integer(*a.get(1), name + "[1]");
    if (out[0] < 0 || out[0] >= params_.nx || out[1] < 0 || out[1] >= params_.ny)
      fail(line_of(n), "rectangle " + name + " = " + describe(n) + " is outside the grid: i must lie in [0, " +
                           std::to_string(params_.nx - 1) + "] and j in [0, " + std::to_string(params_.ny - 1) + "]");
  }

  Params params_;
  const toml::table* grid_ = nullptr;
  const toml::table* flow_ = nullptr;
  const toml::node *nx_ = nullptr, *ny_ = nullptr, *steps_ = nullptr, *length_ = nullptr, *density_ = nullptr;
  const toml::node* relaxation_ = nullptr;
  std::string relaxation_key_;
  double viscosity_ = 0.0;
  Measurements measure_;
  const toml::node* inlet_ramp_ = nullptr;
  const toml::table* heat_ = nullptr;  // [heat], or none
  unsigned nusselt_line_ = 0;          // [heat] nusselt_every's line
  std::optional<double> until_steady_;
};

// [edges]: each edge's kind, its wall, inlet or outlet, sponge and thermal boundary.
class EdgeReader : protected FlowReader {
 protected:
  using FlowReader::FlowReader;

  void read_edges() {
    for (int e = 0; e < 4; ++e) edges_[e].name = kEdgeKeys[e].c_str();
    const toml::table* edges = top_table("edges", "[edges] with left, right, bottom and top");
    if (edges) {
      check_keys(*edges, "[edges]", kEdgeKeys);
      for (const Entry& entry : in_file_order(*edges)) {
        const std::string name(entry.first->str());
        const int e = static_cast<int>(std::find(kEdgeKeys.begin(), kEdgeKeys.end(), name) - kEdgeKeys.begin());
        read_edge(*entry.second, line_of(entry), edges_[e]);
      }
    }
    // Periodic edges wrap onto their opposite edge.
    for (const auto& [a, b] : {std::make_pair(0, 1), std::make_pair(2, 3)}) {
      const EdgeSpec& x = edges_[a];
      const EdgeSpec& y = edges_[b];
      if ((x.kind == EdgeSpec::Periodic) == (y.kind == EdgeSpec::Periodic)) continue;
      const EdgeSpec& open = x.kind == EdgeSpec::Periodic ? y : x;  // given, as periodic is the default
      const EdgeSpec& periodic = x.kind == EdgeSpec::Periodic ? x : y;
      fail(open.line, std::string(open.name) + " is " + open.what() + " but " + periodic.name + " is periodic (" +
                          (periodic.line ? "line " + std::to_string(periodic.line) : std::string("the default")) +
                          "): periodic edges come in pairs, left with right and bottom with top");
    }
    const EdgeSpec* inlet = nullptr;
    for (const EdgeSpec& e : edges_) {
      if (e.kind == EdgeSpec::FreeSlip) params_.extensions.free_slip = true;
      if (!e.open()) continue;
      OpenBoundary b;
      b.kind = e.kind == EdgeSpec::Inlet ? OpenBoundary::Kind::VelocityInlet : OpenBoundary::Kind::PressureOutlet;
      b.edge = static_cast<Edge>(&e - edges_.data());
      b.velocity = e.velocity;
      b.parabolic = e.parabolic;
      b.density = e.kind == EdgeSpec::Outlet ? e.density : 1.0;
      b.sponge = e.sponge;
      if (e.kind == EdgeSpec::Inlet)  // the temperature it brings in: its own, else [heat]'s initial
        b.temperature = e.thermal_line ? e.thermal.value : params_.extensions.initial_temperature;
      params_.extensions.open_boundaries.push_back(b);
      if (e.kind == EdgeSpec::Inlet && !inlet) inlet = &e;
      if (e.parabolic) check_parabolic_walls(e);
    }
    if (inlet_ramp_ && !inlet)
      fail(line_of(*inlet_ramp_), "inlet_ramp ramps up an inlet, but no edge has an inlet_velocity");
    read_sponges();
  }

  // Poiseuille's profile runs between walls on the two edges beside the inlet.
  void check_parabolic_walls(const EdgeSpec& e) const {
    const int index = static_cast<int>(&e - edges_.data());
    const int a = index < 2 ? 2 : 0, b = index < 2 ? 3 : 1;
    if (!edges_[a].wall() || !edges_[b].wall())
      fail(e.line, "a parabolic inlet flows between walls: " + kEdgeKeys[a] + " and " + kEdgeKeys[b] + " must be walls, not " +
                       (edges_[a].wall() ? edges_[b] : edges_[a]).what());
  }

  // A sponge relaxes toward the far field, the inlet's velocity at the
  // outlets' density: it needs one inlet and an outlet, and fits in the grid
  // beside the opposite edge's.
  void read_sponges() {
    const Extensions& x = params_.extensions;
    int inlets = 0;
    for (const OpenBoundary& b : x.open_boundaries) inlets += b.inlet();
    for (const EdgeSpec& e : edges_) {
      if (e.sponge == 0) continue;
      if (inlets != 1 || !x.outlet_density())
        fail(e.sponge_line, "a sponge relaxes toward the far field, the inlet's velocity at the outlet's density: it needs "
                            "one edge with an inlet_velocity and one with an outlet_density");
      for (const OpenBoundary& b : x.open_boundaries)
        if (!b.inlet() && b.density != *x.outlet_density())
          fail(e.sponge_line, "a sponge's far field has one density, but the outlets' differ (" +
                                  shortest_text(*x.outlet_density()) + " and " + shortest_text(b.density) + ")");
    }
    for (const auto& [a, b] : {std::make_pair(0, 1), std::make_pair(2, 3)}) {
      const int width = a == 0 ? params_.nx : params_.ny;
      if (edges_[a].sponge + edges_[b].sponge > width)
        fail(edges_[b].sponge ? edges_[b].sponge_line : edges_[a].sponge_line,
             "the sponges (" + std::to_string(edges_[a].sponge) + " + " + std::to_string(edges_[b].sponge) +
                 " cells) are wider than the grid (" + (a == 0 ? "nx = " : "ny = ") + std::to_string(width) + ")");
    }
  }

  void read_edge(const toml::node& n, unsigned line, EdgeSpec& edge) const {
    const std::string name = edge.name;
    edge.line = line;
    const std::string forms = name + " must be \"periodic\", \"wall\", \"free_slip\" or a table such as { wall_velocity = [0.1, 0.0] }";
    if (const auto* s = n.as_string()) {
      if (s->get() == "periodic") return;
      if (s->get() == "wall" || s->get() == "free_slip") {
        edge.kind = s->get() == "wall" ? EdgeSpec::Wall : EdgeSpec::FreeSlip;
        return;
      }
      const std::string guess = closest_name(s->get(), kEdgeKinds);
      if (std::find(kEdgeTableKeys.begin(), kEdgeTableKeys.end(), s->get()) != kEdgeTableKeys.end())
        fail(line, name + " = \"" + s->get() + "\" needs its value: write " + name + " = { " + s->get() + " = ... }");
      fail(line, forms + ", got " + describe(n) + (guess.empty() ? "" : "; did you mean \"" + guess + "\"?"));
    }
    const toml::table* t = n.as_table();
    if (!t) fail(line, forms + ", got " + describe(n));
    const std::string in = name + " = { ... }";
    check_keys(*t, in, kEdgeTableKeys);
    auto entries = in_file_order(*t);
    // sponge = N goes with an inlet or outlet; the edge's kind is the other key.
    const auto sponge = std::find_if(entries.begin(), entries.end(), [](const Entry& e) { return e.first->str() == "sponge"; });
    if (sponge != entries.end()) {
      edge.sponge_line = line_of(*sponge->second);
      const long long width = integer(*sponge->second, "sponge");
      if (width < 1 || width > 1000000)
        fail(edge.sponge_line, "sponge must be a width in cells, at least 1, got " + describe(*sponge->second));
      edge.sponge = static_cast<int>(width);
      entries.erase(sponge);
    }
    // temperature = T or heat_flux = q: the wall's or inlet's; alone, a static wall's.
    read_thermal(*t, name, edge.thermal, edge.thermal_line);
    entries.erase(std::remove_if(entries.begin(), entries.end(), is_thermal), entries.end());
    if (entries.empty() && edge.thermal_line) edge.kind = EdgeSpec::Wall;
    if (entries.empty() && edge.sponge > 0) check_sponge_edge(edge);
    if (entries.empty() && edge.kind == EdgeSpec::Wall) return;
    if (entries.empty()) fail(line, name + " = {} needs one of wall_velocity, inlet_velocity or outlet_density");
    if (entries.size() > 1)
      fail(line_of(entries[1]), name + " has both " + std::string(entries[0].first->str()) + " and " +
                                    std::string(entries[1].first->str()) + ": give one per edge");
    const std::string key(entries[0].first->str());
    const toml::node& value = *entries[0].second;
    if (key == "wall_velocity") {
      edge.kind = EdgeSpec::Moving;
      edge.velocity = velocity(value, "wall_velocity");
    } else if (key == "inlet_velocity") {
      edge.kind = EdgeSpec::Inlet;
      if (const toml::table* profile = value.as_table()) {
        // { parabolic = u_max }: Poiseuille's profile between the walls.
        check_keys(*profile, "inlet_velocity = { ... }", kInletProfileKeys);
        const toml::node* peak = profile->get("parabolic");
        if (!peak) fail(line_of(value), "inlet_velocity = {} needs parabolic = u_max (the peak velocity)");
        const double u_max = positive(*peak, "parabolic");
        if (!(u_max < kSoundSpeed))
          fail(line_of(*peak), "parabolic " + shortest_text(u_max) + " is not below the lattice speed of sound 1/sqrt(3) = 0.57735");
        edge.velocity = {u_max, 0.0};
        edge.parabolic = true;
      } else {
        edge.velocity = velocity(value, "inlet_velocity");
      }
    } else {
      edge.kind = EdgeSpec::Outlet;
      edge.density = positive(value, "outlet_density");
    }
    if (edge.sponge > 0) check_sponge_edge(edge);
    if (edge.kind == EdgeSpec::Outlet && edge.thermal_line)
      fail(edge.thermal_line, std::string("an outlet carries the temperature out; it takes no ") + thermal_key(edge.thermal));
    if (edge.kind == EdgeSpec::Inlet && edge.thermal.kind == ThermalWall::Kind::HeatFlux)
      fail(edge.thermal_line, "heat_flux is a wall's: an inlet brings the flow in at its temperature = T");
  }

  static bool is_thermal(const Entry& e) {
    return std::find(kThermalKeys.begin(), kThermalKeys.end(), std::string(e.first->str())) != kThermalKeys.end();
  }

  // A wall's thermal boundary: temperature = T (held) or heat_flux = q (let
  // in), at most one, and only with [heat]; `line` stays 0 without either.
  void read_thermal(const toml::table& t, const std::string& in, ThermalWall& thermal, unsigned& line) const {
    std::vector<Entry> given = in_file_order(t);
    given.erase(std::remove_if(given.begin(), given.end(), [](const Entry& e) { return !is_thermal(e); }), given.end());
    if (given.empty()) return;
    const std::string key(given[0].first->str());
    if (!heat_) fail(line_of(given[0]), key + " needs a [heat] table (the temperature lattice)");
    if (given.size() > 1)
      fail(line_of(given[1]), in + " has both " + key + " and " + std::string(given[1].first->str()) +
                                  ": a wall holds a temperature or lets a heat flux in, not both");
    thermal.kind = key == "temperature" ? ThermalWall::Kind::Temperature : ThermalWall::Kind::HeatFlux;
    thermal.value = real(*given[0].second, key);
    line = line_of(given[0]);
  }

  void check_sponge_edge(const EdgeSpec& edge) const {
    if (edge.kind != EdgeSpec::Inlet && edge.kind != EdgeSpec::Outlet)
      fail(edge.sponge_line, "sponge absorbs at an open edge: it goes with inlet_velocity or outlet_density, not " +
                                 edge.what());
  }

  std::array<EdgeSpec, 4> edges_;
};

// [[obstacle]] and [forces]: the shapes, their motion and thermal boundaries,
// and the bodies whose forces are measured.
class ObstacleReader : protected EdgeReader {
 protected:
  using EdgeReader::EdgeReader;

  // [heat]'s temperature_difference when not given: the largest less the
  // smallest temperature held by a wall or an obstacle or brought by an
  // inlet, where that is positive; else 1.
  void default_temperature_difference() {
    if (!heat_ || heat_->get("temperature_difference")) return;
    std::vector<double> given;
    for (const EdgeSpec& e : edges_)
      if (e.thermal.kind == ThermalWall::Kind::Temperature) given.push_back(e.thermal.value);
    for (const ShapeSpec& s : shapes_)
      if (s.thermal.kind == ThermalWall::Kind::Temperature) given.push_back(s.thermal.value);
    if (given.empty()) return;
    const auto [lowest, highest] = std::minmax_element(given.begin(), given.end());
    const double difference = *highest - *lowest;
    if (difference > 0.0 && std::isfinite(difference)) params_.extensions.temperature_difference = difference;
  }

  void read_obstacles() {
    const toml::node* n = doc_.get("obstacle");
    if (!n) return;
    if (n->is_table())
      fail(line_of(*n), "obstacle must be [[obstacle]] (an array of tables, one shape each), not [obstacle]");
    if (!n->is_array_of_tables())
      fail(line_of(*n), "obstacle must be [[obstacle]] (an array of tables, one shape each), got " + describe(*n));
    for (const toml::node& element : *n->as_array()) shapes_.push_back(read_obstacle(*element.as_table()));
  }

  // One [[obstacle]]: its one shape, its motion, its wall and its body.
  ShapeSpec read_obstacle(const toml::table& t) {
    check_keys(t, "[[obstacle]]", kObstacleKeys);
    std::string name;
    if (const toml::node* n = t.get("name")) name = body_name(*n, "name");
    auto entries = in_file_order(t);
    entries.erase(std::remove_if(entries.begin(), entries.end(),
                                 [](const Entry& e) {
                                   return e.first->str() == "name" || e.first->str() == "boundary" ||
                                          e.first->str() == "wall_velocity" || e.first->str() == "angular_velocity" ||
                                          is_thermal(e);
                                 }),
                  entries.end());
    if (entries.empty()) fail(line_of(t), "[[obstacle]] needs one of circle, rectangle or mask");
    if (entries.size() > 1)
      fail(line_of(entries[1]), "[[obstacle]] has both " + std::string(entries[0].first->str()) + " and " +
                                    std::string(entries[1].first->str()) + ": one shape per [[obstacle]]");
    const std::string kind(entries[0].first->str());
    ShapeSpec shape;
    shape.line = line_of(entries[0]);
    if (const toml::node* v = t.get("wall_velocity")) {
      shape.wall_velocity = velocity(*v, "wall_velocity");
      shape.velocity_line = line_of(*v);
    }
    read_shape(kind, *entries[0].second, shape);
    read_thermal(t, "[[obstacle]]", shape.thermal, shape.thermal_line);
    if (const toml::node* w = t.get("angular_velocity")) read_rotation(*w, shape);
    if (const toml::node* boundary = t.get("boundary")) read_boundary(*boundary, kind, shape);
    if (!name.empty()) shape.body = body_number(name, *t.get("name"));
    return shape;
  }

  // The shape's geometry: kind is "mask", "circle" or "rectangle".
  void read_shape(const std::string& kind, const toml::node& value, ShapeSpec& shape) const {
    if (kind == "mask") {
      shape.kind = ShapeSpec::Mask;
      const auto* s = value.as_string();
      if (!s || s->get().empty())
        fail(shape.line, "mask must be the name of a PNG file (relative to this file), got " + describe(value));
      shape.path = s->get();
      return;
    }
    const toml::table* shape_table = value.as_table();
    const std::string form = kind == "circle" ? "{ center = [x, y], radius = r }" : "{ from = [i, j], to = [i, j] }";
    if (!shape_table) fail(shape.line, kind + " must be a table " + form + ", got " + describe(value));
    check_keys(*shape_table, kind, kind == "circle" ? kCircleKeys : kRectangleKeys);
    if (kind == "circle") {
      shape.kind = ShapeSpec::Circle;
      shape.center = vec2(required(*shape_table, "center", "circle", shape.line), "center");
      shape.radius = positive(required(*shape_table, "radius", "circle", shape.line), "radius");
      if (const toml::node* f = shape_table->get("fill")) {
        const auto* text = f->as_string();
        if (!text || (text->get() != "inside" && text->get() != "outside"))
          fail(line_of(*f), "fill must be \"inside\" (the disc is the obstacle) or \"outside\" (all but the disc), got " +
                                describe(*f));
        shape.outside = text->get() == "outside";
      }
      return;
    }
    shape.kind = ShapeSpec::Rectangle;
    cell(required(*shape_table, "from", "rectangle", shape.line), "from", shape.from);
    cell(required(*shape_table, "to", "rectangle", shape.line), "to", shape.to);
    if (shape.from[0] > shape.to[0] || shape.from[1] > shape.to[1])
      fail(shape.line, "rectangle from = [" + std::to_string(shape.from[0]) + ", " + std::to_string(shape.from[1]) +
                           "] lies right of or above to = [" + std::to_string(shape.to[0]) + ", " +
                           std::to_string(shape.to[1]) + "]: from is the lower-left cell, to the upper-right");
  }

  // boundary = "staircase" | "interpolated" (circles only).
  void read_boundary(const toml::node& boundary, const std::string& kind, ShapeSpec& shape) {
    const auto* s = boundary.as_string();
    if (!s || (s->get() != "staircase" && s->get() != "interpolated"))
      fail(line_of(boundary), "boundary must be \"staircase\" or \"interpolated\", got " + describe(boundary));
    shape.interpolated = s->get() == "interpolated";
    if (shape.interpolated && shape.kind != ShapeSpec::Circle)
      fail(line_of(boundary), "boundary = \"interpolated\" needs a circle: a " + kind +
                                  "'s walls lie on the lattice, between its cells and the fluid");
    if (shape.interpolated) params_.extensions.curved_walls = true;
  }

  // The measured body called `name` (1-based), a new one if it is new.
  int body_number(const std::string& name, const toml::node& where) {
    auto known = std::find(measure_.bodies.begin(), measure_.bodies.end(), name);
    if (known == measure_.bodies.end()) {
      if (measure_.bodies.size() == static_cast<std::size_t>(kMaxBodies))
        fail(line_of(where), "more than " + std::to_string(kMaxBodies) +
                                 " named bodies: name at most that many (obstacles may share a name)");
      measure_.bodies.push_back(name);
      known = measure_.bodies.end() - 1;
    }
    return static_cast<int>(known - measure_.bodies.begin()) + 1;
  }

  // [forces]: the coefficients' reference values. With no named obstacle,
  // every [[obstacle]] is one body, "obstacles".
  void read_forces() {
    const toml::table* t = top_table("forces", "[forces] with velocity and length");
    if (t) {
      check_keys(*t, "[forces]", kForcesKeys);
      if (const toml::node* n = t->get("velocity")) measure_.velocity = positive(*n, "velocity");
      if (const toml::node* n = t->get("length")) measure_.length = positive(*n, "length");
      // Below this a coefficient's scale 2 / (density velocity^2 length)
      // overflows, and no lattice flow is that slow.
      constexpr double kSlowest = 1e-10;
      if (measure_.velocity && *measure_.velocity < kSlowest)
        fail(line_of(*t->get("velocity")), "velocity " + shortest_text(*measure_.velocity) +
                                               " is too small to scale the coefficients by (at least " +
                                               shortest_text(kSlowest) + " in lattice units)");
      if (measure_.velocity.has_value() != measure_.length.has_value())
        fail(line_of(*t), std::string("[forces] needs ") + (measure_.velocity ? "length" : "velocity") +
                              " as well for the coefficients C = 2 F / (density velocity^2 length)");
      measure_.density = params_.density;
      if (const toml::node* n = t->get("density")) measure_.density = positive(*n, "density");
      if (measure_.bodies.empty()) {
        if (shapes_.empty()) fail(line_of(*t), "[forces] measures the force on obstacles, but there is no [[obstacle]]");
        measure_.bodies.push_back("obstacles");
        for (ShapeSpec& shape : shapes_) shape.body = 1;
      }
    }
    params_.extensions.measured_bodies = static_cast<int>(measure_.bodies.size());
  }

  // angular_velocity = w: the shape turns about its centre (a circle's, a
  // rectangle's middle), its cells moving at wall_velocity + w x (x - centre).
  void read_rotation(const toml::node& n, ShapeSpec& shape) const {
    shape.angular_velocity = real(n, "angular_velocity");
    if (shape.kind == ShapeSpec::Mask)
      fail(line_of(n), "angular_velocity turns a circle or a rectangle about its centre; a mask has none");
    if (!shape.wall_velocity) shape.wall_velocity = Vec2{};
    if (!shape.velocity_line) shape.velocity_line = line_of(n);
    const double corner = std::hypot(std::max(shape.center.x, params_.nx - 1 - shape.center.x),
                                     std::max(shape.center.y, params_.ny - 1 - shape.center.y));
    const double reach = shape.kind == ShapeSpec::Circle
                             ? (shape.outside ? corner : shape.radius)
                             : 0.5 * std::hypot(static_cast<double>(shape.to[0] - shape.from[0]),
                                                static_cast<double>(shape.to[1] - shape.from[1]));
    const double fastest = std::hypot(shape.wall_velocity->x, shape.wall_velocity->y) + std::fabs(shape.angular_velocity) * reach;
    if (!(fastest < kSoundSpeed))
      fail(line_of(n), "angular_velocity " + shortest_text(shape.angular_velocity) + " moves the shape's edge at up to " +
                           shortest_text(fastest) + ", not below the lattice speed of sound 1/sqrt(3) = 0.57735");
  }

  std::vector<ShapeSpec> shapes_;
};

// The numbers the kernels look walls up by, their names, and [probes].
class WallNumbering : protected ObstacleReader {
 protected:
  using ObstacleReader::ObstacleReader;

  // nusselt.csv needs a wall that holds a temperature or lets heat in.
  void check_nusselt_walls() {
    const auto& walls = params_.extensions.thermal_walls;
    if (measure_.nusselt_every > 0 &&
        std::none_of(walls.begin(), walls.end(), [](const ThermalWall& w) { return w.kind != ThermalWall::Kind::Adiabatic; }))
      fail(nusselt_line_, "nusselt_every: no wall or obstacle holds a temperature or a heat flux, so there is no "
                          "Nusselt number to record");
  }

  // Every moving wall's cells carry a number whose velocity the kernels look
  // up, and every wall that holds a temperature or lets heat in ([heat]) one
  // whose thermal boundary they look up: a measured body's own, else one per
  // motion and thermal boundary. Number 0 is the first adiabatic moving edge's
  // (as the first problems with one velocity had it) and every plain static
  // wall's, so never a heated wall's: a heated static wall is a kWall cell of
  // a number above the measured bodies'.
  void assign_wall_numbers() {
    using Rotation = Extensions::Rotation;
    struct Motion {
      Vec2 v;
      Rotation r;
      bool operator==(const Motion& o) const { return v == o.v && r == o.r; }
      bool operator!=(const Motion& o) const { return !(*this == o); }
    };
    std::vector<std::optional<Motion>> table;  // by number: its motion (a heated static wall's: at rest)
    std::vector<ThermalWall> thermal;          // by number: its thermal boundary; none or short: adiabatic
    const int measured = params_.extensions.measured_bodies;
    const auto thermal_of = [&](std::size_t k) { return k < thermal.size() ? thermal[k] : ThermalWall{}; };
    const auto set_thermal = [&](int n, const ThermalWall& t) {
      if (t == ThermalWall{}) return;
      if (thermal.size() <= static_cast<std::size_t>(n)) thermal.resize(static_cast<std::size_t>(n) + 1);
      thermal[n] = t;
    };
    const auto number_for = [&](Motion v, ThermalWall t, int body, unsigned line) {
      int n = body;
      if (n == 0) {
        n = t == ThermalWall{} && (table.empty() || !table[0] || *table[0] == v) ? 0 : -1;
        for (std::size_t k = static_cast<std::size_t>(measured) + 1; n < 0 && k < table.size(); ++k)
          if (table[k] && *table[k] == v && thermal_of(k) == t) n = static_cast<int>(k);
        if (n < 0) n = std::max(measured + 1, static_cast<int>(table.size()));
      }
      if (n > kMaxWallNumbers)
        fail(line, "more than " + std::to_string(kMaxWallNumbers) +
                       (params_.extensions.heat ? " walls of their own motion, thermal boundary or body"
                                                : " moving walls of their own velocity or body"));
      if (table.size() <= static_cast<std::size_t>(n)) table.resize(static_cast<std::size_t>(n) + 1);
      if (table[n] && *table[n] != v)
        fail(line, "body " + measure_.bodies[n - 1] + " moves at " + vec_text(table[n]->v) + " and at " + vec_text(v.v) +
                       (table[n]->v == v.v ? " (turning differently)" : "") + ": a body's shapes share one motion");
      table[n] = v;
      set_thermal(n, t);
      return n;
    };
    // A body's shapes share one thermal boundary, moving or not, as its cells share one number.
    std::vector<const ShapeSpec*> first_of_body(static_cast<std::size_t>(measured) + 1, nullptr);
    for (const ShapeSpec& shape : shapes_) {
      if (shape.body == 0) continue;
      const ShapeSpec*& first = first_of_body[shape.body];
      if (!first) first = &shape;
      if (first->thermal != shape.thermal)
        fail(shape.thermal_line ? shape.thermal_line : shape.line,
             "body " + measure_.bodies[shape.body - 1] + " has " + thermal_text(first->thermal) + " (line " +
                 std::to_string(first->thermal_line ? first->thermal_line : first->line) + ") and " +
                 thermal_text(shape.thermal) + ": a body's shapes share one thermal boundary");
    }
    std::array<EdgeSpec*, 4> by_line{&edges_[0], &edges_[1], &edges_[2], &edges_[3]};
    std::stable_sort(by_line.begin(), by_line.end(), [](const EdgeSpec* a, const EdgeSpec* b) { return a->line < b->line; });
    for (EdgeSpec* e : by_line) {
      if (e->kind == EdgeSpec::Moving) e->number = number_for({e->velocity, {}}, e->thermal, 0, e->line);
      if (e->kind == EdgeSpec::Wall && e->thermal != ThermalWall{}) e->number = number_for({}, e->thermal, 0, e->line);
    }
    for (ShapeSpec& shape : shapes_) {
      const Rotation r = shape.angular_velocity != 0.0 ? Rotation{shape.angular_velocity, shape.centre()} : Rotation{};
      if (shape.moving()) {
        shape.number = number_for({*shape.wall_velocity, r}, shape.thermal, shape.body, shape.velocity_line);
      } else if (shape.body == 0 && shape.thermal != ThermalWall{}) {
        shape.number = number_for({}, shape.thermal, 0, shape.thermal_line);
      } else {
        shape.number = shape.body;
        set_thermal(shape.number, shape.thermal);
      }
    }
    // Walls all at rest (a lid at rest) are static walls to the kernels.
    const bool moving = std::any_of(table.begin(), table.end(), [](const auto& m) { return m && *m != Motion{}; });
    const bool turning =
        std::any_of(table.begin(), table.end(), [](const auto& m) { return m && m->r.omega != 0.0; });
    Extensions& x = params_.extensions;
    for (const auto& m : table) {
      if (moving) x.wall_velocities.push_back(m ? m->v : Vec2{});
      if (turning) x.wall_rotations.push_back(m ? m->r : Rotation{});
    }
    x.thermal_walls = thermal;  // empty unless some wall holds a temperature or lets heat in
  }

  // Each thermal wall number's name in the summary: its edges' ("left"), its
  // body's, or "obstacle" for unnamed shapes; walls sharing a number join
  // their names with '+'.
  void name_thermal_walls() {
    Extensions& x = params_.extensions;
    std::vector<std::string>& names = x.thermal_wall_names;
    names.assign(x.thermal_walls.size(), "");
    const auto add = [&](int n, const std::string& name) {
      if (n <= 0 || n >= static_cast<int>(names.size()) || x.thermal_walls[n] == ThermalWall{}) return;
      std::string& to = names[n];
      if (("+" + to + "+").find("+" + name + "+") == std::string::npos) to += (to.empty() ? "" : "+") + name;
    };
    for (const EdgeSpec& e : edges_) add(e.number, e.name);
    for (const ShapeSpec& shape : shapes_)
      add(shape.number, shape.body > 0 ? measure_.bodies[shape.body - 1] : std::string("obstacle"));
  }

  // [probes]: every = N, and name = [i, j] for each probe.
  void read_probes() {
    const toml::table* t = top_table("probes", "[probes] with every and name = [i, j] per probe");
    if (!t) return;
    const toml::node* every = t->get("every");
    if (!every) fail(line_of(*t), "[probes] needs every = N: the steps between two rows of probes.csv");
    measure_.probe_every = int32(*every, "every");
    if (measure_.probe_every < 1) fail(line_of(*every), "every must be positive, got " + describe(*every));
    params_.extensions.probe_every = measure_.probe_every;
    if (measure_.probe_every > params_.max_iters)
      fail(line_of(*every), "every = " + std::to_string(measure_.probe_every) + " is more than the run's " +
                                std::to_string(params_.max_iters) + " steps: probes.csv would hold no row");
    for (const Entry& e : in_file_order(*t)) {
      const std::string name(e.first->str());
      if (name == "every") continue;
      const unsigned line = line_of(e);
      checked_name(name, line, "probe name");
      const toml::array* a = e.second->as_array();
      if (!a || a->size() != 2 || !a->get(0)->is_integer() || !a->get(1)->is_integer())
        fail(line, "probe " + name + " must be a cell [i, j] (two integers), got " + describe(*e.second));
      const long long i = a->get(0)->as_integer()->get(), j = a->get(1)->as_integer()->get();
      if (i < 0 || i >= params_.nx || j < 0 || j >= params_.ny)
        fail(line, "probe " + name + " = " + describe(*e.second) + " is outside the grid: i must lie in [0, " +
                       std::to_string(params_.nx - 1) + "] and j in [0, " + std::to_string(params_.ny - 1) + "]");
      measure_.probes.push_back({name, static_cast<int>(i), static_cast<int>(j)});
      probe_lines_[name] = line;
    }
    if (measure_.probes.empty()) fail(line_of(*t), "[probes] names no probe: add name = [i, j]");
  }

  std::map<std::string, unsigned> probe_lines_;
};

// The obstacle mask: every cell's kind, from the edges and the shapes.
class MaskBuilder : protected WallNumbering {
 protected:
  using WallNumbering::WallNumbering;

  ObstacleMask build_mask() const {
    ObstacleMask mask = grid_mask();
    mark_edges(mask);
    const std::string dir = file_.find('/') == std::string::npos ? "" : file_.substr(0, file_.rfind('/') + 1);
    for (const ShapeSpec& s : shapes_) {
      const std::uint8_t shape_byte = cell_byte(s.wall_velocity ? kMovingWall : kWall, s.number);
      if (s.kind == ShapeSpec::Rectangle)
        mark_rectangle(mask, s, shape_byte);
      else if (s.kind == ShapeSpec::Circle)
        mark_circle(mask, s, shape_byte);
      else
        mark_png_mask(mask, s, shape_byte, s.path[0] == '/' ? s.path : dir + s.path);
    }
    if (mask.fluid_cells() == 0) fail(last_obstacle_line(), "every cell is blocked; there is no fluid to simulate");
    if (params_.extensions.curved_walls) add_curved_links(mask);
    return mask;
  }

  // Every cell fluid; a grid too large for memory is this file's error, at its [grid].
  ObstacleMask grid_mask() const {
    const int nx = params_.nx, ny = params_.ny;
    ObstacleMask mask;
    try {
      mask = ObstacleMask(nx, ny);
    } catch (const std::bad_alloc&) {
      fail(line_of(*grid_), "grid " + std::to_string(nx) + "x" + std::to_string(ny) + " is too large to hold in memory");
    } catch (const std::length_error&) {
      fail(line_of(*grid_), "grid " + std::to_string(nx) + "x" + std::to_string(ny) + " is too large to hold in memory");
    }
    return mask;
  }

  // Each edge's cells take its kind. A cell on two edges (a corner) takes the
  // first of: static wall, moving wall, free-slip wall; where two open edges
  // meet, it is a static wall (Zou/He's rule has no corner); an open edge
  // meeting a periodic one keeps its kind. Where two static walls meet, the
  // bottom's or top's number (and so thermal boundary) wins.
  void mark_edges(ObstacleMask& mask) const {
    const int nx = params_.nx, ny = params_.ny;
    auto cell = [&](long long i, long long j) -> std::uint8_t& {
      return mask.kinds[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * static_cast<std::size_t>(nx)];
    };
    auto edge_cells = [&](int e, const auto& set) {
      if (e < 2)
        for (int j = 0; j < ny; ++j) set(cell(e == 0 ? 0 : nx - 1, j));
      else
        for (int i = 0; i < nx; ++i) set(cell(i, e == 2 ? 0 : ny - 1));
    };
    for (int e = 0; e < 4; ++e)
      if (edges_[e].open())
        edge_cells(e, [&](std::uint8_t& c) { c = c ? kWall : cell_byte(kFluid, e + 1); });
    for (int e = 0; e < 4; ++e)
      if (edges_[e].kind == EdgeSpec::FreeSlip)
        edge_cells(e, [&](std::uint8_t& c) { c = cell_byte(kFreeSlip, e < 2 ? kFreeSlipAcrossX : kFreeSlipAcrossY); });
    for (int e = 0; e < 4; ++e)
      if (edges_[e].kind == EdgeSpec::Moving)
        edge_cells(e, [&](std::uint8_t& c) { c = cell_byte(kMovingWall, edges_[e].number); });
    for (int e = 0; e < 4; ++e)
      if (edges_[e].kind == EdgeSpec::Wall) edge_cells(e, [&](std::uint8_t& c) { c = cell_byte(kWall, edges_[e].number); });
  }

  // The line of the last wall edge or obstacle: where a grid with no fluid left is reported.
  unsigned last_obstacle_line() const {
    unsigned last_line = 0;
    for (int e = 0; e < 4; ++e)
      if (edges_[e].wall()) last_line = std::max(last_line, edges_[e].line);
    for (const ShapeSpec& s : shapes_) last_line = std::max(last_line, s.line);
    return last_line;
  }

  // A cell takes one body's force: two measured bodies may not share it.
  void mark_shape_cell(ObstacleMask& mask, const ShapeSpec& s, long long i, long long j, std::uint8_t kind) const {
    const int nx = params_.nx;
    std::uint8_t& cell = mask.kinds[static_cast<std::size_t>(i) + static_cast<std::size_t>(j) * static_cast<std::size_t>(nx)];
    const int other = cell_body(cell, static_cast<int>(measure_.bodies.size()));
    if (s.body != 0 && other != 0 && other != s.body)
      fail(s.line, "this obstacle (body " + measure_.bodies[s.body - 1] + ") overlaps body " +
                       measure_.bodies[other - 1] + " at cell (" + std::to_string(i) + ", " + std::to_string(j) +
                       "): measured bodies may not share cells, whose force would go to one of them");
    cell = kind;
  }

  void mark_rectangle(ObstacleMask& mask, const ShapeSpec& s, std::uint8_t shape_byte) const {
    for (long long j = s.from[1]; j <= s.to[1]; ++j)
      for (long long i = s.from[0]; i <= s.to[0]; ++i) mark_shape_cell(mask, s, i, j, shape_byte);
  }

  // The cells whose centres lie in the circle; one that covers none is an error.
  void mark_circle(ObstacleMask& mask, const ShapeSpec& s, std::uint8_t shape_byte) const {
    const int nx = params_.nx, ny = params_.ny;
    // The bounding box, clipped to the grid before any conversion to an integer.
    const double r = s.radius, cx = s.center.x, cy = s.center.y;
    const double i0 = std::max(0.0, std::ceil(cx - r)), i1 = std::min(nx - 1.0, std::floor(cx + r));
    const double j0 = std::max(0.0, std::ceil(cy - r)), j1 = std::min(ny - 1.0, std::floor(cy + r));
    std::size_t covered = 0;
    if (s.outside) {  // every cell but the disc's
      for (long long j = 0; j < ny; ++j)
        for (long long i = 0; i < nx; ++i)
          if ((i - cx) * (i - cx) + (j - cy) * (j - cy) > r * r) {
            mark_shape_cell(mask, s, i, j, shape_byte);
            ++covered;
          }
    } else {
      for (double j = j0; j <= j1; ++j)
        for (double i = i0; i <= i1; ++i)
          if ((i - cx) * (i - cx) + (j - cy) * (j - cy) <= r * r) {
            mark_shape_cell(mask, s, static_cast<long long>(i), static_cast<long long>(j), shape_byte);
            ++covered;
          }
    }
    if (covered == 0)
      fail(s.line, "circle center = " + vec_text(s.center) + ", radius = " + shortest_text(r) +
                       " covers no cell of the grid (cells are at whole (i, j), 0 <= i < " + std::to_string(nx) +
                       ", 0 <= j < " + std::to_string(ny) + ")");
  }

  // `path`: the mask's file, relative ones from the problem file's folder.
  void mark_png_mask(ObstacleMask& mask, const ShapeSpec& s, std::uint8_t shape_byte, const std::string& path) const {
    const int nx = params_.nx, ny = params_.ny;
    // A PNG holds at most a few bytes per pixel, with room for metadata.
    const std::uint64_t cap = (std::uint64_t{1} << 20) + 16 * static_cast<std::uint64_t>(params_.cells());
    PngMask picture;
    try {
      picture = read_png_mask(path, nx, ny, cap);
      read_files_.push_back(path);
    } catch (const InputError& e) {
      fail(s.line, std::string("mask ") + e.what());
    }
    // The picture's top row is the grid's top row, j = ny-1.
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x)
        if (picture.at(x, y)) mark_shape_cell(mask, s, x, ny - 1 - y, shape_byte);
  }

  // Interpolated bounce-back links of the circles marked interpolated.
  void add_curved_links(ObstacleMask& mask) const {
    std::vector<Circle> circles;
    for (const ShapeSpec& s : shapes_)
      if (s.interpolated) circles.push_back({s.center, s.radius, s.outside});
    try {
      mask.links = circle_links(mask, circles, !edges_[0].periodic_pair(), !edges_[2].periodic_pair());
    } catch (const std::bad_alloc&) {
      fail(line_of(*grid_), "grid " + std::to_string(params_.nx) + "x" + std::to_string(params_.ny) +
                                " is too large to hold with curved walls' links in memory");
    }
  }

  mutable std::vector<std::string> read_files_;  // build_mask is const
};

class Parser : MaskBuilder {
 public:
  Parser(const std::string& text, const std::string& filename) : MaskBuilder(text, filename) {}

  Problem parse(const ParamsCheck& check) {
    check_top_level();
    const std::optional<FinalStateFormat> final_state = read_output();
    read_grid();
    read_flow();
    check_limits();
    read_heat();
    read_edges();
    read_obstacles();
    default_temperature_difference();
    read_forces();
    assign_wall_numbers();
    name_thermal_walls();
    check_nusselt_walls();
    read_probes();
    if (check) check(params_);
    Problem problem;
    problem.params = params_;
    problem.mask = build_mask();
    if (!problem.mask.links.empty())
      problem.params.extensions.curved_window_cells =
          curved_cells_in_windows(problem.mask, Extensions::kCurvedWindow);
    for (const Probe& p : measure_.probes)
      if (problem.mask.at(p.i, p.j))
        fail(probe_lines_.at(p.name), "probe " + p.name + " at [" + std::to_string(p.i) + ", " + std::to_string(p.j) +
                                          "] is inside an obstacle: a probe measures the fluid");
    problem.measure = measure_;
    problem.until_steady = until_steady_;
    problem.read_files = read_files_;
    problem.source = Problem::Source::ProblemFile;
    problem.final_state = final_state;
    return problem;
  }

 private:
  // [output] final_state = "text" | "vti" | "both": which files hold the
  // final state (final_state_format); none given: the default.
  std::optional<FinalStateFormat> read_output() const {
    const toml::table* t = top_table("output", "[output] with final_state");
    if (!t) return std::nullopt;
    check_keys(*t, "[output]", kOutputKeys);
    const toml::node* n = t->get("final_state");
    if (!n) return std::nullopt;
    const auto* text = n->as_string();
    const std::optional<FinalStateFormat> format = text ? parse_final_state_format(text->get()) : std::nullopt;
    if (!format)
      fail(line_of(*n), "final_state must be \"text\" (final_state.dat), \"vti\" (final_state.vti) or \"both\", got " +
                            describe(*n));
    return format;
  }
};

}  // namespace

Problem parse_problem_file(const std::string& text, const std::string& filename, const ParamsCheck& check) {
  Problem problem = Parser(text, filename).parse(check);
  problem.name = filename;
  return problem;
}

Problem read_problem_file(const std::string& path, const ParamsCheck& check) {
  Problem problem = parse_problem_file(read_text_file(path, kMaxParamsBytes), path, check);
  problem.read_files.insert(problem.read_files.begin(), path);
  return problem;
}

}  // namespace d2q9
