#include "device/device_probes.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace d2q9 {

namespace {

// A few megabytes of samples on the device at most (unless
// DeviceConfig::sample_buffer_bytes says otherwise): read back whenever full.
constexpr std::size_t kSampleBytes = std::size_t{16} << 20;
constexpr int kMaxSampleRows = 4096;

}  // namespace

DeviceProbes::DeviceProbes(LatticeDevice& device, RankRows& rows, const Params& params, const LaunchPlan& plan,
                           Precision precision, std::size_t buffer_bytes)
    : device_(device),
      rank_rows_(rows),
      params_(params),
      plan_(plan),
      precision_(precision),
      buffer_bytes_(buffer_bytes) {}

bool DeviceProbes::sample_cells_every(const std::vector<std::size_t>& cells, int every) {
  read_all();
  // Sampled inside and after launches (blocked: between its steps) where the
  // state holds the next step's acceleration on the accelerated row already:
  // a probe there ends the chunk instead, unaccelerated, on one device; a
  // split grid leaves those to its caller (cell_distributions at its steps).
  const std::size_t nx = static_cast<std::size_t>(params_.nx), accel_row = static_cast<std::size_t>(params_.ny - 2);
  in_launches_ = std::none_of(cells.begin(), cells.end(), [&](std::size_t c) { return c / nx == accel_row; });
  const bool sampling = every > 0 && !cells.empty() && (!rank_rows_.split() || in_launches_);
  count_ = sampling ? cells.size() : 0;
  every_ = sampling ? every : 0;
  // A slab's device samples the probes in its own rows.
  own_probes_.clear();
  std::vector<std::size_t> device_cells;
  for (std::size_t i = 0; i < count_; ++i)
    if (const auto at = rank_rows_.lattice_cell(cells[i])) {
      device_cells.push_back(*at);
      own_probes_.push_back(i);
    }
  device_samples_ = device_cells.size();
  // Between a blocked launch's steps where its kernel can; else launches end at them.
  // (A tile keeps a probe's column in 15 bits: cl/d2q9_bgk.cl, my_probe.)
  inside_ = blocked_samples_inside(params_, plan_) && cells.size() < (std::size_t{1} << 15);
  const std::size_t row_bytes = std::max<std::size_t>(1, rank_rows_.values_per_cell() * count_ * stored_size(precision_));
  const std::size_t buffer_bytes = buffer_bytes_ > 0 ? buffer_bytes_ : kSampleBytes;
  rows_per_half_ = static_cast<int>(std::clamp<std::size_t>(buffer_bytes / row_bytes / 2, 1, kMaxSampleRows / 2));
  base_ = 0;
  device_.set_sample_cells(device_cells, 2 * rows_per_half_);
  return sampling;
}

void DeviceProbes::reserve(int first_step, int steps) {
  const std::size_t rows = pending_steps_.size() + reading_steps_.size() +
                           static_cast<std::size_t>((first_step + steps) / every_ - first_step / every_);
  samples_.steps.reserve(samples_.steps.size() + rows);
  samples_.values.reserve(samples_.values.size() + rows * rank_rows_.values_per_cell() * device_samples_);
}

int DeviceProbes::chunk_length(int first, int left, bool& probe) {
  int n = std::min(plan_.chunk_steps, left);
  // Probes are sampled in and after the chunk's launches (sample_in);
  // one on the accelerated row ends the chunk at its step instead, to be
  // sampled as a run() that ended there would leave it: unaccelerated
  // (the next chunk then starts as a run() does).
  probe = false;
  if (every_ > 0 && !in_launches_) {
    const int to_probe = every_ - first % every_;
    if (to_probe <= n) n = to_probe, probe = true;
  } else if (every_ > 0) {
    n = make_room(first, n);
    // Chunks of whole periods of probes and launches sample alike, so
    // that CUDA replays their graphs; their launches start where those
    // of a run without probes do (whole launches a chunk).
    const int period = std::lcm(every_, plan_.block_steps);
    if (inside_ && plan_.chunk_steps % plan_.block_steps == 0 && n >= period) n -= n % period;
  }
  return n;
}

