// The formats' parameters: the public FormatInfo and the rounding code's FormatParams.
// Values and their sources are listed in docs/numerics.md.
#include <bit>
#include <cmath>

#include "npugap/numerics/format.h"
#include "rounding_core.h"

namespace npugap::numerics {
namespace {

constexpr size_t Index(Format f) { return static_cast<size_t>(f); }

float Pow2(int e) { return std::ldexp(1.0f, e); }

const FormatInfo kInfo[] = {
    {"fp32", 32, 24, 3.4028234663852886e38, 0x1p-126, 0x1p-149, true},
    // HF32: FP32 range, 11-bit significand (ascend-facts.md §2.3 [OFF]); subnormals assumed to keep
    // FP32's exponent encoding with 10 fraction bits, hence 2^-136 (an assumption, docs/numerics.md).
    {"hf32", 32, 11, (2.0 - 0x1p-10) * 0x1p127, 0x1p-126, 0x1p-136, true},
    {"fp16", 16, 11, 65504.0, 0x1p-14, 0x1p-24, true},
    {"bf16", 16, 8, (2.0 - 0x1p-7) * 0x1p127, 0x1p-126, 0x1p-133, true},
    {"fp8_e4m3", 8, 4, 448.0, 0x1p-6, 0x1p-9, false},
    {"fp8_e5m2", 8, 3, 57344.0, 0x1p-14, 0x1p-16, true},
    // HiF8: normal binades 2^-15..2^15, denormals to 2^-22 (ascend-facts.md §2.6 [DER]); the
    // largest finite value 2^15 follows the Inf pattern of CANN's own conversion code (docs/numerics.md).
    {"hif8", 8, 4, 32768.0, 0x1p-15, 0x1p-22, true},
};

detail::FormatParams MakeParams(Format f, int m, int emin, bool payload, uint32_t canonical, bool nan_sign) {
  const FormatInfo& info = kInfo[Index(f)];
  detail::FormatParams p{};
  p.mantissa_bits = m;
  p.min_normal_biased = emin + 127;
  p.max_bits = std::bit_cast<uint32_t>(static_cast<float>(info.max_finite));
  p.min_normal_bits = std::bit_cast<uint32_t>(static_cast<float>(info.min_normal));
  p.subnormal_quantum = Pow2(emin - m);
  p.has_inf = info.has_inf;
  p.signed_zero = f != Format::kHiF8;
  p.nan_keeps_payload = payload;
  p.nan_canonical = canonical;
  p.nan_keeps_sign = nan_sign;
  p.hif8 = f == Format::kHiF8;
  return p;
}

}  // namespace

const FormatInfo& Info(Format f) { return kInfo[Index(f)]; }

std::optional<Format> ParseFormat(std::string_view name) {
  for (Format f : kAllFormats)
    if (Info(f).name == name) return f;
  if (name == "float32") return Format::kFP32;
  if (name == "float16") return Format::kFP16;
  if (name == "bfloat16") return Format::kBF16;
  if (name == "hifloat8") return Format::kHiF8;
  return std::nullopt;
}

namespace detail {

const FormatParams& Params(Format f) {
  // HiF8's "minimum normal exponent" for the rounding code is -22: the denormal binades are rounded
  // like normal ones with 0 mantissa bits; only below 2^-22 does the quantum stay fixed.
  static const FormatParams kParams[] = {
      MakeParams(Format::kFP32, 23, -126, true, 0, true),
      MakeParams(Format::kHF32, 10, -126, true, 0, true),
      MakeParams(Format::kFP16, 10, -14, true, 0, true),
      MakeParams(Format::kBF16, 7, -126, true, 0, true),
      MakeParams(Format::kFP8E4M3, 3, -6, false, 0x7fc00000u, true),
      MakeParams(Format::kFP8E5M2, 2, -14, true, 0, true),
      MakeParams(Format::kHiF8, 0, -22, false, 0x7fc00000u, false),
  };
  return kParams[Index(f)];
}

}  // namespace detail
}  // namespace npugap::numerics
