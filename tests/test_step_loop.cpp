// The one step loop (device/step_loop.hpp) driven through a fake device that
// records what it is asked to do and writes known partial sums: what each
// backend's device sees, independently of any backend.
#include <doctest/doctest.h>

#include <algorithm>
#include <utility>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "device/step_loop.hpp"
#include "problem/stability.hpp"

using namespace d2q9;

TEST_SUITE_BEGIN("unit");

namespace {

// A device whose "kernels" write, for step s and group g, the partial sum
// (s + g / 1024) / 1024 (NaN from step nan_from on), and record every launch:
// average velocities well below the speed of sound.
class RecordingDevice final : public LatticeDevice {
 public:
  RecordingDevice(int num_groups, std::size_t partial_values, int nan_from)
      : num_groups_(num_groups), buffer_(partial_values), nan_from_(nan_from) {}

  std::vector<StepLaunch> launches;
  std::vector<std::vector<StepLaunch>> sequences, prepared;
  int accelerations = 0;
  int slots_in_use = 0, most_slots_in_use = 0;
  // Set: the partial sum of step s, group g, in place of the formula above.
  std::function<float(int, int)> partial;

  std::string device_name() const override { return "recording"; }
  SetupTimes setup_times() const override { return {}; }
  EdgeBuffers edge_buffers() override { return {}; }
  void fill_at_rest(int) override {}
  void upload(int, const std::vector<double>&) override {}
  std::vector<unsigned char> read_rows(int, int, int) override { return {}; }
  std::vector<unsigned char> read_cells(int, const std::vector<std::size_t>&) override { return {}; }
  void set_sample_cells(const std::vector<std::size_t>& c, int rows) override {
    sample_cells = c.size();
    sample_capacity = rows;
  }
  // Each sample: the lattice it read and how many launches came before it.
  struct Sample {
    int state, row;
    std::size_t after_launches;
    int after_accelerations;
  };
  std::vector<Sample> samples;
  std::size_t sample_cells = 0;
  int sample_capacity = 0, sample_reads = 0;
  void sample(int state, int row) override { samples.push_back({state, row, launches.size(), accelerations}); }
  int rows_reading = 0;
  void read_samples(int, int rows) override {
    ++sample_reads;
    rows_reading = rows;
  }
  std::vector<unsigned char> samples_read() override {
    return std::vector<unsigned char>(static_cast<std::size_t>(std::exchange(rows_reading, 0)) * kSpeeds * sample_cells *
                                      sizeof(float), 0);
  }
  void accelerate(int) override { ++accelerations; }
  void launch(const std::vector<StepLaunch>& ls) override {
    sequences.push_back(ls);
    for (const StepLaunch& l : ls) {
      launches.push_back(l);
      if (l.sample_after_row >= 0) sample(1 - l.state, l.sample_after_row);  // as the devices do
      for (int s = 0; s < l.steps; ++s)
        for (int g = 0; g < num_groups_; ++g)
          buffer_.at(static_cast<std::size_t>(l.partial_offset + s * num_groups_ + g)) =
              l.step + s >= nan_from_ ? std::numeric_limits<float>::quiet_NaN()
              : partial               ? partial(l.step + s, g)
                                      : (static_cast<float>(l.step + s) + static_cast<float>(g) / 1024.0f) / 1024.0f;
    }
  }
  void prepare(const std::vector<std::vector<StepLaunch>>& s) override { prepared = s; }
  void read_edges(int, const EdgeBuffers&) override {}
  void wait_edges() override {}
  void write_halos(int, const EdgeBuffers&) override {}
  int read_partials(std::size_t first, std::size_t count) override {
    slots_.emplace_back(buffer_.begin() + static_cast<std::ptrdiff_t>(first),
                        buffer_.begin() + static_cast<std::ptrdiff_t>(first + count));
    most_slots_in_use = std::max(most_slots_in_use, ++slots_in_use);
    return static_cast<int>(slots_.size()) - 1;
  }
  const void* partials(int slot, bool) override { return slots_.at(static_cast<std::size_t>(slot)).data(); }
  void release_partials(int) override { --slots_in_use; }
  void reuse_partials(std::size_t) override {}
  void flush() override {}
  void drain() noexcept override {}

