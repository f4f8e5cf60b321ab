// Problem description and input files: what every backend is given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/printable.hpp"

namespace d2q9 {

// Any problem with the user's input; what() is "<file>[:<line>]: <problem>".
// Control characters (from file names or contents) are escaped: one line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(printable(what)) {}
};

struct Vec2 {
  double x = 0.0;
  double y = 0.0;
  bool operator==(const Vec2& o) const { return x == o.x && y == o.y; }
  bool operator!=(const Vec2& o) const { return !(*this == o); }
};

// How fluid cells collide: BGK (the coursework's), two relaxation times, or
// regularised BGK (docs/problem-files.md, --collision).
enum class CollisionOperator { Bgk, Trt, Regularised };
const char* to_string(CollisionOperator c);
// "bgk", "trt" or "regularised" (also "regularized"); nullopt otherwise.
std::optional<CollisionOperator> parse_collision_operator(const std::string& text);

// TRT's magic parameter Lambda sets omega_minus = 1 / (Lambda / (1/omega -
// 1/2) + 1/2): far above 1 it all but freezes the odd moments (omega_minus
// near 0), far below it drives omega_minus to 2. Accepted: [0.001, 10], which
// holds every value in use (1/12, 1/6, 3/16, 1/4, 1/2); outside, the reason
// (for the caller's error line), else empty.
inline constexpr double kTrtMagicMin = 0.001, kTrtMagicMax = 10.0;
std::string trt_magic_problem(double lambda);

// TRT's odd relaxation rate for the given even one (omega) and "magic"
// parameter Lambda = (1/omega - 1/2)(1/omega_minus - 1/2).
double trt_omega_minus(double omega, double magic);

// What problem files (docs/problem-files.md) add to the coursework's model.
// The defaults are the coursework's (nothing added), and the kernels compile
// each addition in only when a problem uses it, so coursework runs keep their
// code, speed and bytes.
struct Extensions {
  // Velocity of every kMovingWall cell: bounce-back with the wall's momentum.
  Vec2 wall_velocity;
  // Force per unit volume on every fluid cell (Guo, Zheng & Shi 2002 forcing).
  Vec2 body_force;
  // Zou/He velocity inlet on the left edge (column 0).
  std::optional<Vec2> inlet_velocity;
  // The inlet's profile is Poiseuille's, peak inlet_velocity->x on the centre
  // line between walls half-way below row 1 and above row ny-2.
  bool inlet_parabolic = false;
  // Steps over which the inlet's velocity rises from 0 to its value (0: none).
  int inlet_ramp_steps = 0;
  // Zou/He pressure (density) outlet on the right edge (column nx-1).
  std::optional<double> outlet_density;
  // Absorbing layers (sponges): the columns next to the inlet (left) and the
  // outlet (right) whose state relaxes toward the far field, the inlet's
  // velocity at the outlet's density, so that sound leaves the domain.
  // Widths in columns (0: none); the rate at the layer's outer edge.
  int sponge_left = 0, sponge_right = 0;
  static constexpr double kSpongeStrength = 0.1;
  // Bodies whose force is measured (ObstacleMask: cell_body), up to kMaxBodies.
  int measured_bodies = 0;
  // Steps between probe samples (0: no probes): the blocked kernel holds the
  // code that samples them only where a problem has them
  // (blocked_samples_inside).
  int probe_every = 0;
  CollisionOperator collision = CollisionOperator::Bgk;
  // TRT: Lambda. 1/4 is the most stable; 3/16 puts bounce-back walls exactly
  // half-way for Poiseuille flow (docs/collision.md).
  double trt_magic = 0.25;
  // Interpolated bounce-back on curved walls: ObstacleMask::links is set.
  bool curved_walls = false;
  // With curved walls: the most fluid cells with a curved link in any
  // kCurvedWindow x kCurvedWindow window of the grid (periodic), which
  // bounds what a blocked tile's region holds (curved_cells_in_windows).
  int curved_window_cells = 0;
  static constexpr int kCurvedWindow = 64;

  bool moving_walls() const { return wall_velocity != Vec2{}; }
  bool forced() const { return body_force != Vec2{}; }
  bool open_x() const { return inlet_velocity.has_value() || outlet_density.has_value(); }
  bool sponges() const { return sponge_left > 0 || sponge_right > 0; }
  // Values per work-group and step the kernels reduce: |u|, then Fx, Fy per body.
  int sums_per_group() const { return 1 + 2 * measured_bodies; }
  bool any() const {
    return moving_walls() || forced() || open_x() || collision != CollisionOperator::Bgk || curved_walls;
  }
};

