// The seed's SimpleNet, built in C++ so the 126 MB model is generated, never committed.
// Conv2d(3→64, k=3) → BatchNorm2d(64) → ReLU → Flatten → Linear(64·222·222 → 10).
#include <cmath>
#include <random>

#include "npugap/onnx/export.h"

namespace npugap::onnx_import {
namespace {

using ir::Dim;
using ir::DType;

// PyTorch's default init for Conv/Linear: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias.
ir::Tensor UniformTensor(ir::Shape shape, int64_t fan_in, std::mt19937_64& rng) {
  ir::Tensor t = ir::Tensor::Empty(DType::kFloat32, std::move(shape));
  const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
  std::uniform_real_distribution<float> dist(-bound, bound);
  for (float& v : t.span<float>()) v = dist(rng);
  return t;
}

ir::Tensor FilledTensor(ir::Shape shape, float value) {
  ir::Tensor t = ir::Tensor::Empty(DType::kFloat32, std::move(shape));
  for (float& v : t.span<float>()) v = value;
  return t;
}

class Builder {
 public:
  explicit Builder(ir::Graph& g) : g_(g) {}

  int Input(const std::string& name, std::vector<Dim> dims) {
    ir::Value v;
    v.name = name;
    v.type = {DType::kFloat32, std::move(dims)};
    v.is_graph_input = true;
    const int id = g_.AddValue(std::move(v));
    g_.inputs.push_back(id);
    return id;
  }

  int Weight(const std::string& name, ir::Tensor t) {
    ir::Value v;
    v.name = name;
    v.is_initializer = true;
    std::vector<Dim> dims;
    for (int64_t d : t.shape()) dims.push_back(Dim::Static(d));
    v.type = {t.dtype(), std::move(dims)};
    const int id = g_.AddValue(std::move(v));
    g_.initializers.emplace(id, std::move(t));
    return id;
  }

  int Op(const std::string& op, const std::string& name, std::vector<int> inputs, std::vector<Dim> out_dims,
         std::map<std::string, ir::Attribute> attrs = {}, const std::string& out_name = "") {
    ir::Value out;
    out.name = out_name.empty() ? name + "_out" : out_name;
    out.type = {DType::kFloat32, std::move(out_dims)};
    const int id = g_.AddValue(std::move(out));
    ir::Node n;
    n.name = name;
    n.op_type = op;
    n.inputs = std::move(inputs);
    n.outputs = {id};
    n.attributes = std::move(attrs);
    g_.nodes.push_back(std::move(n));
    return id;
  }

 private:
  ir::Graph& g_;
};

ir::Attribute Ints(std::vector<int64_t> v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInts;
  a.ints = std::move(v);
  return a;
}
ir::Attribute Int(int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  return a;
}
ir::Attribute Float(float v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kFloat;
  a.f = v;
  return a;
}

}  // namespace

ir::Model BuildSimpleNet(int64_t batch, uint64_t seed) {
  constexpr int64_t kChannels = 64;
  constexpr int64_t kSide = 222;  // 224 - 3 + 1
  constexpr int64_t kFeatures = kChannels * kSide * kSide;
  std::mt19937_64 rng(seed);
  ir::Model model;
  model.ir_version = 8;
  model.producer = "npugap";
  model.opsets[""] = 13;
  ir::Graph& g = model.graph;
  g.name = "SimpleNet";
  Builder b(g);
  const Dim n = batch > 0 ? Dim::Static(batch) : Dim::Symbolic("batch");
  const int x = b.Input("input", {n, Dim::Static(3), Dim::Static(224), Dim::Static(224)});
  const int conv_w = b.Weight("conv.weight", UniformTensor({kChannels, 3, 3, 3}, 3 * 9, rng));
  const int conv_b = b.Weight("conv.bias", UniformTensor({kChannels}, 3 * 9, rng));
  const std::vector<Dim> act = {n, Dim::Static(kChannels), Dim::Static(kSide), Dim::Static(kSide)};
  const int conv = b.Op("Conv", "conv", {x, conv_w, conv_b}, act, {{"kernel_shape", Ints({3, 3})}});
  // Freshly initialised BatchNorm2d in eval mode: gamma 1, beta 0, running mean 0, var 1.
  const int gamma = b.Weight("bn.weight", FilledTensor({kChannels}, 1.0f));
  const int beta = b.Weight("bn.bias", FilledTensor({kChannels}, 0.0f));
  const int mean = b.Weight("bn.running_mean", FilledTensor({kChannels}, 0.0f));
  const int var = b.Weight("bn.running_var", FilledTensor({kChannels}, 1.0f));
  const int bn = b.Op("BatchNormalization", "bn", {conv, gamma, beta, mean, var}, act, {{"epsilon", Float(1e-5f)}});
  const int relu = b.Op("Relu", "relu", {bn}, act);
  const int flat = b.Op("Flatten", "flatten", {relu}, {n, Dim::Static(kFeatures)}, {{"axis", Int(1)}});
  const int fc_w = b.Weight("fc.weight", UniformTensor({10, kFeatures}, kFeatures, rng));
  const int fc_b = b.Weight("fc.bias", UniformTensor({10}, kFeatures, rng));
  const int fc = b.Op("Gemm", "fc", {flat, fc_w, fc_b}, {n, Dim::Static(10)}, {{"transB", Int(1)}}, "logits");
  g.outputs.push_back(fc);
  g.values[static_cast<size_t>(fc)].is_graph_output = true;
  g.RebuildLinks();
  return model;
}

}  // namespace npugap::onnx_import
