#include "device/rank_rows.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include "device/solver.hpp"

namespace d2q9 {

RankRows::RankRows(const Params& params, Precision precision, const LaunchPlan& plan, std::vector<Slab> slabs,
                   RankLinks* links, LatticeDevice& device)
    : params_(params),
      precision_(precision),
      slabs_(std::move(slabs)),
      links_(links),
      device_(device),
      halo_depth_(slab_halo_rows(plan)) {
  if (!split()) {
    own_ = {0, params.ny};
    return;
  }
  if (!links_) throw std::invalid_argument("step loop: slabs without links between the ranks");
  rank_ = links_->rank();
  ranks_ = links_->ranks();
  if (static_cast<int>(slabs_.size()) != ranks_)
    throw std::invalid_argument("step loop: " + std::to_string(slabs_.size()) + " slabs for " +
                                std::to_string(ranks_) + " ranks");
  own_ = slabs_[rank_];
}

StateRows RankRows::own_rows(int state) {
  const std::vector<unsigned char> mine = device_.read_rows(state, split() ? halo_depth_ : 0, own_.rows);  // past a slab's halo rows
  // Converted as one device's read-back converts them (16-bit codes too).
  return {own_.first_row, own_.rows,
          from_device_reals(mine.data(), params_.extensions.planes() * static_cast<std::size_t>(own_.rows) * params_.nx, precision_,
                            params_)};
}

std::vector<double> RankRows::distributions(int state) {
  if (!split()) return own_rows(state).f;
  const std::vector<unsigned char> mine = device_.read_rows(state, halo_depth_, own_.rows);
  // Values as stored (16-bit codes too), so rank 0 converts them exactly as
  // one device's read-back would.
  const std::vector<unsigned char> all = links_->gather_planes(mine, slabs_, params_.nx, params_.extensions.planes(),
                                                                   stored_size(precision_));
  if (rank_ != 0) return {};
  return from_device_reals(all.data(), params_.extensions.planes() * params_.cells(), precision_, params_);
}

// Nine small reads per cell, not the whole lattice (probes every few steps).
// Split: each rank reads the cells in its own rows and gather_cells makes
// them whole.
std::optional<std::size_t> RankRows::lattice_cell(std::size_t cell) const {
  const std::size_t nx = static_cast<std::size_t>(params_.nx);
  const int row = static_cast<int>(cell / nx);
  if (row < own_.first_row || row >= own_.first_row + own_.rows) return std::nullopt;
  return static_cast<std::size_t>(row - own_.first_row + (split() ? halo_depth_ : 0)) * nx + cell % nx;
}

std::vector<double> RankRows::cell_distributions(int state, const std::vector<std::size_t>& cells) {
  const int planes = values_per_cell();
  if (!split()) return cells_from_device(device_.read_cells(state, cells), cells.size(), planes, precision_, params_);
  std::vector<std::size_t> local;
  std::vector<bool> mine(cells.size(), false);
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (const auto at = lattice_cell(cells[i])) {
      local.push_back(*at);
      mine[i] = true;
    }
  std::vector<double> values(planes * cells.size(), 0.0);
  if (!local.empty()) {
    const std::vector<double> f = cells_from_device(device_.read_cells(state, local), local.size(), planes,
                                                    precision_, params_);
    for (std::size_t i = 0, j = 0; i < cells.size(); ++i)
      if (mine[i]) std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(planes * j++), planes,
                               values.begin() + static_cast<std::ptrdiff_t>(planes * i));
  }
  gather_cells(values, mine);
  if (rank_ != 0) return {};
  return values;
}

void RankRows::gather_cells(std::vector<double>& values, const std::vector<bool>& mine) {
  const std::size_t cells = mine.size();
  if (cells == 0 || values.empty()) return;
  // In pieces of whole rows that MPI counts in an int.
  const std::size_t per_cell = static_cast<std::size_t>(values_per_cell()), row = per_cell * cells;
  const std::size_t piece = std::max<std::size_t>(1, (std::size_t{1} << 26) / row) * row;
  std::vector<double> below;
  for (std::size_t first = 0; first < values.size(); first += piece) {
    const int count = static_cast<int>(std::min(piece, values.size() - first));
    double* part = values.data() + first;
    if (rank_ > 0) {
      // The cells another rank owns come from below as they are (not added:
      // a -0.0 stays one).
      below.resize(static_cast<std::size_t>(count));
      links_->done(links_->receive_sums_from_below(below.data(), count), true);
      for (std::size_t v = 0; v < below.size(); ++v)
        if (!mine[(v % row) / per_cell]) part[v] = below[v];
    }
    if (rank_ + 1 < ranks_) links_->done(links_->send_sums_up(part, count), true);
    links_->broadcast_from_top(part, count);
  }
}

