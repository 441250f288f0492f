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

TEST(FusionTest, FoldsBatchNormIntoTheConvolution) {
  ModelBuilder b;
  b.Input("x", {-1, 4, 6, 6}).Output("y", {-1, 4, 6, 6});
  b.FloatInitializer("w", {4, 4, 3, 3}, Ramp(144, 0.2f)).FloatInitializer("cb", {4}, {0.5f, 0.f, -1.f, 2.f});
  b.FloatInitializer("scale", {4}, {1.5f, 0.5f, -1.f, 2.f}).FloatInitializer("beta", {4}, {0.1f, 0.2f, 0.3f, 0.4f});
  b.FloatInitializer("mean", {4}, {0.3f, -0.1f, 0.f, 1.f}).FloatInitializer("var", {4}, {0.5f, 2.f, 1.f, 0.01f});
  b.Node("Conv", {"x", "w", "cb"}, {"c"}, "conv").Node("BatchNormalization", {"c", "scale", "beta", "mean", "var"}, {"n"}, "bn");
  b.Node("Relu", {"n"}, {"y"}, "relu");
  AddPads(b.proto(), 0);
  const ir::Model m = Load(b);
  FusionStats stats;
  auto fused = FuseForExecution(m, &stats);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(stats.batchnorms_folded, 1);
  EXPECT_EQ(stats.convs_fused, 1);
  ASSERT_EQ(fused->graph.nodes.size(), 1u);
  EXPECT_EQ(fused->graph.nodes[0].op_type, "FusedConv");
  auto fast = Executor::Create(m, {1, true});
  auto plain = Executor::Create(m, {1, false});
  ASSERT_TRUE(fast.ok() && plain.ok());
  const ir::Tensor x = ir::Tensor::FromVector<float>({2, 4, 6, 6}, Ramp(288, 1.f));
  auto y1 = fast->Run({x});
  auto y2 = plain->Run({x});
  ASSERT_TRUE(y1.ok() && y2.ok());
  for (int64_t i = 0; i < (*y1)[0].numel(); ++i) {
    const float want = (*y2)[0].data<float>()[i];
    EXPECT_NEAR((*y1)[0].data<float>()[i], want, 1e-5f * (1.f + std::fabs(want))) << "at " << i;
  }
}

// A chain of convolutions with 24 channels (padded to 32 when blocked), a residual sum and a
// depthwise convolution: a -> b = Relu(Conv(a) + a) -> c = Conv_dw(b) -> y = Conv(c) (output).
ModelBuilder ChainModel() {
  ModelBuilder b;
  b.Input("x", {-1, 24, 7, 7}).Output("y", {-1, 24, 7, 7});
  b.FloatInitializer("wa", {24, 24, 3, 3}, Ramp(24 * 24 * 9, 0.1f));
  b.FloatInitializer("wb", {24, 24, 3, 3}, Ramp(24 * 24 * 9, 0.07f));
  b.FloatInitializer("wc", {24, 1, 3, 3}, Ramp(24 * 9, 0.3f));
  b.FloatInitializer("wy", {24, 24, 1, 1}, Ramp(24 * 24, 0.2f));
  b.Node("Conv", {"x", "wa"}, {"ca"}, "conv_a").Node("Relu", {"ca"}, {"a"}, "relu_a");
  b.Node("Conv", {"a", "wb"}, {"cb"}, "conv_b").Node("Add", {"cb", "a"}, {"sb"}, "add_b");
  b.Node("Relu", {"sb"}, {"rb"}, "relu_b");
  b.Node("Conv", {"rb", "wc"}, {"c"}, "conv_c").Node("Conv", {"c", "wy"}, {"y"}, "conv_y");
  for (int n : {0, 2, 5}) AddPads(b.proto(), n);
  auto* group = b.proto().mutable_graph()->mutable_node(5)->add_attribute();
  group->set_name("group");
  group->set_type(onnx::AttributeProto::INT);
  group->set_i(24);
  return b;
}

TEST(FusionTest, ConvolutionChainsStayBlockedAndMatchTheUnfusedRun) {
  const ir::Model m = Load(ChainModel());
  FusionStats stats;
  auto fused = FuseForExecution(m, &stats);
  ASSERT_TRUE(fused.ok()) << fused.status().message();
  EXPECT_EQ(stats.convs_fused, 2);
  EXPECT_EQ(stats.blocked_values, 3);  // a, rb and c; y is a graph output
  const auto& nodes = fused->graph.nodes;
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(nodes[0].GetInt(kBlockedXAttr, 0), 0);  // x is a graph input
  EXPECT_EQ(nodes[0].GetInt(kBlockedYAttr, 0), 1);
  EXPECT_EQ(nodes[1].GetInt(kBlockedXAttr, 0), 1);
  EXPECT_EQ(nodes[1].GetInt(kBlockedZAttr, 0), 1);
  EXPECT_EQ(nodes[3].GetInt(kBlockedYAttr, 0), 0);

  auto fast = Executor::Create(m, {1, true});
  auto plain = Executor::Create(m, {1, false});
  ASSERT_TRUE(fast.ok() && plain.ok());
  for (int64_t batch : {1, 3}) {
    const ir::Tensor x = ir::Tensor::FromVector<float>({batch, 24, 7, 7}, Ramp(static_cast<size_t>(batch) * 24 * 49, 1.f));
    auto a = fast->Run({x});
    auto b = plain->Run({x});
    ASSERT_TRUE(a.ok() && b.ok()) << a.status().message() << b.status().message();
    ASSERT_EQ((*a)[0].shape(), (ir::Shape{batch, 24, 7, 7}));
    for (int64_t i = 0; i < (*a)[0].numel(); ++i) {
      const float want = (*b)[0].data<float>()[i];
      EXPECT_NEAR((*a)[0].data<float>()[i], want, 1e-4f * (1.f + std::fabs(want))) << "at " << i;
    }
  }
}

}  // namespace npugap::exec
