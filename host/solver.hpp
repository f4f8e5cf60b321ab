// The backend interface: a problem goes in, timesteps run, average velocities
// and the final distributions come out. Physics and I/O live elsewhere.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "problem.hpp"

namespace d2q9 {

// A problem with the device or its backend (no device, kernel build failure,
// out of memory); what() is the whole message.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class Precision { Float, Double };

inline const char* to_string(Precision p) { return p == Precision::Float ? "float" : "double"; }

// Work-group (thread-block) shape; 0x0 means "let the backend choose".
struct LocalSize {
  int x = 0;
  int y = 0;
  bool is_auto() const { return x == 0 && y == 0; }
};

// Lattice constants shared by the reference and the host-side output code.
constexpr int kSpeeds = 9;
constexpr int kEx[kSpeeds] = {0, 1, 0, -1, 0, 1, -1, -1, 1};
constexpr int kEy[kSpeeds] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
constexpr int kOpposite[kSpeeds] = {0, 3, 4, 1, 2, 7, 8, 5, 6};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual std::string backend() const = 0;
  virtual std::string device_name() const = 0;
  virtual Precision precision() const = 0;
  // The work-group shape in use (reference: 1x1).
  virtual LocalSize local_size() const = 0;
  // How steps are launched ("fused", ...; empty where that means nothing).
  virtual std::string kernel_variant() const { return ""; }
  // Rows each work-item of a one-step launch updates (1 where that means nothing).
  virtual int rows_per_item() const { return 1; }
  // Advances `steps` timesteps and appends one average velocity per step.
  virtual void run(int steps, std::vector<double>& av_vels) = 0;
  // Current distributions, structure of arrays: speed k of cell i at [k*cells + i].
  virtual std::vector<double> distributions() = 0;
  // Replaces the current distributions (same layout), e.g. to resume a run.
  virtual void load_distributions(const std::vector<double>& f) = 0;
};

// Turns per-group partial sums of |u| read back from a device (`steps` rows
// of `num_groups` values in the run's precision) into average velocities:
// each step's groups summed in order, in double, over the fluid-cell count.
// Appends them to av_vels, checking each for instability as it arrives.
void append_average_velocities(const void* partials, Precision precision, int steps, int num_groups,
                               std::size_t fluid_cells, std::vector<double>& av_vels);

// Every cell starts at rest with the given density, obstacles included.
std::vector<double> initial_distributions(const Params& params);

}  // namespace d2q9
