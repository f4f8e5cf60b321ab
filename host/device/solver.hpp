// The backend interface: a problem goes in, timesteps run, average velocities
// and the final distributions come out. Physics and I/O live elsewhere.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/launch_plan.hpp"
#include "core/run_types.hpp"
#include "core/types.hpp"
#include "io/field_image.hpp"
#include "problem/lattice.hpp"
#include "problem/problem.hpp"

namespace d2q9 {

// The --backend choices of the programs' help, from kBackends: "opencl |
// cuda (NVIDIA GPUs, when built)", then "| reference (...)" with `reference`.
std::string backend_choices(bool reference);

// Which device a backend runs on and how it builds its kernels.
struct DeviceConfig {
  int device = -1;  // index among the backend's devices; -1: its default
  Precision precision = Precision::Float;
  std::string kernels_dir;
  // The probes' buffer of samples on the device, both its halves, in bytes
  // (0: the default, 16 MiB; StepLoop::sample_cells_every). Tests set a few
  // rows' worth, for halves that fill in a few chunks.
  std::size_t sample_buffer_bytes = 0;
  // Replay each chunk of steps as one recorded graph where the backend can
  // (CUDA); false: launch the kernels one by one.
  bool launch_graphs = true;
};

class Solver {
 public:
  virtual ~Solver() = default;
  virtual Backend backend() const = 0;
  // "opencl+mpi" and the like where the name says more than the enum.
  virtual std::string backend_name() const { return to_string(backend()); }
  virtual std::string device_name() const = 0;
  virtual Precision precision() const = 0;
  // How steps are launched; none for the serial reference.
  virtual std::optional<LaunchPlan> launch_plan() const { return std::nullopt; }
  LocalSize local_size() const { return launch_plan() ? launch_plan()->local : LocalSize{1, 1}; }
  // How the grid is split across MPI ranks; empty on one process.
  virtual std::string decomposition() const { return ""; }
  // How a split grid's halo rows travel between the ranks' devices:
  // "cuda-ipc" (device to device, ranks of one host), "host-shared" (host
  // memory the ranks of one host share, pinned by each device: no host
  // copies), "host-shared-copied" (the same memory, copied to and from
  // pinned buffers by threads) or "host-staging" (pinned host memory and MPI
  // messages); empty on one device, and until the first run() has chosen.
  virtual std::string halo_path() const { return ""; }
  virtual HaloTimes halo_times() const { return {}; }
  // Where its set-up went; zeros where it does not say (the reference).
  virtual SetupTimes setup_times() const { return {}; }
  // How it submits launches, where its backend has a choice (CUDA: "graphs",
  // or "plain launches" and why); else empty.
  virtual std::string launch_mode() const { return ""; }
  // Advances `steps` timesteps and appends one average velocity per step;
  // InstabilityError as soon as one is not finite. av_vels holds the run's
  // average velocities so far: its size is the number of the first step
  // (which an inlet's ramp reads).
  virtual void run(int steps, std::vector<double>& av_vels) = 0;
  // The force each measured body (Extensions::measured_bodies) took from the
  // fluid in each step run since the last call: per step, Fx and Fy of body
  // 0, then of body 1, ...; empty where no body is measured. Split across
  // ranks: the sums of all ranks, on every rank.
  virtual std::vector<double> take_body_forces() { return {}; }
  // Current distributions, structure of arrays: speed k of cell i at [k*cells + i].
  // Split across ranks: the whole grid on rank 0, nothing elsewhere (collective).
  virtual std::vector<double> distributions() = 0;
  // Values a cell holds: the nine distributions, and with heat the five of
  // the temperature after them (Extensions::planes()).
  virtual int values_per_cell() const { return 9; }
  // The values_per_cell() values of each of `cells` (whole-grid indices),
  // cell after cell; collective like distributions(), empty off rank 0. By
  // default from distributions(); backends read just those cells.
  virtual std::vector<double> cell_distributions(const std::vector<std::size_t>& cells);
  // Probes the solver samples itself while it runs, rather than its caller
  // stopping at each probe's step to read cells (which drains a device):
  // sample_cells_every(cells, every) says whether it will (false: the caller
  // reads cell_distributions at those steps; every <= 0 or no cells: no
  // probes). Then run() samples `cells` (whole-grid indices) after every
  // step whose number (steps completed) is a multiple of `every`, and
  // take_cell_samples() hands over the samples taken since the last call
  // (split across ranks: collective, the values on rank 0). samples_cells():
  // whether it is sampling probes now.
  virtual bool samples_cells() const { return false; }
  virtual bool sample_cells_every(const std::vector<std::size_t>& cells, int every) {
    (void)cells;
    (void)every;
    return false;
  }
  struct CellSamples {
    std::vector<int> steps;      // steps completed at each sample
    std::vector<double> values;  // per sample, cell_distributions' values (empty off rank 0)
  };
  virtual CellSamples take_cell_samples() { return {}; }
  // Replaces the current distributions (same layout, the whole grid), e.g. to resume a run.
  virtual void load_distributions(const std::vector<double>& f) = 0;
  // A picture of the current state made where the state lives (cl/render.cl),
  // so that only the picture travels; none where this solver cannot (the
  // caller draws it on the host). Split across ranks: collective, each rank
  // sampling its own rows, the picture on rank 0 (an empty one elsewhere),
  // none on every rank alike.
  virtual std::optional<FieldImage> render(const FieldImageRequest& request) {
    (void)request;
    return std::nullopt;
  }
};

// Turns per-group partial sums of |u| read back from a device (`steps` rows
// of `num_groups` values in the run's precision) into average velocities:
// each step's groups summed in order, in double, over the fluid-cell count.
// Appends them to av_vels, checking each for instability as it arrives.
// With `sums_per_group` > 1 each group's slot holds |u| and then Fx, Fy of
// each measured body, whose sums over the groups (in order, in double) go to
// `body_forces`, step by step.
void append_average_velocities(const void* partials, Precision precision, int steps, int num_groups,
                               std::size_t fluid_cells, std::vector<double>& av_vels, int sums_per_group = 1,
                               std::vector<double>* body_forces = nullptr);

// Distributions (all the lattice's planes) as a device holds them (the run's
// precision; 16-bit codes are relative to `lattice`'s density and, with
// heat, its temperatures: Storage16) and back.
// The values a backend read for Solver::cell_distributions, as stored, plane
// by plane (`raw`: `planes` planes of cells.size() values), as the `planes`
// values of each cell in turn.
std::vector<double> cells_from_device(const std::vector<unsigned char>& raw, std::size_t cells, int planes,
                                      Precision precision, const Params& lattice);
// The same from `raw` in place, appended to `out` (probe rows, read in
// thousands: no copy of each row first).
void append_cells_from_device(const unsigned char* raw, std::size_t cells, int planes, Precision precision,
                              const Params& lattice, std::vector<double>& out);

std::vector<unsigned char> to_device_reals(const std::vector<double>& f, Precision precision, const Params& lattice);
// `count`: lattice.extensions.planes() planes of equal size.
std::vector<double> from_device_reals(const void* reals, std::size_t count, Precision precision, const Params& lattice);

}  // namespace d2q9
