// The finite cube accumulator model (include/npugap/numerics/cube_accumulator.h).
#include "npugap/numerics/cube_accumulator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace npugap::numerics {

namespace {

// Biased binary exponent of a double (0 for zero and subnormals, 2047 for inf / NaN).
int BiasedExponent(double v) { return static_cast<int>((std::bit_cast<uint64_t>(v) >> 52) & 0x7ff); }

}  // namespace

// Bit operations rather than ilogb / ldexp: this runs once per product of every emulated cube op.
double AlignedFractalSum(std::span<const double> products, int fraction_bits) {
  int max_biased = 0;
  double plain = 0.0;
  for (double p : products) {
    plain += p;
    max_biased = std::max(max_biased, BiasedExponent(p));
  }
  // inf / NaN products propagate as they would through any adder; all-zero fractals add nothing.
  if (!std::isfinite(plain) || max_biased == 0) return plain;
  // Terms are multiples of 2^(max_exp - fraction_bits) after alignment: scale, truncate, sum.
  const int shift = fraction_bits - (max_biased - 1023);
  if (shift < -1022 || shift > 1023) {  // far outside float products' range; kept for safety
    double sum = 0.0;
    for (double p : products) sum += std::trunc(std::ldexp(p, shift));
    return std::ldexp(sum, -shift);
  }
  const double up = std::bit_cast<double>(static_cast<uint64_t>(shift + 1023) << 52);
  const double down = 1.0 / up;  // exact: a power of two
  double sum = 0.0;
  for (double p : products) sum += std::trunc(p * up);
  return sum * down;
}

void CubeAccumulator::EndFractal() {
  if (count_ == 0) return;
  const double s = AlignedFractalSum({pending_, static_cast<size_t>(count_)}, bits_);
  count_ = 0;
  // One FP32 add (RNE). Via double: exact when acc_ and s are within 29 binades of each other,
  // else a double rounding is possible (assumed negligible, documented in docs/precision.md).
  acc_ = static_cast<float>(static_cast<double>(acc_) + s);
}

}  // namespace npugap::numerics
