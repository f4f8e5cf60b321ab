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

namespace {

// Where a scale puts its problem's magnitude (density; the temperature's
// bound), 2^top, below half's largest value (65504) and fp16c's saturation (2).
int top_exponent(Precision format) { return format == Precision::Fp16s ? 14 : 0; }

}  // namespace

std::optional<ThermalCodes> thermal_codes(Precision format, const Params& params) {
  const Extensions& x = params.extensions;
  if (!x.heat || !is_16bit(format)) return std::nullopt;
  double t0 = static_cast<float>(x.initial_temperature);
  // How far T gets from T0: walls held at a temperature and inlets bound it
  // (advection-diffusion's maximum principle); a heat flux's rise is taken
  // as the problem's temperature difference.
  double reach = 0.0;
  for (const ThermalWall& w : x.thermal_walls) {
    if (w.kind == ThermalWall::Kind::Temperature) reach = std::max(reach, std::fabs(w.value - t0));
    if (w.kind == ThermalWall::Kind::HeatFlux) reach = std::max(reach, x.temperature_difference);
  }
  for (const OpenBoundary& b : x.open_boundaries)
    if (b.inlet()) reach = std::max(reach, std::fabs(b.temperature - t0));
  // At equilibrium |h_k - w_k T0| <= w_k |T - T0| + 3 w_k |T| |u|, below
  // bound / 2 at any |u| < 1: codes stay a binade under the top.
  const double bound = 2.0 * reach + std::fabs(t0);
  // A T0 of no weight beside the range is 0, so that decode()'s sums stay exact in a double.
  if (std::fabs(t0) < std::ldexp(bound, -24)) t0 = 0.0;
  const int exponent = bound > 0.0 ? top_exponent(format) - static_cast<int>(std::ceil(std::log2(bound))) : 0;
  return ThermalCodes{t0, std::ldexp(1.0, std::clamp(exponent, -100, 100))};  // a float's power of two, both ways
}

Storage16::Storage16(Precision format, double density, const std::optional<ThermalCodes>& thermal)
    : ieee_(format == Precision::Fp16s), thermal_(thermal) {
  if (!is_16bit(format)) throw std::invalid_argument("Storage16: not a 16-bit format");
  const int exponent = top_exponent(format) - static_cast<int>(std::lround(std::log2(density)));
  // The same float operations as rest_value() in the kernels.
  const float w[kSpeeds] = {4.0f / 9.0f, 1.0f / 9.0f,  1.0f / 9.0f,  1.0f / 9.0f, 1.0f / 9.0f,
                            1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f, 1.0f / 36.0f};
  for (int k = 0; k < kSpeeds; ++k) {
    rest_[k] = w[k] * static_cast<float>(density);
    scale_[k] = std::ldexp(1.0f, exponent);
    inv_scale_[k] = std::ldexp(1.0f, -exponent);
  }
  if (!thermal_) return;
  for (int k = 0; k < kHeatSpeeds; ++k) {
    const float wt = k == 0 ? 1.0f / 3.0f : 1.0f / 6.0f;  // D2Q5's, as heat.cl's WT0 and WT1
    rest_[kSpeeds + k] = wt * static_cast<float>(thermal_->rest_temperature);
    scale_[kSpeeds + k] = static_cast<float>(thermal_->scale);
    inv_scale_[kSpeeds + k] = static_cast<float>(1.0 / thermal_->scale);
  }
}

Storage16::Storage16(Precision format, const Params& params)
    : Storage16(format, params.density, thermal_codes(format, params)) {}

std::uint16_t Storage16::encode(int k, float f) const { return code_of(k, (f - rest_[k]) * scale_[k]); }

std::uint16_t Storage16::code_of(int k, float x) const {
  if (!ieee_) return float_to_fp16c(x);
  // The temperature's codes saturate in half too (lattice.cl: to_code_scale).
  return float_to_half(k >= kSpeeds ? std::fmin(std::fmax(x, -65504.0f), 65504.0f) : x);
}

double Storage16::decode(int k, std::uint16_t code) const {
  // An 11-bit value times a power of two, plus a float: exact in a double.
  return static_cast<double>((ieee_ ? half_to_float(code) : fp16c_to_float(code)) * inv_scale_[k]) +
         static_cast<double>(rest_[k]);
}

std::uint16_t Storage16::encode_exact(int k, double f) const {
  return code_of(k, static_cast<float>((f - static_cast<double>(rest_[k])) * static_cast<double>(scale_[k])));
}

void Storage16::encode_planes(const double* f, std::size_t count, std::uint16_t* codes) const {
  const std::size_t plane = count / planes();
  for (std::size_t i = 0; i < count; ++i) codes[i] = encode_exact(static_cast<int>(i / plane), f[i]);
}

void Storage16::decode_planes(const std::uint16_t* codes, std::size_t count, double* f) const {
  const std::size_t plane = count / planes();
  for (std::size_t i = 0; i < count; ++i) f[i] = decode(static_cast<int>(i / plane), codes[i]);
}

}  // namespace d2q9
