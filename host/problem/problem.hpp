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
// 18 sqrt(2) C^2: the Smagorinsky model's tau is (tau0 + sqrt(tau0^2 + factor |Pi| / rho)) / 2.
double smagorinsky_factor(double constant);

// The Smagorinsky constant C is accepted in [0, 1] (0: no model); outside,
// the reason (for the caller's error line), else empty.
std::string smagorinsky_problem(double constant);

// The four edges of the grid, in the order problem files and the kernels
// number them (an open boundary cell's number is its edge's + 1).
enum class Edge { Left = 0, Right = 1, Bottom = 2, Top = 3 };
inline constexpr int kEdges = 4;
const char* to_string(Edge e);

// A velocity inlet or a pressure outlet on one edge: the edge's fluid cells
// (kind kFluid, number edge + 1) get the unknown distributions Zou/He's
// rule sets (Zou & He, Phys. Fluids 9, 1591, 1997), in the edge's frame.
struct OpenBoundary {
  enum class Kind { VelocityInlet, PressureOutlet };
  Kind kind = Kind::VelocityInlet;
  Edge edge = Edge::Left;
  // An inlet's velocity (x, y); with `parabolic`, {u_max, 0}: Poiseuille's
  // profile across the edge, peak u_max along the inward normal, between
  // walls half-way outside its second and last-but-one cells.
  Vec2 velocity;
  bool parabolic = false;
  double density = 1.0;  // an outlet's
  int sponge = 0;        // an absorbing layer of this many cells beside the edge (0: none)
  double temperature = 0.0;  // with [heat], an inlet's: the temperature the flow brings in
  bool inlet() const { return kind == Kind::VelocityInlet; }
  bool operator==(const OpenBoundary& o) const {
    return kind == o.kind && edge == o.edge && velocity == o.velocity && parabolic == o.parabolic &&
           density == o.density && sponge == o.sponge && temperature == o.temperature;
  }
};

// The velocity along the edge's inward normal n and its tangent t, (u.n, u.t),
// of a uniform velocity u at `edge` (exact: components and their negations).
// Frames: left n = (1, 0), t = (0, 1); right n = (-1, 0), t = (0, 1);
// bottom n = (0, 1), t = (1, 0); top n = (0, -1), t = (1, 0).
Vec2 edge_frame_velocity(Edge edge, Vec2 u);
// The inverse: (x, y) of a velocity given as (u.n, u.t) at `edge`.
Vec2 grid_velocity(Edge edge, Vec2 normal_tangential);

// What the problem's walls and edges do beyond the coursework's bounce-back,
// kind by kind of cell (cl/cell_kinds.cl): each kind's parameters, which
// the kernels get as defines and the reference reads as they are.
struct BoundaryKinds {
  // The velocity of each moving-wall number (cell_number of a kMovingWall
  // cell): bounce-back with that wall's momentum. Empty: no moving wall.
  std::vector<Vec2> wall_velocities;
  // With a rotating body: each number's rotation, so that a cell at x moves
  // at wall_velocities[n] + omega x (x - centre). Empty: none rotates.
  struct Rotation {
    double omega = 0.0;
    Vec2 centre;
    bool operator==(const Rotation& o) const { return omega == o.omega && centre == o.centre; }
  };
  std::vector<Rotation> wall_rotations;
  // Velocity inlets and pressure outlets, at most one per edge, in edge order.
  std::vector<OpenBoundary> open_boundaries;
  // Steps over which every inlet's velocity rises from 0 to its value (0: none).
  int inlet_ramp_steps = 0;
  // Free-slip walls (kFreeSlip cells) on some edge.
  bool free_slip = false;
  // Absorbing layers (sponges) at open edges relax toward the far field, the
  // inlet's velocity at the outlets' density; the rate at the layer's outer edge.
  static constexpr double kSpongeStrength = 0.1;
  // Interpolated bounce-back on curved walls: ObstacleMask::links is set.
  bool curved_walls = false;
  // With curved walls: the most fluid cells with a curved link in any
  // kCurvedWindow x kCurvedWindow window of the grid (periodic), which
  // bounds what a blocked tile's region holds (curved_cells_in_windows).
  int curved_window_cells = 0;
  static constexpr int kCurvedWindow = 64;

