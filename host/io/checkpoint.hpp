// Checkpoint files: the complete state of a run, so a killed run can continue
// bit-exactly where its last checkpoint left off.
//
// Format (versions 1 to 4, little-endian; all offsets fixed by the header):
//   8 bytes  magic "D2Q9CKPT"
//   u32      format version: 3 for a lattice of 9 values per cell (the flow's
//            distributions), 4 for one of more (with [heat], 14: the flow's 9
//            and the temperature's 5); versions 1 and 2 are read too: they
//            have no series, and version 1 no run record
//   u32      the values' format: 4 (float run), 8 (double run), or the stored
//            16-bit codes of a 16-bit run: 2 (fp16s) or 2 + 65536 (fp16c)
//   u32      (version 4 only) P, values per cell: 14 (9 + kHeatSpeeds); a
//            file of any older version holds 9
//   f64 x2   (16-bit codes with P = 14 only) the temperature planes' codes:
//            T0 and the scale (ThermalCodes: a code is (h_k - w_k T0) * scale)
//   i32 x4   nx, ny, maxIters, reynolds_dim
//   f64 x3   density, accel, omega
//   u64      hash of the obstacle mask (obstacle_mask_hash)
//   u64      steps completed, S
//   u32      run record length R (version 2 on)
//   R bytes  run record: JSON text, see RunRecord (version 2 on)
//   f64 x S  average velocity of each completed step
//   (version 3 on) u32 N, then N named series: u32 name length, the name,
//            u64 count, f64 x count (Checkpoint::series)
//   P*nx*ny  distributions in the run's precision, plane k of cell i at [k*nx*ny + i]
//            (Solver::distributions(): planes 0-8 the flow's, 9-13 the temperature's)
//   u64      XXH3-64 of every byte before it
// A 9-plane checkpoint is written as version 3, byte for byte as before
// version 4 existed, so older programs still read it; only a lattice with
// more planes needs version 4, which older programs refuse by its number.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "problem/problem.hpp"
#include "core/types.hpp"
#include "problem/lattice.hpp"
#include "problem/storage16.hpp"

namespace d2q9 {

constexpr const char* kCheckpointFile = "checkpoint.d2q9";

// How the run was started, so that `--restart FILE` alone continues it: the
// inputs (absolute paths and content hashes) and the options that shape the
// run, as (long option name, value) pairs with paths made absolute and the
// launch plan as resolved ("" for a flag).
struct RunRecord {
  std::string param_file, obstacle_file;
  std::uint64_t param_hash = 0, obstacle_hash = 0;
  std::vector<std::pair<std::string, std::string>> options;
  // The problem's settings as it ran (problem/problem_settings.hpp); empty in
  // records written before they were recorded.
  std::vector<std::pair<std::string, std::string>> settings;

  bool empty() const { return param_file.empty(); }
};

// XXH3-64 of a file's bytes; InputError naming it when it cannot be read.
std::uint64_t file_hash(const std::string& path);

struct Checkpoint {
  Params params;
  RunRecord run;  // empty in version 1 files
  std::uint64_t mask_hash = 0;
  Precision precision = Precision::Float;
  std::vector<double> av_vels;  // one per completed step
  // The run's other per-step series, by name, as their owner saves them
  // (MeasurementLog: forces and probes); empty in version 1 and 2 files.
  std::vector<std::pair<std::string, std::vector<double>>> series;
  std::vector<double> f;        // as Solver::distributions() gives them: every plane
  // 16-bit with heat: how the temperature's planes are coded, so that the
  // file keeps their codes (thermal_codes of the run's problem); else none.
  std::optional<ThermalCodes> thermal_codes;

  int step() const { return static_cast<int>(av_vels.size()); }
  // Values per cell that f holds: 9, or 14 with heat (Extensions::planes()).
  int planes() const { return params.cells() ? static_cast<int>(f.size() / params.cells()) : 0; }
};

std::uint64_t obstacle_mask_hash(const ObstacleMask& mask);

// Writes atomically (unnamed temporary file, flush, fsync, link, rename): a
// kill at any moment leaves either the old or the new checkpoint at `path`,
// never a mix, and no partial file beside it.
// Removes complete temporary files "<path>.tmp.<pid>" that a run killed
// between naming and renaming its checkpoint left behind.
void remove_stale_checkpoint_temps(const std::string& path);

void write_checkpoint(const std::string& path, const Checkpoint& checkpoint);

// Parses checkpoint bytes; InputError naming `filename` for anything that is
// not a complete, intact checkpoint. Never reads outside `bytes`.
Checkpoint parse_checkpoint(const unsigned char* bytes, std::size_t size, const std::string& filename);
Checkpoint read_checkpoint(const std::string& filename);

// Whether `path` holds a checkpoint of this format whose header is this
// problem's (params, its planes, obstacles) in this precision, at any step.
bool holds_checkpoint_of(const std::string& path, const Params& params, const ObstacleMask& mask, Precision precision);

// InputError unless `checkpoint` was written by a run of exactly this problem
// (params, values per cell, obstacles) in this precision.
void check_checkpoint_matches(const Checkpoint& checkpoint, const std::string& checkpoint_file, const Params& params,
                              const std::string& param_file, const ObstacleMask& mask,
                              const std::string& obstacle_file, Precision precision);

}  // namespace d2q9
