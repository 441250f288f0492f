// Scalar conversions between float32 and the 16-bit formats (IEEE binary16, bfloat16),
// round-to-nearest-even, NaN preserved as quiet NaN. The vectorised array versions and the
// other formats of the precision emulator build on these as their scalar reference.
#pragma once

#include <bit>
#include <cstdint>

namespace npugap::numerics {

float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);

inline float BFloat16ToFloat(uint16_t b) { return std::bit_cast<float>(static_cast<uint32_t>(b) << 16); }
inline uint16_t FloatToBFloat16(float f) {
  uint32_t u = std::bit_cast<uint32_t>(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40u);  // quiet NaN
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<uint16_t>(u >> 16);
}

}  // namespace npugap::numerics
