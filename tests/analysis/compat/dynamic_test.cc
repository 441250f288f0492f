// Dynamic-shape findings: one model per case the issue names, each finding with its fix.
#include <gtest/gtest.h>

#include "compat_test_util.h"

namespace npugap::compat {
namespace {

using testing::Check;
using testing::Import;
using testing::ModelBuilder;

std::vector<Finding> OfKind(const CheckResult& r, FindingKind kind) {
  std::vector<Finding> out;
  for (const Finding& f : r.dynamic) {
    if (f.kind == kind) out.push_back(f);
  }
  return out;
}

// x[N, 3, 4] -> Shape -> Gather(0) -> Concat([n, 12]) -> Reshape(x): the torch.flatten pattern.
ModelBuilder ShapeChainModel() {
  ModelBuilder b;
  b.Input("x", {-1, 3, 4}).Output("y", {-1, 12});
  testing::Int64Initializer(b, "zero", {0});
  testing::Int64Initializer(b, "twelve", {12});
  b.Node("Shape", {"x"}, {"s"}, "shape");
  b.Node("Gather", {"s", "zero"}, {"n"}, "gather");
  b.Node("Concat", {"n", "twelve"}, {"target"}, "concat");
  auto* axis = testing::LastNode(b)->add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  b.Node("Reshape", {"x", "target"}, {"y"}, "reshape");
  return b;
}

TEST(DynamicTest, SymbolicBatchSuggestsBindingOrGears) {
  ModelBuilder b;
  b.Input("x", {-1, 3}).Output("y", {-1, 3}).Node("Relu", {"x"}, {"y"}, "relu");
  const CheckResult r = Check(Import(b));
  const auto inputs = OfKind(r, FindingKind::kSymbolicInput);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_TRUE(inputs[0].blocking);
  EXPECT_EQ(inputs[0].subject, "x");
  EXPECT_NE(inputs[0].fix.find("--dynamic_batch_size=\"1,8,32\""), std::string::npos) << inputs[0].fix;
  EXPECT_NE(inputs[0].fix.find("x:-1,3"), std::string::npos) << inputs[0].fix;
  EXPECT_FALSE(r.deployable);

  onnx_import::ImportOptions bound;
  bound.batch = 8;
  const CheckResult rb = Check(Import(b, bound));
  EXPECT_TRUE(rb.dynamic.empty());
  EXPECT_TRUE(rb.clean);
}

TEST(DynamicTest, NonLeadingSymbolicDimSuggestsDynamicDims) {
  ModelBuilder b;
  b.Input("x", {1, -1}, onnx::TensorProto::FLOAT, "seq")
      .Output("y", {1, -1})
      .Node("Relu", {"x"}, {"y"}, "relu");
  const auto inputs = OfKind(Check(Import(b)), FindingKind::kSymbolicInput);
  ASSERT_EQ(inputs.size(), 1u);
  EXPECT_NE(inputs[0].fix.find("--dynamic_dims"), std::string::npos) << inputs[0].fix;
}

TEST(DynamicTest, ShapeChainBlocksUntilInputsAreBoundThenFolds) {
  const CheckResult unbound = Check(Import(ShapeChainModel()));
  auto chains = OfKind(unbound, FindingKind::kShapeSubgraph);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_TRUE(chains[0].blocking);
  EXPECT_EQ(chains[0].subject, "reshape");
  EXPECT_EQ(chains[0].nodes, (std::vector<std::string>{"shape", "gather", "concat"}));

  onnx_import::ImportOptions bound;
  bound.batch = 2;
  const CheckResult r = Check(Import(ShapeChainModel(), bound));
  chains = OfKind(r, FindingKind::kShapeSubgraph);
  ASSERT_EQ(chains.size(), 1u);
  EXPECT_FALSE(chains[0].blocking);
  EXPECT_NE(chains[0].fix.find("--write-static"), std::string::npos);
  EXPECT_TRUE(r.deployable);
  EXPECT_FALSE(r.clean);
}

TEST(DynamicTest, NonZeroHasADataDependentShape) {
  ModelBuilder b;
  b.Input("x", {4}).Output("y", {1, -1}, onnx::TensorProto::INT64).Node("NonZero", {"x"}, {"y"}, "nz");
  const CheckResult r = Check(Import(b));
  const auto found = OfKind(r, FindingKind::kDataDependentShape);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "nz");
  EXPECT_NE(found[0].fix.find("replace"), std::string::npos);
  EXPECT_EQ(testing::NodeNamed(r, "nz").verdict, Verdict::kAiCpu);
  EXPECT_FALSE(r.deployable);
}

TEST(DynamicTest, TopKWithRuntimeKButNotWithConstantK) {
  ModelBuilder runtime;
  runtime.Input("x", {8})
      .Input("k", {1}, onnx::TensorProto::INT64)
      .Output("v", {-1})
      .Output("i", {-1}, onnx::TensorProto::INT64);
  runtime.Node("TopK", {"x", "k"}, {"v", "i"}, "topk");
  const auto found = OfKind(Check(Import(runtime)), FindingKind::kDataDependentShape);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("constant"), std::string::npos);

  ModelBuilder constant;
  constant.Input("x", {8}).Output("v", {3}).Output("i", {3}, onnx::TensorProto::INT64);
  testing::Int64Initializer(constant, "k", {3});
  constant.Node("TopK", {"x", "k"}, {"v", "i"}, "topk");
  EXPECT_TRUE(OfKind(Check(Import(constant)), FindingKind::kDataDependentShape).empty());
}

TEST(DynamicTest, ResizeWithComputedSizesAndRangeWithRuntimeBounds) {
  ModelBuilder resize;
  resize.Input("x", {1, 1, 4, 4}).Input("sizes", {4}, onnx::TensorProto::INT64).Output("y", {-1, -1, -1, -1});
  resize.Node("Resize", {"x", "", "", "sizes"}, {"y"}, "resize");
  auto found = OfKind(Check(Import(resize)), FindingKind::kDataDependentShape);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "resize");

  ModelBuilder range;
  range.Input("limit", {}, onnx::TensorProto::FLOAT).Output("y", {-1});
  range.FloatInitializer("start", {}, {0}).FloatInitializer("delta", {}, {1});
  range.Node("Range", {"start", "limit", "delta"}, {"y"}, "range");
  found = OfKind(Check(Import(range)), FindingKind::kDataDependentShape);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "range");
}

TEST(DynamicTest, IfIsControlFlow) {
  ModelBuilder b;
  b.Input("cond", {}, onnx::TensorProto::BOOL).Input("x", {2}).Output("y", {2});
  b.Node("If", {"cond"}, {"y"}, "if");
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto* a = testing::LastNode(b)->add_attribute();
    a->set_name(branch);
    a->set_type(onnx::AttributeProto::GRAPH);
    onnx::GraphProto* g = a->mutable_g();
    g->set_name(branch);
    auto* n = g->add_node();
    n->set_op_type(std::string(branch) == "then_branch" ? "Relu" : "Neg");
    n->add_input("x");
    n->add_output(std::string(branch) + "_out");
    auto* out = g->add_output();
    out->set_name(std::string(branch) + "_out");
    out->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    out->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(2);
  }
  const CheckResult r = Check(Import(b));
  const auto found = OfKind(r, FindingKind::kControlFlow);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].subject, "if");
  EXPECT_TRUE(found[0].blocking);
  EXPECT_FALSE(r.deployable);
}

}  // namespace
}  // namespace npugap::compat
