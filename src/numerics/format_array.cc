// Array rounding, vectorised for AVX2 (the library is built with -march=x86-64-v3). Each step
// mirrors RoundScalar / detail::RoundMagnitude in format_scalar.cc on eight lanes; the tail of an
// array that does not fill a vector goes through the scalar code itself, so results never depend
// on where an array is split. tests/numerics/format_array_test.cc checks the two bit for bit.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "npugap/numerics/format.h"
#include "rounding_core.h"

namespace npugap::numerics {
namespace {

using detail::FormatParams;

__m256i Set(uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }

// Per-lane event counters; lanes hold at most kBlock / 8 counts before they are summed.
struct LaneCounts {
  __m256i overflow = _mm256_setzero_si256(), inf_nan = _mm256_setzero_si256(),
          saturated = _mm256_setzero_si256(), flushed = _mm256_setzero_si256();
};
int64_t Sum(__m256i v) {
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
  int64_t s = 0;
  for (int32_t x : lanes) s += x;
  return s;
}
void AddTo(RoundStats& s, const LaneCounts& c) {
  s.overflow += Sum(c.overflow);
  s.inf_nan += Sum(c.inf_nan);
  s.saturated += Sum(c.saturated);
  s.flushed += Sum(c.flushed);
}
// Masks are all-ones (-1) per true lane, so subtracting counts one.
void Count(__m256i& counter, __m256i mask) { counter = _mm256_sub_epi32(counter, mask); }

__m256i Fmix32(__m256i h) {
  h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
  h = _mm256_mullo_epi32(h, Set(0x85ebca6bu));
  h = _mm256_xor_si256(h, _mm256_srli_epi32(h, 13));
  h = _mm256_mullo_epi32(h, Set(0xc2b2ae35u));
  return _mm256_xor_si256(h, _mm256_srli_epi32(h, 16));
}
// detail::StochasticBits for indices first .. first + 7.
__m256i StochasticBits(uint64_t seed, uint64_t first) {
  const __m256i base_lo = Set(static_cast<uint32_t>(first));
  const __m256i lo = _mm256_add_epi32(base_lo, _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  // lo < base_lo (unsigned) where the low half wrapped: the high half carries one.
  const __m256i flip = Set(0x80000000u);
  const __m256i wrapped = _mm256_cmpgt_epi32(_mm256_xor_si256(base_lo, flip), _mm256_xor_si256(lo, flip));
  const __m256i hi = _mm256_sub_epi32(Set(static_cast<uint32_t>(first >> 32)), wrapped);
  const __m256i h1 = Fmix32(_mm256_xor_si256(lo, Set(static_cast<uint32_t>(seed))));
  const __m256i mix =
      _mm256_add_epi32(_mm256_mullo_epi32(hi, Set(0x9e3779b9u)), Set(static_cast<uint32_t>(seed >> 32)));
  return Fmix32(_mm256_xor_si256(h1, mix));
}

// HiF8's mantissa width per lane (detail::HiF8MantissaBits); 0 where the lane is below 2^-22.
__m256i HiF8Width(__m256i exp_eff, __m256i tapered) {
  const __m256i e = _mm256_sub_epi32(exp_eff, Set(127));
  const __m256i mag = _mm256_abs_epi32(e);
  __m256i m = Set(1);
  m = _mm256_sub_epi32(m, _mm256_cmpgt_epi32(Set(8), mag));  // |e| <= 7: 2
  m = _mm256_sub_epi32(m, _mm256_cmpgt_epi32(Set(4), mag));  // |e| <= 3: 3
  const __m256i denormal = _mm256_and_si256(_mm256_cmpgt_epi32(mag, Set(15)), _mm256_cmpgt_epi32(Set(0), e));
  m = _mm256_add_epi32(m, denormal);  // e <= -16: 0
  return _mm256_and_si256(m, tapered);
}

template <Rounding R, bool kHiF8>
__m256i RoundMagnitude(const FormatParams& p, __m256i a, __m256i random) {
  const __m256i exp_field = _mm256_srli_epi32(a, 23);
  const __m256i exp_eff = _mm256_max_epi32(exp_field, Set(1));
  const __m256i implicit =
      _mm256_andnot_si256(_mm256_cmpeq_epi32(exp_field, _mm256_setzero_si256()), Set(0x800000u));
  const __m256i sig = _mm256_or_si256(_mm256_and_si256(a, Set(0x7fffffu)), implicit);
  const __m256i below =
      _mm256_max_epi32(_mm256_sub_epi32(Set(p.min_normal_biased), exp_eff), _mm256_setzero_si256());
  const __m256i in_normal = _mm256_cmpeq_epi32(below, _mm256_setzero_si256());
  __m256i m = Set(p.mantissa_bits);
  if constexpr (kHiF8) m = HiF8Width(exp_eff, in_normal);
  const __m256i d = _mm256_min_epi32(_mm256_add_epi32(_mm256_sub_epi32(Set(23), m), below), Set(31));
  __m256i kept = _mm256_srlv_epi32(sig, d);
  const __m256i unit = _mm256_sllv_epi32(Set(1), d);
  const __m256i low_mask = _mm256_sub_epi32(unit, Set(1));
  const __m256i rem = _mm256_and_si256(sig, low_mask);
  const __m256i half = _mm256_srli_epi32(unit, 1);
  __m256i up;
  if constexpr (R == Rounding::kNearestEven) {
    __m256i odd = _mm256_and_si256(kept, Set(1));
    if constexpr (kHiF8) {
      const __m256i zero_width = _mm256_and_si256(in_normal, _mm256_cmpeq_epi32(m, _mm256_setzero_si256()));
      odd = _mm256_blendv_epi8(odd, _mm256_and_si256(exp_field, Set(1)), zero_width);
    }
    const __m256i tie_odd = _mm256_and_si256(_mm256_cmpeq_epi32(rem, half), _mm256_cmpeq_epi32(odd, Set(1)));
    up = _mm256_or_si256(_mm256_cmpgt_epi32(rem, half), tie_odd);
  } else if constexpr (R == Rounding::kTowardZero) {
    up = _mm256_setzero_si256();
  } else if constexpr (R == Rounding::kHalfAway) {
    up = _mm256_xor_si256(_mm256_cmpgt_epi32(half, rem), Set(0xffffffffu));
  } else {
    up = _mm256_cmpgt_epi32(rem, _mm256_and_si256(random, low_mask));
  }
  kept = _mm256_sub_epi32(kept, up);
  const __m256i normal =
      _mm256_add_epi32(_mm256_slli_epi32(_mm256_sub_epi32(exp_eff, Set(1)), 23), _mm256_sllv_epi32(kept, d));
  if (_mm256_testc_si256(in_normal, Set(0xffffffffu))) return normal;  // no lane below the range
  const __m256i sub =
      _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(kept), _mm256_set1_ps(p.subnormal_quantum)));
  return _mm256_blendv_epi8(sub, normal, in_normal);
}

struct Modes {
  bool saturate, flush, toward_zero;
};

// RoundScalar on eight lanes.
template <Rounding R, bool kHiF8, bool kIdentity>
__m256i RoundLanes(const FormatParams& p, const Modes& mode, __m256i u, __m256i random, LaneCounts& c) {
  const __m256i sign = _mm256_and_si256(u, Set(0x80000000u));
  const __m256i a = _mm256_and_si256(u, Set(0x7fffffffu));
  const __m256i inf = Set(0x7f800000u);
  const __m256i is_nan = _mm256_cmpgt_epi32(a, inf);
  const __m256i is_inf = _mm256_cmpeq_epi32(a, inf);
  const __m256i finite = _mm256_cmpgt_epi32(inf, a);
  __m256i r = a;
  if constexpr (!kIdentity) r = RoundMagnitude<R, kHiF8>(p, a, random);
  const __m256i max = Set(p.max_bits);
  const __m256i over = _mm256_and_si256(finite, _mm256_cmpgt_epi32(r, max));
  const __m256i special = Set(p.has_inf ? 0x7f800000u : p.nan_canonical);
  const __m256i over_value = (mode.saturate || mode.toward_zero) ? max : special;
  r = _mm256_blendv_epi8(r, over_value, over);
  if (mode.flush) r = _mm256_andnot_si256(_mm256_cmpgt_epi32(Set(p.min_normal_bits), r), r);
  const __m256i zero = _mm256_cmpeq_epi32(r, _mm256_setzero_si256());
  __m256i out = _mm256_or_si256(sign, r);
  if (!p.signed_zero) out = _mm256_andnot_si256(zero, out);
  Count(c.flushed,
        _mm256_and_si256(_mm256_and_si256(finite, zero),
                         _mm256_xor_si256(_mm256_cmpeq_epi32(a, _mm256_setzero_si256()), Set(0xffffffffu))));
  Count(c.overflow, over);
  __m256i nan_out, inf_out;
  if (mode.saturate) {
    nan_out = _mm256_setzero_si256();
    inf_out = _mm256_or_si256(sign, max);
    Count(c.saturated, _mm256_or_si256(over, _mm256_or_si256(is_nan, is_inf)));
  } else {
    if (p.nan_keeps_payload) {
      const uint32_t low = (1u << (23 - p.mantissa_bits)) - 1u;
      nan_out = _mm256_andnot_si256(Set(low), u);
      const __m256i empty =
          _mm256_cmpeq_epi32(_mm256_and_si256(nan_out, Set(0x7fffffu)), _mm256_setzero_si256());
      nan_out = _mm256_or_si256(nan_out, _mm256_and_si256(empty, Set(low + 1)));
    } else {
      nan_out = Set(p.nan_canonical);
      if (p.nan_keeps_sign) nan_out = _mm256_or_si256(nan_out, sign);
    }
    inf_out = p.has_inf ? u : _mm256_or_si256(sign, Set(p.nan_canonical));
  }
  out = _mm256_blendv_epi8(out, nan_out, is_nan);
  out = _mm256_blendv_epi8(out, inf_out, is_inf);
  Count(c.inf_nan, _mm256_cmpgt_epi32(_mm256_and_si256(out, Set(0x7fffffffu)), Set(0x7f7fffffu)));
  return out;
}

constexpr size_t kBlock = 1 << 16;  // elements per counter flush: lanes stay far below 2^31

template <Rounding R, bool kHiF8, bool kIdentity>
RoundStats RoundVectorised(Format f, std::span<float> values, const RoundingOptions& opt,
                           uint64_t first_index) {
  const FormatParams& p = detail::Params(f);
  const Modes mode{opt.overflow == Overflow::kSaturation, opt.subnormals == Subnormals::kFlush,
                   opt.rounding == Rounding::kTowardZero};
  RoundStats stats;
  const size_t n = values.size(), vector_end = n - n % 8;
  float* data = values.data();
  for (size_t block = 0; block < vector_end; block += kBlock) {
    LaneCounts counts;
    const size_t end = std::min(vector_end, block + kBlock);
    for (size_t i = block; i < end; i += 8) {
      const __m256i u = _mm256_castps_si256(_mm256_loadu_ps(data + i));
      __m256i random = _mm256_setzero_si256();
      if constexpr (R == Rounding::kStochastic) random = StochasticBits(opt.seed, first_index + i);
      const __m256i out = RoundLanes<R, kHiF8, kIdentity>(p, mode, u, random, counts);
      _mm256_storeu_ps(data + i, _mm256_castsi256_ps(out));
    }
    AddTo(stats, counts);
  }
  for (size_t i = vector_end; i < n; ++i) data[i] = RoundScalar(f, data[i], opt, first_index + i, &stats);
  return stats;
}

template <bool kHiF8, bool kIdentity>
RoundStats DispatchRounding(Format f, std::span<float> v, const RoundingOptions& opt, uint64_t first) {
  switch (opt.rounding) {
    case Rounding::kNearestEven:
      return RoundVectorised<Rounding::kNearestEven, kHiF8, kIdentity>(f, v, opt, first);
    case Rounding::kTowardZero:
      return RoundVectorised<Rounding::kTowardZero, kHiF8, kIdentity>(f, v, opt, first);
    case Rounding::kHalfAway:
      return RoundVectorised<Rounding::kHalfAway, kHiF8, kIdentity>(f, v, opt, first);
    case Rounding::kStochastic:
      return RoundVectorised<Rounding::kStochastic, kHiF8, kIdentity>(f, v, opt, first);
  }
  return {};
}

}  // namespace

RoundStats RoundArray(Format f, std::span<float> values, const RoundingOptions& opt, uint64_t first_index) {
  if (f == Format::kFP32) {
    RoundingOptions fixed = opt;
    fixed.rounding = Rounding::kNearestEven;  // nothing is rounded: one instantiation serves all
    return RoundVectorised<Rounding::kNearestEven, false, true>(f, values, fixed, first_index);
  }
  if (f == Format::kHiF8) return DispatchRounding<true, false>(f, values, opt, first_index);
  return DispatchRounding<false, false>(f, values, opt, first_index);
}

RoundStats RoundArrayScalar(Format f, std::span<float> values, const RoundingOptions& opt,
                            uint64_t first_index) {
  RoundStats stats;
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = RoundScalar(f, values[i], opt, first_index + i, &stats);
  return stats;
}

}  // namespace npugap::numerics
