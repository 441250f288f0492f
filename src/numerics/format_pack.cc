// Packing rounded values into their storage patterns and back, for tensors held in a narrow
// format and for file output: the AVX2 path and the 8-bit formats (the AVX-512 16-bit path is
// format_pack_avx512.cc). Rounding goes through the vectorised RoundArray in blocks; element i
// of the array uses stochastic index i, as RoundArray(values) would.
#include <algorithm>
#include <array>

#include "array_kernels.h"
#include "npugap/numerics/format.h"
#include "rounding_core.h"

namespace npugap::numerics {
namespace {

constexpr size_t kChunk = 4096;

// out[i] = pattern of in[i] in format f, narrowed to T (the callers pass a format whose patterns
// fit: fp16/bf16 for 16 bits, the fp8 formats and hif8 for 8). `round` is the array rounding used.
template <typename T, typename RoundFn>
void EncodeArray(Format f, std::span<const float> in, std::span<T> out, const RoundingOptions& opt,
                 uint64_t first_index, RoundFn round) {
  std::array<float, kChunk> buffer;
  const size_t n = std::min(in.size(), out.size());
  for (size_t start = 0; start < n; start += kChunk) {
    const size_t len = std::min(kChunk, n - start);
    std::copy_n(in.begin() + static_cast<std::ptrdiff_t>(start), len, buffer.begin());
    round(f, std::span<float>(buffer.data(), len), opt, first_index + start);
    for (size_t i = 0; i < len; ++i) out[start + i] = static_cast<T>(detail::CodeOfRounded(f, buffer[i]));
  }
}

// 8-bit formats: one table of the 256 values.
std::array<float, 256> Table8(Format f) {
  std::array<float, 256> t{};
  for (uint32_t b = 0; b < 256; ++b) t[b] = Decode(f, b);
  return t;
}

}  // namespace

void detail::EncodeArray16Avx2(Format f, std::span<const float> in, std::span<uint16_t> out,
                               const RoundingOptions& opt, uint64_t first_index) {
  EncodeArray(f, in, out, opt, first_index, detail::RoundArrayAvx2);
}

void EncodeArray8(Format f, std::span<const float> in, std::span<uint8_t> out, const RoundingOptions& opt) {
  EncodeArray(f, in, out, opt, 0, [](Format g, std::span<float> v, const RoundingOptions& o, uint64_t first) {
    return RoundArray(g, v, o, first);
  });
}

void DecodeArray8(Format f, std::span<const uint8_t> in, std::span<float> out) {
  const std::array<float, 256> table = Table8(f);
  const size_t n = std::min(in.size(), out.size());
  for (size_t i = 0; i < n; ++i) out[i] = table[in[i]];
}

}  // namespace npugap::numerics