 private:
  int num_groups_;
  std::vector<float> buffer_;
  std::vector<std::vector<float>> slots_;
  int nan_from_;
};

std::vector<std::vector<int>> fields(const std::vector<std::vector<StepLaunch>>& sequences) {
  std::vector<std::vector<int>> out;
  for (const auto& seq : sequences)
    for (const StepLaunch& l : seq)
      out.push_back({l.state, l.first_group_row, l.group_rows, l.steps, l.accelerate_before,
                     l.accelerate_next, l.partial_offset, l.step});
  return out;
}

struct Fixture {
  Params params;
  ObstacleMask mask{16, 8};
  LaunchPlan plan;
  RecordingDevice* device = nullptr;
  std::unique_ptr<StepLoop> loop;

  // sample_buffer_bytes: the probes' buffer on the device (0: the default).
  Fixture(KernelVariant variant, int chunk_steps, int max_iters, int nan_from = 1 << 30, int probe_every = 0,
          std::size_t sample_buffer_bytes = 0) {
    params.extensions.probe_every = probe_every;
    params.nx = 16;
    params.ny = 8;
    params.max_iters = max_iters;
    params.density = 0.1;
    params.accel = 0.005;
    params.omega = 1.85;
    plan.variant = variant;
    plan.local = {8, 2};
    plan.groups_x = 2;
    plan.groups_y = 4;
    plan.chunk_steps = chunk_steps;
    plan.block_steps = 3;
    auto fake = std::make_unique<RecordingDevice>(plan.num_groups(),
                                                  device_lattice(params, mask, Precision::Float, plan).partial_values,
                                                  nan_from);
    device = fake.get();
    loop = std::make_unique<StepLoop>(Backend::OpenCL, Precision::Float, params, mask, plan, Decomposition{},
                                      std::move(fake), sample_buffer_bytes);
  }
};

}  // namespace

TEST_CASE("step loop: one device gets each chunk as one sequence of launches that covers every step once") {
  Fixture f(KernelVariant::Blocked, 8, 13);
  // The whole run's chunks are offered to the device before the first step
  // (CUDA records them as graphs), exactly as run() then submits them.
  REQUIRE(f.device->prepared.size() == 2);
  // A long run's chunks repeat: the device is offered each distinct one once
  // (a million steps would otherwise be 125,000 sequences of launches).
  CHECK(Fixture(KernelVariant::Blocked, 8, 1000003).device->prepared.size() <= 5);
  std::vector<double> av_vels;
  f.loop->run(13, av_vels);
  REQUIRE(f.device->sequences.size() == 2);
  CHECK(fields(f.device->sequences) == fields(f.device->prepared));
  std::vector<int> steps;
  for (const StepLaunch& l : f.device->launches) steps.push_back(l.steps);
  CHECK(steps == std::vector<int>{3, 3, 2, 3, 2});  // chunks of 8 and 5, at most 3 steps per launch
  int state = 0, step = 0;
  for (const StepLaunch& l : f.device->launches) {
    CHECK(l.state == state);  // each launch swaps the lattices once
    CHECK(l.step == step);
    CHECK(l.group_rows == f.plan.groups_y);
    CHECK_FALSE(l.accelerate_before);
    state = 1 - state;
    step += l.steps;
  }
  // Chunk halves alternate in the partial-sum buffer; the last step leaves
  // the state unaccelerated; the first step's acceleration runs alone.
  CHECK(f.device->sequences[1][0].partial_offset == 8 * f.plan.num_groups());
  CHECK_FALSE(f.device->launches.back().accelerate_next);
  CHECK(f.device->launches.front().accelerate_next);
  CHECK(f.device->accelerations == 1);
  // Each step's average velocity: its groups' partial sums added in group
  // order, over the fluid cells.
  REQUIRE(av_vels.size() == 13);
  for (int s = 0; s < 13; ++s) {
    double sum = 0;
    for (int g = 0; g < f.plan.num_groups(); ++g) sum += (static_cast<float>(s) + static_cast<float>(g) / 1024.0f) / 1024.0f;
    CHECK(av_vels[static_cast<std::size_t>(s)] == sum / static_cast<double>(f.mask.fluid_cells()));
  }
  // A second call numbers its steps on from the first's.
  f.loop->run(3, av_vels);
  CHECK(f.device->launches.back().step == 13);  // steps 13-15 in one launch
  CHECK(av_vels.size() == 16);
}

