// Internal: the rounding of sixteen float32 lanes in AVX-512 registers, shared by the in-place
// kernel (format_array_avx512.cc) and the 16-bit packing (format_pack_avx512.cc). Only those two
// files include it; they are called only where the CPU has AVX-512 F/BW/VL/DQ/BF16
// (array_kernels.h).
//
// Each step mirrors format_array.cc's AVX2 Round and detail::RoundMagnitude on sixteen lanes, with
// mask registers where AVX2 needs compare-and-blend. What differs is the split of the work: a lane
// is computed here only when it is "usual" (finite in, finite out, no event to count), and a group
// holding an unusual lane is handed back whole to the AVX2 kernel, whose Finish is the one place
// that handles NaN, inf, overflow, flushed values and the counts. So every counted event and every
// special value comes out of the code the scalar reference already pins.
#pragma once

// GCC 12 warns about the self-initialised _mm512_undefined_* inside its own AVX-512 intrinsics
// (GCC bug 105593, fixed in GCC 13); the warnings say nothing about this code. Only the two
// AVX-512 files include this header, so the switch stays in them.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <immintrin.h>

#include "npugap/numerics/format.h"
#include "rounding_core.h"

// The target pragma comes after every include: standard-library and project inline functions keep
// the baseline (x86-64-v3) code, so no AVX-512 copy of them can be picked by the linker for a caller
// that runs on a CPU without AVX-512.
#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

namespace npugap::numerics::avx512 {

using detail::FormatParams;

using Kind = detail::KernelKind;

inline __m512i Set(uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }

inline __m512i Fmix32(__m512i h) {
  h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
  h = _mm512_mullo_epi32(h, Set(0x85ebca6bu));
  h = _mm512_xor_si512(h, _mm512_srli_epi32(h, 13));
  h = _mm512_mullo_epi32(h, Set(0xc2b2ae35u));
  return _mm512_xor_si512(h, _mm512_srli_epi32(h, 16));
}

// detail::StochasticBits for indices first .. first + 15.
inline __m512i StochasticBits(uint64_t seed, uint64_t first) {
  const __m512i base_lo = Set(static_cast<uint32_t>(first));
  const __m512i lo =
      _mm512_add_epi32(base_lo, _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  const __mmask16 wrapped = _mm512_cmplt_epu32_mask(lo, base_lo);  // the low half wrapped: carry one
  const __m512i base_hi = Set(static_cast<uint32_t>(first >> 32));
  const __m512i hi = _mm512_mask_add_epi32(base_hi, wrapped, base_hi, Set(1));
  const __m512i h1 = Fmix32(_mm512_xor_si512(lo, Set(static_cast<uint32_t>(seed))));
  const __m512i mix =
      _mm512_add_epi32(_mm512_mullo_epi32(hi, Set(0x9e3779b9u)), Set(static_cast<uint32_t>(seed >> 32)));
  return Fmix32(_mm512_xor_si512(h1, mix));
}

// detail::HiF8MantissaBits per lane from the biased exponent; 0 where `tapered` is clear.
inline __m512i HiF8Width(__m512i exp_eff, __mmask16 tapered) {
  const __m512i e = _mm512_sub_epi32(exp_eff, Set(127));
  const __m512i mag = _mm512_abs_epi32(e);
  const __m512i one = Set(1);
  __m512i m = one;
  m = _mm512_mask_add_epi32(m, _mm512_cmplt_epi32_mask(mag, Set(8)), m, one);  // |e| <= 7: 2
  m = _mm512_mask_add_epi32(m, _mm512_cmplt_epi32_mask(mag, Set(4)), m, one);  // |e| <= 3: 3
  const __mmask16 denormal = _mm512_cmpgt_epi32_mask(mag, Set(15)) & _mm512_cmplt_epi32_mask(e, Set(0));
  return _mm512_maskz_mov_epi32(static_cast<__mmask16>(tapered & ~denormal), m);  // e <= -16: 0
}

// detail::RoundMagnitude on sixteen lanes: exact for every finite magnitude, the slow general path.
template <Rounding R, bool kHiF8>
__m512i FullMagnitude(const FormatParams& p, __m512i a, __m512i random) {
  const __m512i zero = _mm512_setzero_si512();
  const __m512i exp_field = _mm512_srli_epi32(a, 23);
  const __m512i exp_eff = _mm512_max_epi32(exp_field, Set(1));
  const __m512i implicit =
      _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(exp_field, exp_field), Set(0x800000u));
  const __m512i sig = _mm512_or_si512(_mm512_and_si512(a, Set(0x7fffffu)), implicit);
  const __m512i below = _mm512_max_epi32(_mm512_sub_epi32(Set(p.min_normal_biased), exp_eff), zero);
  const __mmask16 in_normal = _mm512_testn_epi32_mask(below, below);
  __m512i m = Set(p.mantissa_bits);
  if constexpr (kHiF8) m = HiF8Width(exp_eff, in_normal);
  const __m512i d = _mm512_min_epi32(_mm512_add_epi32(_mm512_sub_epi32(Set(23), m), below), Set(31));
  __m512i kept = _mm512_srlv_epi32(sig, d);
  const __m512i unit = _mm512_sllv_epi32(Set(1), d);
  const __m512i low_mask = _mm512_sub_epi32(unit, Set(1));
  const __m512i rem = _mm512_and_si512(sig, low_mask);
  const __m512i half = _mm512_srli_epi32(unit, 1);
  __mmask16 up;
  if constexpr (R == Rounding::kNearestEven) {
    __m512i odd = _mm512_and_si512(kept, Set(1));
    if constexpr (kHiF8) {
      const __mmask16 zero_width = in_normal & _mm512_testn_epi32_mask(m, m);
      odd = _mm512_mask_mov_epi32(odd, zero_width, _mm512_and_si512(exp_field, Set(1)));
    }
    up = _mm512_cmpgt_epu32_mask(rem, half) |
         (_mm512_cmpeq_epi32_mask(rem, half) & _mm512_test_epi32_mask(odd, odd));
  } else if constexpr (R == Rounding::kTowardZero) {
    up = 0;
  } else if constexpr (R == Rounding::kHalfAway) {
    up = _mm512_cmpge_epu32_mask(rem, half);
  } else {
    up = _mm512_cmpgt_epu32_mask(rem, _mm512_and_si512(random, low_mask));
  }
  kept = _mm512_mask_add_epi32(kept, up, kept, Set(1));
  const __m512i normal =
      _mm512_add_epi32(_mm512_slli_epi32(_mm512_sub_epi32(exp_eff, Set(1)), 23), _mm512_sllv_epi32(kept, d));
  if (in_normal == 0xffff) return normal;
  const __m512i sub =
      _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(kept), _mm512_set1_ps(p.subnormal_quantum)));
  return _mm512_mask_mov_epi32(sub, in_normal, normal);
}

