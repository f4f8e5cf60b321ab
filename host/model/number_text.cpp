#include "model/number_text.hpp"

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

}  // namespace d2q9
