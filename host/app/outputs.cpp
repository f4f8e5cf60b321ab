#include "app/outputs.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <vector>

#include "io/checkpoint.hpp"
#include "io/output_guard.hpp"
#include "problem/stability.hpp"

namespace d2q9 {

std::string output_path(const std::string& output_dir, const std::string& name) {
  if (!name.empty() && name[0] == '/') return name;
  return output_dir + "/" + name;
}

void check_can_create(const std::string& path) { classify_output(path); }

namespace {

// "a/speed.png" -> "a/speed_vorticity.png"; a name not ending in .png gets
// "_vorticity.png" appended.
std::string vorticity_picture_name(const std::string& name) {
  const std::string ext = ".png";
  const bool has_ext = name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
  return (has_ext ? name.substr(0, name.size() - ext.size()) : name) + "_vorticity.png";
}

const char* picture_suffix(PictureField field) {
  return field == PictureField::Speed ? ".png" : field == PictureField::Vorticity ? "_vorticity.png" : "_temperature.png";
}

bool ends_with(const std::string& name, const std::string& ext) {
  return name.size() > ext.size() && name.compare(name.size() - ext.size(), ext.size(), ext) == 0;
}

// "a/state.pvti" -> "a/state_<rank>.vti"
std::string piece_path(const std::string& pvti, int rank) {
  return pvti.substr(0, pvti.size() - 5) + "_" + std::to_string(rank) + ".vti";
}

std::string base_name(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

ExtraOutputs plan_extra_outputs(const Options& o, const Measurements& measure, FinalStateFormat final_state,
                                int max_iters, bool check, int ranks) {
  ExtraOutputs x;
  if (writes_text(final_state)) x.final_state_dat = o.output_dir + "/" + kFinalStateFile;
  if (writes_vti(final_state)) x.final_state_vti = o.output_dir + "/" + kFinalStateVtiFile;
  if (!measure.bodies.empty()) x.forces_csv = o.output_dir + "/" + kForcesFile;
  if (!measure.probes.empty()) x.probes_csv = o.output_dir + "/" + kProbesFile;
  if (measure.nusselt_every > 0) x.nusselt_csv = o.output_dir + "/" + kNusseltFile;
  x.fields = o.fields;
  x.scale = o.scale;
  if (!o.no_png) {
    const bool both = x.fields.size() > 1;
    for (PictureField field : x.fields) {
      std::string name = o.png_file;
      if (name.empty())
        name = field == PictureField::Speed       ? kSpeedPictureFile
               : field == PictureField::Vorticity ? kVorticityPictureFile
                                                  : kTemperaturePictureFile;
      else if (both && field == PictureField::Vorticity)
        name = vorticity_picture_name(name);
      x.pictures.push_back({field, output_path(o.output_dir, name)});
    }
  }
  if (!o.vtk_file.empty()) x.vtk = output_path(o.output_dir, o.vtk_file);
  if (ends_with(x.vtk, ".pvti"))
    for (int r = 0; r < ranks; ++r) x.vtk_pieces.push_back(piece_path(x.vtk, r));
  x.vti_real = vti_real_for(o.precision);
  if (!o.summary_json_file.empty()) x.summary_json = output_path(o.output_dir, o.summary_json_file);
  x.snapshot_every = o.snapshot_every;
  x.snapshot_png = o.snapshot_png;
  x.snapshot_vti = o.snapshot_vti;
  x.snapshot_dir = o.output_dir;
  if (!check) return x;
  for (const PictureFile& p : x.pictures) check_can_create(p.path);
  for (const std::string* path : {&x.vtk, &x.summary_json})
    if (!path->empty()) check_can_create(*path);
  for (const std::string& piece : x.vtk_pieces) check_can_create(piece);
  if (x.snapshot_every > 0 && x.snapshot_every <= max_iters) {
    if (x.snapshot_png)
      for (PictureField field : x.fields)
        check_can_create(snapshot_path(x.snapshot_dir, x.snapshot_every, max_iters, picture_suffix(field)));
    if (x.snapshot_vti) {
      check_can_create(snapshot_path(x.snapshot_dir, x.snapshot_every, max_iters, ".vti"));
      check_can_create(output_path(x.snapshot_dir, kSnapshotSeries));
    }
  }
  return x;
}

std::vector<std::string> run_output_files(const Options& o, const ExtraOutputs& extra) {
  std::vector<std::string> files = {o.output_dir + "/" + kAvVelsFile};
  for (const std::string* p : {&extra.final_state_dat, &extra.final_state_vti, &extra.forces_csv, &extra.probes_csv,
                               &extra.nusselt_csv})
    if (!p->empty()) files.push_back(*p);
  for (const PictureFile& p : extra.pictures) files.push_back(p.path);
  for (const std::string* p : {&extra.vtk, &extra.summary_json})
    if (!p->empty()) files.push_back(*p);
  files.insert(files.end(), extra.vtk_pieces.begin(), extra.vtk_pieces.end());
  return files;
}

void remove_stale_outputs(const std::string& output_dir, const std::vector<std::string>& written,
                          const std::vector<std::string>& inputs) {
  tidy_output_dir(output_dir, written, inputs);
}

std::vector<std::string> run_input_files(const Options& o, const std::vector<std::string>& problem_reads) {
  std::vector<std::string> inputs;
  for (const std::string* input : {&o.param_file, &o.obstacle_file, &o.restart_file})
    if (!input->empty()) inputs.push_back(*input);
  inputs.insert(inputs.end(), problem_reads.begin(), problem_reads.end());
  return inputs;
}

void check_output_targets(const Options& o, const ExtraOutputs& extra, const std::vector<std::string>& problem_reads) {
  std::vector<std::string> outputs = run_output_files(o, extra);
  if (extra.snapshot_every > 0 && extra.snapshot_vti) outputs.push_back(output_path(extra.snapshot_dir, kSnapshotSeries));
  d2q9::check_output_targets(outputs, run_input_files(o, problem_reads));
}

std::string checkpoint_path(const Options& o) { return o.output_dir + "/" + kCheckpointFile; }

void check_checkpoint_target(const Options& o, const std::string& path, const std::vector<std::string>& problem_reads) {
  std::vector<std::string> inputs = run_input_files(o, problem_reads);
  // The checkpoint this run continues from is its own to replace.
  inputs.erase(std::remove_if(inputs.begin(), inputs.end(),
                              [&](const std::string& input) {
                                return !o.restart_file.empty() && same_file(input, o.restart_file);
                              }),
               inputs.end());
  const auto continued = [&](const std::string& p) { return !o.restart_file.empty() && same_file(p, o.restart_file); };
  d2q9::check_checkpoint_target(path, inputs, o.overwrite_checkpoint, continued,
                                "continue that run with --restart " + path + ", or ", "pass --overwrite-checkpoint");
}

std::string snapshot_name(int step, int max_iters, const std::string& suffix) {
  const int width = static_cast<int>(std::to_string(max_iters).size());
  char name[64];
  std::snprintf(name, sizeof name, "snapshot_%0*d", width, step);
  return name + suffix;
}

std::string snapshot_path(const std::string& dir, int step, int max_iters, const std::string& suffix) {
  return dir + "/" + snapshot_name(step, max_iters, suffix);
}

ViewWriter::ViewWriter(const ExtraOutputs& plan, const Params& params, const ObstacleMask& mask)
    : plan_(plan), params_(params), mask_(mask) {}

ColourRange ViewWriter::next_range(PictureField field, const FlowFields& fields) {
  return choose_range(field, own_range(field, fields, mask_));
}

ColourRange ViewWriter::choose_range(PictureField field, const ColourRange& own) {
  switch (plan_.scale.mode) {
    case PictureScale::Mode::Given:
      for (std::size_t i = 0; i < plan_.fields.size(); ++i)
        if (plan_.fields[i] == field) return plan_.scale.given.at(i);
      break;
    case PictureScale::Mode::Fixed:
      return kept_.emplace(field, own).first->second;
    case PictureScale::Mode::Auto:
      break;
  }
  return own;
}

void ViewWriter::write_snapshot(int step, const std::vector<double>& f) {
  const FlowFields fields = flow_fields(params_, mask_, f);
  if (plan_.snapshot_png) {
    const std::string caption = "step " + std::to_string(step);
    for (PictureField field : plan_.fields) {
      const std::string path = snapshot_path(plan_.snapshot_dir, step, params_.max_iters, picture_suffix(field));
      AtomicFile frame(path);
      write_png(frame.get(), render_picture(field, fields, mask_, next_range(field, fields), caption), path);
      frame.commit();
    }
  }
  if (plan_.snapshot_vti) {
    AtomicFile frame(snapshot_path(plan_.snapshot_dir, step, params_.max_iters, ".vti"));
    write_vti(frame.get(), mask_, fields, plan_.vti_real);
    frame.commit();
    write_series(step);
  }
}

void ViewWriter::write_series(int step) {
  if (!scanned_earlier_frames_) {
    // A restarted run's series goes on from the frames the run before it left here.
    for (int earlier = plan_.snapshot_every; earlier < step; earlier += plan_.snapshot_every) {
      const std::string name = snapshot_name(earlier, params_.max_iters, ".vti");
      if (::access(output_path(plan_.snapshot_dir, name).c_str(), F_OK) == 0) frames_.push_back({earlier, name});
    }
    scanned_earlier_frames_ = true;
  }
  frames_.push_back({step, snapshot_name(step, params_.max_iters, ".vti")});
  AtomicFile series(output_path(plan_.snapshot_dir, kSnapshotSeries));
  write_pvd(series.get(), frames_);
  series.commit();
}

namespace {


// Every per-cell array of FlowFields, in one order for packing rows: the
// temperature's too where the problem has heat.
using FieldArray = std::vector<double> FlowFields::*;
std::vector<FieldArray> field_arrays(const FlowFields& fields) {
  std::vector<FieldArray> arrays = {&FlowFields::ux, &FlowFields::uy, &FlowFields::speed, &FlowFields::density,
                                    &FlowFields::vorticity};
  if (!fields.temperature.empty()) arrays.push_back(&FlowFields::temperature);
  return arrays;
}

// For the tests only: this rank fails while it writes its piece of a .pvti,
// after final_state.dat and the pictures are written under their temporary names.
int injected_output_failure_rank() {
  const char* value = std::getenv("D2Q9_OUTPUT_FAIL_RANK");
  return value && *value ? std::atoi(value) : -1;
}

// A file another rank created (a temporary of rank 0's OutputSet), written
// whole by `write`; std::runtime_error naming `name` on failure.
template <typename Write>
void write_created_file(const std::string& file, const std::string& name, Write write) {
  std::FILE* out = std::fopen(file.c_str(), "wb");
  if (!out) throw std::runtime_error(name + ": cannot create file (" + std::strerror(errno) + ")");
  try {
    write(out);
  } catch (...) {
    std::fclose(out);
    throw;
  }
  const bool failed = std::fflush(out) != 0 || std::ferror(out) != 0;
  const int err = errno;
  if (std::fclose(out) != 0 || failed)
    throw std::runtime_error(name + ": write failed (" + std::strerror(failed ? err : errno) + ")");
}

}  // namespace

void check_final_state(Ranks& ranks, const Params& params, const ObstacleMask& mask, const StateRows& state,
                       std::size_t step) {
  // The lowest rank's first unstable cell is the grid's first, as one process finds it.
  const std::vector<std::string> found = ranks.gather(unstable_cell(params, mask, state));
  std::exception_ptr failure;
  for (const std::string& detail : found) {
    if (detail.empty()) continue;
    failure = std::make_exception_ptr(InstabilityError(step, detail));
    break;
  }
  ranks.agree(failure);
}

void add_final_state(OutputSet& outputs, Ranks& ranks, const std::string& path, const Params& params,
                     const ObstacleMask& mask, const StateRows& state) {
  if (ranks.size() == 1) {
    ranks.on_root([&] { write_final_state(outputs.add(path), params, mask, state); });
    return;
  }
  std::string temp;
  ranks.on_root([&] { temp = outputs.add_written_elsewhere(path); });
  temp = ranks.broadcast(temp);
  // The lines of this rank's rows: the bytes one process writes for them.
  // (Local work that can fail, out of memory say, is agreed on before the
  // next collective, here and below: no rank is left waiting in one.)
  std::string lines;
  ranks.on_every_rank([&] { lines = final_state_lines(params, mask, state, state.first_row, state.first_row + state.rows); });
  ranks.write_in_rank_order(temp, lines, path);
}

void ViewWriter::add_final_outputs(OutputSet& outputs, Ranks& ranks, const StateRows& state) {
  if (plan_.pictures.empty() && plan_.vtk.empty() && plan_.final_state_vti.empty()) return;
  FlowFields fields;
  ranks.on_every_rank([&] { fields = velocity_fields(params_, mask_, state); });
  // The vorticity of the edge rows needs ux and uy of the neighbours' edge rows.
  const std::pair<std::string, std::string> halo = ranks.exchange_with_neighbours(
      to_bytes(velocity_row(fields, fields.first_row)), to_bytes(velocity_row(fields, fields.first_row + fields.ny - 1)));
  ranks.on_every_rank([&] { add_vorticity(fields, mask_, from_bytes<double>(halo.first), from_bytes<double>(halo.second)); });
  for (const PictureFile& p : plan_.pictures) add_picture(outputs, ranks, p, fields);
  add_whole_grid_files(outputs, ranks, fields);
  if (!plan_.vtk_pieces.empty()) add_pieces(outputs, ranks, fields);
}

void ViewWriter::add_picture(OutputSet& outputs, Ranks& ranks, const PictureFile& picture, const FlowFields& fields) {
  // The whole grid's own range: the largest high and lowest low of the ranks'
  // (maxima, so exact); then rank 0's choice for every rank (--scale fixed
  // keeps its ranges on rank 0, which draws the snapshots).
  ColourRange own = own_range(picture.field, fields, mask_);
  own.high = ranks.max(own.high);
  own.low = -ranks.max(-own.low);
  ColourRange range = ranks.is_root() ? choose_range(picture.field, own) : ColourRange{};
  range = {ranks.broadcast(range.low), ranks.broadcast(range.high)};
  // One colour per cell, 3 bytes: all rank 0 gathers of the grid for a picture.
  std::vector<Rgb> mine, cells;
  ranks.on_every_rank([&] {
    mine = cell_colours(picture.field, fields, mask_, range);
    cells.resize(ranks.is_root() ? params_.cells() : 0);
  });
  ranks.gather_records(mine.data(), fields.ny, sizeof(Rgb) * params_.nx, cells.data());
  ranks.on_root([&] {
    write_png(outputs.add(picture.path), render_cells(picture.field, params_.nx, params_.ny, cells, range),
              picture.path);
  });
}

void ViewWriter::add_pieces(OutputSet& outputs, Ranks& ranks, FlowFields& fields) {
  // Neighbouring pieces share a row: each but the top one ends with the next
  // rank's first row, as that rank computed it (its fields, vorticity included).
  const std::vector<FieldArray> arrays = field_arrays(fields);
  std::vector<double> first_row;
  for (FieldArray array : arrays)
    first_row.insert(first_row.end(), (fields.*array).begin(), (fields.*array).begin() + fields.nx);
  const std::string next = ranks.exchange_with_neighbours(to_bytes(first_row), "").second;
  ranks.on_every_rank([&] {
    if (ranks.rank() + 1 == ranks.size()) return;
    const std::vector<double> row = from_bytes<double>(next);
    for (std::size_t a = 0; a < arrays.size(); ++a)
      (fields.*arrays[a]).insert((fields.*arrays[a]).end(), row.begin() + a * fields.nx, row.begin() + (a + 1) * fields.nx);
    fields.ny += 1;
  });
  // Rank 0 makes every file's temporary; each rank fills its piece's.
  const std::vector<std::string> extents =
      ranks.gather(std::to_string(fields.first_row) + " " + std::to_string(fields.first_row + fields.ny - 1));
  std::string temporaries;  // NUL-separated, in rank order
  ranks.on_root([&] {
    for (const std::string& piece : plan_.vtk_pieces) temporaries += outputs.add_written_elsewhere(piece) + '\0';
  });
  temporaries = ranks.broadcast(temporaries);
  std::size_t at = 0;
  for (int r = 0; r < ranks.rank(); ++r) at = temporaries.find('\0', at) + 1;
  const std::string mine = temporaries.substr(at, temporaries.find('\0', at) - at);
  const std::string& piece = plan_.vtk_pieces.at(ranks.rank());
  ranks.on_every_rank([&] {
    if (ranks.size() > 1 && injected_output_failure_rank() == ranks.rank())
      throw std::runtime_error(piece + ": failure injected by D2Q9_OUTPUT_FAIL_RANK");
    write_created_file(mine, piece, [&](std::FILE* out) { write_vti(out, mask_, fields, plan_.vti_real); });
  });
  ranks.on_root([&] {
    std::vector<PvtiPiece> pieces;
    for (std::size_t r = 0; r < extents.size(); ++r) {
      PvtiPiece p{0, 0, base_name(plan_.vtk_pieces.at(r))};
      std::sscanf(extents[r].c_str(), "%d %d", &p.first_row, &p.last_row);
      pieces.push_back(p);
    }
    write_pvti(outputs.add(plan_.vtk), params_.nx, params_.ny, pieces, !fields.temperature.empty(), plan_.vti_real);
  });
}

void ViewWriter::add_whole_grid_files(OutputSet& outputs, Ranks& ranks, const FlowFields& fields) {
  const bool whole_vtk = plan_.vtk_pieces.empty() && !plan_.vtk.empty();
  if (plan_.final_state_vti.empty() && !whole_vtk) return;
  const FlowFields* whole = &fields;
  FlowFields gathered;
  if (ranks.size() > 1) {
    // Rank 0 gathers the fields of the whole grid (5 doubles a cell, 6 with
    // heat), once for every such file; a .pvti is the file for grids too
    // large for that. The ranks' own fields stay for a .pvti's pieces.
    gathered.nx = params_.nx;
    gathered.ny = params_.ny;
    for (FieldArray array : field_arrays(fields)) {
      ranks.on_every_rank([&] { (gathered.*array).resize(ranks.is_root() ? params_.cells() : 0); });
      ranks.gather_records((fields.*array).data(), fields.ny, sizeof(double) * params_.nx, (gathered.*array).data());
    }
    whole = &gathered;
  }
  ranks.on_root([&] {
    if (!plan_.final_state_vti.empty()) write_vti(outputs.add(plan_.final_state_vti), mask_, *whole, plan_.vti_real);
    if (!whole_vtk) return;
    if (ends_with(plan_.vtk, ".vti"))
      write_vti(outputs.add(plan_.vtk), mask_, *whole, plan_.vti_real);
    else
      write_vtk(outputs.add(plan_.vtk), params_, mask_, *whole);
  });
}

}  // namespace d2q9