TEST_CASE("step loop: each step's partial sums are added as doubles in group order, compared as numbers") {
  // Partial sums whose double sum depends on the order: seven of 2^-54 then
  // 1. In group order the small ones add up to more than half of 1's ulp
  // (1 + 2^-51 after rounding); in any order that puts 1 first each of them
  // is lost (1). The values are compared as doubles, not as printed text.
  Fixture f(KernelVariant::Fused, 4, 6);
  const int groups = f.plan.num_groups();
  REQUIRE(groups == 8);
  const float tiny = std::ldexp(1.0f, -54);
  f.device->partial = [&](int, int g) { return g == groups - 1 ? 1.0f : tiny; };
  std::vector<double> av_vels;
  f.loop->run(6, av_vels);
  REQUIRE(av_vels.size() == 6);
  double in_order = 0, reversed = 0;
  for (int g = 0; g < groups; ++g) in_order += f.device->partial(0, g);
  for (int g = groups - 1; g >= 0; --g) reversed += f.device->partial(0, g);
  REQUIRE(in_order != reversed);  // the check below can tell the orders apart
  CHECK(in_order == 1.0 + std::ldexp(1.0, -51));
  for (double v : av_vels) CHECK(v == in_order / static_cast<double>(f.mask.fluid_cells()));
}

TEST_CASE("step loop: split runs accelerate_flow before every launch, blocked launches run up to their steps") {
  Fixture split(KernelVariant::Split, 4, 6);
  std::vector<double> av_vels;
  split.loop->run(6, av_vels);
  CHECK(split.device->launches.size() == 6);
  for (const StepLaunch& l : split.device->launches) {
    CHECK(l.accelerate_before);
    CHECK_FALSE(l.accelerate_next);
  }
  CHECK(split.device->accelerations == 0);  // the device does it, inside each launch

  Fixture blocked(KernelVariant::Blocked, 8, 10);
  av_vels.clear();
  blocked.loop->run(10, av_vels);
  std::vector<int> steps;
  for (const StepLaunch& l : blocked.device->launches) steps.push_back(l.steps);
  CHECK(steps == std::vector<int>{3, 3, 2, 2});  // chunks of 8 and 2 steps, at most 3 per launch
  CHECK(av_vels.size() == 10);
}

TEST_CASE("step loop: one device stops at the first unstable step, summing while the next chunk runs") {
  Fixture f(KernelVariant::Fused, 4, 40, 10);
  std::vector<double> av_vels;
  CHECK_THROWS_AS(f.loop->run(40, av_vels), InstabilityError);
  REQUIRE(av_vels.size() == 11);  // steps 0..10, the last not finite
  CHECK(std::isfinite(av_vels[9]));
  CHECK_FALSE(std::isfinite(av_vels[10]));
  // Chunks of 4: the one holding step 10 (the third) is summed while the
  // fourth runs, and nothing after that is launched.
  CHECK(f.device->sequences.size() == 4);
  CHECK(f.device->most_slots_in_use <= 2);
  CHECK(f.device->slots_in_use == 0);
}

TEST_CASE("step loop: halves of a few rows take a chunk's samples in the half being filled, none past it") {
  // Issue 56: halves sized rows * every steps, not (rows - 1) * every, let a
  // chunk take one sample more than a half holds (30,000 probes: 7 rows a
  // half, and a write past the device's buffer). Here a buffer of 3 rows a
  // half, chunks of up to 16 steps, a probe every 2: each chunk stops at its
  // third sample.
  const std::size_t row_bytes = kSpeeds * 2 * sizeof(float);
  Fixture f(KernelVariant::Fused, 16, 40, 1 << 30, 0, 2 * 3 * row_bytes);
  f.loop->sample_cells_every({3, 5 * 16 + 5}, 2);
  REQUIRE(f.device->sample_capacity == 6);
  std::vector<double> av_vels;
  f.loop->run(40, av_vels);
  // Rows 0-2 (steps 2-6), 3-5 (8-12), 0-2 ...: a half's three rows, then the other's.
  REQUIRE(f.device->samples.size() == 20);
  for (std::size_t i = 0; i < f.device->samples.size(); ++i) {
    CAPTURE(i);
    CHECK(f.device->samples[i].row < f.device->sample_capacity);
    CHECK(f.device->samples[i].row == static_cast<int>((i / 3) % 2 * 3 + i % 3));
  }
  for (const std::vector<StepLaunch>& chunk : f.device->sequences) {
    int steps = 0;
    for (const StepLaunch& l : chunk) steps += l.steps;
    CHECK(steps <= 6);
  }
  const Solver::CellSamples taken = f.loop->take_cell_samples();
  std::vector<int> expected;
  for (int step = 2; step <= 40; step += 2) expected.push_back(step);
  CHECK(taken.steps == expected);
  CHECK(taken.values.size() == 20 * 2 * kSpeeds);
  CHECK(f.device->sample_reads == 7);  // six full halves and the last two samples
}

