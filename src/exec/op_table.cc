#include "npugap/exec/op_table.h"

#include "npugap/exec/emulation_op.h"

#include <string>

namespace npugap::exec {
namespace {

bool SameDomain(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view d) { return d == "ai.onnx" ? std::string_view{} : d; };
  return norm(a) == norm(b);
}

}  // namespace

namespace support {

// Conv2D/Conv3D on AI Core: spatial ranks 1 to 3 (1-D runs as 2-D with H = 1); dilations and
// strides 1..255 (assumed from the Conv2D op constraints; see docs/compat.md). Beyond that ATC has
// no kernel at all: a Conv has no AI CPU implementation.
AttrVerdict ConvAttrs(const SupportQuery& q) {
  constexpr int64_t kMaxDilation = 255;
  constexpr int64_t kMaxStride = 255;
  const std::vector<int64_t> kernel = q.node.GetInts("kernel_shape");
  if (kernel.size() > 3) {
    return {Engine::kNone, std::to_string(kernel.size()) + "-D convolution (AI Core Conv covers 1-D to 3-D)"};
  }
  for (int64_t d : q.node.GetInts("dilations")) {
    if (d < 1 || d > kMaxDilation) {
      return {Engine::kNone, "dilation " + std::to_string(d) + " outside 1..255"};
    }
  }
  for (int64_t s : q.node.GetInts("strides")) {
    if (s < 1 || s > kMaxStride) {
      return {Engine::kNone, "stride " + std::to_string(s) + " outside 1..255"};
    }
  }
  return {};
}

// Resize / Upsample: nearest and (bi)linear have AI Core kernels (ResizeNearestNeighborV2,
// ResizeBilinearV2); cubic and tf_crop_and_resize are assumed AI CPU only.
AttrVerdict ResizeAttrs(const SupportQuery& q) {
  const std::string mode = q.node.GetString("mode", "nearest");
  if (mode == "cubic") return {Engine::kAiCpu, "mode 'cubic' has no AI Core kernel"};
  const std::string ctm = q.node.GetString("coordinate_transformation_mode", "half_pixel");
  if (ctm == "tf_crop_and_resize") {
    return {Engine::kAiCpu, "coordinate_transformation_mode 'tf_crop_and_resize'"};
  }
  return {};
}

}  // namespace support

std::vector<OpRow> JoinRows(std::span<const OpRow> first, std::span<const OpRow> second) {
  std::vector<OpRow> all(first.begin(), first.end());
  all.insert(all.end(), second.begin(), second.end());
  return all;
}

const OpTable& OpTable::Default() {
  static const OpTable table = [] {
    OpTable t;
    for (auto family : {ElementwiseOps(), ActivationOps(), TensorOps(), IndexingOps(), ReductionOps(),
                        NormalizationOps(), NnOps(), QuantOps(), ControlFlowOps(), RecurrentOps(),
                        LinalgOps(), SignalOps(), DetectionOps(), TextOps(), TrainingOps(), EmulationOps()}) {
      t.rows_.insert(t.rows_.end(), family.begin(), family.end());
    }
    return t;
  }();
  return table;
}

const OpRow* OpTable::Find(std::string_view domain, std::string_view op_type, int64_t opset) const {
  for (const OpRow& r : rows_) {
    if (r.op_type == op_type && SameDomain(r.domain, domain) && opset >= r.since_version &&
        opset <= r.until_version) {
      return &r;
    }
  }
  return nullptr;
}

bool OpTable::Knows(std::string_view domain, std::string_view op_type) const {
  for (const OpRow& r : rows_) {
    if (r.op_type == op_type && SameDomain(r.domain, domain)) return true;
  }
  return false;
}

}  // namespace npugap::exec
