// Error messages echo what users typed or what their files hold; escaping
// control characters keeps every message on one line of stderr.
#pragma once

#include <cstdio>
#include <string>

namespace d2q9 {

inline std::string printable(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", u);
      out += hex;
    } else
      out += c;
  }
  return out;
}

}  // namespace d2q9
