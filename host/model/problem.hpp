// Problem description and input files: what every backend is given.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/printable.hpp"

namespace d2q9 {

// Any problem with the user's input; what() is "<file>[:<line>]: <problem>".
// Control characters (from file names or contents) are escaped: one line.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what) : std::runtime_error(printable(what)) {}
};

struct Params {
  int nx = 0;
  int ny = 0;
  int max_iters = 0;
  int reynolds_dim = 0;
  double density = 0.0;
  double accel = 0.0;
  double omega = 0.0;

  std::size_t cells() const { return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny); }
  // Kinematic viscosity of the BGK model for this omega.
  double viscosity() const { return (2.0 / omega - 1.0) / 6.0; }
};

// One byte per cell (1 = blocked), row-major: index ii + jj*nx.
struct ObstacleMask {
  int nx = 0;
  int ny = 0;
  std::vector<std::uint8_t> blocked;

  ObstacleMask() = default;
  ObstacleMask(int nx_, int ny_)
      : nx(nx_), ny(ny_), blocked(static_cast<std::size_t>(nx_) * static_cast<std::size_t>(ny_), 0) {}
  bool at(int ii, int jj) const { return blocked[static_cast<std::size_t>(ii) + static_cast<std::size_t>(jj) * nx] != 0; }
  std::size_t fluid_cells() const;
};

Params parse_params(const std::string& text, const std::string& filename);
Params read_params(const std::string& filename);
ObstacleMask parse_obstacles(const std::string& text, const std::string& filename, const Params& params);
ObstacleMask read_obstacles(const std::string& filename, const Params& params);

// Whole file as a string; InputError when it is no regular file, is larger
// than `max_bytes`, or cannot be opened, read or held in memory.
std::string read_text_file(const std::string& filename, std::uint64_t max_bytes = std::uint64_t{1} << 30);
constexpr std::uint64_t kMaxParamsBytes = 1 << 20;

}  // namespace d2q9