// format_array.cc's RoundNormalRange: rounding on the whole float32 pattern, exact for magnitudes
// at or above the format's smallest normal exponent; `mask` holds the d dropped bits.
template <Rounding R>
__m512i RoundNormalRange(__m512i a, __m512i d, __m512i mask, __m512i random) {
  __m512i add;
  if constexpr (R == Rounding::kNearestEven)
    add = _mm512_add_epi32(_mm512_srli_epi32(mask, 1), _mm512_and_si512(_mm512_srlv_epi32(a, d), Set(1)));
  else if constexpr (R == Rounding::kTowardZero)
    add = _mm512_setzero_si512();
  else if constexpr (R == Rounding::kHalfAway)
    add = _mm512_add_epi32(_mm512_srli_epi32(mask, 1), Set(1));
  else
    add = _mm512_andnot_si512(random, mask);
  return _mm512_andnot_si512(mask, _mm512_add_epi32(a, add));
}

// The per-call constants of one kernel, in registers.
struct Setup {
  const FormatParams* p;
  __m512i d, mask;     // generic kind: dropped bits and their mask
  __m512i limit;       // max_bits - 1: see Rounded::check
  __m512i min_normal;  // flush threshold
  __m512i below;       // magnitudes under this pattern need FullMagnitude
  bool flush;          // subnormals flushed
  bool has_below;      // some magnitudes need FullMagnitude (not fp32, hf32, bf16: their grid
                       // reaches float32's own subnormals)
};

template <Kind K>
Setup MakeSetup(Format f, const RoundingOptions& opt) {
  const FormatParams& p = detail::Params(f);
  const uint32_t d = K == Kind::kGeneric ? static_cast<uint32_t>(23 - p.mantissa_bits) : 0;
  const bool has_below = (K == Kind::kGeneric || K == Kind::kHiF8) && p.min_normal_biased > 1;
  return {&p,
          Set(d),
          Set((1u << d) - 1u),
          Set(p.max_bits - 1),
          Set(p.min_normal_bits),
          Set(has_below ? static_cast<uint32_t>(p.min_normal_biased) << 23 : 0u),
          opt.subnormals == Subnormals::kFlush,
          has_below};
}

