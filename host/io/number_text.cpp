#include "io/number_text.hpp"

#include <charconv>

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

}  // namespace d2q9
