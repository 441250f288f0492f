// Array rounding, vectorised for AVX2 (the library is built with -march=x86-64-v3): the baseline
// path, and the one the AVX-512 kernel hands unusual groups to. Each step
// mirrors RoundScalar / detail::RoundMagnitude in format_scalar.cc on eight lanes; the tail of an
// array that does not fill a vector goes through the scalar code itself, so results never depend
// on where an array is split. tests/numerics/format_array_test.cc checks the two bit for bit.
#include <immintrin.h>

#include <algorithm>
#include <bit>
#include <vector>

#include "array_kernels.h"
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

using Kind = detail::KernelKind;

// The rounding of lanes at or above the format's smallest normal exponent (for HiF8: 2^-22), done
// on the whole float32 pattern: with d dropped bits, adding (half an ulp - 1 + the kept lsb) and
// truncating is round-to-nearest-even, the carry moving to the next binade by itself; the other
// rules add another amount. Every rule picks the same neighbour as RoundMagnitude: stochastic
// rounds up iff (~random & mask) + rem >= 2^d, i.e. iff (random & mask) < rem. For the 0-bit HiF8
// binades (d = 23) the "kept lsb" a >> d is the exponent's, the parity RoundMagnitude uses there.
template <Rounding R>
__m256i RoundNormalRange(__m256i a, __m256i d, __m256i random) {
  const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(Set(1), d), Set(1));
  __m256i add;
  if constexpr (R == Rounding::kNearestEven)
    add = _mm256_add_epi32(_mm256_srli_epi32(mask, 1), _mm256_and_si256(_mm256_srlv_epi32(a, d), Set(1)));
  else if constexpr (R == Rounding::kTowardZero)
    add = _mm256_setzero_si256();
  else if constexpr (R == Rounding::kHalfAway)
    add = _mm256_add_epi32(_mm256_srli_epi32(mask, 1), Set(1));
  else
    add = _mm256_andnot_si256(random, mask);
  return _mm256_andnot_si256(mask, _mm256_add_epi32(a, add));
}