TEST_CASE("step loop: probes off the accelerated row are sampled in and after launches, chunks unchanged") {
  for (KernelVariant variant : {KernelVariant::Fused, KernelVariant::Blocked}) {
    CAPTURE(std::string(to_string(variant)));
    // The problem's probes every 2 steps: blocked's kernel (3 steps a launch) samples between its steps.
    Fixture plain(variant, 8, 40, 1 << 30, 2), f(variant, 8, 40, 1 << 30, 2);
    CHECK(blocked_samples_inside(f.params, f.plan) == (variant == KernelVariant::Blocked));
    f.loop->sample_cells_every({3, 5 * 16 + 5}, 2);
    std::vector<double> av_plain, av_vels;
    plain.loop->run(30, av_plain);
    f.loop->run(30, av_vels);
    // The same launches as a run without probes, but for the sample fields.
    std::vector<std::vector<int>> sampled_fields = fields(f.device->sequences), plain_fields = fields(plain.device->sequences);
    CHECK(sampled_fields == plain_fields);
    CHECK(f.device->accelerations == plain.device->accelerations);
    // Steps 2, 4 ... 30, each in one row, in order: blocked's three steps a
    // launch sample inside, after any of its steps, its last included (no
    // sample_cells launch after it); fused's after its launches.
    std::vector<int> rows_at(31, -1);
    for (const StepLaunch& l : f.device->launches) {
      for (int s = l.sample_first; l.sample_first > 0 && s <= l.steps; s += l.sample_every)
        rows_at.at(static_cast<std::size_t>(l.step + s)) = l.sample_row + (s - l.sample_first) / l.sample_every;
      if (l.sample_after_row >= 0) rows_at.at(static_cast<std::size_t>(l.step + l.steps)) = l.sample_after_row;
      if (variant == KernelVariant::Blocked) CHECK(l.sample_after_row < 0);
    }
    for (int step = 1; step <= 30; ++step) {
      CAPTURE(step);
      CHECK(rows_at[static_cast<std::size_t>(step)] == (step % 2 == 0 ? step / 2 - 1 : -1));
    }
    if (variant == KernelVariant::Fused) CHECK(f.device->samples.size() == 15);
    const Solver::CellSamples taken = f.loop->take_cell_samples();
    std::vector<int> steps;
    for (int step = 2; step <= 30; step += 2) steps.push_back(step);
    CHECK(taken.steps == steps);
    CHECK(f.device->sample_reads == 1);
    CHECK(av_vels == av_plain);
  }
}

TEST_CASE("step loop: chunks sampling inside blocked launches are whole periods of probes and launches, alike") {
  // Probes every 5 steps, 3 steps a launch: chunks of 15 (of 24 allowed),
  // so that each samples at the same places of the same launches (CUDA
  // replays one graph for them), and the launches start where a run
  // without probes starts them.
  Fixture plain(KernelVariant::Blocked, 24, 100, 1 << 30, 5), f(KernelVariant::Blocked, 24, 100, 1 << 30, 5);
  REQUIRE(f.loop->sample_cells_every({3}, 5));
  std::vector<double> av_plain, av_vels;
  plain.loop->run(100, av_plain);
  f.loop->run(100, av_vels);
  CHECK(av_vels == av_plain);
  std::vector<int> starts, plain_starts;
  for (const StepLaunch& l : f.device->launches) starts.push_back(l.step);
  for (const StepLaunch& l : plain.device->launches) plain_starts.push_back(l.step);
  CHECK(starts == plain_starts);
  REQUIRE(f.device->sequences.size() == 7);  // six of 15 steps, then 10
  for (std::size_t c = 0; c < 6; ++c) {
    CAPTURE(c);
    const std::vector<StepLaunch>& chunk = f.device->sequences[c];
    REQUIRE(chunk.size() == 5);
    std::vector<int> firsts;
    for (const StepLaunch& l : chunk) firsts.push_back(l.sample_first);
    CHECK(firsts == std::vector<int>{0, 2, 0, 1, 3});  // after steps 5, 10 and 15 of the chunk
    CHECK(chunk[1].sample_row + 2 == chunk[4].sample_row);
  }
  CHECK(f.loop->take_cell_samples().steps.size() == 20);
}

