// The live view of a run split across MPI ranks: the picture cut into the
// ranks' rows is one process's.
#include <doctest/doctest.h>

#include <cstring>

#include "helpers.hpp"
#include "io/field_image.hpp"
#include "io/fields.hpp"
#include "reference/reference_solver.hpp"

// CTest label (tests/CMakeLists.txt): ctest -L mpi
TEST_SUITE_BEGIN("mpi");

using namespace d2q9;

TEST_CASE("mpi pictures: the live view's picture cut into slabs' pixel rows is one process's, value for value") {
  // What each rank samples of its rows (sim/rank_picture.cpp, the host's
  // way), put together top slab first, against the whole grid's.
  const Params p = test::make_params(13, 11, 40, 0.02);
  const ObstacleMask m = test::test_obstacles(p);
  ReferenceSolver<double> solver(p, m);
  std::vector<double> av_vels;
  solver.run(p.max_iters, av_vels);
  const std::vector<double> f = solver.distributions();
  const FlowFields whole = flow_fields(p, m, f);
  const std::size_t n = p.cells();
  for (const std::vector<int>& heights : std::vector<std::vector<int>>{{11}, {5, 6}, {1, 4, 5, 1}, {10, 1}, {1, 10}}) {
    CAPTURE(heights.size());
    CAPTURE(heights.front());
    std::vector<FlowFields> fields;
    int first = 0;
    for (const int h : heights) {
      StateRows s{first, h, {}};
      for (int k = 0; k < kSpeeds; ++k)
        s.f.insert(s.f.end(), f.begin() + k * n + first * p.nx, f.begin() + k * n + (first + h) * p.nx);
      fields.push_back(velocity_fields(p, m, s));
      first += h;
    }
    for (const ImageField field : {ImageField::Speed, ImageField::Vorticity, ImageField::Density}) {
      for (const int width : {13, 6, 4, 1}) {
        CAPTURE(std::string(to_string(field)));
        CAPTURE(width);
        const FieldImageLayout l = field_image_layout(p.nx, p.ny, width);
        std::vector<float> joined;
        int next_row = 0;  // the pixel rows, top slab first, follow one another
        for (std::size_t r = fields.size(); r-- > 0;) {
          const std::size_t count = fields.size();
          const FlowFields& below = fields[(r + count - 1) % count];
          const FlowFields& above = fields[(r + 1) % count];
          FlowFields mine = fields[r];
          add_vorticity(mine, m, velocity_row(below, below.first_row + below.ny - 1), velocity_row(above, above.first_row));
          const PixelRows rows = image_rows_of(l, p.ny, mine.first_row, mine.ny);
          if (rows.count > 0) CHECK(rows.first == next_row);
          next_row += rows.count;
          const std::vector<float> part = field_image_values(mine, m, field, l, rows);
          joined.insert(joined.end(), part.begin(), part.end());
        }
        CHECK(next_row == l.height);
        const std::vector<float> expected = field_image_values(whole, m, field, l, PixelRows{0, l.height});
        REQUIRE(joined.size() == expected.size());
        CHECK(std::memcmp(joined.data(), expected.data(), joined.size() * sizeof(float)) == 0);
        const FieldImage picture = field_image(whole, m, {field, width});
        CHECK(colour_field_image(field, l.width, l.height, joined, "host").rgba == picture.rgba);
      }
    }
  }
  // A slab thinner than a pixel's block may show no pixel row at all.
  const FieldImageLayout l = field_image_layout(13, 11, 4);  // 4 cells a pixel: rows 2, 6, 10
  CHECK(image_rows_of(l, 11, 3, 3).count == 0);
  CHECK(image_rows_of(l, 11, 0, 3).first == 2);
  CHECK(image_rows_of(l, 11, 0, 3).count == 1);
}

TEST_SUITE_END();
