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

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/rank_links.hpp"
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
  std::string halo_path() const override { return halo_path_; }
  HaloTimes halo_times() const override;
  void run(int steps, std::vector<double>& av_vels) override;
  std::vector<double> take_body_forces() override { return std::exchange(body_forces_, {}); }
  // The live view's picture, made by the device (one device: the whole grid).
  std::optional<FieldImage> render(const FieldImageRequest& request) override {
    if (split()) return std::nullopt;
    return device_->render(current_, request);
  }
  std::vector<double> distributions() override;
  std::vector<double> cell_distributions(const std::vector<std::size_t>& cells) override;
  int values_per_cell() const override { return params_.extensions.planes(); }
  bool samples_cells() const override { return sample_every_ > 0; }
  bool sample_cells_every(const std::vector<std::size_t>& cells, int every) override;
  CellSamples take_cell_samples() override;
  void load_distributions(const std::vector<double>& f) override;
  StateRows own_rows() override;

  // A range of whole work-group rows of the lattice.
  struct Band {
    int first_group_row = 0;
    int group_rows = 0;
  };
  // The launches of a chunk of `steps` steps on one device, from lattice
  // `state`, partial sums into half `half` of the buffer, the first step
  // being number `first_step`; `ends_call`: its last step leaves the state
  // unaccelerated, so that distributions() between calls sees the model's state;
  // launches also end after each step numbered a multiple of `end_every` (> 0).
  std::vector<StepLaunch> chunk_launches(int state, int half, int steps, int first_step, bool ends_call,
                                         int end_every = 0) const;

 private:
  bool split() const { return !slabs_.empty(); }
  // Where whole-grid cell `cell` lies in this device's lattice (a slab's:
  // past its halo rows); none outside its own rows.
  std::optional<std::size_t> lattice_cell(std::size_t cell) const;
  // With every rank, at the first run(): halo rows straight from the
  // neighbours' devices where every rank's device can open its neighbours'
  // lattices (CUDA IPC, one host), else through pinned host memory, from
  // which they cross between the ranks through shared memory (every rank on
  // one host; pinned by each device where it can, else copied by threads)
  // or MPI messages. D2Q9_HALOS=host in the environment asks for host
  // memory, D2Q9_HALOS=copied for copies, D2Q9_HALOS=mpi for MPI messages.
  void choose_halo_path();
  // Queues the read (staged) or the mark (direct) of lattice `state`'s edge
  // rows, after the kernel stream's work so far.
  void read_edges(int state);
  // Sends lattice `state`'s edge rows (read into the edge buffers) to the
  // neighbours and queues what they sent into its halo rows; direct: queues
  // the copies of the neighbours' edge rows into them.
  void exchange_halos(int state);
  // `launch` (of the whole slab) over one band of its group rows.
  StepLaunch band_launch(const StepLaunch& launch, const Band& band) const;
  // run()'s parts: room for its samples; the first step's acceleration
  // (fused); the steps of the next chunk from step `first` with `left` to
  // run (`probe`: it ends at a probe's step, sampled after it); its launches
  // on one device or on a slab (`ends`, `ends_call`: its last step is the
  // call's; `run_end`: the call's last step); the read of its partial sums
  // from buffer offset `base`; and what a failure leaves undone.
  void reserve_samples(int first_step, int steps);
  void accelerate_first_step();
  int chunk_length(int first, int left, bool& probe);
  void launch_chunk(int half, int n, int first, bool ends, bool probe);
  void launch_slab_chunk(int half, int n, int first, bool ends_call, int run_end);
  void read_chunk_partials(int base, int n);
  void abandon_run();
  // Continues the oldest chunks' sums over this lattice's groups, in group
  // order: a little at a time between steps (`poll`), or waiting for every
  // chunk but the newest `keep`.
  // While polling, it adds as many steps as the device runs per launch
  // (`pace`), twice that while older chunks wait.
  void continue_sums(bool poll, std::size_t keep, int pace = 1);
  // A finished chunk's sums: into the run's average velocities at once on one
  // device (which so stops at the first unstable chunk), else kept for the
  // broadcast at the end of run().
  void finish_sums(std::vector<double>& sums);
  void append(const double* sums, int steps);
  // Probes: sample the current state on the device. Its buffer has two
  // halves: when the one being filled is full, its read starts (the device
  // goes on into the other) and the read before it, long done, is taken
  // (flip_samples); read_samples takes everything, waiting, at the end of
  // run().
  void sample_now(int step);
  void flip_samples();
  void take_samples_read();
  void read_samples();
  // Sampling in launches: `steps` from step `first`, fewer where the
  // samples would overflow a half of the device's buffer, flipping halves
  // first if they would not fit after what it holds; and the launches' sample rows.
  int make_room_for_samples(int first, int steps);
  void sample_in(std::vector<StepLaunch>& launches);
  // Split: rows of `cells` cells' values (values_per_cell), each rank holding those of
  // the cells it owns (`mine`), made whole on every rank: the values travel
  // up the ranks as the partial sums do (each rank adding the cells it owns
  // to those from below) and back from the top. Never the whole grid.
  void gather_cells(std::vector<double>& values, const std::vector<bool>& mine);

  Backend backend_;
  Precision precision_;
  Params params_;  // the whole grid's
  LaunchPlan plan_;
  std::vector<Slab> slabs_;  // empty: the whole grid
  std::unique_ptr<RankLinks> links_;
  Slab own_;  // this rank's rows of the grid
  int rank_ = 0;
  int ranks_ = 1;
  std::size_t fluid_cells_;  // of the whole grid
  int halo_depth_;           // a slab's halo rows each side (slab_halo_rows)
  std::size_t edge_bytes_;   // each edge buffer's, as stored (edge_buffer_bytes)
  std::unique_ptr<LatticeDevice> device_;
  LatticeDevice::EdgeBuffers edges_;
  std::string halo_path_;    // "cuda-ipc", "host-shared", "host-shared-copied" or "host-staging"; empty until choose_halo_path
  std::string halo_note_;    // the summary's words for it
  bool direct_halos_ = false;  // cuda-ipc
  bool in_place_ = false;      // host-shared: edge rows read into, and halo rows written from, the ranks' shared memory
  LatticeDevice::EdgeBuffers in_place_edges_;  // there: this exchange's (RankLinks::next_edges_in_place)
  long long exchanges_ = 0;    // direct: exchanges so far, numbered alike on every rank
  HaloTimes halo_times_;       // staged: the host's time in the exchanges (neighbour_wait_s from links_)

  int current_ = 0;
  int num_groups_ = 0;  // this lattice's
  int group_rows_ = 0;
  Band edge_bands_[2];  // slabs: the group rows holding the rows the neighbours' halos take (one band where they meet)
  int edge_band_count_ = 0;
  Band interior_;       // slabs: the rest, which needs no halo, so it runs while halos travel
  struct ChunkSums {
    int slot = 0;  // the device's host slot for this lattice's partial sums, steps x num_groups_
    int steps = 0;
    const void* partials = nullptr;  // the slot's values, once they have arrived
    std::vector<double> sums;        // running, in from the rank below (zeros on the first)
    int incoming = -1;               // the receive from below, while it is pending
    int continued = 0;               // steps whose sums include this lattice's groups
  };
  std::deque<ChunkSums> chunks_;  // oldest first
  std::deque<std::pair<int, std::vector<double>>> outgoing_sums_;
  std::vector<double> finished_sums_;  // the top of several ranks: this run() call's, in step order
  std::vector<double>* av_vels_ = nullptr;  // run()'s, on one device
  int sums_ = 1;                            // per group and step: |u|, then Fx, Fy per measured body
  std::vector<double> body_forces_;         // the whole grid's, since take_body_forces()
  // Probes sampled on the device (sample_cells_every).
  std::size_t sample_count_ = 0;   // the probes, all ranks' (its rows' size: chunks are cut alike on every rank)
  std::vector<std::size_t> own_probes_;  // the probes in this device's rows (all on one device), in its order
  std::size_t device_samples_ = 0;       // the probes this device samples (all, or own_probes_)
  std::size_t sample_buffer_bytes_;  // DeviceConfig::sample_buffer_bytes (0: the default)
  int sample_every_ = 0;  // 0: none
  int sample_rows_ = 0;   // each half of the device's buffer holds this many
  int sample_base_ = 0;   // the first row of the half being filled (0 or sample_rows_)
  bool sample_in_launches_ = false;  // sampled inside and after launches, not at chunk ends
  bool samples_inside_ = false;      // blocked: its kernel samples between its steps (blocked_samples_inside)
  std::vector<int> pending_steps_;  // of the samples on the device, not yet read
  std::vector<int> reading_steps_;  // of the samples being read (LatticeDevice::read_samples)
  CellSamples samples_;             // read, not yet taken
};

}  // namespace d2q9
