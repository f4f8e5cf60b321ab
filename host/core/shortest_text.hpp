// How messages and records write a number: the shortest %g text, from 6
// significant digits up (so 20 stays "20", not "2e+01"), that reads back as
// exactly that double, so that two values print alike only if they are equal.
#pragma once

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace d2q9 {

inline std::string shortest_text(double v) {
  char buf[40];
  for (int digits = 6; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (!std::isfinite(v) || std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

}  // namespace d2q9
