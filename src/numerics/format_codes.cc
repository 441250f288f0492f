// Bit patterns of every format: Encode = the pattern of the rounded value, Decode its inverse.
#include <bit>
#include <cmath>

#include "npugap/numerics/format.h"
#include "npugap/numerics/half.h"
#include "rounding_core.h"

namespace npugap::numerics {
namespace {

// Pattern of a value that is exactly representable in binary16 (or is inf / a NaN whose payload
// fits, as NanResult makes it): no rounding happens here. NaN keeps its payload unquieted, as in
// NumPy's float16 cast.
uint16_t ExactHalfCode(float y) {
  const uint32_t u = std::bit_cast<uint32_t>(y);
  const auto sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | ((a & 0x7fffffu) >> 13));
  if (a < 0x38800000u)  // subnormal: units of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(std::bit_cast<float>(a), 24)));
  return static_cast<uint16_t>(sign | ((a - 0x38000000u) >> 13));
}

// OCP E4M3: bias 7, exponent 15 with mantissa 7 is the only NaN, no infinity.
uint8_t ExactE4M3Code(float y) {
  const uint32_t u = std::bit_cast<uint32_t>(y);
  const auto sign = static_cast<uint8_t>((u >> 24) & 0x80u);
  const uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return sign | 0x7f;
  if (a < 0x3c800000u) return sign | static_cast<uint8_t>(std::ldexp(std::bit_cast<float>(a), 9));
  return sign | static_cast<uint8_t>((a - 0x3c000000u) >> 20);
}

float E4M3Value(uint8_t b) {
  const float sign = (b & 0x80) ? -1.0f : 1.0f;
  const int exp = (b >> 3) & 0xf, man = b & 7;
  if (exp == 15 && man == 7) return std::bit_cast<float>((b & 0x80u) << 24 | 0x7fc00000u);
  if (exp == 0) return sign * std::ldexp(static_cast<float>(man), -9);
  return sign * std::ldexp(1.0f + static_cast<float>(man) / 8.0f, exp - 7);
}

}  // namespace

namespace detail {
uint32_t CodeOfRounded(Format f, float y) {
  switch (f) {
    case Format::kFP32:
    case Format::kHF32:
      return std::bit_cast<uint32_t>(y);
    case Format::kFP16:
      return ExactHalfCode(y);
    case Format::kBF16:
      return std::bit_cast<uint32_t>(y) >> 16;
    case Format::kFP8E4M3:
      return ExactE4M3Code(y);
    case Format::kFP8E5M2:
      return ExactHalfCode(y) >> 8;  // E5M2 is binary16's top byte
    case Format::kHiF8:
      return HiF8Code(y);
  }
  return 0;
}
}  // namespace detail

uint32_t Encode(Format f, float x, const RoundingOptions& opt, uint64_t index) {
  return detail::CodeOfRounded(f, RoundScalar(f, x, opt, index));
}

float Decode(Format f, uint32_t bits) {
  switch (f) {
    case Format::kFP32:
    case Format::kHF32:
      return std::bit_cast<float>(bits);
    case Format::kFP16:
      return HalfToFloat(static_cast<uint16_t>(bits));
    case Format::kBF16:
      return BFloat16ToFloat(static_cast<uint16_t>(bits));
    case Format::kFP8E4M3:
      return E4M3Value(static_cast<uint8_t>(bits));
    case Format::kFP8E5M2:
      return HalfToFloat(static_cast<uint16_t>((bits & 0xffu) << 8));
    case Format::kHiF8:
      return detail::HiF8Value(static_cast<uint8_t>(bits));
  }
  return 0.0f;
}

}  // namespace npugap::numerics
