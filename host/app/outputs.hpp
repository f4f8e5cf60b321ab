// The files a run writes at its end beside av_vels.dat: the final state
// (final_state.dat, final_state.vti), pictures, snapshots, VTK, JSON summary.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "app/cli.hpp"
#include "core/ranks.hpp"
#include "io/output.hpp"
#include "io/output_guard.hpp"
#include "io/picture.hpp"
#include "problem/problem.hpp"
#include "io/vtk_output.hpp"

namespace d2q9 {

struct PictureFile {
  PictureField field;
  std::string path;
};

struct ExtraOutputs {
  // The final state, as final_state_format chose: final_state.dat's path and
  // final_state.vti's, each empty where it is not written.
  std::string final_state_dat;
  std::string final_state_vti;
  std::vector<PictureFile> pictures;  // the final pictures; none with --no-png
  std::vector<PictureField> fields;   // what the pictures show, speed before vorticity
  PictureScale scale;
  std::string vtk;           // empty: none; .vtk legacy, .vti XML, .pvti XML in pieces
  std::vector<std::string> vtk_pieces;  // .pvti: NAME_<rank>.vti beside it, one per rank
  VtiReal vti_real = VtiReal::Float64;  // the .vti arrays' value type, from the run's precision
  std::string summary_json;  // empty: none
  std::string forces_csv;    // empty: no [forces] bodies
  std::string probes_csv;    // empty: no [probes]
  std::string nusselt_csv;   // empty: no [heat] nusselt_every
  int snapshot_every = 0;    // 0: none
  bool snapshot_png = false;
  bool snapshot_vti = false;  // with snapshots.pvd listing the frames
  std::string snapshot_dir;
};

constexpr const char* kSnapshotSeries = "snapshots.pvd";

// `name` inside the output directory, or as given when absolute.
std::string output_path(const std::string& output_dir, const std::string& name);

// Resolves the names (relative ones inside the output directory; by default
// final_state.png, final_state_vorticity.png; a .pvti's pieces for `ranks`
// ranks; the final state's files of `final_state`) and, with `check` (the
// rank that writes them), checks before anything runs that each file can be
// created: InputError naming it.
ExtraOutputs plan_extra_outputs(const Options& options, const Measurements& measure, FinalStateFormat final_state,
                                int max_iters, bool check = true, int ranks = 1);

// Every file a run writes when it ends, in one list: the coursework's
// av_vels.dat, final_state.dat and/or final_state.vti, then forces.csv,
// probes.csv, nusselt.csv, the pictures, the VTK file and its pieces, the
// JSON summary (snapshots are written during the run). check_output_targets
// checks them, the run writes them, and remove_stale_outputs removes what an
// earlier run left.
std::vector<std::string> run_output_files(const Options& options, const ExtraOutputs& extra);

// Every file a run reads: the params (or problem) file, the obstacle file,
// the checkpoint it restarts from, and `problem_reads` (Problem::read_files).
std::vector<std::string> run_input_files(const Options& options, const std::vector<std::string>& problem_reads);

// Before the run: every file the run will write can be written
// (classify_output: devices and FIFOs are written through, directories and
// read-only files refused), no two of them are one file (a character device
// excepted), and none is one of run_input_files. InputError naming the
// paths otherwise.
void check_output_targets(const Options& options, const ExtraOutputs& extra,
                          const std::vector<std::string>& problem_reads);

// After the run's outputs are in place: tidy_output_dir (io/output_guard.hpp)
// on the output directory, with `written` the files this run wrote.
void remove_stale_outputs(const std::string& output_dir, const std::vector<std::string>& written,
                          const std::vector<std::string>& inputs);

// Where a checkpointing run writes its checkpoint: checkpoint.d2q9 in the
// output directory.
std::string checkpoint_path(const Options& options);

// Before a checkpointing run: io/output_guard.hpp's check_checkpoint_target,
// with the checkpoint this run continues from (--restart) its own, and
// --overwrite-checkpoint to replace another run's. InputError otherwise.
void check_checkpoint_target(const Options& options, const std::string& path,
                             const std::vector<std::string>& problem_reads);

// "snapshot_<step><suffix>", the step zero-padded to the width of max_iters
// so that the frames sort in order; suffix ".png", "_vorticity.png" or ".vti".
std::string snapshot_name(int step, int max_iters, const std::string& suffix = ".png");
std::string snapshot_path(const std::string& dir, int step, int max_iters, const std::string& suffix = ".png");

// InputError unless `path` could be written (classify_output).
void check_can_create(const std::string& path);

// The end of a run, on every rank (collective; one process alone is the
// same): the first unstable cell in grid order, if any, stops the run with
// the InstabilityError one process gives.
void check_final_state(Ranks& ranks, const Params& params, const ObstacleMask& mask, const StateRows& state,
                       std::size_t step);

// final_state.dat into `outputs` (rank 0's), published when it commits:
// streamed by one process; under MPI each rank writes the lines of its own
// rows at its offset (MPI-IO) into the temporary rank 0 made. Collective.
void add_final_state(OutputSet& outputs, Ranks& ranks, const std::string& path, const Params& params,
                     const ObstacleMask& mask, const StateRows& state);

// The pictures and VTK files of the flow, as snapshots during the run and at
// its end, with the colour ranges --scale asks for.
class ViewWriter {
 public:
  ViewWriter(const ExtraOutputs& plan, const Params& params, const ObstacleMask& mask);
  // The frame of `step`, each file complete before it replaces an older one;
  // then snapshots.pvd lists it after the earlier frames in the directory.
  // On the writing rank, from the whole grid.
  void write_snapshot(int step, const std::vector<double>& f);
  // The final pictures, final_state.vti and VTK file into `outputs` (rank
  // 0's), written when it commits, from the rows `state` holds; collective.
  // Rank 0 gathers 3 bytes per cell for each picture (one colour a cell)
  // and, for final_state.vti, a .vti and a .vtk, the fields once (5 doubles
  // a cell, 6 with heat); a .pvti's pieces are written by their ranks.
  void add_final_outputs(OutputSet& outputs, Ranks& ranks, const StateRows& state);
  // The range the next picture of `field` gets (Auto: `fields`' own).
  ColourRange next_range(PictureField field, const FlowFields& fields);

 private:
  void write_series(int step);
  // next_range given the range of the picture's own values.
  ColourRange choose_range(PictureField field, const ColourRange& own);
  void add_picture(OutputSet& outputs, Ranks& ranks, const PictureFile& picture, const FlowFields& fields);
  void add_pieces(OutputSet& outputs, Ranks& ranks, FlowFields& fields);
  void add_whole_grid_files(OutputSet& outputs, Ranks& ranks, const FlowFields& fields);

  const ExtraOutputs& plan_;
  const Params& params_;
  const ObstacleMask& mask_;
  std::map<PictureField, ColourRange> kept_;  // --scale fixed: the first picture's ranges
  std::vector<PvdFrame> frames_;              // listed in snapshots.pvd
  bool scanned_earlier_frames_ = false;
};

}  // namespace d2q9
