// Per-node verdicts: the op table's support column against target profiles.
#include <gtest/gtest.h>

#include "compat_test_util.h"
#include "npugap/exec/op_table.h"

namespace npugap::compat {
namespace {

using testing::Check;
using testing::Import;
using testing::ModelBuilder;
using testing::NodeNamed;

// The support column is part of the op table: no kernel without a rule, no rule without a basis.
TEST(SupportTableTest, EveryOpTableRowHasASupportRuleWithABasis) {
  const auto& rows = exec::OpTable::Default().rows();
  ASSERT_FALSE(rows.empty());
  for (const exec::OpRow& row : rows) {
    ASSERT_NE(row.support, nullptr) << row.op_type;
    EXPECT_FALSE(row.support->basis.empty()) << row.op_type;
    // A rule that checks dtypes must leave fp64 to the AI CPU (no double on the vector unit).
    if (row.support->dtype_from != exec::DTypeFrom::kAny) {
      EXPECT_FALSE(exec::Contains(row.support->aicore, ir::DType::kFloat64)) << row.op_type;
    }
  }
}

ModelBuilder Unary(const std::string& op, int elem, int64_t opset = 13) {
  ModelBuilder b(opset);
  b.Input("x", {2, 3}, elem).Output("y", {2, 3}, elem).Node(op, {"x"}, {"y"}, "n");
  return b;
}

TEST(SupportTest, Float32ReluIsAiCoreAndClean) {
  const CheckResult r = Check(Import(Unary("Relu", onnx::TensorProto::FLOAT)));
  ASSERT_EQ(r.nodes.size(), 1u);
  EXPECT_EQ(r.nodes[0].verdict, Verdict::kAiCore);
  EXPECT_EQ(r.summary.aicore, 1);
  EXPECT_TRUE(r.deployable);
  EXPECT_TRUE(r.clean);
  EXPECT_EQ(r.soc_version, "Ascend910B2");
  EXPECT_EQ(r.precision_mode_v2, "fp16");
}

TEST(SupportTest, Float64FallsBackToAiCpu) {
  const CheckResult r = Check(Import(Unary("Relu", onnx::TensorProto::DOUBLE)));
  const NodeResult n = NodeNamed(r, "n");
  EXPECT_EQ(n.verdict, Verdict::kAiCpu);
  EXPECT_NE(n.reason.find("float64"), std::string::npos) << n.reason;
  EXPECT_EQ(n.error, AtcError::kNone);
  EXPECT_EQ(r.summary.aicpu, 1);
  EXPECT_TRUE(r.deployable);
  EXPECT_FALSE(r.clean);
}

TEST(SupportTest, CastToFloat64IsJudgedByItsOutput) {
  ModelBuilder b;
  b.Input("x", {2}).Output("y", {2}, onnx::TensorProto::DOUBLE).Node("Cast", {"x"}, {"y"}, "cast");
  auto* a = testing::LastNode(b)->add_attribute();
  a->set_name("to");
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(onnx::TensorProto::DOUBLE);
  EXPECT_EQ(NodeNamed(Check(Import(b)), "cast").verdict, Verdict::kAiCpu);
}

TEST(SupportTest, Bfloat16DependsOnTheTargetsVectorFormats) {
  const ir::Model m = Import(Unary("Relu", onnx::TensorProto::BFLOAT16));
  EXPECT_EQ(NodeNamed(Check(m, "ascend910b2"), "n").verdict, Verdict::kAiCore);
  // The 910 (910A) vector unit has no bf16 and the AI CPU kernel takes fp16/fp32/fp64 only.
  const NodeResult n = NodeNamed(Check(m, "ascend910"), "n");
  EXPECT_EQ(n.verdict, Verdict::kUnsupported);
  EXPECT_EQ(n.error, AtcError::kEZ3002);
}

TEST(SupportTest, Fp32MatMulUnderOriginNeedsAnFp32Cube) {
  ModelBuilder b;
  b.Input("a", {4, 8}).Input("b", {8, 2}).Output("y", {4, 2}).Node("MatMul", {"a", "b"}, {"y"}, "mm");
  const ir::Model m = Import(b);
  // Default precision mode (fp16) lowers fp32 to fp16: AI Core everywhere.
  EXPECT_EQ(NodeNamed(Check(m, "ascend310p3"), "mm").verdict, Verdict::kAiCore);
  CheckOptions origin;
  origin.precision_mode_v2 = "origin";
  // 310P's cube takes fp16/int8 only: fp32 kept as is falls back to AI CPU (ascend-facts §3.1).
  EXPECT_EQ(NodeNamed(Check(m, "ascend310p3", origin), "mm").verdict, Verdict::kAiCpu);
  EXPECT_EQ(NodeNamed(Check(m, "ascend910b2", origin), "mm").verdict, Verdict::kAiCore);
}

TEST(SupportTest, UnknownDomainIsUnsupportedUnlessAPluginIsDeclared) {
  ModelBuilder b;
  b.Opset("my.ops", 1);
  b.Input("x", {2}).Output("y", {2}).Node("Fancy", {"x"}, {"y"}, "fancy", "my.ops");
  const ir::Model m = Import(b);
  const CheckResult r = Check(m);
  const NodeResult n = NodeNamed(r, "fancy");
  EXPECT_EQ(n.verdict, Verdict::kUnsupported);
  // ATC's parser registers ai.onnx only: "No parser is registered" (ascend-facts §3.6).
  EXPECT_EQ(n.error, AtcError::kE19010);
  EXPECT_FALSE(r.deployable);
  CheckOptions plugin;
  plugin.plugin_domains = {"my.ops"};
  EXPECT_EQ(NodeNamed(Check(m, "ascend910b2", plugin), "fancy").verdict, Verdict::kAiCore);
}

TEST(SupportTest, OpWithoutAtcKernelIsEz3003) {
  ModelBuilder b(17);
  b.Input("x", {1, 16, 2}).Output("y", {1, 16, 2}).Node("DFT", {"x"}, {"y"}, "dft");
  const NodeResult n = NodeNamed(Check(Import(b)), "dft");
  EXPECT_EQ(n.verdict, Verdict::kUnsupported);
  EXPECT_EQ(n.error, AtcError::kEZ3003);
}

TEST(SupportTest, OpsetOutsideAtcRangeIsE19010OnEveryNode) {
  const ir::Model old = Import(Unary("Relu", onnx::TensorProto::FLOAT, 8));
  const CheckResult r = Check(old);
  EXPECT_EQ(NodeNamed(r, "n").error, AtcError::kE19010);
  EXPECT_NE(r.opset_error.find("9..18"), std::string::npos) << r.opset_error;
  EXPECT_FALSE(r.deployable);
  // npugap cannot import opset 19 (libonnx 1.12), so the IR is edited: the check is about the IR.
  ir::Model newer = Import(Unary("Relu", onnx::TensorProto::FLOAT, 17));
  newer.opsets[""] = 19;
  const CheckResult r19 = Check(newer);
  EXPECT_EQ(NodeNamed(r19, "n").verdict, Verdict::kUnsupported);
  EXPECT_EQ(NodeNamed(r19, "n").error, AtcError::kE19010);
  newer.opsets[""] = 18;
  EXPECT_TRUE(Check(newer).opset_error.empty());
}

TEST(SupportTest, ConvDilationBeyondTheKernelLimitIsUnsupported) {
  ModelBuilder b;
  b.Input("x", {1, 1, 600, 600}).Output("y", {-1, -1, -1, -1});
  b.FloatInitializer("w", {1, 1, 3, 3}, std::vector<float>(9, 1.0f));
  b.Node("Conv", {"x", "w"}, {"y"}, "conv");
  testing::IntsAttr(testing::LastNode(b), "dilations", {256, 1});
  testing::IntsAttr(testing::LastNode(b), "kernel_shape", {3, 3});
  const NodeResult n = NodeNamed(Check(Import(b)), "conv");
  EXPECT_EQ(n.verdict, Verdict::kUnsupported);
  EXPECT_EQ(n.error, AtcError::kEZ3003);
  EXPECT_NE(n.reason.find("dilation 256"), std::string::npos) << n.reason;
}

ModelBuilder ResizeModel(int elem, const std::string& mode) {
  ModelBuilder b;
  b.Input("x", {1, 1, 4, 4}, elem).Output("y", {1, 1, 8, 8}, elem);
  b.FloatInitializer("scales", {4}, {1, 1, 2, 2});
  b.Node("Resize", {"x", "", "scales"}, {"y"}, "resize");
  testing::StringAttr(testing::LastNode(b), "mode", mode);
  return b;
}

TEST(SupportTest, ResizeModesAndDtypes) {
  EXPECT_EQ(NodeNamed(Check(Import(ResizeModel(onnx::TensorProto::FLOAT, "linear"))), "resize").verdict,
            Verdict::kAiCore);
  EXPECT_EQ(NodeNamed(Check(Import(ResizeModel(onnx::TensorProto::FLOAT, "cubic"))), "resize").verdict,
            Verdict::kAiCpu);
  // ascend-facts §3.6: uint8 into ResizeBilinearV2 is rejected by AI Core and AI CPU alike.
  const NodeResult u8 = NodeNamed(Check(Import(ResizeModel(onnx::TensorProto::UINT8, "linear"))), "resize");
  EXPECT_EQ(u8.verdict, Verdict::kUnsupported);
  EXPECT_EQ(u8.error, AtcError::kEZ3002);
}

TEST(SupportTest, TargetWithoutAtcIsAnError) {
  auto r = CheckModel(Import(Unary("Relu", onnx::TensorProto::FLOAT)), testing::Target("cpu-dev"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("cpu-dev"), std::string::npos);
}

}  // namespace
}  // namespace npugap::compat
