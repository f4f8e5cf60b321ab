#include "app/progress.hpp"

#include <unistd.h>

#include <cmath>

namespace d2q9 {

std::string format_progress(int done_steps, int total_steps, double elapsed_s, std::size_t cells) {
  const double rate = elapsed_s > 0.0 ? done_steps / elapsed_s : 0.0;
  char left[32] = "?";
  if (rate > 0.0) {
    const long s = std::lround((total_steps - done_steps) / rate);
    if (s >= 3600)
      std::snprintf(left, sizeof left, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
      std::snprintf(left, sizeof left, "%ld:%02ld", s / 60, s % 60);
  }
  char line[160];
  std::snprintf(line, sizeof line, "%5.1f%%  %d/%d steps  %.0f steps/s  %.2f MLUPS  %s left",
                total_steps > 0 ? 100.0 * done_steps / total_steps : 100.0, done_steps, total_steps, rate,
                rate * static_cast<double>(cells) / 1e6, left);
  return line;
}

ProgressLine::ProgressLine(std::FILE* stream, int total_steps, std::size_t cells, bool wanted, double interval_s)
    : stream_(stream),
      total_steps_(total_steps),
      cells_(cells),
      interval_s_(interval_s),
      active_(wanted && ::isatty(::fileno(stream)) != 0),
      start_(std::chrono::steady_clock::now()),
      last_shown_(start_) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(int done_steps) {
  if (!active_) return;
  const auto now = std::chrono::steady_clock::now();
  // The first call shows the line at once, so even short runs show it.
  if (ever_shown_ && std::chrono::duration<double>(now - last_shown_).count() < interval_s_) return;
  ever_shown_ = true;
  last_shown_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  // \033[K clears what a longer previous line left behind.
  std::fprintf(stream_, "\r%s\033[K", format_progress(done_steps, total_steps_, elapsed, cells_).c_str());
  std::fflush(stream_);
  shown_ = true;
}

void ProgressLine::finish() {
  if (shown_) {
    std::fputs("\r\033[K", stream_);
    std::fflush(stream_);
  }
  shown_ = false;
  active_ = false;
}

}  // namespace d2q9