  bool moving_walls() const { return !wall_velocities.empty(); }
  // The velocity of moving wall `number`'s cell (x, y).
  Vec2 wall_velocity_at(int number, double x, double y) const;
  bool open() const { return !open_boundaries.empty(); }
  // The open boundary at `edge`, or null.
  const OpenBoundary* open_at(Edge edge) const;
  // The problem's velocity inlet (sponges' far field), or null: the first.
  const OpenBoundary* inlet() const;
  // The outlets' density (sponges' far field), or none without an outlet.
  std::optional<double> outlet_density() const;
  int sponge(Edge edge) const {
    const OpenBoundary* b = open_at(edge);
    return b ? b->sponge : 0;
  }
  bool sponges() const;
  bool any_boundary() const { return moving_walls() || open() || curved_walls || free_slip; }
};

// How the fluid cells relax and what drives them beyond the coursework's
// BGK and push on one row.
struct FluidModel {
  // Force per unit volume on every fluid cell (Guo, Zheng & Shi 2002 forcing).
  Vec2 body_force;
  CollisionOperator collision = CollisionOperator::Bgk;
  // TRT: Lambda. 1/4 is the most stable; 3/16 puts bounce-back walls exactly
  // half-way for Poiseuille flow (docs/collision.md).
  double trt_magic = 0.25;
  // The Smagorinsky constant C of the subgrid model (docs/collision.md); 0:
  // no model, and the kernels compile without it.
  double smagorinsky = 0;
  bool subgrid() const { return smagorinsky > 0; }
  bool forced() const { return body_force != Vec2{}; }
  bool any_model() const { return forced() || collision != CollisionOperator::Bgk || subgrid(); }
};

// What the kernels measure while they step, besides the average |u|.
struct KernelMeasures {
  // Bodies whose force is measured (ObstacleMask: cell_number), up to kMaxBodies.
  int measured_bodies = 0;
  // Steps between probe samples (0: no probes): the blocked kernel holds the
  // code that samples them only where a problem has them
  // (blocked_samples_inside).
  int probe_every = 0;
  // Values per work-group and step the kernels reduce: |u|, then Fx, Fy per body.
  int sums_per_group() const { return 1 + 2 * measured_bodies; }
};

// What a wall does to heat (the temperature lattice's boundary kind of a
// wall cell, by its number): keeps it in, holds a temperature (anti-bounce-
// back), or lets a fixed flux in.
struct ThermalWall {
  enum class Kind { Adiabatic = 0, Temperature = 1, HeatFlux = 2 };
  Kind kind = Kind::Adiabatic;
  // Temperature: the wall's; HeatFlux: heat into the fluid per cell face and step.
  double value = 0.0;
  bool operator==(const ThermalWall& o) const { return kind == o.kind && value == o.value; }
  bool operator!=(const ThermalWall& o) const { return !(*this == o); }
};

// Heat ([heat], docs/heat.md): a temperature carried by the flow on a D2Q5
// lattice of its own (planes 9-13 of the distributions), its collision, the
// Boussinesq buoyancy it puts on the flow, and what each wall does to it.
struct HeatModel {
  bool heat = false;  // [heat] given: the temperature lattice exists
  double diffusivity = 0.0;  // thermal diffusivity alpha; omega_T = 1 / (3 alpha + 1/2)
  CollisionOperator thermal_collision = CollisionOperator::Bgk;  // Bgk or Trt
  double thermal_magic = 0.25;  // TRT's Lambda on the temperature lattice
  // Force per unit volume on a fluid cell per unit of its T - reference
  // (rho0 g beta, against gravity); none: the temperature is passive.
  Vec2 buoyancy;
  double reference_temperature = 0.0;  // Boussinesq's T0
  double initial_temperature = 0.0;    // every cell's at the start
  // By wall number (cell_number of kWall and kMovingWall cells); empty or
  // short: adiabatic. Number 0 (plain walls) is always adiabatic.
  std::vector<ThermalWall> thermal_walls;
  // Each thermal wall number's name for the summary's Nusselt numbers: its
  // edge's ("left") or its body's; empty: "wall N".
  std::vector<std::string> thermal_wall_names;
  // The Nusselt number's scales: Nu = q L / (alpha dT) for a wall's mean flux q.
  double heat_length = 0.0, temperature_difference = 1.0;