// Sixteen lanes rounded. `value` is the result of every usual lane. A lane is unusual (its result
// or its counts are the AVX2 Finish's business: NaN or inf in, overflow, a non-zero input that
// became zero, HiF8's -0) exactly where check > limit, unsigned: check = r - min(a, 1), so a zero
// result from a non-zero input wraps to 2^32 - 1, and r > max_bits stays above. An r of exactly
// max_bits is sent to the AVX2 path too, which only costs time. One compare of the group's
// largest check then replaces the four compares per vector a mask test needs; compares into mask
// registers all run on one execution port, which made them the kernel's limit.
struct Rounded {
  __m512i value, check;
};

template <Rounding R, Kind K, bool kFlush, bool kFull>
Rounded RoundLanes(const Setup& s, __m512i u, __m512i random) {
  const __m512i a = _mm512_and_si512(u, Set(0x7fffffffu));
  __m512i r;
  if constexpr (K == Kind::kIdentity) {
    r = a;
  } else if constexpr (K == Kind::kHalfF16C) {
    // The CPU's float -> half -> float (RNE, subnormals kept); overflow gives inf > max_bits.
    r = _mm512_castps_si512(_mm512_cvtph_ps(
        _mm512_cvtps_ph(_mm512_castsi512_ps(a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)));
  } else if constexpr (K == Kind::kHiF8) {
    const __m512i width = HiF8Width(_mm512_srli_epi32(a, 23), 0xffff);
    const __m512i d = _mm512_sub_epi32(Set(23), width);
    r = RoundNormalRange<R>(a, d, _mm512_sub_epi32(_mm512_sllv_epi32(Set(1), d), Set(1)), random);
  } else {
    r = RoundNormalRange<R>(a, s.d, s.mask, random);
  }
  if constexpr (kFull) {
    const __mmask16 low = _mm512_cmplt_epu32_mask(a, s.below);
    r = _mm512_mask_mov_epi32(r, low, FullMagnitude<R, K == Kind::kHiF8>(*s.p, a, random));
  }
  if constexpr (kFlush) r = _mm512_maskz_mov_epi32(_mm512_cmpge_epu32_mask(r, s.min_normal), r);
  // HiF8 has no -0: min(u, 1) is 1 for it, so a -0 in is unusual there, as format_array.cc has it.
  const __m512i nonzero = _mm512_min_epu32(K == Kind::kHiF8 ? u : a, Set(1));
  // sign of u | r: ternary-logic truth table (A & B) | C.
  return {_mm512_ternarylogic_epi32(u, Set(0x80000000u), r, 0xea), _mm512_sub_epi32(r, nonzero)};
}

template <Rounding R>
__m512i RandomFor(const RoundingOptions& opt, uint64_t index) {
  if constexpr (R == Rounding::kStochastic) return StochasticBits(opt.seed, index);
  return _mm512_setzero_si512();
}

// 64 lanes from `src` (stochastic indices first .. first + 63) rounded into out[]; false when a
// lane is unusual (then out[] is not to be used). kBelow: the format has magnitudes that need
// FullMagnitude; a group holding one (a rare event for activations: fp16 below 2^-14) is rounded
// again with it.
template <Rounding R, Kind K, bool kFlush, bool kBelow>
bool RoundGroup(const Setup& s, const float* src, uint64_t first, const RoundingOptions& opt,
                __m512i out[4]) {
  __m512i u[4], random[4];
  for (int k = 0; k < 4; ++k) {
    u[k] = _mm512_loadu_si512(src + 16 * k);
    random[k] = RandomFor<R>(opt, first + 16 * static_cast<uint64_t>(k));
  }
  bool full = false;
  if constexpr (kBelow) {
    const __m512i abs = Set(0x7fffffffu);
    const __m512i smallest =
        _mm512_min_epu32(_mm512_min_epu32(_mm512_and_si512(u[0], abs), _mm512_and_si512(u[1], abs)),
                         _mm512_min_epu32(_mm512_and_si512(u[2], abs), _mm512_and_si512(u[3], abs)));
    full = _mm512_cmplt_epu32_mask(smallest, s.below) != 0;
  }
  Rounded r[4];
  if (full) {
    for (int k = 0; k < 4; ++k) r[k] = RoundLanes<R, K, kFlush, true>(s, u[k], random[k]);
  } else {
    for (int k = 0; k < 4; ++k) r[k] = RoundLanes<R, K, kFlush, false>(s, u[k], random[k]);
  }
  const __m512i worst =
      _mm512_max_epu32(_mm512_max_epu32(r[0].check, r[1].check), _mm512_max_epu32(r[2].check, r[3].check));
  for (int k = 0; k < 4; ++k) out[k] = r[k].value;
  return _mm512_cmpgt_epu32_mask(worst, s.limit) == 0;
}

}  // namespace npugap::numerics::avx512

#pragma GCC pop_options