TEST_CASE("step loop: probes fill one half of the device's buffer while the other half's read goes on") {
  Fixture f(KernelVariant::Fused, 8, 5000);
  f.loop->sample_cells_every({3}, 1);  // 36 bytes a row: halves of 2048 rows (kMaxSampleRows / 2)
  REQUIRE(f.device->sample_capacity == 4096);
  std::vector<double> av_vels;
  f.loop->run(5000, av_vels);
  // Rows 0-2047, then 2048-4095, then 0 on: a half's read starts when it is
  // full, and is taken (after the device has gone on) when the other is.
  REQUIRE(f.device->samples.size() == 5000);
  for (std::size_t i = 0; i < f.device->samples.size(); ++i) {
    CAPTURE(i);
    CHECK(f.device->samples[i].row == static_cast<int>((i / 2048) % 2 * 2048 + i % 2048));
  }
  CHECK(f.device->sample_reads == 3);  // 2048, 2048 and the last 904 at the run's end
  const Solver::CellSamples taken = f.loop->take_cell_samples();
  REQUIRE(taken.steps.size() == 5000);
  for (int step = 1; step <= 5000; ++step) CHECK(taken.steps[static_cast<std::size_t>(step - 1)] == step);
  CHECK(taken.values.size() == 5000 * kSpeeds);
}

TEST_CASE("step loop: blocked launches end at probe steps where the kernel holds no sampling code") {
  // A problem without probes compiles no sampling code; a caller sampling
  // cells all the same (every 2 steps, 3 steps a launch) ends launches there.
  Fixture f(KernelVariant::Blocked, 8, 40, 1 << 30, 0);
  CHECK_FALSE(blocked_samples_inside(f.params, f.plan));
  f.loop->sample_cells_every({3}, 2);
  std::vector<double> av_vels;
  f.loop->run(13, av_vels);
  std::vector<int> launch_ends, sampled_after;
  for (const StepLaunch& l : f.device->launches) {
    CHECK(l.sample_first == 0);
    launch_ends.push_back(l.step + l.steps);
    if (l.sample_after_row >= 0) sampled_after.push_back(l.step + l.steps);
  }
  CHECK(sampled_after == std::vector<int>{2, 4, 6, 8, 10, 12});
  for (int step : sampled_after) CHECK(std::count(launch_ends.begin(), launch_ends.end(), step) == 1);
  CHECK(f.loop->take_cell_samples().steps == sampled_after);
  CHECK(av_vels.size() == 13);
}

TEST_CASE("step loop: a probe on the accelerated row is sampled at its step, unaccelerated, without ending the run") {
  Fixture f(KernelVariant::Fused, 8, 40);
  f.loop->sample_cells_every({6 * 16 + 3, 5}, 7);  // row ny - 2 is accelerated
  REQUIRE(f.device->sample_cells == 2);
  std::vector<double> av_vels;
  f.loop->run(30, av_vels);
  // Steps 7, 14, 21 and 28: each chunk ends at a probe's step, whose last
  // launch leaves the state unaccelerated, as a run() ending there would;
  // the next chunk starts with the acceleration a run() starts with.
  const Solver::CellSamples taken = f.loop->take_cell_samples();
  CHECK(taken.steps == std::vector<int>{7, 14, 21, 28});
  CHECK(taken.values.size() == 4 * 2 * kSpeeds);
  REQUIRE(f.device->samples.size() == 4);
  int accelerations_before = 1;  // the run's start
  for (std::size_t i = 0; i < f.device->samples.size(); ++i) {
    const auto& smp = f.device->samples[i];
    CAPTURE(i);
    CHECK(smp.row == static_cast<int>(i));
    const StepLaunch& last = f.device->launches.at(smp.after_launches - 1);
    CHECK(last.step + last.steps == 7 * static_cast<int>(i + 1));
    CHECK_FALSE(last.accelerate_next);
    CHECK(smp.state == 1 - last.state);  // the lattice the launch wrote
    CHECK(smp.after_accelerations == accelerations_before);
    accelerations_before = smp.after_accelerations + 1;
  }
  CHECK(f.device->accelerations == 5);  // the start and after each probe (the run goes on past each)
  CHECK(av_vels.size() == 30);
  // One read of the samples, at the end of run(), not one per probe.
  CHECK(f.device->sample_reads == 1);
  CHECK(f.loop->take_cell_samples().steps.empty());
  // A run that ends on a probe's step ends unaccelerated, with no acceleration after it.
  f.loop->run(5, av_vels);
  CHECK(f.loop->take_cell_samples().steps == std::vector<int>{35});
  CHECK(f.device->accelerations == 6);
  CHECK_FALSE(f.device->launches.back().accelerate_next);
}

