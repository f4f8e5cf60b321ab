// The live view's parts that need no browser (host/serve/, io/field_image.*,
// cl/render.cl); tests/browser/ drives the page and its endpoints.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>

#include "helpers.hpp"
#include "io/field_image.hpp"
#include "serve/live_series.hpp"
#include "serve/live_view.hpp"
#include "sim/measurement_recorder.hpp"
#include "sim/simulation.hpp"

using namespace d2q9;

TEST_SUITE_BEGIN("unit");

TEST_CASE("live view: --serve takes [HOST:]PORT, 127.0.0.1 unless a host is given") {
  const ServeAddress a = parse_serve_address("8080");
  CHECK(a.host == "127.0.0.1");
  CHECK(a.port == 8080);
  const ServeAddress b = parse_serve_address("0.0.0.0:0");
  CHECK(b.host == "0.0.0.0");
  CHECK(b.port == 0);
  const ServeAddress c = parse_serve_address("[::1]:9");
  CHECK(c.host == "::1");
  CHECK(c.port == 9);
  for (const char* bad : {"", "x", "65536", "-1", "+80", ":80", "a:b:80", "[::1]80", "[]:80", "80x", "host:"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(parse_serve_address(bad), InputError);
  }
}

TEST_CASE("live view: a token is 128 random bits in hex, compared whole") {
  const std::string t = random_token(), u = random_token();
  CHECK(t.size() == 32);
  for (const char ch : t) CHECK(std::isxdigit(static_cast<unsigned char>(ch)));
  CHECK(t != u);
  CHECK(same_token(t, t));
  CHECK_FALSE(same_token(t, u));
  CHECK_FALSE(same_token(t, t.substr(0, 31)));
  CHECK_FALSE(same_token(t, ""));
  std::string one_off = t;
  one_off[31] = one_off[31] == 'a' ? 'b' : 'a';
  CHECK_FALSE(same_token(t, one_off));
}

TEST_CASE("live view: a picture is no wider than asked, one cell a pixel at most") {
  const FieldImageLayout a = field_image_layout(64, 64, 40);
  CHECK(a.scale == 2);
  CHECK(a.width == 32);
  CHECK(a.height == 32);
  const FieldImageLayout b = field_image_layout(100, 30, 1000);
  CHECK(b.scale == 1);
  CHECK(b.width == 100);
  CHECK(b.height == 30);
  for (int width = 1; width < 50; ++width) {
    CAPTURE(width);
    const FieldImageLayout l = field_image_layout(1000, 10, width);
    CHECK(l.width <= width);
    CHECK(l.width * l.scale >= 1000);
    CHECK(l.height == (10 + l.scale - 1) / l.scale);
  }
}

TEST_CASE("live view: the forces' series are thinned to the points asked for, the last step kept") {
  Measurements m;
  m.bodies = {"plate"};
  m.velocity = 0.1;
  m.length = 10;
  Params p = d2q9::test::make_params(8, 8, 1000);
  MeasurementRecorder recorder(m, p, 0);
  std::vector<double> forces;
  for (int step = 1; step <= 1000; ++step) {
    forces.push_back(step);
    forces.push_back(-step);
  }
  recorder.add_forces(forces);
  const nlohmann::json j = forces_json(recorder.log(), 10);
  CHECK(j["coefficients"] == true);
  const std::vector<int> steps = j["steps"];
  CHECK(steps.size() <= 10);
  CHECK(steps.size() >= 9);
  CHECK(steps.back() == 1000);
  const std::vector<double> cd = j["bodies"][0]["cd"], cl = j["bodies"][0]["cl"];
  REQUIRE(cd.size() == steps.size());
  // C = 2 F / (density velocity^2 length): density 1, so F = 1000 gives 2000 / 0.1.
  CHECK(cd.back() == doctest::Approx(2.0 * 1000 / (0.01 * 10)));
  CHECK(cl.back() == doctest::Approx(-2.0 * 1000 / (0.01 * 10)));
  CHECK(cd.front() == doctest::Approx(2.0 * steps.front() / 0.1));
}

TEST_CASE("live view: a server listens at once, refuses a port in use, and stops when it goes") {
  for (int i = 0; i < 20; ++i) {
    LiveView quick(ServeAddress{"127.0.0.1", 0});  // gone at once: its destructor must not wait forever
    CHECK(quick.port() > 0);
  }
  LiveView first(ServeAddress{"127.0.0.1", 0}, "00112233445566778899aabbccddeeff");
  CHECK(first.url() == "http://127.0.0.1:" + std::to_string(first.port()) + "/?token=00112233445566778899aabbccddeeff");
  const std::string refusal = "cannot listen on 127.0.0.1:" + std::to_string(first.port());
  CHECK_THROWS_WITH_AS(LiveView(ServeAddress{"127.0.0.1", first.port()}), doctest::Contains(refusal.c_str()),
                       InputError);
  const int port = first.port();
  {
    LiveView again(ServeAddress{"127.0.0.1", 0});
    CHECK(again.port() != port);
  }
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("kernels");

TEST_CASE("live view: the device's picture (cl/render.cl) is the host's") {
  SimulationOptions options;
  options.backend = Backend::OpenCL;
  options.kernels_dir = D2Q9_KERNELS_DIR;
  Simulation sim(load_problem(std::string(D2Q9_SOURCE_DIR) + "/tests/problems/live_cavity.toml"), options);
  sim.step(300);
  for (const ImageField field : {ImageField::Speed, ImageField::Vorticity, ImageField::Density}) {
    for (const int width : {64, 21}) {
      CAPTURE(to_string(field));
      CAPTURE(width);
      const FieldImage device = sim.picture({field, width});
      const FieldImage host = field_image(sim.fields(), sim.mask(), {field, width});
      CHECK(device.made_by == "device");
      REQUIRE(device.width == host.width);
      REQUIRE(device.height == host.height);
      CHECK(device.width <= width);
      CHECK(host.range.high > host.range.low);
      CHECK(device.range.low == doctest::Approx(host.range.low).epsilon(1e-4));
      CHECK(device.range.high == doctest::Approx(host.range.high).epsilon(1e-4));
      // Float on the device, double on the host: a colour may round one step apart.
      int worst = 0;
      for (std::size_t i = 0; i < host.rgba.size(); ++i)
        worst = std::max(worst, std::abs(static_cast<int>(device.rgba[i]) - static_cast<int>(host.rgba[i])));
      CHECK(worst <= 2);
    }
  }
  // The obstacle (cells 26..37 x 20..27) is grey in both.
  const FieldImage picture = sim.picture({ImageField::Speed, 64});
  const std::size_t block = (static_cast<std::size_t>(63 - 24) * 64 + 30) * 4;
  CHECK(static_cast<int>(picture.rgba[block]) == 128);
  CHECK(static_cast<int>(picture.rgba[block + 3]) == 255);
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("cli");

TEST_CASE("live view: d2q9-bgk refuses a malformed --serve in one line") {
  d2q9::test::TempDir dir;
  const auto r = d2q9::test::run_program("--serve 70000 -o '" + dir.path + "' '" + std::string(D2Q9_SOURCE_DIR) +
                                         "/tests/problems/cavity_small.toml'");
  CHECK(r.status == 2);
  CHECK(r.err.rfind("error: --serve must be [HOST:]PORT", 0) == 0);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}

TEST_SUITE_END();
