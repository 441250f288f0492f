// EncodeArray16 / DecodeArray16 on AVX-512: round sixteen lanes in registers and store their
// 16-bit patterns in the same pass, with no float32 buffer in between. Round-to-nearest-even uses
// the CPU's own conversions, vcvtps2ph for fp16 and vcvtneps2bf16 (AVX512_BF16) for bf16; the
// other roundings round with rounding_avx512.h and then pack. A group of 64 elements holding a lane
// whose pattern the fast step cannot vouch for goes whole to the AVX2 path (EncodeArray16Avx2), so
// every pattern equals Encode's (FormatArrayTest).
#include <algorithm>
#include <cstdint>

#include "array_kernels.h"
#include "rounding_avx512.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

namespace npugap::numerics::detail {
namespace {

using avx512::Kind;
using avx512::Set;

constexpr size_t kGroup = 64;
constexpr size_t kPrefetchAhead = 1024;  // elements: 4 KiB of input (format_array_avx512.cc)

// Which fast step a kernel uses.
enum class Step { kF16Convert, kBf16Convert, kRoundThenPack };

// Sixteen patterns in a ymm register and the lanes that need the AVX2 path.
struct Packed {
  __m256i codes;
  __mmask16 unusual;
};

// The CPU's own round-to-nearest-even conversions, for sixteen lanes.
template <Step S>
Packed ConvertLanes(const avx512::Setup& s, __m512i u) {
  const __mmask16 nonzero = _mm512_test_epi32_mask(u, Set(0x7fffffffu));
  if constexpr (S == Step::kF16Convert) {
    // RNE with subnormals kept is the instruction's own; unusual: inf / NaN out (overflow, inf or
    // NaN in: NaN payloads follow NumPy's rule, not the CPU's), or a non-zero input that leaves
    // zero, or with flushing, a subnormal.
    const __m256i h = _mm512_cvtps_ph(_mm512_castsi512_ps(u), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m256i magnitude = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
    const __m256i smallest_kept = _mm256_set1_epi16(s.flush ? 0x0400 : 0x0001);
    const __mmask16 unusual = _mm256_cmpge_epu16_mask(magnitude, _mm256_set1_epi16(0x7c00)) |
                              (_mm256_cmplt_epu16_mask(magnitude, smallest_kept) & nonzero);
    return {h, unusual};
  } else {
    // RNE on the top 16 bits. The instruction reads float32 subnormals as zero (DAZ) and quiets
    // NaNs, so those inputs are unusual, with the ones that round to inf: from 0x7f7f8000 up.
    const __m512i a = _mm512_and_si512(u, Set(0x7fffffffu));
    const __mmask16 unusual = _mm512_cmpge_epu32_mask(a, Set(0x7f7f8000u)) |
                              _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, Set(1)), Set(0x007fffffu));
    return {reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_castsi512_ps(u))), unusual};
  }
}

// The 64 patterns of a group as two 32-lane registers; false when a lane needs the AVX2 path.
template <Rounding R, Step S, bool kFlush, bool kBelow>
bool EncodeGroup(Format f, const avx512::Setup& s, const float* src, uint64_t first,
                 const RoundingOptions& opt, __m512i codes[2]) {
  __m256i c[4];
  if constexpr (S == Step::kRoundThenPack) {
    __m512i rounded[4];
    if (!avx512::RoundGroup<R, Kind::kGeneric, kFlush, kBelow>(s, src, first, opt, rounded)) return false;
    // Usual lanes are finite values on the format's grid: both conversions are exact.
    for (int k = 0; k < 4; ++k)
      c[k] = f == Format::kFP16 ? _mm512_cvtps_ph(_mm512_castsi512_ps(rounded[k]),
                                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
                                : _mm512_cvtepi32_epi16(_mm512_srli_epi32(rounded[k], 16));
  } else {
    __mmask16 unusual = 0;
    for (int k = 0; k < 4; ++k) {
      const Packed p = ConvertLanes<S>(s, _mm512_loadu_si512(src + 16 * k));
      c[k] = p.codes;
      unusual |= p.unusual;
    }
    if (unusual != 0) return false;
  }
  codes[0] = _mm512_inserti64x4(_mm512_castsi256_si512(c[0]), c[1], 1);
  codes[1] = _mm512_inserti64x4(_mm512_castsi256_si512(c[2]), c[3], 1);
  return true;
}

template <Rounding R, Step S, bool kFlush, bool kBelow, bool kStream>
void EncodeBody(Format f, std::span<const float> in, uint16_t* out, const RoundingOptions& opt, size_t begin,
                size_t end) {
  const avx512::Setup s = avx512::MakeSetup<Kind::kGeneric>(f, opt);
  const float* data = in.data();
  for (size_t i = begin; i < end; i += kGroup) {
    for (size_t line = 0; line < kGroup; line += 16)
      _mm_prefetch(reinterpret_cast<const char*>(data + i + kPrefetchAhead + line), _MM_HINT_T0);
    __m512i codes[2];
    if (!EncodeGroup<R, S, kFlush, kBelow>(f, s, data + i, i, opt, codes)) {
      EncodeArray16Avx2(f, in.subspan(i, kGroup), {out + i, kGroup}, opt, i);
    } else if constexpr (kStream) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i), codes[0]);
      _mm512_stream_si512(reinterpret_cast<__m512i*>(out + i + 32), codes[1]);
    } else {
      _mm512_storeu_si512(out + i, codes[0]);
      _mm512_storeu_si512(out + i + 32, codes[1]);
    }
  }
}

