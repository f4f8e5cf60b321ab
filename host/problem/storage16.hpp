// The 16-bit storage formats of the distributions (-p fp16s, -p fp16c),
// converting exactly as cl/d2q9_bgk.cl does, for uploads, downloads and the
// serial reference. A stored value is (f - w_k * density) * scale, with scale
// a power of two near 2^14 / density (fp16s) or 1 / density (fp16c):
//   fp16s: IEEE half, rounded to nearest even;
//   fp16c: sign, 4 exponent bits, 11 mantissa bits for magnitudes in
//          [2^-14, 2) (rounded half up), steps of 2^-25 below.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/types.hpp"
#include "problem/lattice.hpp"

namespace d2q9 {

std::uint16_t float_to_half(float x);
float half_to_float(std::uint16_t code);
std::uint16_t float_to_fp16c(float x);
float fp16c_to_float(std::uint16_t code);

class Storage16 {
 public:
  Storage16(Precision format, double density);
  // Speed k's value `f` stored, with the kernels' float arithmetic.
  std::uint16_t encode(int k, float f) const;
  // The exact value a code stands for (a double holds it exactly), and the
  // float the kernels load from it (that value rounded once).
  double decode(int k, std::uint16_t code) const;
  float load(int k, std::uint16_t code) const { return static_cast<float>(decode(k, code)); }
  // What storing then loading `f` gives back, as in the kernels.
  float as_stored(int k, float f) const { return load(k, encode(k, f)); }
  // The code of a value given in double, exactly inverting decode().
  std::uint16_t encode_exact(int k, double f) const;
  // Whole lattices, nine planes of speed k at [k * count / 9 + i]: codes for
  // values (encode_exact) and exact values for codes (decode).
  void encode_planes(const double* f, std::size_t count, std::uint16_t* codes) const;
  void decode_planes(const std::uint16_t* codes, std::size_t count, double* f) const;
  float scale() const { return scale_; }
  float inv_scale() const { return inv_scale_; }

 private:
  bool ieee_;
  float scale_, inv_scale_;
  float rest_[kSpeeds];
};

}  // namespace d2q9