TEST_CASE("step loop: blocked_sample_index lists each tile's probes with their region cells, group by group") {
  LaunchPlan plan;
  plan.variant = KernelVariant::Blocked;
  plan.tile = {8, 4};
  plan.block_steps = 2;
  plan.groups_x = 2;  // a 16x8 grid: 2 x 2 tiles, regions 12 cells wide
  plan.groups_y = 2;
  // Probe 0 in tile 3 (x 9, y 5), probe 1 in tile 0 (x 1, y 0), probe 2 in tile 3 (x 15, y 7).
  const std::vector<std::size_t> cells = {5 * 16 + 9, 1, 7 * 16 + 15};
  const std::vector<int> index = blocked_sample_index(plan, 16, 0, 8, cells);
  const std::vector<int> expected = {0, 1, 1, 1, 3,                         // each group's first probe, then the end
                                     1, 0, 2,                               // columns, tile 0's then tile 3's
                                     (1 + 2) + (0 + 2) * 12,                // probe 1 in tile 0's region
                                     (1 + 2) + (1 + 2) * 12,                // probe 0: (9 - 8, 5 - 4)
                                     (7 + 2) + (3 + 2) * 12,                // probe 2: (15 - 8, 7 - 4)
                                     0};                                    // the rows' base
  CHECK(index == expected);
  // A slab of the grid's top 4 rows (tile row 1) with 2 halo rows each side:
  // lattice rows 2-5 are its own, and its one row of tiles is groups 0 and 1.
  const std::vector<std::size_t> slab_cells = {(5 - 4 + 2) * 16 + 9, (7 - 4 + 2) * 16 + 15};
  const std::vector<int> slab_expected = {0, 0, 2, 0, 1, (1 + 2) + (1 + 2) * 12, (7 + 2) + (3 + 2) * 12, 0};
  CHECK(blocked_sample_index(plan, 16, 2, 4, slab_cells) == slab_expected);
  CHECK_THROWS_AS(blocked_sample_index(plan, 16, 2, 4, {16 + 3}), std::invalid_argument);  // a halo row's cell
}

TEST_CASE("step loop: blocked_tile_order starts the tiles round bodies and curved walls, then the open edges' and sponges'") {
  LaunchPlan plan;
  plan.variant = KernelVariant::Blocked;
  plan.tile = {8, 4};
  plan.block_steps = 2;
  plan.groups_x = 4;  // a 32x16 grid: 4 x 4 tiles, regions 12x8 wrapping round the grid
  plan.groups_y = 4;
  Params params;
  params.nx = 32;
  params.ny = 16;
  ObstacleMask mask(32, 16);
  CHECK(blocked_tile_order(params, mask, plan).empty());  // nothing special: row by row
  params.extensions.open_boundaries = {OpenBoundary{OpenBoundary::Kind::VelocityInlet, Edge::Left, {0.05, 0.0}, false, 1.0, 0}};
  for (int j = 0; j < 16; ++j) mask.kinds[static_cast<std::size_t>(j) * 32] = cell_byte(kFluid, 1);  // the inlet's cells
  params.extensions.measured_bodies = 1;
  mask.kinds[17 + 9 * 32] = 1 | 1 << 2;  // a cell of body 1 at (17, 9)
  // (17, 9) lies in the regions of tile columns 1 (x 6-17) and 2 (14-25) and
  // rows 1 (y 2-9) and 2 (6-13); column 0 in those of tile columns 0 (-2-9)
  // and 3 (22-33, wrapping).
  const std::vector<int> expected = {5, 6, 9, 10, 0, 3, 4, 7, 8, 11, 12, 15, 1, 2, 13, 14};
  CHECK(blocked_tile_order(params, mask, plan) == expected);
  plan.variant = KernelVariant::Fused;
  CHECK(blocked_tile_order(params, mask, plan).empty());
}

TEST_SUITE_END();
