#include "problem/storage16.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace d2q9 {

namespace {

std::uint32_t bits_of(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

float float_of(std::uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

// Float's exponent bias less that of a 5-bit exponent (127 - 15).
constexpr std::uint32_t kRebias = 112u << 23;

}  // namespace

std::uint16_t float_to_half(float x) {
  const std::uint32_t b = bits_of(x);
  const auto sign = static_cast<std::uint16_t>((b >> 16) & 0x8000u);
  const std::uint32_t a = b & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;                   // NaN
  if (a >= 0x477ff000u) return sign | 0x7c00u;                  // rounds past 65504: infinity
  if (a < 0x38800000u)                                          // below 2^-14: subnormal steps of 2^-24
    return sign | static_cast<std::uint16_t>(std::nearbyint(float_of(a) * 0x1p24f));
  const std::uint32_t m = a - kRebias;
  return sign | static_cast<std::uint16_t>((m + 0xfffu + ((m >> 13) & 1u)) >> 13);  // to nearest even
}

float half_to_float(std::uint16_t code) {
  const std::uint32_t sign = static_cast<std::uint32_t>(code & 0x8000u) << 16;
  const std::uint32_t e = (code >> 10) & 31u, m = code & 1023u;
  if (e == 0) return float_of(sign | bits_of(static_cast<float>(m) * 0x1p-24f));
  if (e == 31) return float_of(sign | 0x7f800000u | (m << 13));
  return float_of(sign | (((e << 10 | m) << 13) + kRebias));
}

std::uint16_t float_to_fp16c(float x) {
  const float a = std::fabs(x);
  const std::uint32_t v = bits_of(a) - kRebias;
  const std::uint32_t normal = std::min((v + 0x7ffu + ((v >> 12) & 1u)) >> 12, 0x7fffu);
  const auto linear = static_cast<std::uint32_t>(std::nearbyint(a * 0x1p25f));
  return static_cast<std::uint16_t>(((bits_of(x) >> 16) & 0x8000u) | (a < 0x1p-14f ? linear : normal));
}

float fp16c_to_float(std::uint16_t code) {
  const std::uint32_t m = code & 0x7fffu;
  const float a = m < 2048u ? static_cast<float>(m) * 0x1p-25f : float_of((m << 12) + kRebias);
  return (code & 0x8000u) ? -a : a;
}

Storage16::Storage16(Precision format, double density) : ieee_(format == Precision::Fp16s) {
  if (!is_16bit(format)) throw std::invalid_argument("Storage16: not a 16-bit format");
  const int top = ieee_ ? 14 : 0;
  const int exponent = top - static_cast<int>(std::lround(std::log2(density)));
  scale_ = std::ldexp(1.0f, exponent);
  inv_scale_ = std::ldexp(1.0f, -exponent);
  // The same float operations as rest_value() in the kernels.
  const float w[kSpeeds] = {4.0f / 9.0f, 1.0f / 9.0f,  1.0f / 9.0f,  1.0f / 9.0f, 1.0f / 9.0f,
                            1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};
  for (int k = 0; k < kSpeeds; ++k) rest_[k] = w[k] * static_cast<float>(density);
}

std::uint16_t Storage16::encode(int k, float f) const {
  const float x = (f - rest_[k]) * scale_;
  return ieee_ ? float_to_half(x) : float_to_fp16c(x);
}

double Storage16::decode(int k, std::uint16_t code) const {
  // An 11-bit value times a power of two, plus a float: exact in a double.
  return static_cast<double>((ieee_ ? half_to_float(code) : fp16c_to_float(code)) * inv_scale_) +
         static_cast<double>(rest_[k]);
}

std::uint16_t Storage16::encode_exact(int k, double f) const {
  const auto x = static_cast<float>((f - static_cast<double>(rest_[k])) * static_cast<double>(scale_));
  return ieee_ ? float_to_half(x) : float_to_fp16c(x);
}

void Storage16::encode_planes(const double* f, std::size_t count, std::uint16_t* codes) const {
  const std::size_t plane = count / kSpeeds;
  for (std::size_t i = 0; i < count; ++i) codes[i] = encode_exact(static_cast<int>(i / plane), f[i]);
}

void Storage16::decode_planes(const std::uint16_t* codes, std::size_t count, double* f) const {
  const std::size_t plane = count / kSpeeds;
  for (std::size_t i = 0; i < count; ++i) f[i] = decode(static_cast<int>(i / plane), codes[i]);
}

}  // namespace d2q9
