// Small models and helpers shared by the lowering tests (lower_test.cc, lower_inventory_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../../../onnx/model_builder.h"
#include "npugap/analysis/memory/shapes.h"
#include "npugap/analysis/perf/lower/lower.h"
#include "npugap/onnx/import.h"

namespace npugap::analysis::perf::lower_test {

using npugap::testing::ModelBuilder;

inline ir::Model Load(const ModelBuilder& b) {
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "test.onnx", {});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

inline const target::Target& Ascend910() {
  static const target::Target t = *target::LoadTarget("ascend910");
  return t;
}

inline std::vector<float> Fill(int64_t n, float v = 0.1f) {
  return std::vector<float>(static_cast<size_t>(n), v);
}

// x[2,3,8,8] -> Conv(w 16x3x3x3) -> BN -> Relu -> Conv(16x16x1x1) -> BN -> Add(relu) -> Relu ->
// GlobalAveragePool -> Flatten -> MatMul(16x10) -> Add(bias) -> y[2,10]: one residual block.
inline ModelBuilder ResidualBlock() {
  ModelBuilder b;
  b.Input("x", {2, 3, 8, 8}).Output("y", {2, 10});
  b.FloatInitializer("w1", {16, 3, 3, 3}, Fill(16 * 27)).FloatInitializer("w2", {16, 16, 1, 1}, Fill(256));
  for (const char* bn : {"bn1", "bn2"}) {
    for (const char* p : {"_s", "_b", "_m", "_v"})
      b.FloatInitializer(std::string(bn) + p, {16}, Fill(16, 1.0f));
  }
  b.FloatInitializer("fc_w", {16, 10}, Fill(160)).FloatInitializer("fc_b", {10}, Fill(10));
  b.Node("Conv", {"x", "w1"}, {"c1"}, "conv1");
  b.proto().mutable_graph()->mutable_node(0)->add_attribute()->CopyFrom([] {
    onnx::AttributeProto a;
    a.set_name("pads");
    a.set_type(onnx::AttributeProto::INTS);
    for (int i = 0; i < 4; ++i) a.add_ints(1);
    return a;
  }());
  b.Node("BatchNormalization", {"c1", "bn1_s", "bn1_b", "bn1_m", "bn1_v"}, {"b1"}, "bn1");
  b.Node("Relu", {"b1"}, {"r1"}, "relu1");
  b.Node("Conv", {"r1", "w2"}, {"c2"}, "conv2");
  b.Node("BatchNormalization", {"c2", "bn2_s", "bn2_b", "bn2_m", "bn2_v"}, {"b2"}, "bn2");
  b.Node("Add", {"b2", "r1"}, {"a2"}, "add");
  b.Node("Relu", {"a2"}, {"r2"}, "relu2");
  b.Node("GlobalAveragePool", {"r2"}, {"p"}, "gap");
  b.Node("Flatten", {"p"}, {"f"}, "flatten");
  b.Node("MatMul", {"f", "fc_w"}, {"m"}, "fc");
  b.Node("Add", {"m", "fc_b"}, {"y"}, "fc_bias");
  return b;
}

// x[4, 8, 32] + position embedding -> LayerNormalization -> dense 32 -> 16 -> y.
inline ModelBuilder LayerNormThenDense() {
  ModelBuilder b(17);
  b.Input("x", {4, 8, 32}).Output("y", {4, 8, 16});
  b.FloatInitializer("pe", {8, 32}, Fill(8 * 32));
  b.FloatInitializer("g", {32}, Fill(32)).FloatInitializer("beta", {32}, Fill(32));
  b.FloatInitializer("w", {32, 16}, Fill(32 * 16));
  b.Node("Add", {"x", "pe"}, {"e"}, "embed");
  b.Node("LayerNormalization", {"e", "g", "beta"}, {"ln"}, "ln");
  b.Node("MatMul", {"ln", "w"}, {"y"}, "dense");
  return b;
}

inline std::vector<DeviceOp> Mapped(const ir::Model& m, bool train) {
  auto shapes = memory::StaticShapes(m.graph);
  EXPECT_TRUE(shapes.ok());
  auto ops = MapNodes(m.graph, *shapes, train);
  EXPECT_TRUE(ops.ok()) << ops.status().message();
  return ops.ok() ? *ops : std::vector<DeviceOp>{};
}

inline std::vector<std::string> Types(const std::vector<DeviceOp>& ops) {
  std::vector<std::string> t;
  for (const auto& op : ops) t.push_back(op.op_type);
  return t;
}
inline int64_t Count(const std::vector<std::string>& types, const std::string& t) {
  return std::count(types.begin(), types.end(), t);
}

}  // namespace npugap::analysis::perf::lower_test
