// Output files in the coursework's exact formats, written atomically.
#pragma once

#include <limits>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "problem/problem.hpp"
#include "io/state_rows.hpp"

namespace d2q9 {

// Macroscopic values of one cell as final_state.dat reports them.
struct CellState {
  double ux, uy, speed, pressure;
  // With heat: the cell's temperature (a wall's: its own if it holds one,
  // else NaN); without, NaN.
  double temperature = std::numeric_limits<double>::quiet_NaN();
};
CellState cell_state(const Params& params, const ObstacleMask& mask, const std::vector<double>& f, std::size_t cell);
// The state of a fluid cell whose nine distributions are f[0..8] and, with
// heat, whose five temperature distributions are h[0..4] (null: not known,
// and a buoyant flow's velocity then leaves the buoyancy's half force in).
CellState fluid_cell_state(const Params& params, const double* f, const double* h = nullptr);
// Cell (ii, jj) of the rows `state` holds (jj a global row among them).
CellState cell_state(const Params& params, const ObstacleMask& mask, const StateRows& state, int ii, int jj);

void write_av_vels(std::FILE* out, const std::vector<double>& av_vels);
// final_state.dat: one line per cell, rows bottom to top. `f` is the whole
// grid; `state` writes the lines of the rows it holds, so the files of the
// ranks' slabs, put one after the other, are the one-process file.
void write_final_state(std::FILE* out, const Params& params, const ObstacleMask& mask, const std::vector<double>& f);
void write_final_state(std::FILE* out, const Params& params, const ObstacleMask& mask, const StateRows& state);
// The same lines as text, for global rows [j0, j1) of those `state` holds.
std::string final_state_lines(const Params& params, const ObstacleMask& mask, const StateRows& state, int j0, int j1);

// "density D at cell (ii, jj)" for the first cell, in row order, of the rows
// `state` holds whose density is not finite (or not positive in a fluid
// cell), or whose speed is at or above the speed of sound, as
// check_distributions words it; empty when there is none.
std::string unstable_cell(const Params& params, const ObstacleMask& mask, const StateRows& state);

// What an output path names before the run writes it (docs/errors.md).
struct OutputTarget {
  enum class Kind {
    Replace,      // absent, or a regular file: written beside it, renamed over it
    // A character device or FIFO (or a link to one), or a link to one of the
    // process's own descriptors (/dev/stdout): opened (appending) and written in place.
    WriteThrough
  };
  Kind kind = Kind::Replace;
  // Where the bytes go: `path` itself, or for a link to a regular file the
  // file it points to (the link stays a link).
  std::string path;
};

// Where output `path` goes and how, refusing nothing (AtomicFile's rule).
OutputTarget output_target(const std::string& path);

// output_target, checked before a run: InputError naming `path` for a
// directory, a read-only file, a link to nothing writable or any other kind
// of file (socket, block device), and for a folder in which it cannot be
// created.
OutputTarget classify_output(const std::string& path);

// A file written under a temporary name beside `path` and renamed over it by
// commit(), so readers never see a half-written file; dropped uncommitted, the
// temporary file is removed. A device or FIFO (classify_output) is written
// in place instead: no temporary, no rename, nothing to put back.
class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  std::FILE* get() const { return file_; }
  // Flushes, closes and renames into place; throws std::runtime_error on failure.
  void commit();
  // The two halves of commit(): finish writing (the file is then complete
  // under its temporary name), and rename it over the target.
  void close();
  void publish();
  const std::string& path() const { return path_; }
  // The temporary name the file is written under until published.
  const std::string& temp_path() const { return tmp_; }
  // Written in place (a device or FIFO): commit() only closes it.
  bool writes_through() const { return through_; }

 private:
  bool through_ = false;
  std::string path_;
  std::string tmp_;
  std::FILE* file_ = nullptr;
  bool published_ = false;
};

// Files that replace their targets together or not at all: commit() first
// finishes every file, then moves each into place keeping the old target
// aside, and on any failure puts back what it had replaced.
class OutputSet {
 public:
  std::FILE* add(const std::string& path);
  // A file that other processes write (MPI ranks, each its part): its
  // temporary is created empty and closed here, and its name returned for
  // them to open; commit() publishes it with the others, and a set dropped
  // uncommitted removes it.
  std::string add_written_elsewhere(const std::string& path);
  void commit();

 private:
  std::vector<std::unique_ptr<AtomicFile>> files_;
};

double reynolds_number(const Params& params, double final_av_velocity);

// The output directory, created when missing; only its last component is
// created, so a mistyped parent is an error rather than a new tree.
// InputError naming `dir` otherwise.
void make_output_dir(const std::string& dir);

}  // namespace d2q9
