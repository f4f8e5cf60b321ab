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

enum class Precision { Float, Double };

inline const char* to_string(Precision p) { return p == Precision::Float ? "float" : "double"; }
inline std::size_t real_size(Precision p) { return p == Precision::Float ? sizeof(float) : sizeof(double); }

// Work-group (thread-block) shape; 0x0 means "let the launch plan choose".
struct LocalSize {
  int x = 0;
  int y = 0;
  bool is_auto() const { return x == 0 && y == 0; }
  std::string text() const { return std::to_string(x) + "x" + std::to_string(y); }
  bool operator==(const LocalSize& o) const { return x == o.x && y == o.y; }
};

}  // namespace d2q9
