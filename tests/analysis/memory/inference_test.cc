// Inference plan on small imported models: binding errors, views, NC1HWC0 / FRACTAL_NZ padding,
// TransData workspaces, weights' offline layouts, batch scaling.
#include "npugap/analysis/memory/inference.h"

#include <gtest/gtest.h>

#include "../../onnx/model_builder.h"
#include "npugap/onnx/import.h"

namespace npugap::analysis::memory {
namespace {

using npugap::testing::ModelBuilder;

ir::Model Load(const ModelBuilder& b, std::optional<int64_t> batch = std::nullopt) {
  onnx_import::ImportOptions o;
  o.batch = batch;
  auto m = onnx_import::LoadModelFromBytes(b.Bytes(), ".", "test.onnx", o);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : ir::Model{};
}

const target::Target& B2() {
  static const target::Target t = *target::LoadTarget("ascend910b2");
  return t;
}

const Buffer& Named(const Lifetimes& lt, const ir::Graph& g, const std::string& name) {
  for (const Buffer& b : lt.buffers) {
    if (g.values[static_cast<size_t>(b.value)].name == name) return b;
  }
  ADD_FAILURE() << "no buffer " << name;
  static const Buffer kNone;
  return kNone;
}

int64_t Npu(int64_t bytes) { return (bytes + 32 + 511) / 512 * 512; }  // +32 B, 512 B blocks

TEST(InferenceTest, SymbolicShapeAfterBindingIsAnErrorNamingTheValue) {
  ModelBuilder b;
  b.Input("x", {-1, 4}).Output("y", {-1, 4}).Node("Relu", {"x"}, {"y"});
  auto shapes = StaticShapes(Load(b).graph);
  ASSERT_FALSE(shapes.ok());
  EXPECT_NE(shapes.status().message().find("'x'"), std::string::npos) << shapes.status().message();
  EXPECT_TRUE(StaticShapes(Load(b, 3).graph).ok());
}

TEST(InferenceTest, ViewsShareTheirInputsBuffer) {
  // x -> Relu -> r -> Flatten -> f -> Relu -> y: f lives in r's buffer, which stays until step 2.
  ModelBuilder b;
  b.Input("x", {2, 4, 8}).Output("y", {2, 32});
  b.Node("Relu", {"x"}, {"r"}).Node("Flatten", {"r"}, {"f"}).Node("Relu", {"f"}, {"y"});
  const ir::Model m = Load(b);
  auto shapes = StaticShapes(m.graph);
  ASSERT_TRUE(shapes.ok());
  auto lt = ComputeLifetimes(m.graph, *shapes, B2(), true);
  ASSERT_TRUE(lt.ok()) << lt.status().message();
  ASSERT_EQ(lt->buffers.size(), 3u);  // x, r (+ f), y
  const Buffer& r = Named(*lt, m.graph, "r");
  EXPECT_EQ(r.first, 0);
  EXPECT_EQ(r.last, 2);
  EXPECT_EQ(r.bytes, 2 * 4 * 8 * 4);
  auto rep = PlanInference(m.graph, *shapes, B2());
  ASSERT_TRUE(rep.ok());
  // Step 0 holds x and r, step 2 holds r and y: 3 x 512 B blocks are never needed at once.
  EXPECT_EQ(rep->lower_bound_bytes, 2 * 512);
  EXPECT_EQ(rep->activation_peak_bytes, 2 * 512);
  EXPECT_EQ(rep->naive_bytes, 3 * 512);
}

TEST(InferenceTest, ConvActivationsArePaddedToC0AndTheInputConverted) {
  ModelBuilder b;
  b.Input("x", {1, 3, 8, 8}).Output("y", {1, 16, 6, 6});
  b.FloatInitializer("w", {16, 3, 3, 3}, std::vector<float>(16 * 3 * 3 * 3, 0.5f));
  b.Node("Conv", {"x", "w"}, {"y"});
  const ir::Model m = Load(b);
  auto shapes = StaticShapes(m.graph);
  ASSERT_TRUE(shapes.ok());
  auto rep = PlanInference(m.graph, *shapes, B2());
  ASSERT_TRUE(rep.ok()) << rep.status().message();
  EXPECT_EQ(rep->workspace_bytes, Npu(1 * 16 * 8 * 8 * 4));  // TransData ND -> NC1HWC0 of x (C 3 -> 16)
  EXPECT_EQ(rep->weights_bytes, Npu(16 * 16 * 9 * 4));       // FRACTAL_Z: C_in 3 -> 16
  EXPECT_EQ(rep->weights_nd_bytes, 16 * 3 * 9 * 4);
  EXPECT_EQ(rep->lower_bound_bytes, Npu(3 * 8 * 8 * 4) + Npu(16 * 6 * 6 * 4));
  EXPECT_EQ(rep->total_bytes, rep->weights_bytes + rep->activation_peak_bytes + rep->workspace_bytes);
  // Without NPU layouts (torch_npu's default) nothing is padded or converted.
  InferenceOptions nd;
  nd.npu_layouts = false;
  auto plain = PlanInference(m.graph, *shapes, B2(), nd);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->workspace_bytes, 0);
  EXPECT_EQ(plain->weights_bytes, Npu(16 * 3 * 9 * 4));
}

TEST(InferenceTest, MatMulOperandsAreFractalNz) {
  ModelBuilder b;
  b.Input("x", {3, 20}).Output("y", {3, 5});
  b.FloatInitializer("w", {20, 5}, std::vector<float>(100, 1.0f));
  b.Node("MatMul", {"x", "w"}, {"y"});
  const ir::Model m = Load(b);
  auto shapes = StaticShapes(m.graph);
  ASSERT_TRUE(shapes.ok());
  auto lt = ComputeLifetimes(m.graph, *shapes, B2(), true);
  ASSERT_TRUE(lt.ok());
  ASSERT_EQ(lt->workspaces.size(), 1u);
  EXPECT_EQ(lt->workspaces[0].bytes, 16 * 32 * 4);  // x [3, 20] -> [16, 32]
  EXPECT_EQ(Named(*lt, m.graph, "y").layout, Layout::kFractalNzRows);  // 2-D weight: rows fold
  EXPECT_EQ(Named(*lt, m.graph, "y").bytes, 16 * 16 * 4);  // y [3, 5] -> [16, 16]
  ASSERT_EQ(lt->weights.size(), 1u);
  EXPECT_EQ(lt->weights[0].device_bytes, 32 * 16 * 4);  // w [20, 5] -> [32, 16]
}

TEST(InferenceTest, UnknownPlannerIsAnError) {
  ModelBuilder b;
  b.Input("x", {2, 2}).Output("y", {2, 2}).Node("Relu", {"x"}, {"y"});
  const ir::Model m = Load(b);
  InferenceOptions o;
  o.planner = "best";
  auto rep = PlanInference(m.graph, *StaticShapes(m.graph), B2(), o);
  ASSERT_FALSE(rep.ok());
  EXPECT_NE(rep.status().message().find("'best'"), std::string::npos);
}

TEST(BatchScalingTest, RebindsProportionalDimsAndRejectsOthers) {
  ModelBuilder b;
  b.Input("x", {-1, 4}).Output("y", {-1, 4}).Node("Relu", {"x"}, {"y"});
  const auto s2 = *StaticShapes(Load(b, 2).graph);
  const auto s3 = *StaticShapes(Load(b, 3).graph);
  auto scaling = BatchScaling::Derive(s2, 2, s3, 3);
  ASSERT_TRUE(scaling.ok()) << scaling.status().message();
  EXPECT_TRUE(scaling->depends_on_batch());
  auto s7 = scaling->At(7);
  ASSERT_TRUE(s7.ok());
  EXPECT_EQ(*(*s7)[static_cast<size_t>(Load(b, 2).graph.FindValue("y"))], (ir::Shape{7, 4}));
  EXPECT_FALSE(scaling->At(0).ok());
  // A dim that is 5 at batch 2 and 6 at batch 3 (batch + 3) does not scale.
  ShapeMap a = {ir::Shape{5}}, c = {ir::Shape{6}};
  auto bad = BatchScaling::Derive(a, 2, c, 3);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("not proportional"), std::string::npos);
  // A fixed-batch model does not depend on the batch.
  auto fixed = BatchScaling::Derive(s2, 2, s2, 4);
  ASSERT_TRUE(fixed.ok());
  EXPECT_FALSE(fixed->depends_on_batch());
}

}  // namespace
}  // namespace npugap::analysis::memory