int DeviceProbes::make_room(int first, int steps) {
  const int to_first = every_ - first % every_;
  steps = std::min(steps, to_first + (rows_per_half_ - 1) * every_);  // one half's rows at most
  const int rows = (first + steps) / every_ - first / every_;
  if (static_cast<int>(pending_steps_.size()) + rows > rows_per_half_) flip();
  return steps;
}

void DeviceProbes::sample_in(std::vector<StepLaunch>& launches) {
  // A slab without probes keeps the steps alone (its rows are empty).
  const bool device_samples = device_samples_ > 0;
  for (StepLaunch& l : launches) {
    const int to_first = every_ - l.step % every_;
    if (to_first > l.steps) continue;
    if (inside_) {
      // The blocked kernel samples after its steps to_first, to_first + every, ..., its last included.
      if (device_samples) {
        l.sample_first = to_first;
        l.sample_every = every_;
        l.sample_row = base_ + static_cast<int>(pending_steps_.size());
      }
      for (int s = to_first; s <= l.steps; s += every_) pending_steps_.push_back(l.step + s);
      continue;
    }
    if (to_first < l.steps) throw std::logic_error("step loop: a launch runs past a probe's step");
    if (device_samples) l.sample_after_row = base_ + static_cast<int>(pending_steps_.size());  // sample_cells after the launch
    pending_steps_.push_back(l.step + l.steps);
  }
}

void DeviceProbes::sample_now(int state, int step) {
  device_.sample(state, base_ + static_cast<int>(pending_steps_.size()));
  pending_steps_.push_back(step);
  if (static_cast<int>(pending_steps_.size()) == rows_per_half_) flip();
}

// The half being filled starts its read and the other half, whose read
// (started a half's worth of samples ago) is taken first, is filled next:
// the device never waits for the host's reads.
void DeviceProbes::flip() {
  take_read();
  if (pending_steps_.empty()) return;
  device_.read_samples(base_, static_cast<int>(pending_steps_.size()));
  reading_steps_ = std::exchange(pending_steps_, {});
  base_ = rows_per_half_ - base_;
}

void DeviceProbes::take_read() {
  if (reading_steps_.empty()) return;
  const std::vector<unsigned char> raw = device_.samples_read();
  const int planes = rank_rows_.values_per_cell();
  const std::size_t row_bytes = planes * device_samples_ * stored_size(precision_);
  for (std::size_t r = 0; r < reading_steps_.size(); ++r) {
    // Converted as read_cells' values are: the same bytes in probes.csv.
    // (Row by row in place, because a vector per row, and a file read per
    // row finding the threads to convert with, would leave the device idle.)
    if (device_samples_ > 0)
      append_cells_from_device(raw.data() + r * row_bytes, device_samples_, planes, precision_, params_,
                               samples_.values);
    samples_.steps.push_back(reading_steps_[r]);
  }
  reading_steps_.clear();
}

void DeviceProbes::read_all() {
  flip();
  take_read();
}

Solver::CellSamples DeviceProbes::take() {
  read_all();
  Solver::CellSamples taken = std::exchange(samples_, {});
  if (!rank_rows_.split() || count_ == 0) return taken;
  // This rank's probes into their columns of every row, and the rows made whole.
  const std::size_t rows = taken.steps.size(), own = own_probes_.size();
  const std::size_t planes = static_cast<std::size_t>(rank_rows_.values_per_cell());
  std::vector<double> values(rows * planes * count_, 0.0);
  std::vector<bool> mine(count_, false);
  for (std::size_t p : own_probes_) mine[p] = true;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < own; ++j)
      std::copy_n(taken.values.begin() + static_cast<std::ptrdiff_t>((r * own + j) * planes), planes,
                  values.begin() + static_cast<std::ptrdiff_t>((r * count_ + own_probes_[j]) * planes));
  rank_rows_.gather_cells(values, mine);
  taken.values = rank_rows_.rank() == 0 ? std::move(values) : std::vector<double>{};
  return taken;
}

}  // namespace d2q9
