#include "sim/rank_picture.hpp"

#include <cstring>
#include <stdexcept>
#include <utility>

#include "io/fields.hpp"

namespace d2q9 {

FieldImage field_image_on_ranks(Ranks& ranks, const Params& params, const ObstacleMask& mask, const StateRows& own,
                                const FieldImageRequest& request) {
  const FieldImageLayout l = field_image_layout(params.nx, params.ny, request.width);
  FlowFields fields;
  ranks.on_every_rank([&] { fields = velocity_fields(params, mask, own); });
  if (request.field == ImageField::Vorticity) {
    // As the outputs' pictures (app/outputs.cpp): the neighbours' edge rows' ux and uy.
    const std::pair<std::string, std::string> halo = ranks.exchange_with_neighbours(
        to_bytes(velocity_row(fields, own.first_row)), to_bytes(velocity_row(fields, own.first_row + own.rows - 1)));
    ranks.on_every_rank([&] {
      add_vorticity(fields, mask, from_bytes<double>(halo.first), from_bytes<double>(halo.second));
    });
  }
  std::string mine;
  ranks.on_every_rank([&] {
    mine = to_bytes(field_image_values(fields, mask, request.field, l, image_rows_of(l, params.ny, own.first_row, own.rows)));
  });
  // In rank order, bottom slab first: the top slab's pixel rows come first in the picture.
  const std::vector<std::string> parts = ranks.gather(mine);
  FieldImage image;
  ranks.on_root([&] {
    std::vector<float> values;
    for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
      const std::vector<float> rows = from_bytes<float>(*part);
      values.insert(values.end(), rows.begin(), rows.end());
    }
    if (values.size() != static_cast<std::size_t>(l.width) * l.height)
      throw std::logic_error("field_image_on_ranks: the ranks' pixel rows do not make the picture");
    image = colour_field_image(request.field, l.width, l.height, values, "host");
  });
  return image;
}

}  // namespace d2q9
