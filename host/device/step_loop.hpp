// The one step loop, for one device or N ranks (FluidX3D's LBM steps its
// D domains in one loop; a single GPU is D = 1). Each rank holds its lattice
// on a LatticeDevice of any backend: the whole grid, or a horizontal slab of
// it whose edge rows are updated first and exchanged (RankLinks) while its
// interior is updated.
//
// Steps run in chunks: each chunk's per-group partial sums of |u| are read
// back into a slot of host memory while the device runs the next chunk, and
// are added in the grid's group order, as one device adds them: every rank
// continues the running sums of the ranks below over its own groups and
// passes them up. So a split run's results are byte-identical to a
// single-device run with the same work-group shape.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "device/device_probes.hpp"
#include "device/halo_exchange.hpp"
#include "device/lattice_device.hpp"
#include "device/launch_schedule.hpp"
#include "device/rank_links.hpp"
#include "device/rank_rows.hpp"
#include "device/running_sums.hpp"
#include "device/slab_layout.hpp"
#include "device/solver.hpp"
#include "io/state_rows.hpp"

namespace d2q9 {

// The lattice one device holds: the whole grid (no `slab`), or slab `slab`'s
// rows with a halo row below and above, their obstacle flags, its kernel
// build and the size of its partial sums.
DeviceLattice device_lattice(const Params& params, const ObstacleMask& mask, Precision precision,
                             const LaunchPlan& plan, const std::optional<Slab>& slab = std::nullopt);

// Where one rank's lattice lies in the grid, and how it reaches the others:
// the whole grid with no links (one device), or one slab per rank, bottom to
// top, on whole work-group rows of the plan, with the links between them.
struct Decomposition {
  std::vector<Slab> slabs;             // empty: the whole grid on one device
  std::unique_ptr<RankLinks> links;    // with slabs
};

// `plan` is the whole grid's; with slabs a one-step variant. Local in
// construction and load_distributions(); run() and distributions() are
// collective across the ranks (so a rank that fails to build its device can
// report it before any rank blocks). run() appends the average velocities
// on every rank; distributions() returns the whole grid on rank 0 and nothing
// elsewhere; own_rows() this rank's rows alone (the final outputs).
//
// StepLoop coordinates: it decides each chunk and hands its launches to the
// device; its parts are where its rows lie and the state's reads
// (RankRows), the launches (LaunchSchedule), the halo exchange
// (HaloExchange), the measurements (RunningSums) and the probes
// (DeviceProbes).
class StepLoop final : public Solver, public HoldsRows {
 public:
  StepLoop(Backend backend, Precision precision, const Params& params, const ObstacleMask& mask,
           const LaunchPlan& plan, Decomposition decomposition, std::unique_ptr<LatticeDevice> device,
           std::size_t sample_buffer_bytes = 0);
  ~StepLoop() override;

  Backend backend() const override { return backend_; }
  std::string backend_name() const override;
  std::string device_name() const override { return device_->device_name(); }
  Precision precision() const override { return precision_; }
  std::optional<LaunchPlan> launch_plan() const override { return plan_; }
  std::string decomposition() const override;
  SetupTimes setup_times() const override { return device_->setup_times(); }
  std::string launch_mode() const override { return device_->launch_mode(); }
  std::string halo_path() const override { return halos_ ? halos_->path() : ""; }
  HaloTimes halo_times() const override { return halos_ ? halos_->times() : HaloTimes{}; }
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> take_body_forces() override { return sums_.take_body_forces(); }
  // The live view's picture, made by the device (slabs: collective, RankRows::render).
  std::optional<FieldImage> render(const FieldImageRequest& request) override { return rows_.render(current_, request); }
  std::vector<double> distributions() override { return rows_.distributions(current_); }
  std::vector<double> cell_distributions(const std::vector<std::size_t>& cells) override {
    return rows_.cell_distributions(current_, cells);
  }
  int values_per_cell() const override { return params_.extensions.planes(); }
  bool samples_cells() const override { return probes_.sampling(); }
  bool sample_cells_every(const std::vector<std::size_t>& cells, int every) override {
    return probes_.sample_cells_every(cells, every);
  }
  CellSamples take_cell_samples() override { return probes_.take(); }
  void load_distributions(const std::vector<double>& f) override { rows_.load_distributions(current_, f); }
  StateRows own_rows() override { return rows_.own_rows(current_); }

 private:
  bool split() const { return rows_.split(); }
  // run()'s parts: the first step's acceleration (fused); the launches of
  // the next chunk on one device or on a slab (`ends`, `ends_call`: its
  // last step is the call's; `probe`: it ends at a probe's step, sampled
  // after it; `run_end`: the call's last step); and what a failure leaves undone.
  void accelerate_first_step();
  void launch_chunk(int half, int n, int first, bool ends, bool probe);
  void launch_slab_chunk(int half, int n, int first, bool ends_call, int run_end);
  void abandon_run();

  Backend backend_;
  Precision precision_;
  Params params_;  // the whole grid's
  LaunchPlan plan_;
  std::unique_ptr<RankLinks> links_;
  std::unique_ptr<LatticeDevice> device_;  // freed before links_, whose shared memory it may have pinned
  int current_ = 0;  // the lattice holding the state
  // The parts refer to the members above.
  RankRows rows_;
  LaunchSchedule schedule_;
  std::optional<HaloExchange> halos_;  // slabs
  RunningSums sums_;
  DeviceProbes probes_;
};

}  // namespace d2q9
