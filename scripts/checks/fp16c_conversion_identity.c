/* The kernels' fp16c conversions (cl/d2q9_bgk.cl, encode16 / decode16) use
 * float arithmetic where integer conversions were: below 2^-14 the encoder
 * rounds a * 2^25 to an integer by adding 2^23 (fma), the decoder rebuilds
 * m * 2^-25 as (2^23 + m) * 2^-25 - 2^-2 (fma). This checks both against
 * the conversions they replaced (convert_uint_rte, (float)m) for every float
 * and every code, in C with the kernels' operations (no contraction).
 *   cc -O2 -ffp-contract=off scripts/checks/fp16c_conversion_identity.c -lm && ./a.out
 * (about 10 s; prints "mismatches: 0") */
#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t as_uint(float x) { uint32_t u; memcpy(&u, &x, 4); return u; }
static float as_float(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t umin(uint32_t a, uint32_t b) { return a < b ? a : b; }
static uint32_t normal_code(float a) {
  const uint32_t v = as_uint(a) - (112u << 23);
  return umin((v + 0x7ffu + ((v >> 12) & 1u)) >> 12, 0x7fffu);
}
static uint16_t encode_before(float x) {
  const float a = fabsf(x);
  const uint32_t linear = a < 0x1p-14f ? (uint32_t)nearbyintf(a * 0x1p25f) : 0; /* convert_uint_rte */
  return (uint16_t)(((as_uint(x) >> 16) & 0x8000u) | (a < 0x1p-14f ? linear : normal_code(a)));
}
static uint16_t encode_now(float x) {
  const float a = fabsf(x);
  const uint32_t linear = as_uint(fmaf(a, 0x1p25f, 0x1p23f)) - 0x4b000000u;
  return (uint16_t)(((as_uint(x) >> 16) & 0x8000u) | (a < 0x1p-14f ? linear : normal_code(a)));
}
static float decode_before(uint16_t code) {
  const uint32_t m = code & 0x7fffu;
  const float a = m < 2048u ? (float)m * 0x1p-25f : as_float((m << 12) + (112u << 23));
  return (code & 0x8000u) ? -a : a;
}
static float decode_now(uint16_t code) {
  const uint32_t m = code & 0x7fffu;
  const float linear = fmaf(as_float(m | 0x4b000000u), 0x1p-25f, -0x1p-2f);
  const float a = m < 2048u ? linear : as_float((m << 12) + (112u << 23));
  return (code & 0x8000u) ? -a : a;
}
int main(void) {
  fesetround(FE_TONEAREST);
  unsigned long bad = 0;
  for (uint64_t u = 0; u <= 0xffffffffull; ++u) {
    const float x = as_float((uint32_t)u);
    if (encode_before(x) != encode_now(x) && bad++ < 5) printf("encode 0x%08x\n", (unsigned)u);
  }
  for (uint32_t c = 0; c < 65536; ++c)
    if (as_uint(decode_before((uint16_t)c)) != as_uint(decode_now((uint16_t)c)) && bad++ < 10) printf("decode 0x%04x\n", c);
  printf("mismatches: %lu\n", bad);
  return bad != 0;
}
