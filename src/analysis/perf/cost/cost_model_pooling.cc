// The window of a max pooling with an argmax mask, read from the mask's shape. CANN's
// max_pool_with_argmax writes the mask as uint8 / uint16 bits [N, C1, kh * kw, ceil(Ho Wo / 16) + 1,
// 16] (the ResNet-50 record: 32x4x9x197x16 for a 3x3 window over 56 x 56 outputs), so its dim 2
// is the number of window taps. The forward kernel compares each tap of each output and selects
// the argmax; the gradient selects and adds each tap's gradient: 2 instructions per tap and pooled
// element, spread over the elements of the largest operand (the feature map x, or the mask of a
// large window). For ResNet-50's 3x3 stride-2 pooling that is the table's 4.5 per element of x;
// YOLOv5's SPP (5 x 5, 9 x 9, 13 x 13, stride 1) does 50 to 338 per pooled element.
#include <algorithm>

#include "cost_model_internal.h"

namespace npugap::analysis::perf::internal {
namespace {

bool IsMask(const Operand& op) {
  return op.format == "NC1HWC0" && op.shape.size() == 5 && (op.dtype == "uint8" || op.dtype == "uint16");
}

}  // namespace

std::optional<double> ArgmaxPoolOpsPerElement(std::string_view op_type, const Kernel& k) {
  if (op_type != "MaxPoolWithArgmax" && op_type != "MaxPoolGradWithArgmax") return std::nullopt;
  const Operand* mask = nullptr;
  int64_t largest = 0, pooled = 0;
  for (const auto* list : {&k.inputs, &k.outputs}) {
    for (const Operand& op : *list) {
      // The mask counts for the largest operand (the cost model's unit): a large window's mask
      // outgrows the feature map.
      largest = std::max(largest, Elements(op));
      if (IsMask(op)) {
        mask = &op;
        continue;
      }
      if (op.format != "NC1HWC0" || op.shape.size() != 5) continue;
      const int64_t n = Elements(op);
      pooled = pooled == 0 ? n : std::min(pooled, n);
    }
  }
  if (!mask || largest == 0 || mask->shape[2] <= 0) return std::nullopt;
  return 2.0 * static_cast<double>(mask->shape[2]) * static_cast<double>(pooled) /
         static_cast<double>(largest);
}

}  // namespace npugap::analysis::perf::internal