// Fast magnitude rounding, exact for every finite lane except those below `BelowThreshold`, which
// Round marks unusual so that Finish recomputes them with FullMagnitude.
template <Rounding R, Kind K>
__m256i FastMagnitude(const FormatParams& p, __m256i a, __m256i random) {
  if constexpr (K == Kind::kIdentity) {
    return a;
  } else if constexpr (K == Kind::kHalfF16C) {
    // The CPU's own float -> half -> float (RNE, subnormals kept). On overflow it gives inf where
    // RoundMagnitude gives 2^16: both exceed max_bits, so the overflow handling sees the same.
    const __m128i h = _mm256_cvtps_ph(_mm256_castsi256_ps(a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    return _mm256_castps_si256(_mm256_cvtph_ps(h));
  } else if constexpr (K == Kind::kHiF8) {
    const __m256i width = HiF8Width(_mm256_srli_epi32(a, 23), Set(0xffffffffu));
    return RoundNormalRange<R>(a, _mm256_sub_epi32(Set(23), width), random);
  } else {
    return RoundNormalRange<R>(a, Set(static_cast<uint32_t>(23 - p.mantissa_bits)), random);
  }
}

// Magnitudes below this pattern need FullMagnitude (0: none do).
template <Kind K>
uint32_t BelowThreshold(const FormatParams& p) {
  if constexpr (K == Kind::kIdentity || K == Kind::kHalfF16C) return 0;
  return p.min_normal_biased <= 1 ? 0u : static_cast<uint32_t>(p.min_normal_biased) << 23;
}

template <Rounding R, Kind K>
__m256i FullMagnitude(const FormatParams& p, __m256i a, __m256i random) {
  if constexpr (K == Kind::kIdentity || K == Kind::kHalfF16C) return FastMagnitude<R, K>(p, a, random);
  return RoundMagnitude<R, K == Kind::kHiF8>(p, a, random);
}

struct Modes {
  bool saturate, flush, toward_zero;
};

// RoundScalar on eight lanes, in two steps: Round does the arithmetic and says which lanes are
// unusual (NaN or inf in; below the fast range; zero, overflow or flushed out); Finish handles
// those lanes and counts. Finish gives the right answer for any lanes, so a caller may skip it
// only when none is unusual.
struct Lanes {
  __m256i u, a, r, random, unusual;
};

template <Rounding R, Kind K>
Lanes Round(const FormatParams& p, const Modes& mode, uint32_t below, __m256i u, __m256i random) {
  Lanes l;
  l.u = u;
  l.random = random;
  l.a = _mm256_and_si256(u, Set(0x7fffffffu));
  l.r = FastMagnitude<R, K>(p, l.a, random);
  if (mode.flush) l.r = _mm256_andnot_si256(_mm256_cmpgt_epi32(Set(p.min_normal_bits), l.r), l.r);
  const __m256i outside =
      _mm256_or_si256(_mm256_cmpgt_epi32(l.a, Set(0x7f7fffffu)), _mm256_cmpgt_epi32(Set(below), l.a));
  const __m256i above = _mm256_or_si256(outside, _mm256_cmpgt_epi32(l.r, Set(p.max_bits)));
  // A zero result is unusual only when a non-zero input became zero (Finish counts it as flushed)
  // or a -0 input meets a format without negative zero. Exact zeros in stay on the fast path:
  // after a ReLU about half of all activations are exactly zero.
  const __m256i zero = _mm256_setzero_si256();
  __m256i zero_unusual = _mm256_andnot_si256(_mm256_cmpeq_epi32(l.a, zero), _mm256_cmpeq_epi32(l.r, zero));
  if (!p.signed_zero) zero_unusual = _mm256_or_si256(zero_unusual, _mm256_cmpeq_epi32(u, Set(0x80000000u)));
  l.unusual = _mm256_or_si256(above, zero_unusual);
  return l;
}

__m256i Usual(const Lanes& l) { return _mm256_or_si256(_mm256_and_si256(l.u, Set(0x80000000u)), l.r); }

template <Rounding R, Kind K>
__m256i Finish(const FormatParams& p, const Modes& mode, const Lanes& l, LaneCounts& c) {
  const __m256i u = l.u, a = l.a;
  __m256i r = FullMagnitude<R, K>(p, a, l.random);
  if (mode.flush) r = _mm256_andnot_si256(_mm256_cmpgt_epi32(Set(p.min_normal_bits), r), r);
  const __m256i sign = _mm256_and_si256(u, Set(0x80000000u));
  const __m256i max = Set(p.max_bits);
  const __m256i inf = Set(0x7f800000u);
  const __m256i is_nan = _mm256_cmpgt_epi32(a, inf);
  const __m256i is_inf = _mm256_cmpeq_epi32(a, inf);
  const __m256i finite = _mm256_cmpgt_epi32(inf, a);
  const __m256i over = _mm256_and_si256(finite, _mm256_cmpgt_epi32(r, max));
  const __m256i special = Set(p.has_inf ? 0x7f800000u : p.nan_canonical);
  const __m256i over_value = (mode.saturate || mode.toward_zero) ? max : special;
  r = _mm256_blendv_epi8(r, over_value, over);
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
// Elements ahead of the current position to prefetch (one cache line per 16 elements).
constexpr size_t kPrefetchAhead = 512;

template <Rounding R>
__m256i RandomFor(const RoundingOptions& opt, uint64_t index) {
  if constexpr (R == Rounding::kStochastic) return StochasticBits(opt.seed, index);
  return _mm256_setzero_si256();
}

template <Rounding R, Kind K>
RoundStats RoundVectorised(Format f, std::span<float> values, const RoundingOptions& opt,
                           uint64_t first_index) {
  const FormatParams& p = detail::Params(f);
  const Modes mode{opt.overflow == Overflow::kSaturation, opt.subnormals == Subnormals::kFlush,
                   opt.rounding == Rounding::kTowardZero};
  const uint32_t below = BelowThreshold<K>(p);
  RoundStats stats;
  const size_t n = values.size(), vector_end = n - n % 8;
  float* data = values.data();
  auto load = [&](size_t i) { return _mm256_castps_si256(_mm256_loadu_ps(data + i)); };
  auto store = [&](size_t i, __m256i v) { _mm256_storeu_ps(data + i, _mm256_castsi256_ps(v)); };
  for (size_t block = 0; block < vector_end; block += kBlock) {
    LaneCounts counts;
    const size_t end = std::min(vector_end, block + kBlock);
    size_t i = block;
    // Four vectors per test of the unusual lanes: one branch per 32 elements.
    for (; i + 32 <= end; i += 32) {
      _mm_prefetch(reinterpret_cast<const char*>(data + i + kPrefetchAhead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(data + i + kPrefetchAhead + 16), _MM_HINT_T0);
      Lanes l[4];
      for (size_t k = 0; k < 4; ++k)
        l[k] = Round<R, K>(p, mode, below, load(i + 8 * k), RandomFor<R>(opt, first_index + i + 8 * k));
      const __m256i unusual = _mm256_or_si256(_mm256_or_si256(l[0].unusual, l[1].unusual),
                                              _mm256_or_si256(l[2].unusual, l[3].unusual));
      if (_mm256_testz_si256(unusual, unusual)) {
        for (size_t k = 0; k < 4; ++k) store(i + 8 * k, Usual(l[k]));
      } else {
        for (size_t k = 0; k < 4; ++k) store(i + 8 * k, Finish<R, K>(p, mode, l[k], counts));
      }
    }
    for (; i < end; i += 8)
      store(i, Finish<R, K>(p, mode, Round<R, K>(p, mode, below, load(i), RandomFor<R>(opt, first_index + i)),
                            counts));
    AddTo(stats, counts);
  }
  for (size_t i = vector_end; i < n; ++i) data[i] = RoundScalar(f, data[i], opt, first_index + i, &stats);
  return stats;
}

}  // namespace

RoundStats detail::RoundArrayAvx2(Format f, std::span<float> values, const RoundingOptions& opt,
                                  uint64_t first_index) {
  return detail::WithKernel(f, opt, [&](auto kind, auto rule, const RoundingOptions& o) {
    return RoundVectorised<decltype(rule)::value, decltype(kind)::value>(f, values, o, first_index);
  });
}

RoundStats RoundArrayScalar(Format f, std::span<float> values, const RoundingOptions& opt,
                            uint64_t first_index) {
  RoundStats stats;
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = RoundScalar(f, values[i], opt, first_index + i, &stats);
  return stats;
}

}  // namespace npugap::numerics
