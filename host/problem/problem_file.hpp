// Problem files: a whole problem (grid, flow, edges, geometry) in one TOML
// file, the alternative to a coursework .params file with an obstacles file.
// The format is documented in docs/problem-files.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "problem/problem.hpp"

namespace d2q9 {

// Which files hold a run's final state: final_state.dat, the coursework's
// text (one line per cell), final_state.vti, VTK XML image data with raw
// appended arrays (under a third of the bytes; ParaView opens it), or both.
enum class FinalStateFormat { Text, Vti, Both };
inline bool writes_text(FinalStateFormat f) { return f != FinalStateFormat::Vti; }
inline bool writes_vti(FinalStateFormat f) { return f != FinalStateFormat::Text; }
// "text", "vti" or "both"; parse_final_state_format: none for any other text.
const char* to_string(FinalStateFormat f);
std::optional<FinalStateFormat> parse_final_state_format(const std::string& text);

struct Problem {
  Params params;      // with params.extensions
  ObstacleMask mask;  // kFluid, kWall and kMovingWall cells, with their measured bodies
  Measurements measure;
  // [flow] until_steady: stop once steady to this relative change
  // (sim/steady.hpp). When to stop, not what is run: no setting a restart
  // must match (problem_settings.hpp), and --until-steady overrides it.
  std::optional<double> until_steady;
  // What errors call the problem: its problem or .params file, or the name
  // its text was parsed under.
  std::string name;
  // The files it was read from (the problem or .params file, an obstacles
  // file) and those the problem file names (mask pictures), as opened:
  // inputs a run must not overwrite.
  std::vector<std::string> read_files;
  // Where it came from: a coursework .params file and its obstacle file (and
  // a Problem put together in code), or a problem file or its text.
  enum class Source { Coursework, ProblemFile };
  Source source = Source::Coursework;
  // The problem file's [output] final_state, where it gives one.
  std::optional<FinalStateFormat> final_state;
};

// The final state's files, the one rule that the command line,
// Simulation::write_outputs and Python follow: `asked` where given
// (--final-state, write_outputs' argument), else the problem file's [output]
// final_state, else Text for a coursework problem (whose reference
// comparisons read final_state.dat byte for byte) and Vti for a problem file.
FinalStateFormat final_state_format(const Problem& problem, std::optional<FinalStateFormat> asked = std::nullopt);

// Whether `path` names a problem file rather than a .params file: it ends in
// ".toml" (in any case).
bool is_problem_file(const std::string& path);

// Called with the problem's Params once they are complete and within every
// limit, before the mask (nx * ny bytes) is built and before any mask picture
// is read: where a run checks what it can hold (memory, precision), as it
// does between reading a .params file and its obstacles file.
using ParamsCheck = std::function<void(const Params&)>;

// The problem `text` describes. Every problem is an InputError of one line,
// "<filename>:<line>: <problem>", the line being where the offending key,
// value or table is (TOML syntax errors included). Mask pictures are read
// relative to the directory of `filename`.
Problem parse_problem_file(const std::string& text, const std::string& filename, const ParamsCheck& check = {});
Problem read_problem_file(const std::string& path, const ParamsCheck& check = {});

// Every key a problem file may hold, from the lists the parser checks keys
// against: "table.key" ("edges.inlet_velocity" for an edge's table,
// "inlet_velocity.parabolic" for its profile, "circle.center" for a shape's,
// "probes.every"; probes' own names are the user's).
std::vector<std::string> problem_file_keys();

// A fingerprint of `e`'s values (FNV-1a over their bits), the same on every
// machine and build. A checkpoint's header holds only the coursework's seven
// values, so the run record of a problem-file run keeps this in their place
// of the obstacle file's hash, and a restart compares it.
std::uint64_t extensions_fingerprint(const Extensions& e);

}  // namespace d2q9