void RankRows::load_distributions(int state, const std::vector<double>& f) {
  const std::size_t cells = params_.cells();
  const int planes = params_.extensions.planes();
  if (f.size() != planes * cells) throw std::invalid_argument("load_distributions: wrong number of values");
  if (!split()) {
    device_.upload(state, f);
    return;
  }
  const int lattice_rows = own_.rows + 2 * halo_depth_;  // halo rows included
  const std::size_t local_cells = static_cast<std::size_t>(lattice_rows) * params_.nx;
  std::vector<double> local(planes * local_cells);
  for (int k = 0; k < planes; ++k)
    for (int row = 0; row < lattice_rows; ++row) {
      const std::size_t global_row = grid_row_of(own_, halo_depth_, row, params_.ny);
      std::copy_n(f.begin() + static_cast<std::ptrdiff_t>(k * cells + global_row * params_.nx), params_.nx,
                  local.begin() + static_cast<std::ptrdiff_t>(k * local_cells + row * params_.nx));
    }
  device_.upload(state, local);
}

namespace {

// `work` on this rank, then agreed on by every rank (collective): this
// rank's failure thrown here, another rank's named, so that no rank is left
// waiting for another in the next collective.
void on_every_rank(RankLinks& links, const std::function<void()>& work) {
  std::exception_ptr failure;
  try {
    work();
  } catch (...) {
    failure = std::current_exception();
  }
  if (links.on_every_rank(!failure)) return;
  if (failure) std::rethrow_exception(failure);
  throw DeviceError("another MPI rank failed to draw its part of the picture");
}

// D2Q9_LIVE_PICTURES=host: the live view's pictures drawn on the host, as
// for a backend without cl/render.cl (the tests compare the two ways).
bool pictures_on_host() {
  const char* where = std::getenv("D2Q9_LIVE_PICTURES");
  return where && std::string(where) == "host";
}

std::vector<unsigned char> float_bytes(const std::vector<float>& values) {
  const auto* p = reinterpret_cast<const unsigned char*>(values.data());
  return {p, p + values.size() * sizeof(float)};
}

}  // namespace

std::optional<FieldImage> RankRows::render(int state, const FieldImageRequest& request) {
  const FieldImageLayout l = field_image_layout(params_.nx, params_.ny, request.width);
  RenderPart part{l, params_.ny, own_.first_row, own_.rows, split() ? halo_depth_ : 0, {}};
  part.pixels = image_rows_of(l, params_.ny, own_.first_row, own_.rows);
  const bool on_host = pictures_on_host();
  std::optional<std::vector<float>> values;
  if (!split()) {
    if (!on_host) values = device_.render(state, request, part, {});
    if (!values) return std::nullopt;
    return colour_field_image(request.field, l.width, l.height, *values, "device");
  }
  // The vorticity at the first and last own rows: ux of the row below (the
  // lower neighbour's last, sent up) and of the row above (the upper one's first).
  std::vector<float> edge_ux;
  if (request.field == ImageField::Vorticity) {
    std::optional<std::vector<float>> mine;
    on_every_rank(*links_, [&] {
      if (!on_host) mine = device_.render_edges(state, request, part);
    });
    if (!links_->on_every_rank(mine.has_value())) return std::nullopt;
    const auto [below, above] = links_->swap_with_neighbours(float_bytes(*mine));
    const std::size_t row = static_cast<std::size_t>(l.width) * sizeof(float);
    on_every_rank(*links_, [&] {
      if (below.size() != 2 * row || above.size() != 2 * row)
        throw std::logic_error("render: the neighbours' edge rows are not the picture's width");
      edge_ux.resize(2 * static_cast<std::size_t>(l.width));
      std::memcpy(edge_ux.data(), below.data() + row, row);
      std::memcpy(edge_ux.data() + l.width, above.data(), row);
    });
  }
  on_every_rank(*links_, [&] {
    if (!on_host) values = device_.render(state, request, part, edge_ux);
  });
  if (!links_->on_every_rank(values.has_value())) return std::nullopt;
  // Each rank's pixel rows, top row first, in place in the picture on rank 0.
  std::vector<Slab> pixel_rows;
  for (const Slab& s : slabs_) {
    const PixelRows p = image_rows_of(l, params_.ny, s.first_row, s.rows);
    pixel_rows.push_back({p.first, p.count});
  }
  const std::vector<unsigned char> all = links_->gather_planes(float_bytes(*values), pixel_rows, l.width, 1, sizeof(float));
  if (rank_ != 0) return FieldImage{};
  std::vector<float> picture(static_cast<std::size_t>(l.width) * l.height);
  if (all.size() != picture.size() * sizeof(float))
    throw std::logic_error("render: the ranks' pixel rows do not make the picture");
  std::memcpy(picture.data(), all.data(), all.size());
  return colour_field_image(request.field, l.width, l.height, picture, "device");
}

}  // namespace d2q9
