#include "problem/problem.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>

#include <sys/stat.h>
#include <sstream>

namespace d2q9 {

const char* to_string(CollisionOperator c) {
  switch (c) {
    case CollisionOperator::Bgk: return "bgk";
    case CollisionOperator::Trt: return "trt";
    case CollisionOperator::Regularised: return "regularised";
  }
  return "?";
}

std::string trt_magic_problem(double lambda) {
  if (lambda >= kTrtMagicMin && lambda <= kTrtMagicMax) return "";
  return "is outside [0.001, 10]: Lambda sets omega_minus = 1 / (Lambda / (1/omega - 1/2) + 1/2), which a Lambda "
         "this " + std::string(lambda > kTrtMagicMax ? "large freezes (omega_minus near 0)" : "small drives to 2") +
         "; the values in use are 1/12, 3/16 and 1/4 (docs/collision.md)";
}

std::optional<CollisionOperator> parse_collision_operator(const std::string& text) {
  if (text == "bgk") return CollisionOperator::Bgk;
  if (text == "trt") return CollisionOperator::Trt;
  if (text == "regularised" || text == "regularized") return CollisionOperator::Regularised;
  return std::nullopt;
}

double trt_omega_minus(double omega, double magic) { return 1.0 / (magic / (1.0 / omega - 0.5) + 0.5); }

// Lambda's relation is symmetric in the two rates.
double HeatModel::thermal_omega_even() const {
  return thermal_collision == CollisionOperator::Trt ? trt_omega_minus(thermal_omega(), thermal_magic) : thermal_omega();
}

double smagorinsky_factor(double constant) { return 18.0 * std::sqrt(2.0) * constant * constant; }

std::string smagorinsky_problem(double constant) {
  if (constant >= 0.0 && constant <= 1.0) return "";
  return "is outside [0, 1]: C is the filter width in grid spacings; 0 turns the model off and the usual "
         "constants are 0.1 to 0.17 (docs/collision.md)";
}


std::size_t ObstacleMask::fluid_cells() const {
  return static_cast<std::size_t>(std::count_if(kinds.begin(), kinds.end(), [](std::uint8_t b) { return !is_obstacle(b); }));
}

const char* to_string(Edge e) {
  switch (e) {
    case Edge::Left: return "left";
    case Edge::Right: return "right";
    case Edge::Bottom: return "bottom";
    case Edge::Top: return "top";
  }
  return "?";
}

Vec2 edge_frame_velocity(Edge edge, Vec2 u) {
  switch (edge) {
    case Edge::Left: return {u.x, u.y};
    case Edge::Right: return {-u.x, u.y};
    case Edge::Bottom: return {u.y, u.x};
    case Edge::Top: return {-u.y, u.x};
  }
  return u;
}

Vec2 grid_velocity(Edge edge, Vec2 nt) {
  switch (edge) {
    case Edge::Left: return {nt.x, nt.y};
    case Edge::Right: return {-nt.x, nt.y};
    case Edge::Bottom: return {nt.y, nt.x};
    case Edge::Top: return {nt.y, -nt.x};
  }
  return nt;
}

Vec2 BoundaryKinds::wall_velocity_at(int number, double x, double y) const {
  Vec2 u = wall_velocities[static_cast<std::size_t>(number)];
  if (wall_rotations.empty()) return u;
  const Rotation& r = wall_rotations[static_cast<std::size_t>(number)];
  return {u.x - r.omega * (y - r.centre.y), u.y + r.omega * (x - r.centre.x)};
}

const OpenBoundary* BoundaryKinds::open_at(Edge edge) const {
  for (const OpenBoundary& b : open_boundaries)
    if (b.edge == edge) return &b;
  return nullptr;
}

const OpenBoundary* BoundaryKinds::inlet() const {
  for (const OpenBoundary& b : open_boundaries)
    if (b.inlet()) return &b;
  return nullptr;
}

std::optional<double> BoundaryKinds::outlet_density() const {
  for (const OpenBoundary& b : open_boundaries)
    if (!b.inlet()) return b.density;
  return std::nullopt;
}

bool BoundaryKinds::sponges() const {
  for (const OpenBoundary& b : open_boundaries)
    if (b.sponge > 0) return true;
  return false;
}

std::string read_text_file(const std::string& filename, std::uint64_t max_bytes) {
  // Looked at before opening: opening a FIFO would wait for a writer, and a
  // device such as /dev/zero never ends.
  struct stat st {};
  if (::stat(filename.c_str(), &st) != 0)
    throw InputError(filename + ": cannot open file (" + std::strerror(errno) + ")");
  if (!S_ISREG(st.st_mode))
    throw InputError(filename + ": not a regular file (" +
                     (S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket") +
                     ")");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes)
    throw InputError(filename + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                     std::to_string(max_bytes) + " this input can need");
  std::ifstream in(filename, std::ios::binary);
  if (!in) throw InputError(filename + ": cannot open file (" + std::strerror(errno) + ")");
  try {
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    if (in.bad()) throw InputError(filename + ": cannot read file");
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
  } catch (const std::bad_alloc&) {
    throw InputError(filename + ": out of memory while reading " + std::to_string(st.st_size) + " bytes");
  }
}

namespace {

struct Token {
  std::string text;
  int line;
};

// Whitespace-separated tokens with the line each starts on.
std::vector<Token> tokenize(const std::string& text) {
  std::vector<Token> tokens;
  int line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else {
      std::size_t start = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      tokens.push_back({text.substr(start, i - start), line});
    }
  }
  return tokens;
}

std::string where(const std::string& filename, int line) { return filename + ":" + std::to_string(line); }

bool parse_int(const std::string& s, long long& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtoll(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

bool parse_real(const std::string& s, double& out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size() && std::isfinite(out);
}

}  // namespace

namespace {

bool is_comment(const std::string& token) {
  return token[0] == '#' || token[0] == '%' || token.compare(0, 2, "//") == 0;
}

// The first line of `text` as whitespace-separated fields.
std::vector<std::string> first_line_fields(const std::string& text) {
  std::istringstream line(text.substr(0, text.find('\n')));
  std::vector<std::string> fields;
  for (std::string f; line >> f;) fields.push_back(f);
  return fields;
}

// An obstacles file starts "x y 1"; a params file holds one number per line.
bool looks_like_obstacles(const std::string& text) {
  const auto fields = first_line_fields(text);
  long long v = 0;
  return fields.size() == 3 && parse_int(fields[0], v) && parse_int(fields[1], v) && fields[2] == "1";
}

}  // namespace

std::optional<ParamsLimitViolation> violated_params_limit(const Params& p) {
  // Periodic neighbours and the accelerated row ny-2 need at least 2x2.
  if (!(p.nx >= 2)) return ParamsLimitViolation{0, "must be at least 2"};
  if (!(p.ny >= 2)) return ParamsLimitViolation{1, "must be at least 2"};
  if (!(p.max_iters > 0)) return ParamsLimitViolation{2, "must be positive"};
  if (!(p.reynolds_dim > 0)) return ParamsLimitViolation{3, "must be positive"};
  if (!(p.density > 0.0)) return ParamsLimitViolation{4, "must be positive"};
  if (!(p.omega > 0.0 && p.omega < 2.0)) return ParamsLimitViolation{6, "must lie in (0, 2)"};
  return std::nullopt;
}

Params parse_params(const std::string& text, const std::string& filename) {
  const auto& names = kParamNames;
  const auto tokens = tokenize(text);
  if (looks_like_obstacles(text) && tokens.size() != 7)
    throw InputError(where(filename, 1) + ": this is an obstacles file ('x y 1' per line), not a params file: are "
                     "the two files swapped? (usage: d2q9-bgk <paramfile> <obstaclefile>)");
  for (const Token& t : tokens)
    if (is_comment(t.text))
      throw InputError(where(filename, t.line) + ": '" + t.text + "' starts a comment, but a params file has none: "
                       "exactly 7 numbers, one per line (nx ny maxIters reynolds_dim density accel omega)");
  if (tokens.size() < 7) {
    int line = tokens.empty() ? 1 : tokens.back().line;
    throw InputError(where(filename, line) + ": missing value for " + names[tokens.size()] +
                     " (expected 7 values: nx ny maxIters reynolds_dim density accel omega)");
  }
  if (tokens.size() > 7)
    throw InputError(where(filename, tokens[7].line) + ": unexpected extra value '" + tokens[7].text +
                     "' (expected 7 values)");

  Params p;
  int* ints[] = {&p.nx, &p.ny, &p.max_iters, &p.reynolds_dim};
  for (int k = 0; k < 4; ++k) {
    long long v = 0;
    if (!parse_int(tokens[k].text, v) || v < INT32_MIN || v > INT32_MAX)
      throw InputError(where(filename, tokens[k].line) + ": " + names[k] + " must be an integer, got '" +
                       tokens[k].text + "'");
    *ints[k] = static_cast<int>(v);
  }
  double* reals[] = {&p.density, &p.accel, &p.omega};
  for (int k = 0; k < 3; ++k) {
    if (!parse_real(tokens[4 + k].text, *reals[k]))
      throw InputError(where(filename, tokens[4 + k].line) + ": " + names[4 + k] + " must be a finite number, got '" +
                       tokens[4 + k].text + "'");
  }
  if (const auto v = violated_params_limit(p))
    throw InputError(where(filename, tokens[v->index].line) + ": " + names[v->index] + " " + v->requirement +
                     ", got '" + tokens[v->index].text + "'");
  return p;
}

Params read_params(const std::string& filename) {
  return parse_params(read_text_file(filename, kMaxParamsBytes), filename);
}

ObstacleMask parse_obstacles(const std::string& text, const std::string& filename, const Params& params) {
  ObstacleMask mask(params.nx, params.ny);
  std::istringstream in(text);
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    std::istringstream ls(line);
    std::vector<std::string> fields;
    for (std::string f; ls >> f;) fields.push_back(f);
    if (fields.empty()) continue;  // blank lines carry no cell
    if (is_comment(fields[0]))
      throw InputError(where(filename, lineno) + ": '" + fields[0] + "' starts a comment, but an obstacles file has "
                       "none: one 'x y 1' per line");
    if (fields.size() != 3)
      throw InputError(where(filename, lineno) + ": expected 'x y 1', got " + std::to_string(fields.size()) +
                       " field(s)" +
                       (lineno == 1 && fields.size() == 1 ? " (a params file? are the two files swapped?)" : ""));
    long long x = 0, y = 0, b = 0;
    if (!parse_int(fields[0], x) || !parse_int(fields[1], y) || !parse_int(fields[2], b))
      throw InputError(where(filename, lineno) + ": expected three integers 'x y 1', got '" + line + "'");
    if (x < 0 || x >= params.nx)
      throw InputError(where(filename, lineno) + ": x = " + fields[0] + " is outside the grid [0, " +
                       std::to_string(params.nx - 1) + "]");
    if (y < 0 || y >= params.ny)
      throw InputError(where(filename, lineno) + ": y = " + fields[1] + " is outside the grid [0, " +
                       std::to_string(params.ny - 1) + "]");
    if (b != 1) throw InputError(where(filename, lineno) + ": blocked value must be 1, got " + fields[2]);
    mask.kinds[static_cast<std::size_t>(x) + static_cast<std::size_t>(y) * params.nx] = 1;
  }
  if (mask.fluid_cells() == 0) throw InputError(filename + ": every cell is blocked; there is no fluid to simulate");
  return mask;
}

ObstacleMask read_obstacles(const std::string& filename, const Params& params) {
  // Every cell listed a few times over, with room for comments and spacing.
  const std::uint64_t cap = (std::uint64_t{1} << 20) + 256 * static_cast<std::uint64_t>(params.cells());
  return parse_obstacles(read_text_file(filename, cap), filename, params);
}

}  // namespace d2q9
