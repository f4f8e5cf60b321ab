// Probes sampled on the device while the loop runs: which of its cells the
// device samples and when (inside the blocked kernel's launches, after
// launches, or at a chunk's end), and the samples' read back through a
// buffer of two halves, so that the device never waits for the host.
#pragma once

#include <cstddef>
#include <vector>

#include "device/lattice_device.hpp"
#include "device/rank_rows.hpp"
#include "device/solver.hpp"

namespace d2q9 {

class DeviceProbes {
 public:
  // `buffer_bytes`: DeviceConfig::sample_buffer_bytes (0: the default).
  DeviceProbes(LatticeDevice& device, RankRows& rows, const Params& params, const LaunchPlan& plan,
               Precision precision, std::size_t buffer_bytes);

  // Solver::sample_cells_every: whether the device samples them.
  bool sample_cells_every(const std::vector<std::size_t>& cells, int every);
  bool sampling() const { return every_ > 0; }
  int every() const { return every_; }
  bool in_launches() const { return in_launches_; }  // sampled inside and after launches, not at chunk ends
  bool inside() const { return inside_; }            // blocked: its kernel samples between its steps

  // Room for the samples of `steps` steps from `first_step` at once, so that
  // the loop pays for no vector copies and fresh pages as the samples grow.
  void reserve(int first_step, int steps);
  // The steps of the next chunk from step `first` with `left` to run, at
  // most `chunk_steps`: fewer where a probe ends it (`probe`: sampled after
  // it) or where its samples would not fit in the buffer.
  int chunk_length(int first, int left, bool& probe);
  // The launches' sample rows (sampling in launches), and their steps noted.
  void sample_in(std::vector<StepLaunch>& launches);
  // Samples lattice `state` now, as step `step`'s.
  void sample_now(int state, int step);
  // Everything sampled, read back (waiting).
  void read_all();
  // Solver::take_cell_samples: the samples read so far, made whole across the ranks.
  Solver::CellSamples take();
  // After a failure: the samples not yet read are dropped (the steps they followed may not have run).
  void forget_pending() { pending_steps_.clear(); }

 private:
  // Sampling in launches: `steps` from step `first`, fewer where the
  // samples would overflow a half of the device's buffer, flipping halves
  // first if they would not fit after what it holds.
  int make_room(int first, int steps);
  // The buffer has two halves: when the one being filled is full, its read
  // starts (the device goes on into the other) and the read before it, long
  // done, is taken.
  void flip();
  void take_read();

  LatticeDevice& device_;
  RankRows& rank_rows_;
  const Params& params_;  // the whole grid's
  LaunchPlan plan_;
  Precision precision_;
  std::size_t buffer_bytes_;
  std::size_t count_ = 0;                // the probes, all ranks' (its rows' size: chunks are cut alike on every rank)
  std::vector<std::size_t> own_probes_;  // the probes in this device's rows (all on one device), in its order
  std::size_t device_samples_ = 0;       // the probes this device samples (all, or own_probes_)
  int every_ = 0;  // 0: none
  int rows_per_half_ = 0;  // each half of the device's buffer holds this many
  int base_ = 0;           // the first row of the half being filled (0 or rows_per_half_)
  bool in_launches_ = false;
  bool inside_ = false;
  std::vector<int> pending_steps_;  // of the samples on the device, not yet read
  std::vector<int> reading_steps_;  // of the samples being read (LatticeDevice::read_samples)
  Solver::CellSamples samples_;     // read, not yet taken
};

}  // namespace d2q9
