// What keeps a user's files safe from a run's outputs (docs/errors.md), the
// same for the command line, the library and Python: outputs are checked
// before anything is written, inputs are never outputs, and the clean-up of
// an earlier run's outputs removes only what a manifest proves that run wrote.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace d2q9 {

// Whether two paths name one file: the same inode, or where either is
// missing the same place once their folders are resolved.
bool same_file(const std::string& a, const std::string& b);

// Before a run writes anything: every output can be written
// (classify_output: devices and FIFOs are written through, directories,
// read-only files and dangling links refused), no two of them are one file
// (a character device excepted), and none is one of `inputs`. InputError
// naming the paths otherwise.
void check_output_targets(const std::vector<std::string>& outputs, const std::vector<std::string>& inputs);

// The record of what the last run into a folder wrote there: name, size,
// inode, modification and status-change times of each file, in the folder
// itself (any write since changes the status-change time).
constexpr const char* kOutputManifest = ".d2q9-outputs.json";

// The names a run gives its outputs in its output folder by itself, declared
// once: the writers (the command line's and Simulation::write_outputs) and
// the clean-up, which considers no other file, read them.
constexpr const char* kAvVelsFile = "av_vels.dat";
constexpr const char* kFinalStateFile = "final_state.dat";     // the coursework's text
constexpr const char* kFinalStateVtiFile = "final_state.vti";  // the same state as VTK XML image data
constexpr const char* kForcesFile = "forces.csv";
constexpr const char* kProbesFile = "probes.csv";
constexpr const char* kNusseltFile = "nusselt.csv";
constexpr const char* kSpeedPictureFile = "final_state.png";
constexpr const char* kVorticityPictureFile = "final_state_vorticity.png";
constexpr const char* kTemperaturePictureFile = "final_state_temperature.png";
const std::vector<std::string>& own_output_names();

// After a run's outputs are in place in `dir`: each file under
// own_output_names there that this run did not write (`written`), that the
// manifest an earlier run left records, and whose size and content are still
// as recorded, is removed with a warning, so the folder holds one run's
// outputs; any other such file is the user's (or was changed since), left
// with a warning. `inputs` are never removed. Then the manifest records the
// files of `written` that lie in `dir`. Warnings go to `warn` (stderr when empty).
void tidy_output_dir(const std::string& dir, const std::vector<std::string>& written,
                     const std::vector<std::string>& inputs,
                     const std::function<void(const std::string&)>& warn = {});

// Before a checkpoint is written at `path`: it is none of `inputs`; nothing
// is there, or a regular, writable file that `ours` accepts (this run's own
// earlier checkpoint) or `overwrite` allows to be replaced; never a
// directory, link, device or FIFO. InputError otherwise, whose advice is
// `continue_hint` (how to continue another run's checkpoint, "" for none)
// followed by `overwrite_hint` (how to ask for the overwrite).
void check_checkpoint_target(const std::string& path, const std::vector<std::string>& inputs, bool overwrite,
                             const std::function<bool(const std::string&)>& ours, const std::string& continue_hint,
                             const std::string& overwrite_hint);

}  // namespace d2q9
