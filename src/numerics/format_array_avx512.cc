// RoundArray on AVX-512: sixteen lanes per instruction and mask registers instead of compare and
// blend, about half the instructions per element of the AVX2 kernel (docs/benchmarks.md, "Number
// formats"). Groups of 64 elements whose lanes are all usual are rounded here; a group with an
// unusual lane (NaN, inf, overflow, a flushed value) goes whole to the AVX2 kernel, which also
// counts the events, so results and counts are those of format_array.cc bit for bit
// (FormatArrayTest runs every option on both paths).
#include <algorithm>

#include "array_kernels.h"
#include "rounding_avx512.h"

#pragma GCC push_options
#pragma GCC target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")

namespace npugap::numerics::detail {
namespace {

using avx512::Kind;

constexpr size_t kGroup = 64;  // elements per test of the unusual lanes
// Elements ahead to prefetch: 4 KiB, one page. Chosen on this machine's 64 MiB in-place pass
// (docs/benchmarks.md lists the distances tried); the hardware prefetchers stop at page ends.
constexpr size_t kPrefetchAhead = 1024;

template <Rounding R, Kind K, bool kFlush, bool kBelow>
RoundStats RoundVectorised(Format f, std::span<float> values, const RoundingOptions& opt, uint64_t first) {
  const avx512::Setup s = avx512::MakeSetup<K>(f, opt);
  RoundStats stats;
  float* data = values.data();
  const size_t n = values.size(), body = n - n % kGroup;
  for (size_t i = 0; i < body; i += kGroup) {
    for (size_t line = 0; line < kGroup; line += 16)
      _mm_prefetch(reinterpret_cast<const char*>(data + i + kPrefetchAhead + line), _MM_HINT_T0);
    __m512i out[4];
    if (avx512::RoundGroup<R, K, kFlush, kBelow>(s, data + i, first + i, opt, out)) {
      for (size_t k = 0; k < 4; ++k) _mm512_storeu_si512(data + i + 16 * k, out[k]);
    } else {
      stats += RoundArrayAvx2(f, values.subspan(i, kGroup), opt, first + i);
    }
  }
  if (body < n) stats += RoundArrayAvx2(f, values.subspan(body), opt, first + body);
  return stats;
}

// The run-time options that are template parameters of the loop: flushing and FullMagnitude.
template <Rounding R, Kind K>
RoundStats WithFlags(Format f, std::span<float> v, const RoundingOptions& opt, uint64_t first) {
  const bool flush = opt.subnormals == Subnormals::kFlush;
  if (avx512::MakeSetup<K>(f, opt).has_below) {
    if constexpr (K == Kind::kGeneric || K == Kind::kHiF8)
      return flush ? RoundVectorised<R, K, true, true>(f, v, opt, first)
                   : RoundVectorised<R, K, false, true>(f, v, opt, first);
  }
  return flush ? RoundVectorised<R, K, true, false>(f, v, opt, first)
               : RoundVectorised<R, K, false, false>(f, v, opt, first);
}

}  // namespace

RoundStats RoundArrayAvx512(Format f, std::span<float> values, const RoundingOptions& opt,
                            uint64_t first_index) {
  return WithKernel(f, opt, [&](auto kind, auto rule, const RoundingOptions& o) {
    return WithFlags<decltype(rule)::value, decltype(kind)::value>(f, values, o, first_index);
  });
}

}  // namespace npugap::numerics::detail

#pragma GCC pop_options
