// Small value types every layer above the backends passes around.
#pragma once

#include <stdexcept>
#include <string>

namespace d2q9 {

// A problem with the device or its backend (no device, kernel build failure,
// out of memory); what() is the whole message.
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Arithmetic and storage of the distributions. Float and Double store what
// they compute with; Fp16s and Fp16c compute in float and store 16 bits in
// device memory (formats in host/problem/storage16.hpp).
enum class Precision { Float, Double, Fp16s, Fp16c };

inline const char* to_string(Precision p) {
  switch (p) {
    case Precision::Double: return "double";
    case Precision::Fp16s: return "fp16s";
    case Precision::Fp16c: return "fp16c";
    default: return "float";
  }
}
constexpr Precision kPrecisions[] = {Precision::Float, Precision::Double, Precision::Fp16s, Precision::Fp16c};
// "float", "double", "fp16s" or "fp16c"; false for anything else.
inline bool parse_precision(const std::string& text, Precision& out) {
  for (Precision p : kPrecisions)
    if (text == to_string(p)) {
      out = p;
      return true;
    }
  return false;
}
inline bool is_16bit(Precision p) { return p == Precision::Fp16s || p == Precision::Fp16c; }
// Bytes of the arithmetic type (partial sums, local memory).
inline std::size_t real_size(Precision p) { return p == Precision::Double ? sizeof(double) : sizeof(float); }
// Bytes of one stored distribution value.
inline std::size_t stored_size(Precision p) { return is_16bit(p) ? 2 : real_size(p); }

// Work-group (thread-block) shape; 0x0 means "let the launch plan choose".
struct LocalSize {
  int x = 0;
  int y = 0;
  bool is_auto() const { return x == 0 && y == 0; }
  std::string text() const { return std::to_string(x) + "x" + std::to_string(y); }
  bool operator==(const LocalSize& o) const { return x == o.x && y == o.y; }
};

}  // namespace d2q9