template <Rounding R, Step S, bool kFlush, bool kBelow>
void Encode(Format f, std::span<const float> in, std::span<uint16_t> out, const RoundingOptions& opt) {
  const size_t n = std::min(in.size(), out.size());
  uint16_t* o = out.data();
  const bool stream = n * sizeof(uint16_t) >= kStreamingBytes;
  // Non-temporal stores want 64-byte aligned lines: the elements before the first one go through
  // the AVX2 path, as does the tail that does not fill a group.
  size_t head = 0;
  if (stream) head = std::min(n, ((64 - reinterpret_cast<uintptr_t>(o) % 64) % 64) / sizeof(uint16_t));
  const size_t body_end = head + (n - head) / kGroup * kGroup;
  if (head > 0) EncodeArray16Avx2(f, in.first(head), out.first(head), opt, 0);
  if (stream) {
    EncodeBody<R, S, kFlush, kBelow, true>(f, in, o, opt, head, body_end);
    _mm_sfence();  // the streamed lines are visible to other threads before we return
  } else {
    EncodeBody<R, S, kFlush, kBelow, false>(f, in, o, opt, head, body_end);
  }
  if (body_end < n)
    EncodeArray16Avx2(f, in.subspan(body_end, n - body_end), out.subspan(body_end, n - body_end), opt,
                      body_end);
}

// Rounding other than RNE: round, then pack; fp16 has magnitudes below its normal range.
template <Rounding R>
void RoundThenPack(Format f, std::span<const float> in, std::span<uint16_t> out, const RoundingOptions& opt) {
  const bool flush = opt.subnormals == Subnormals::kFlush;
  if (avx512::MakeSetup<Kind::kGeneric>(f, opt).has_below)
    return flush ? Encode<R, Step::kRoundThenPack, true, true>(f, in, out, opt)
                 : Encode<R, Step::kRoundThenPack, false, true>(f, in, out, opt);
  return flush ? Encode<R, Step::kRoundThenPack, true, false>(f, in, out, opt)
               : Encode<R, Step::kRoundThenPack, false, false>(f, in, out, opt);
}

}  // namespace

void EncodeArray16Avx512(Format f, std::span<const float> in, std::span<uint16_t> out,
                         const RoundingOptions& opt) {
  if (f != Format::kFP16 && f != Format::kBF16) return EncodeArray16Avx2(f, in, out, opt, 0);
  if (opt.rounding == Rounding::kNearestEven)
    return f == Format::kFP16
               ? Encode<Rounding::kNearestEven, Step::kF16Convert, false, false>(f, in, out, opt)
               : Encode<Rounding::kNearestEven, Step::kBf16Convert, false, false>(f, in, out, opt);
  WithRounding(opt.rounding, [&](auto rule) { RoundThenPack<decltype(rule)::value>(f, in, out, opt); });
}

void DecodeArray16Avx512(Format f, std::span<const uint16_t> in, std::span<float> out) {
  const size_t n = std::min(in.size(), out.size()), body = n - n % 16;
  for (size_t i = 0; i < body; i += 16) {
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in.data() + i));
    const __m512i wide = _mm512_cvtepu16_epi32(h);
    __m512i bits;
    if (f == Format::kBF16) {
      bits = _mm512_slli_epi32(wide, 16);  // BFloat16ToFloat
    } else {
      bits = _mm512_castps_si512(_mm512_cvtph_ps(h));
      // NaN: HalfToFloat keeps the payload as it is (vcvtph2ps would quiet a signalling one).
      const __m512i magnitude = _mm512_and_si512(wide, Set(0x7fffu));
      const __mmask16 nan = _mm512_cmpgt_epu32_mask(magnitude, Set(0x7c00u));
      const __m512i kept = _mm512_or_si512(
          _mm512_slli_epi32(_mm512_and_si512(wide, Set(0x8000u)), 16),
          _mm512_or_si512(Set(0x7f800000u), _mm512_slli_epi32(_mm512_and_si512(wide, Set(0x3ffu)), 13)));
      bits = _mm512_mask_mov_epi32(bits, nan, kept);
    }
    _mm512_storeu_si512(out.data() + i, bits);
  }
  for (size_t i = body; i < n; ++i) out[i] = Decode(f, in[i]);
}

}  // namespace npugap::numerics::detail

#pragma GCC pop_options