  // The temperature lattice's relaxation rates: omega_T sets the
  // diffusivity (BGK's one rate; TRT's odd one), TRT's even one follows Lambda.
  double thermal_omega() const { return 1.0 / (3.0 * diffusivity + 0.5); }
  double thermal_omega_even() const;
  bool buoyant() const { return buoyancy != Vec2{}; }
  ThermalWall thermal_wall(int number) const {
    return number > 0 && number < static_cast<int>(thermal_walls.size()) ? thermal_walls[number] : ThermalWall{};
  }
};

// Values per cell of the lattice: the nine distributions, and with heat the
// five of temperature after them.
inline constexpr int kHeatSpeeds = 5;

// What problem files (docs/problem-files.md) add to the coursework's model,
// in four parts by what they hold. The defaults are the coursework's
// (nothing added), and the kernels compile each addition in only when a
// problem uses it, so coursework runs keep their code, speed and bytes.
struct Extensions : BoundaryKinds, FluidModel, KernelMeasures, HeatModel {
  bool any() const { return any_boundary() || any_model() || heat; }
  // Values per cell of the lattice (distribution planes): 9, or 14 with heat.
  int planes() const { return heat ? 9 + kHeatSpeeds : 9; }
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
  int nusselt_every = 0;  // [heat]: steps between nusselt.csv rows (0: none)
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

// Cell kinds: one byte per cell (ObstacleMask::kinds), its class in bits 0-1
// and a number in bits 2-6, as cl/cell_kinds.cl declares them for the
// kernels (tests/test_boundaries.cpp checks the two agree):
//   kFluid      number 0: fluid; 1-4: an open boundary of edge number - 1
//   kWall       bounce-back; number: the measured body it belongs to (0: none)
//   kMovingWall bounce-back with the momentum of wall_velocities[number]
//               (numbers 1..measured_bodies are also measured bodies)
//   kFreeSlip   specular reflection across x (kFreeSlipAcrossX, the left and
//               right edges) or y (kFreeSlipAcrossY): a wall without friction
constexpr std::uint8_t kFluid = 0;
constexpr std::uint8_t kWall = 1;
constexpr std::uint8_t kMovingWall = 2;
constexpr std::uint8_t kFreeSlip = 3;
constexpr int kBodyShift = 2;
constexpr int kMaxBodies = 16;
// Numbers of moving walls: measured bodies and walls of their own velocity;
// numbers use bits 2-6 (bit 7 is the blocked kernel's).
constexpr int kMaxWallNumbers = 29;
constexpr int kFreeSlipAcrossX = 30, kFreeSlipAcrossY = 31;
inline std::uint8_t cell_kind(std::uint8_t b) { return b & 3; }
inline int cell_number(std::uint8_t b) { return b >> kBodyShift; }
inline std::uint8_t cell_byte(std::uint8_t kind, int number) {
  return static_cast<std::uint8_t>(kind | number << kBodyShift);
}
inline bool is_obstacle(std::uint8_t b) { return cell_kind(b) != kFluid; }
// The measured body a cell belongs to (0: none).
inline int cell_body(std::uint8_t b, int measured_bodies) {
  const int n = cell_number(b);
  return is_obstacle(b) && cell_kind(b) != kFreeSlip && n <= measured_bodies ? n : 0;
}
// The open boundary's edge of a fluid cell, or -1.
inline int open_edge_of(std::uint8_t b) { return cell_kind(b) == kFluid && b ? cell_number(b) - 1 : -1; }

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
  // Whether cell (ii, jj) is an obstacle (any wall).
  bool at(int ii, int jj) const { return is_obstacle(kinds[static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * nx]); }
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

// A parabolic inlet's span H (its edge's cells less two) and 4 u_max / H^2:
// u.n(s) = factor y (H - y), y = s - 1/2, s the cell's index along the edge.
inline double inlet_span(const Params& p, Edge edge) {
  return (edge == Edge::Left || edge == Edge::Right ? p.ny : p.nx) - 2.0;
}
inline double inlet_profile_factor(const Params& p, const OpenBoundary& inlet) {
  const double h = inlet_span(p, inlet.edge);
  return 4.0 * inlet.velocity.x / (h * h);
}

}  // namespace d2q9