// What a run measures besides the flow (problem files: [forces], [probes]).
struct Probe {
  std::string name;
  int i = 0, j = 0;
};
struct Measurements {
  std::vector<std::string> bodies;  // body b + 1 of ObstacleMask's bytes is bodies[b]
  // Drag and lift coefficients C = 2 F / (density velocity^2 length), when given.
  std::optional<double> velocity, length;
  double density = 1.0;
  std::vector<Probe> probes;
  int probe_every = 0;  // steps between probes.csv rows (0: no probes)
  bool coefficients() const { return velocity.has_value() && length.has_value(); }
};

struct Params {
  int nx = 0;
  int ny = 0;
  int max_iters = 0;
  int reynolds_dim = 0;
  double density = 0.0;
  double accel = 0.0;
  double omega = 0.0;
  Extensions extensions;  // none for the coursework's .params files

  std::size_t cells() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny); }
  // Kinematic viscosity of the BGK model for this omega.
  double viscosity() const { return (2.0 / omega - 1.0) / 6.0; }
};

// Cell kinds in ObstacleMask::kinds. Both kinds are obstacles (bounce-back);
// kMovingWall cells add Extensions::wall_velocity's momentum.
constexpr std::uint8_t kFluid = 0;
constexpr std::uint8_t kWall = 1;
constexpr std::uint8_t kMovingWall = 2;
// An obstacle byte's bits 2-7: the measured body it belongs to (1 to
// kMaxBodies; 0: none), so that the kernels get it with the kind.
constexpr int kBodyShift = 2;
constexpr int kMaxBodies = 16;
inline std::uint8_t cell_kind(std::uint8_t b) { return b & 3; }
inline int cell_body(std::uint8_t b) { return b >> kBodyShift; }

// One byte per cell, row-major: index ii + jj*nx. Its kind (kFluid, kWall or
// kMovingWall) and, for obstacles, its measured body.
struct ObstacleMask {
  int nx = 0;
  int ny = 0;
  std::vector<std::uint8_t> kinds;  // one byte per cell: kFluid, or an obstacle's kind and body
  // Curved walls' links (Extensions::curved_walls; host/problem/curved_links.hpp),
  // which the kernels' `obstacles` argument holds after kinds: empty, or 8 planes of one byte per cell, plane k-1 for speed k: 0, or
  // where a wall cuts the link to neighbour (ii, jj) - e_k, code / 255 of
  // its length from the cell.
  std::vector<std::uint8_t> links;

  ObstacleMask() = default;
  ObstacleMask(int nx_, int ny_)
      : nx(nx_), ny(ny_), kinds(static_cast<std::size_t>(nx_) * static_cast<std::size_t>(ny_), 0) {}
  bool at(int ii, int jj) const { return kinds[static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * nx] != 0; }
  std::size_t fluid_cells() const;
};

// The limits every problem's values obey, whichever file gave them: nx and ny
// at least 2, maxIters, reynolds_dim and density positive, omega in (0, 2).
// The first value outside them, as its index in kParamNames (the .params
// file's order) and what it must be ("must be positive"), or none.
struct ParamsLimitViolation {
  int index;
  const char* requirement;
};
inline constexpr const char* kParamNames[7] = {"nx", "ny", "maxIters", "reynolds_dim", "density", "accel", "omega"};
std::optional<ParamsLimitViolation> violated_params_limit(const Params& p);

Params parse_params(const std::string& text, const std::string& filename);
Params read_params(const std::string& filename);
ObstacleMask parse_obstacles(const std::string& text, const std::string& filename, const Params& params);
ObstacleMask read_obstacles(const std::string& filename, const Params& params);

// Whole file as a string; InputError when it is no regular file, is larger
// than `max_bytes`, or cannot be opened, read or held in memory.
std::string read_text_file(const std::string& filename, std::uint64_t max_bytes = std::uint64_t{1} << 30);
constexpr std::uint64_t kMaxParamsBytes = 1 << 20;

// A parabolic inlet's 4 u_max / H^2 (H = ny - 2): u(j) = factor y (H - y), y = j - 1/2.
inline double inlet_profile_factor(const Params& p) {
  const double h = p.ny - 2;
  return 4.0 * p.extensions.inlet_velocity->x / (h * h);
}

}  // namespace d2q9
