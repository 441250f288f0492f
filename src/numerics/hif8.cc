// HiFloat8 bit patterns (arXiv 2409.16626, "Ascend HiFloat8 Format for Deep Learning").
//
//   bit 7      sign
//   bits 6..   Dot, a prefix code giving D, the width of the exponent field:
//                11 -> D=4, 10 -> D=3, 01 -> D=2, 001 -> D=1, 0001 -> D=0, 0000 -> denormal
//   then       D exponent bits, sign-magnitude with an implicit leading 1 in the magnitude:
//                the first bit is the exponent's sign (1: negative), the other D-1 bits follow the
//                implicit 1, so |E| in [2^(D-1), 2^D - 1]; D=0 means E=0
//   then       the mantissa: 3 bits for D=0..2, 2 for D=3, 1 for D=4 (7 bits minus Dot minus D)
//   denormal   the 3 low bits M give 2^(M-23) for M=1..7; M=0 is zero (sign 0) or NaN (sign 1)
//   infinity   D=4, E=+15, mantissa 1 (0x6f / 0xef); so the largest finite value is 2^15
//
// Field widths and ranges: ascend-facts.md §2.6 ([3RD] draft-spec mirror, [DER] widths). The prefix
// code values, the denormal mapping, zero / NaN / infinity patterns are not in the notes; they are
// taken to agree with CANN's public conversion code (hicann/ge base/common/math/hif8_t.cc), which
// this file follows in layout only. docs/numerics.md lists these assumptions.
#include <bit>
#include <cmath>
#include <limits>

#include "rounding_core.h"

namespace npugap::numerics::detail {
namespace {

constexpr uint8_t kSign = 0x80, kInf = 0x6f, kNaN = 0x80;

int MantissaWidthForDot(int dot) { return dot <= 2 ? 3 : (dot == 3 ? 2 : 1); }

}  // namespace

float HiF8Value(uint8_t code) {
  if (code == kNaN) return std::numeric_limits<float>::quiet_NaN();
  const float sign = (code & kSign) ? -1.0f : 1.0f;
  if ((code & 0x7f) == kInf) return sign * std::numeric_limits<float>::infinity();
  const int top4 = (code >> 3) & 0xf;
  if (top4 == 0) {  // denormal
    const int m = code & 7;
    return m == 0 ? 0.0f : sign * std::ldexp(1.0f, m - 23);
  }
  // Dot from the prefix: 0001 -> 0, 001x -> 1, 01xx -> 2, 10xx -> 3, 11xx -> 4.
  const int dot = top4 == 1 ? 0 : (top4 < 4 ? 1 : (top4 < 8 ? 2 : (top4 < 12 ? 3 : 4)));
  const int width = MantissaWidthForDot(dot);
  const int mantissa = code & ((1 << width) - 1);
  int e = 0;
  if (dot > 0) {
    const int field = (code >> width) & ((1 << dot) - 1);
    const int magnitude = (1 << (dot - 1)) | (field & ((1 << (dot - 1)) - 1));
    e = (field >> (dot - 1)) ? -magnitude : magnitude;
  }
  return sign * std::ldexp(1.0f + static_cast<float>(mantissa) / static_cast<float>(1 << width), e);
}

uint8_t HiF8Code(float value) {
  if (std::isnan(value)) return kNaN;
  const uint8_t sign = std::signbit(value) ? kSign : 0;
  if (std::isinf(value)) return sign | kInf;
  if (value == 0.0f) return 0;  // one zero
  const uint32_t a = std::bit_cast<uint32_t>(value) & 0x7fffffffu;
  const int e = static_cast<int>(a >> 23) - 127;
  if (e < -15) return sign | static_cast<uint8_t>(e + 23);  // denormal 2^e, e in [-22, -16]
  const int mag = e < 0 ? -e : e;
  const int dot = std::bit_width(static_cast<unsigned>(mag));
  const int width = MantissaWidthForDot(dot);
  const int mantissa = static_cast<int>((a & 0x7fffffu) >> (23 - width));
  static constexpr uint8_t kDotPrefix[] = {0x08, 0x10, 0x20, 0x40, 0x60};
  int field = 0;
  if (dot > 0) field = ((e < 0 ? 1 : 0) << (dot - 1)) | (mag - (1 << (dot - 1)));
  return sign | kDotPrefix[dot] | static_cast<uint8_t>(field << width) | static_cast<uint8_t>(mantissa);
}

}  // namespace npugap::numerics::detail
