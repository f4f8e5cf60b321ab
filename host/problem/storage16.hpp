// The 16-bit storage formats of the distributions (-p fp16s, -p fp16c),
// converting exactly as cl/lattice.cl does, for uploads, downloads and the
// serial reference. A stored value of the flow's planes is
// (f - w_k * density) * scale, with scale a power of two near 2^14 / density
// (fp16s) or 1 / density (fp16c); with heat, one of the temperature's
// (planes 9-13) is (h_k - w_k * T0) * its own scale (ThermalCodes):
//   fp16s: IEEE half, rounded to nearest even (the temperature's saturate at 65504);
//   fp16c: sign, 4 exponent bits, 11 mantissa bits for magnitudes in
//          [2^-14, 2) (rounded half up), steps of 2^-25 below.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "core/types.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

std::uint16_t float_to_half(float x);
float half_to_float(std::uint16_t code);
std::uint16_t float_to_fp16c(float x);
float fp16c_to_float(std::uint16_t code);

// How the temperature planes are coded: h_k - w_k * T0 (D2Q5's weights)
// times a power of two, as the flow's planes are from density.
struct ThermalCodes {
  double rest_temperature = 0.0;  // T0, a float's value
  double scale = 1.0;             // a power of two, its inverse a float too
  bool operator==(const ThermalCodes& o) const { return rest_temperature == o.rest_temperature && scale == o.scale; }
  bool operator!=(const ThermalCodes& o) const { return !(*this == o); }
};

// A problem's temperature codes in a 16-bit format (none without heat or in
// float and double): T0 its initial temperature, so that a lattice at rest
// stores codes at or next to zero as the flow's does, and the scale from the
// temperatures its walls, inlets and start hold (storage16.cpp says how).
std::optional<ThermalCodes> thermal_codes(Precision format, const Params& params);

class Storage16 {
 public:
  // The flow's nine planes at `density`, and with `thermal` the temperature's five after them.
  Storage16(Precision format, double density, const std::optional<ThermalCodes>& thermal = std::nullopt);
  // A problem's planes: its density's, and with heat its thermal_codes.
  Storage16(Precision format, const Params& params);
  // Plane k's value `f` stored, with the kernels' float arithmetic.
  std::uint16_t encode(int k, float f) const;
  // The exact value a code stands for (a double holds it exactly), and the
  // float the kernels load from it (that value rounded once).
  double decode(int k, std::uint16_t code) const;
  float load(int k, std::uint16_t code) const { return static_cast<float>(decode(k, code)); }
  // What storing then loading `f` gives back, as in the kernels.
  float as_stored(int k, float f) const { return load(k, encode(k, f)); }
  // The code of a value given in double, exactly inverting decode().
  std::uint16_t encode_exact(int k, double f) const;
  // Whole lattices, planes() planes, plane k at [k * count / planes() + i]:
  // codes for values (encode_exact) and exact values for codes (decode).
  void encode_planes(const double* f, std::size_t count, std::uint16_t* codes) const;
  void decode_planes(const std::uint16_t* codes, std::size_t count, double* f) const;
  // The flow's scale and its inverse (the temperature's: thermal()).
  float scale() const { return scale_[0]; }
  float inv_scale() const { return inv_scale_[0]; }
  const std::optional<ThermalCodes>& thermal() const { return thermal_; }
  // Planes it codes: 9, or 14 with the temperature's.
  int planes() const { return thermal_ ? kSpeeds + kHeatSpeeds : kSpeeds; }

 private:
  // Plane k's code of x, a value already shifted and scaled.
  std::uint16_t code_of(int k, float x) const;
  bool ieee_;
  std::optional<ThermalCodes> thermal_;
  // Per plane: the flow's nine, then the temperature's five.
  float scale_[kSpeeds + kHeatSpeeds], inv_scale_[kSpeeds + kHeatSpeeds];
  float rest_[kSpeeds + kHeatSpeeds];
};

}  // namespace d2q9
