// Scalar reference of the rounding: one value at a time, written for clarity. The AVX2 kernels in
// format_array.cc compute the same steps on eight lanes and are tested against this bit for bit.
#include <algorithm>
#include <bit>

#include "npugap/numerics/format.h"
#include "rounding_core.h"

namespace npugap::numerics {
namespace detail {

uint32_t RoundMagnitude(const FormatParams& p, uint32_t a, Rounding rounding, uint32_t random) {
  const int exp_field = static_cast<int>(a >> 23);
  const int exp_eff = std::max(exp_field, 1);  // float32 subnormals share exponent field 1's scale
  const uint32_t sig = (a & 0x7fffffu) | (exp_field != 0 ? 0x800000u : 0u);
  const int below = std::max(p.min_normal_biased - exp_eff, 0);  // binades below the normal range
  const bool tapered = p.hif8 && below == 0;
  const int m = tapered ? HiF8MantissaBits(exp_eff - 127) : p.mantissa_bits;
  // Beyond 31 dropped bits every value here rounds like one 2^31 units below: only stochastic
  // rounding of values far under the smallest subnormal sees the difference (docs/numerics.md).
  const int d = std::min(23 - m + below, 31);
  uint32_t kept = sig >> d;
  const uint32_t rem = sig & ((1u << d) - 1u), half = 1u << (d - 1);
  // "Even" is the last bit of the encoding. With 0 mantissa bits (HiF8's denormal binades) that
  // bit is the parity of the code 2^e -> e + 23, i.e. of the exponent field.
  const uint32_t odd = (tapered && m == 0) ? (static_cast<uint32_t>(exp_field) & 1u) : (kept & 1u);
  bool up = false;
  switch (rounding) {
    case Rounding::kNearestEven:
      up = rem > half || (rem == half && odd);
      break;
    case Rounding::kTowardZero:
      up = false;
      break;
    case Rounding::kHalfAway:
      up = rem >= half;
      break;
    case Rounding::kStochastic:
      up = (random & ((1u << d) - 1u)) < rem;
      break;
  }
  kept += up ? 1u : 0u;
  // In the normal range the implicit bit sits at bit 23 of kept << d, so adding the exponent minus
  // one rebuilds the pattern (a carry out of the significand bumps the exponent). Below it the
  // result is kept units of the fixed quantum.
  if (below == 0) return (static_cast<uint32_t>(exp_eff - 1) << 23) + (kept << d);
  return std::bit_cast<uint32_t>(static_cast<float>(kept) * p.subnormal_quantum);
}

uint32_t NanResult(const FormatParams& p, uint32_t bits) {
  if (!p.nan_keeps_payload) return (p.nan_keeps_sign ? bits & 0x80000000u : 0u) | p.nan_canonical;
  const int d = 23 - p.mantissa_bits;
  uint32_t v = bits & ~((1u << d) - 1u);
  if ((v & 0x7fffffu) == 0) v |= 1u << d;  // the payload did not fit: keep it a NaN
  return v;
}

}  // namespace detail

float RoundScalar(Format f, float x, const RoundingOptions& opt, uint64_t index, RoundStats* stats) {
  const detail::FormatParams& p = detail::Params(f);
  RoundStats local;
  RoundStats& s = stats ? *stats : local;
  const bool saturate = opt.overflow == Overflow::kSaturation;
  const uint32_t u = std::bit_cast<uint32_t>(x);
  const uint32_t sign = u & 0x80000000u, a = u & 0x7fffffffu;
  if (a > 0x7f800000u) {  // NaN
    if (saturate) {
      ++s.saturated;
      return 0.0f;
    }
    ++s.inf_nan;
    return std::bit_cast<float>(detail::NanResult(p, u));
  }
  if (a == 0x7f800000u) {  // infinity
    if (saturate) {
      ++s.saturated;
      return std::bit_cast<float>(sign | p.max_bits);
    }
    ++s.inf_nan;
    return std::bit_cast<float>(p.has_inf ? u : sign | p.nan_canonical);
  }
  uint32_t r = a;
  if (f != Format::kFP32) {
    const uint32_t random =
        opt.rounding == Rounding::kStochastic ? detail::StochasticBits(opt.seed, index) : 0;
    r = detail::RoundMagnitude(p, a, opt.rounding, random);
  }
  if (r > p.max_bits) {
    ++s.overflow;
    if (saturate) {
      ++s.saturated;
      r = p.max_bits;
    } else if (opt.rounding == Rounding::kTowardZero) {
      r = p.max_bits;  // IEEE 754: toward zero carries overflow to the largest finite value
    } else {
      ++s.inf_nan;
      r = p.has_inf ? 0x7f800000u : p.nan_canonical;
    }
  } else if (opt.subnormals == Subnormals::kFlush && r < p.min_normal_bits) {
    r = 0;
  }
  if (r == 0 && a != 0) ++s.flushed;
  if (r == 0 && !p.signed_zero) return 0.0f;
  return std::bit_cast<float>(sign | r);
}

}  // namespace npugap::numerics
