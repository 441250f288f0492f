// The FP64 reference: the same model with every float32 quantity promoted to float64, run on the
// executor's double kernels. Float32 arithmetic in the reference then no longer contributes to the
// measured error, which is what --reference fp64 is for (an FP32 reference already carries FP32's
// own rounding, ~1e-7 relative, into every comparison).
#include <memory>

#include <fmt/format.h>

#include "npugap/analysis/precision/compare.h"
#include "npugap/exec/compare.h"
#include "npugap/exec/executor.h"

namespace npugap::analysis::precision {
namespace {

constexpr int64_t kOnnxFloat = 1, kOnnxDouble = 11;

ir::Tensor ToFloat64(const ir::Tensor& t) {
  if (t.dtype() != ir::DType::kFloat32 && t.dtype() != ir::DType::kFloat16 &&
      t.dtype() != ir::DType::kBFloat16) {
    return t;
  }
  ir::Tensor d = ir::Tensor::Empty(ir::DType::kFloat64, t.shape());
  double* out = d.data<double>();
  if (t.dtype() == ir::DType::kFloat32) {
    const float* in = t.data<float>();
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = static_cast<double>(in[i]);
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) out[i] = exec::ElementAsDouble(t, i);
  }
  return d;
}

void PromoteGraph(ir::Graph& g) {
  for (ir::Value& v : g.values) {
    if (v.type.dtype == ir::DType::kFloat32) v.type.dtype = ir::DType::kFloat64;
  }
  for (auto& [index, tensor] : g.initializers) {
    if (tensor.dtype() == ir::DType::kFloat32) tensor = ToFloat64(tensor);
  }
  for (ir::Node& n : g.nodes) {
    for (auto& [name, attr] : n.attributes) {
      if (attr.kind == ir::Attribute::Kind::kTensor && attr.t.dtype() == ir::DType::kFloat32) {
        attr.t = ToFloat64(attr.t);
      }
      if (attr.kind == ir::Attribute::Kind::kGraph && attr.g) {
        auto copy = std::make_shared<ir::Graph>(*attr.g);
        PromoteGraph(*copy);
        attr.g = std::move(copy);
      }
      if (attr.kind == ir::Attribute::Kind::kGraphs) {
        for (auto& sub : attr.graphs) {
          auto copy = std::make_shared<ir::Graph>(*sub);
          PromoteGraph(*copy);
          sub = std::move(copy);
        }
      }
    }
    // Casts to float32 cast to float64 instead; EyeLike / RandomNormal etc. name their dtype too.
    if ((n.op_type == "Cast" || n.op_type == "EyeLike" || n.op_type == "RandomNormal" ||
         n.op_type == "RandomUniform" || n.op_type == "RandomNormalLike" ||
         n.op_type == "RandomUniformLike")) {
      for (const char* key : {"to", "dtype"}) {
        auto it = n.attributes.find(key);
        if (it != n.attributes.end() && it->second.kind == ir::Attribute::Kind::kInt &&
            it->second.i == kOnnxFloat) {
          it->second.i = kOnnxDouble;
        }
      }
    }
  }
}

}  // namespace

Expected<ir::Model> PromoteToFloat64(const ir::Model& model) {
  ir::Model copy = model;
  PromoteGraph(copy.graph);
  return copy;
}

std::vector<ir::Tensor> PromoteInputs(const std::vector<ir::Tensor>& inputs) {
  std::vector<ir::Tensor> out;
  out.reserve(inputs.size());
  for (const ir::Tensor& t : inputs) out.push_back(ToFloat64(t));
  return out;
}

Expected<TracedRun> MakeReferenceRun(const ir::Model& model, ReferencePrecision precision, int num_threads) {
  std::shared_ptr<const ir::Model> owned;
  const ir::Model* runs = &model;
  if (precision == ReferencePrecision::kFP64) {
    NPUGAP_ASSIGN_OR_RETURN(ir::Model promoted, PromoteToFloat64(model));
    owned = std::make_shared<const ir::Model>(std::move(promoted));
    runs = owned.get();
  }
  auto executor = exec::Executor::Create(*runs, {num_threads, /*fuse=*/false});
  if (!executor.ok()) {
    return executor.status().WithContext(precision == ReferencePrecision::kFP64 ? "FP64 reference"
                                                                                : "reference");
  }
  auto shared = std::make_shared<exec::Executor>(std::move(executor).value());
  const bool promote = precision == ReferencePrecision::kFP64;
  return TracedRun(
      [owned, shared, promote](const std::vector<ir::Tensor>& inputs,
                               const EmulationObserver& observer) -> Expected<std::vector<ir::Tensor>> {
        exec::NodeObserver adapter;
        if (observer) {
          adapter = [&observer](const ir::Node& node, const std::vector<ir::Tensor>& outputs) {
            observer(node, outputs, {});
          };
        }
        return shared->Run(promote ? PromoteInputs(inputs) : inputs, adapter);
      });
}

}  // namespace npugap::analysis::precision
