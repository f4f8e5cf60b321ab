#include "serve/live_pictures.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

namespace d2q9 {

namespace {

using nlohmann::json;

// A picture this recent is served again rather than drawn anew: at most a
// few pictures a second reach the device, however many pages ask.
constexpr double kPictureReuseSeconds = 0.2;
// The least time between two pictures drawn, whatever they show: at most
// four a second reach the device, however many pages ask for different ones.
constexpr double kPictureIntervalSeconds = 0.25;
// The widest picture drawn: the page asks for its canvas's width.
constexpr int kMaxPictureWidth = 2048;

}  // namespace

std::string LivePictures::work(const FieldImageRequest& request) {
  return "picture " + std::to_string(static_cast<int>(request.field)) + " " + std::to_string(request.width);
}

bool LivePictures::join(Simulation& sim, const std::string& work) {
  int field = -1, width = 0;
  char end = 0;
  if (std::sscanf(work.c_str(), "picture %d %d%c", &field, &width, &end) != 2 || field < 0 ||
      field > static_cast<int>(ImageField::Temperature))
    return false;
  sim.picture({static_cast<ImageField>(field), width});
  return true;
}

void LivePictures::add_route(httplib::Server& server) {
  server.Get("/api/picture", [this](const httplib::Request& req, httplib::Response& res) { answer(req, res); });
}

bool LivePictures::cached(const std::string& key, Cached& picture) {
  std::lock_guard<std::mutex> lock(shared_.mutex);
  picture = pictures_[key];
  const bool recent = LiveClock::now() - picture.made < std::chrono::duration<double>(kPictureReuseSeconds);
  // The step drawn already, one drawn a moment ago, or the last one of a run that is over.
  return !picture.png.empty() && (picture.step == status_.step() || recent || shared_.finished);
}

void LivePictures::wait_turn() {
  LiveClock::time_point turn;
  {
    std::lock_guard<std::mutex> lock(shared_.mutex);
    turn = std::max(LiveClock::now(), next_picture_);
    next_picture_ =
        turn + std::chrono::duration_cast<LiveClock::duration>(std::chrono::duration<double>(kPictureIntervalSeconds));
  }
  std::this_thread::sleep_until(turn);
}

void LivePictures::answer(const httplib::Request& req, httplib::Response& res) {
  const std::string name = req.has_param("field") ? req.get_param_value("field") : "speed";
  const std::optional<ImageField> field = parse_image_field(name);
  const int width = req.has_param("width") ? std::atoi(req.get_param_value("width").c_str()) : 512;
  if (!field || width < 1 || width > kMaxPictureWidth) {
    res.status = 400;
    res.set_content(json{{"error", "field must be speed, vorticity, density or temperature, width 1 to " +
                                       std::to_string(kMaxPictureWidth)}}.dump(),
                    "application/json");
    return;
  }
  const std::string key = name + "/" + std::to_string(width);
  Cached picture;
  if (!cached(key, picture)) {
    wait_turn();
    // The stepping thread samples the field; this thread encodes it, so the
    // run waits for the device's part alone.
    FieldImage image;
    const bool made = jobs_.run([&](Simulation& sim) {
      image = sim.picture({*field, width});
      picture.step = sim.steps_done();
      picture.made = LiveClock::now();
    }, res, work({*field, width}));
    if (!made) return;
    picture.png = png_bytes(image);
    picture.about = json{{"field", name}, {"step", picture.step}, {"width", image.width},
                         {"height", image.height}, {"low", image.range.low}, {"high", image.range.high},
                         {"made_by", image.made_by}};
    std::lock_guard<std::mutex> lock(shared_.mutex);
    pictures_[key] = picture;
  }
  res.set_header("X-D2Q9-Picture", picture.about.dump());
  res.set_content(picture.png, "image/png");
}

}  // namespace d2q9
