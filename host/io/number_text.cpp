#include "io/number_text.hpp"

#include <algorithm>
#include <charconv>
#include <thread>
#include <vector>

namespace d2q9 {

char* format_e12(char* out, double x) {
  // to_chars writes "1.234567890123e-05", "inf", "-nan": printf's %E is the
  // same text in capitals (both round the exact binary value to nearest, ties
  // to even, and give the exponent at least two digits).
  char* end = std::to_chars(out, out + kMaxE12Chars, x, std::chars_format::scientific, 12).ptr;
  for (char* c = out; c != end; ++c)
    if (*c >= 'a' && *c <= 'z') *c = static_cast<char>(*c - 'a' + 'A');
  return end;
}

char* format_int(char* out, int x) { return std::to_chars(out, out + 12, x).ptr; }

std::string hex64(std::uint64_t v) {
  char text[16];
  const char* end = std::to_chars(text, text + 16, v, 16).ptr;
  return std::string(16 - static_cast<std::size_t>(end - text), '0') + std::string(static_cast<const char*>(text), end);
}

bool write_rows_in_bands(std::FILE* out, std::size_t rows, std::size_t band,
                         const std::function<void(std::string&, std::size_t, std::size_t)>& format) {
  band = std::max<std::size_t>(1, band);
  const std::size_t threads =
      std::min<std::size_t>(std::clamp(std::thread::hardware_concurrency(), 1u, 16u), (rows + band - 1) / band);
  std::vector<std::string> texts(std::max<std::size_t>(1, threads));
  for (std::size_t first = 0; first < rows; first += band * texts.size()) {
    const auto format_band = [&](std::size_t t) {
      texts[t].clear();
      const std::size_t from = first + t * band;
      if (from < rows) format(texts[t], from, std::min(from + band, rows));
    };
    std::vector<std::thread> workers;
    for (std::size_t t = 1; t < texts.size(); ++t) workers.emplace_back(format_band, t);
    format_band(0);
    for (auto& w : workers) w.join();
    for (const std::string& text : texts)
      if (std::fwrite(text.data(), 1, text.size(), out) != text.size()) return false;
  }
  return true;
}

}  // namespace d2q9
