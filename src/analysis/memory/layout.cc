#include "npugap/analysis/memory/layout.h"

#include <limits>

namespace npugap::analysis::memory {
namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

int64_t SatMul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kMax / b ? kMax : a * b;
}

const char* ProfileKey(ir::DType dtype) {
  switch (dtype) {
    case ir::DType::kFloat16:
      return "fp16";
    case ir::DType::kBFloat16:
      return "bf16";
    case ir::DType::kFloat32:
      return "fp32";
    case ir::DType::kInt8:
    case ir::DType::kUInt8:
      return "int8";
    default:
      return nullptr;
  }
}

// The profile's entry for the dtype; float32 falls back to fp16 (see C0For), bf16 to fp16.
template <typename Map>
const typename Map::mapped_type* Find(const Map& map, ir::DType dtype) {
  const char* key = ProfileKey(dtype);
  if (!key) return nullptr;
  if (auto it = map.find(key); it != map.end()) return &it->second;
  if (dtype == ir::DType::kFloat32 || dtype == ir::DType::kBFloat16) {
    if (auto it = map.find("fp16"); it != map.end()) return &it->second;
  }
  return nullptr;
}

}  // namespace

std::string_view LayoutName(Layout layout) {
  switch (layout) {
    case Layout::kNd:
      return "ND";
    case Layout::kNc1hwc0:
      return "NC1HWC0";
    case Layout::kFractalNz:
    case Layout::kFractalNzRows:
      return "FRACTAL_NZ";
    case Layout::kFractalZ:
      return "FRACTAL_Z";
  }
  return "?";
}

int64_t RoundUp(int64_t value, int64_t multiple) {
  if (multiple <= 1) return value;
  const int64_t blocks = value / multiple + (value % multiple != 0);
  return SatMul(blocks, multiple);
}

int64_t C0For(const target::Target& target, ir::DType dtype) {
  const auto* c0 = Find(target.layout.c0, dtype);
  return c0 ? c0->value : 0;
}

int64_t FractalRowsFor(const target::Target& target, ir::DType dtype) {
  const auto* fractal = Find(target.layout.fractal, dtype);
  return fractal ? fractal->value[0] : 0;
}

int64_t PaddedBytes(const ir::Shape& shape, ir::DType dtype, Layout layout, const target::Target& target) {
  ir::Shape dims = shape;
  const int64_t c0 = C0For(target, dtype);
  const int64_t rows = FractalRowsFor(target, dtype);
  switch (layout) {
    case Layout::kNd:
      break;
    case Layout::kNc1hwc0:
      // C1 = ceil(C / C0), the last block padded (ascend-facts §2.2).
      if (dims.size() == 4 && c0 > 0) dims[1] = RoundUp(dims[1], c0);
      break;
    case Layout::kFractalNz:
      // The two matrix dims in 16 x C0 fractals (ATB TransData ND -> NZ, ascend-facts §2.2); a
      // vector operand is one row.
      if (c0 > 0 && rows > 0) {
        if (dims.size() == 1) dims.insert(dims.begin(), 1);
        if (dims.size() >= 2) {
          dims[dims.size() - 2] = RoundUp(dims[dims.size() - 2], rows);
          dims[dims.size() - 1] = RoundUp(dims[dims.size() - 1], c0);
        }
      }
      break;
    case Layout::kFractalNzRows:
      // Rows = every dim but the last, folded, then padded like a 2-D NZ matrix.
      if (c0 > 0 && rows > 0 && !dims.empty()) {
        int64_t folded = 1;
        for (size_t i = 0; i + 1 < dims.size(); ++i) folded = SatMul(folded, dims[i]);
        dims = {RoundUp(folded, rows), RoundUp(dims.back(), c0)};
      }
      break;
    case Layout::kFractalZ:
      // (ceil(Cin/C0)*H*W, ceil(N/16), 16, C0) for a [N, Cin, H, W] weight (ascend-facts §2.2).
      if (dims.size() == 4 && c0 > 0 && rows > 0) {
        dims[0] = RoundUp(dims[0], rows);
        dims[1] = RoundUp(dims[1], c0);
      } else if (dims.size() == 2 && c0 > 0 && rows > 0) {
        dims[0] = RoundUp(dims[0], rows);
        dims[1] = RoundUp(dims[1], c0);
      }
      break;
  }
  int64_t bytes = static_cast<int64_t>(ir::DTypeSize(dtype));
  for (int64_t d : dims) bytes = SatMul(bytes, d < 0 ? 0 : d);
  return bytes;
}

int64_t AllocBytes(int64_t bytes, int64_t pad, int64_t alignment) {
  const int64_t padded = bytes > kMax - pad ? kMax : bytes + pad;
  if (alignment <= 1) return padded;
  return padded < alignment ? alignment : RoundUp(padded, alignment);
}

int64_t AllocBytes(int64_t bytes, const target::Target& target) {
  return AllocBytes(bytes, target.memory.alloc_pad.value, target.memory.alloc_alignment.value);
}

}  // namespace npugap::analysis::memory
