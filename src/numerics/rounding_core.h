// Internal: the parameters of each format as the rounding code sees them, and the counter-based
// random bits of stochastic rounding. Shared by the scalar reference (format_scalar.cc) and the
// AVX2 kernels (format_array.cc) so both compute the same thing from the same constants.
//
// Rounding works on the float32 bit pattern: the significand (with its implicit bit) is shifted
// right by d bits, rounded by the chosen rule, and shifted back. d = 23 - m for values in the
// format's normal range (m = stored mantissa bits) and grows by one per binade below the smallest
// normal exponent, which gives the fixed subnormal quantum 2^(emin - m). The exponent is not
// bounded above here: overflow is detected afterwards by comparing with the largest finite value.
#pragma once

#include <cstdint>
#include <type_traits>

#include "npugap/numerics/format.h"

namespace npugap::numerics::detail {

struct FormatParams {
  int mantissa_bits;         // m; HiF8: 0, the width below 2^-22 (per binade: HiF8MantissaBits)
  int min_normal_biased;     // emin + 127: below it the quantum stays 2^(emin - m)
  uint32_t max_bits;         // float32 pattern of the largest finite value
  uint32_t min_normal_bits;  // float32 pattern of the smallest normal value (flush threshold)
  float subnormal_quantum;   // 2^(emin - m): value of one unit below the normal range
  bool has_inf;
  bool signed_zero;  // HiF8 has one zero: -0 reads back as +0
  // NaN outputs: payload formats keep the sign and the payload bits that fit (low d bits cleared,
  // made non-zero again if that emptied it), like NumPy's float16 cast; the others give one NaN.
  bool nan_keeps_payload;
  uint32_t nan_canonical;  // used when !nan_keeps_payload (sign added if nan_keeps_sign)
  bool nan_keeps_sign;
  bool hif8;  // tapered: mantissa width depends on the exponent
};

const FormatParams& Params(Format f);

// Rounds a finite non-negative float32 pattern onto the format's grid, exponent unbounded above;
// returns the float32 pattern of the result. `random` is used by stochastic rounding only.
uint32_t RoundMagnitude(const FormatParams& p, uint32_t magnitude, Rounding rounding, uint32_t random);
// The NaN a NaN input becomes (see nan_keeps_payload).
uint32_t NanResult(const FormatParams& p, uint32_t bits);

// HiFloat8 bit patterns (hif8.cc). HiF8Code takes a value already on the HiF8 grid (or inf/NaN).
float HiF8Value(uint8_t code);
uint8_t HiF8Code(float value);
// The pattern of a value RoundScalar returned for format f (no rounding happens here).
uint32_t CodeOfRounded(Format f, float rounded);

// HiFloat8 mantissa width by unbiased float32 exponent e (arXiv 2409.16626 via the field widths in
// the research notes, ascend-facts.md §2.6): |e| <= 3: 3 bits, 4..7: 2, 8..15: 1; the denormal
// binades 2^-16 .. 2^-22 hold one value each (0 bits). Exponents above 15 use 1 bit: such values
// overflow anyway, and rounding them in the top binade's grid keeps the overflow test uniform.
inline int HiF8MantissaBits(int e) {
  const int mag = e < 0 ? -e : e;
  if (mag <= 3) return 3;
  if (mag <= 7) return 2;
  if (mag <= 15) return 1;
  return e > 0 ? 1 : 0;
}

// Counter-based random bits for stochastic rounding: a function of (seed, index) only, so scalar
// and vector code and any chunking of an array agree. murmur3's 32-bit finaliser, applied twice to
// fold in the high half of the index; statistical quality is ample for rounding, not cryptographic.
inline uint32_t Fmix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}
inline uint32_t StochasticBits(uint64_t seed, uint64_t index) {
  const uint32_t lo = static_cast<uint32_t>(index), hi = static_cast<uint32_t>(index >> 32);
  const uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
  return Fmix32(Fmix32(lo ^ k0) ^ (hi * 0x9e3779b9u + k1));
}

// body(std::integral_constant<Rounding, R>{}) for the rule r: the kernels take the rule as a
// template parameter, so each gets a loop without a per-element switch.
template <typename Body>
decltype(auto) WithRounding(Rounding r, Body&& body) {
  switch (r) {
    case Rounding::kTowardZero:
      return body(std::integral_constant<Rounding, Rounding::kTowardZero>{});
    case Rounding::kHalfAway:
      return body(std::integral_constant<Rounding, Rounding::kHalfAway>{});
    case Rounding::kStochastic:
      return body(std::integral_constant<Rounding, Rounding::kStochastic>{});
    case Rounding::kNearestEven:
      break;
  }
  return body(std::integral_constant<Rounding, Rounding::kNearestEven>{});
}

// Which magnitude rounding an array kernel uses: the generic shift, HiF8's tapered one, none (fp32)
// or the CPU's own float -> half -> float (fp16 under RNE). Both instruction sets use this split.
enum class KernelKind { kGeneric, kHiF8, kIdentity, kHalfF16C };
template <KernelKind K>
using KindConstant = std::integral_constant<KernelKind, K>;

// body(kind, rule, options) with the kind and rule as integral constants, for format f: fp32 has
// nothing to round, so one instantiation (RNE) serves every rule.
template <typename Body>
decltype(auto) WithKernel(Format f, const RoundingOptions& opt, Body&& body) {
  using Rne = std::integral_constant<Rounding, Rounding::kNearestEven>;
  if (f == Format::kFP32) {
    RoundingOptions fixed = opt;
    fixed.rounding = Rounding::kNearestEven;
    return body(KindConstant<KernelKind::kIdentity>{}, Rne{}, fixed);
  }
  if (f == Format::kFP16 && opt.rounding == Rounding::kNearestEven)
    return body(KindConstant<KernelKind::kHalfF16C>{}, Rne{}, opt);
  if (f == Format::kHiF8)
    return WithRounding(opt.rounding,
                        [&](auto rule) { return body(KindConstant<KernelKind::kHiF8>{}, rule, opt); });
  return WithRounding(opt.rounding,
                      [&](auto rule) { return body(KindConstant<KernelKind::kGeneric>{}, rule, opt); });
}

}  // namespace npugap::numerics::detail
