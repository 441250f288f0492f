#include "npugap/exec/fusion.h"

#include <gtest/gtest.h>

#include <cmath>

#include "../onnx/model_builder.h"
#include "npugap/exec/executor.h"
#include "npugap/onnx/import.h"

namespace npugap::exec {
namespace {

using testing::ModelBuilder;

std::vector<float> Ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(static_cast<float>(i) * 0.7f + 0.3f);
  return v;
}

void AddPads(onnx::ModelProto& m, int node) {
  auto* a = m.mutable_graph()->mutable_node(node)->add_attribute();
  a->set_name("pads");
  a->set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i) a->add_ints(1);
}

void AddConstant(ModelBuilder& b, const std::string& name, float value) {
  b.Node("Constant", {}, {name}, name);
  auto& g = *b.proto().mutable_graph();
  auto* a = g.mutable_node(g.node_size() - 1)->add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  a->mutable_t()->add_float_data(value);
}

// y = Relu(Conv(x) + x); y2 = Clip(Conv2(x), 0, 6) with Constant bounds; y3 = Conv3(x) + bias
// (broadcast Z: not fusable); y4 = Relu(c4) where c4 = Conv4(x) is also a graph output.
ModelBuilder FusableModel() {
  ModelBuilder b;
  b.Input("x", {-1, 4, 6, 6});
  for (const char* y : {"y", "y2", "y3", "y4", "c4"}) b.Output(y, {-1, 4, 6, 6});
  for (const char* w : {"w", "w2", "w3", "w4"}) b.FloatInitializer(w, {4, 4, 3, 3}, Ramp(144, 0.2f));
  b.FloatInitializer("b", {4}, {0.1f, -0.2f, 0.3f, -0.4f});
  b.FloatInitializer("bias", {1, 4, 1, 1}, {1, 2, 3, 4});
  AddConstant(b, "lo", 0.f);
  AddConstant(b, "hi", 0.5f);
  b.Node("Conv", {"x", "w", "b"}, {"c"}, "conv").Node("Add", {"c", "x"}, {"s"}, "add").Node("Relu", {"s"}, {"y"}, "relu");
  b.Node("Conv", {"x", "w2"}, {"c2"}, "conv2").Node("Clip", {"c2", "lo", "hi"}, {"y2"}, "clip");
  b.Node("Conv", {"x", "w3"}, {"c3"}, "conv3").Node("Add", {"c3", "bias"}, {"y3"}, "add3");
  b.Node("Conv", {"x", "w4"}, {"c4"}, "conv4").Node("Relu", {"c4"}, {"y4"}, "relu4");
  for (int n : {2, 5, 7, 9}) AddPads(b.proto(), n);
  return b;
}

ir::Model Load(const ModelBuilder& b) {
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "fusion.onnx");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(m).value();
}

}  // namespace

TEST(FusionTest, FusesConvAddActivationAndFoldsConstants) {
  const ir::Model m = Load(FusableModel());
  FusionStats stats;
  auto fused = FuseForExecution(m, &stats);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(stats.constants_folded, 2);
  EXPECT_EQ(stats.convs_fused, 2);
  EXPECT_EQ(stats.nodes_absorbed, 3);
  std::vector<std::string> ops;
  for (const ir::Node& n : fused->graph.nodes) ops.push_back(n.op_type);
  EXPECT_EQ(ops, (std::vector<std::string>{"FusedConv", "FusedConv", "Conv", "Add", "Conv", "Relu"}));
  const ir::Node& clip = fused->graph.nodes[1];
  EXPECT_EQ(clip.GetString("activation", ""), "Clip");
  EXPECT_EQ(clip.GetFloats("activation_params"), (std::vector<float>{0.f, 0.5f}));
  EXPECT_EQ(fused->opsets.at("com.microsoft"), 1);
}

TEST(FusionTest, FusedRunMatchesUnfusedRun) {
  const ir::Model m = Load(FusableModel());
  auto fused = Executor::Create(m, {1, true});
  auto plain = Executor::Create(m, {1, false});
  ASSERT_TRUE(fused.ok() && plain.ok());
  EXPECT_EQ(plain->model().graph.nodes.size(), m.graph.nodes.size());
  const ir::Tensor x = ir::Tensor::FromVector<float>({2, 4, 6, 6}, Ramp(288, 1.5f));
  auto a = fused->Run({x});
  auto b = plain->Run({x});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().message() << b.status().message();
  ASSERT_EQ(a->size(), 5u);
  for (size_t o = 0; o < a->size(); ++o) {
    ASSERT_EQ((*a)[o].shape(), (*b)[o].shape());
    for (int64_t i = 0; i < (*a)[o].numel(); ++i) {
      EXPECT_NEAR((*a)[o].data<float>()[i], (*b)[o].data<float>()[i], 1e-5f) << "output " << o << " at " << i;
    }
  }
  // The Clip bounds were applied: y2 within [0, 0.5] and reaching both ends.
  const ir::Tensor& y2 = (*a)[1];
  float lo = 1e9f, hi = -1e9f;
  for (int64_t i = 0; i < y2.numel(); ++i) {
    lo = std::min(lo, y2.data<float>()[i]);
    hi = std::max(hi, y2.data<float>()[i]);
  }
  EXPECT_EQ(lo, 0.f);
  EXPECT_EQ(hi, 0.5f);
}

}  // namespace npugap::exec
