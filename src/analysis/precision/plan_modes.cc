// The precision modes: ATC --precision_mode (v1), --precision_mode_v2, and npugap's uniform_<fmt>.
// The meaning of each ATC value is ascend-facts §3.1 / §3.2; docs/precision.md has the table.
#include <array>

#include "analysis/precision/internal.h"

namespace npugap::analysis::precision::internal {
namespace {

using numerics::Format;

struct NamedMode {
  std::string_view name;
  ModeKind kind;
  Format low;
  Format cube_low;
};

// v1 names first, then v2, as the ATC docs list them. force_fp32 and cube_fp16in_fp32out are one
// mode (ascend-facts §3.1); allow_mix_precision is allow_mix_precision_fp16.
constexpr std::array<NamedMode, 13> kAtcModes{{
    {"force_fp32", ModeKind::kCubeLowIn, Format::kFP16, Format::kFP16},
    {"cube_fp16in_fp32out", ModeKind::kCubeLowIn, Format::kFP16, Format::kFP16},
    {"force_fp16", ModeKind::kForceLow, Format::kFP16, Format::kFP16},
    {"allow_fp32_to_fp16", ModeKind::kAllowFp32ToLow, Format::kFP16, Format::kFP16},
    {"must_keep_origin_dtype", ModeKind::kOrigin, Format::kFP32, Format::kFP32},
    {"allow_mix_precision", ModeKind::kMixed, Format::kFP16, Format::kFP16},
    {"allow_mix_precision_fp16", ModeKind::kMixed, Format::kFP16, Format::kFP16},
    {"allow_mix_precision_bf16", ModeKind::kMixed, Format::kBF16, Format::kBF16},
    {"fp16", ModeKind::kForceLow, Format::kFP16, Format::kFP16},
    {"origin", ModeKind::kOrigin, Format::kFP32, Format::kFP32},
    {"mixed_float16", ModeKind::kMixed, Format::kFP16, Format::kFP16},
    {"mixed_bfloat16", ModeKind::kMixed, Format::kBF16, Format::kBF16},
    // HiF8 on the cube's inputs of white-list ops, fp16 elsewhere (assumed: the ATC doc names the
    // mode and the chips, not the per-op formats; docs/precision.md).
    {"mixed_hif8", ModeKind::kMixed, Format::kFP16, Format::kHiF8},
}};

constexpr std::string_view kUniformPrefix = "uniform_";

}  // namespace

std::vector<std::string> ModeNames() {
  std::vector<std::string> names;
  for (const NamedMode& m : kAtcModes) names.emplace_back(m.name);
  for (Format f : numerics::kAllFormats) {
    if (f != Format::kFP32)
      names.push_back(std::string(kUniformPrefix) + std::string(numerics::Info(f).name));
  }
  return names;
}

std::optional<ModeSpec> FindMode(std::string_view name) {
  for (const NamedMode& m : kAtcModes) {
    if (m.name == name) {
      std::string canonical(name == "allow_mix_precision" ? "allow_mix_precision_fp16" : name);
      return ModeSpec{canonical, m.kind, m.low, m.cube_low};
    }
  }
  if (name.starts_with(kUniformPrefix)) {
    const std::optional<Format> f = numerics::ParseFormat(name.substr(kUniformPrefix.size()));
    if (f && *f != Format::kFP32) {
      return ModeSpec{std::string(kUniformPrefix) + std::string(numerics::Info(*f).name), ModeKind::kUniform,
                      *f, *f};
    }
  }
  return std::nullopt;
}

}  // namespace npugap::analysis::precision::internal
